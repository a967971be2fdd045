"""`hash()` in compiled code, equal to CPython's for every key type a dict takes, so a dict
made by kiln orders and finds keys as CPython's would.

One overload of the builtin `hash` is the hook: a new key type adds a branch here, and
dicts (library/dicts.py) need nothing else. Strings are the exception to "equal to
CPython's": theirs is FNV-1a (library/strings.py), as CPython's is randomized per process.
The algorithms follow CPython's C code (Python/pyhash.c, Objects/longobject.c,
Objects/complexobject.c, Objects/tupleobject.c): integers and floats reduce modulo the
Mersenne prime 2**61 - 1 (so hash(2) == hash(2.0)), -1 becomes -2, a complex combines its
parts' hashes, and tuples mix their items' hashes with xxHash's primes. A NaN hashes to a
new number each time (`_nan_hash`): CPython hashes it by object identity, which compiled
values do not have.
"""
from __future__ import annotations

import math

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import intrinsic, overload, overload_method, register_jitable
from .string_hash import string_hash
from .strings import is_string

_BITS = 61
_MODULUS = (1 << _BITS) - 1
_INF = 314159
_IMAG = 1000003   # a complex's hash: its real part's plus this times its imaginary part's
# xxHash's primes as int64 (the same bits as CPython's unsigned constants)
_PRIME_1 = 11400714785074694791 - (1 << 64)
_PRIME_2 = 14029467366897019727 - (1 << 64)
_PRIME_5 = 2870177450012600261


@register_jitable
def _hash_int64(x):
    if 0 <= x < _MODULUS:   # most ints hash to themselves: no 64-bit division
        return x
    if x >= 0:
        h = x % _MODULUS
    else:   # -(|x| mod P), with |x| computed without overflowing at -2**63
        h = -(((-(x + 1)) % _MODULUS + 1) % _MODULUS)
    return -2 if h == -1 else h


@register_jitable
def _hash_uint64(x):
    bits = np.int64(x)
    if bits >= 0:
        return _hash_int64(bits)
    return (8 + bits % _MODULUS) % _MODULUS   # x == 2**64 + bits, and 2**64 % P == 8


@intrinsic
def _nan_hash(tctx):
    """A NaN's hash: CPython (3.10+) hashes a NaN by its object's identity, so that many NaN
    keys do not all collide in one slot of a dict; compiled values have no identity, so
    each NaN hashed gets the next number of a counter (one per module, started at its
    address), mixed by SplitMix64's finalizer and reduced below 2**61 - 1."""
    def codegen(context, b, sig, args):
        module = b.module
        counter = module.globals.get("kiln.nan_hashes")
        if counter is None:
            counter = ir.GlobalVariable(module, dm.i64, name="kiln.nan_hashes")
            counter.linkage = "internal"
            counter.initializer = ir.Constant(dm.i64, 0)
        x = b.add(b.atomic_rmw("add", counter, ir.Constant(dm.i64, 1), "monotonic"),
                  b.ptrtoint(counter, dm.i64))
        for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            x = b.mul(b.xor(x, b.lshr(x, ir.Constant(dm.i64, shift))),
                      ir.Constant(dm.i64, factor))
        x = b.xor(x, b.lshr(x, ir.Constant(dm.i64, 31)))
        return b.lshr(x, ir.Constant(dm.i64, 64 - _BITS + 1))   # below 2**60: never -1
    return t.int64(), codegen


@register_jitable
def _hash_float(v):
    if not math.isfinite(v):
        if math.isinf(v):
            return _INF if v > 0 else -_INF
        return _nan_hash()
    m, e = math.frexp(v)
    sign = 1
    if m < 0:
        sign = -1
        m = -m
    x = 0
    while m:   # 28 bits of the mantissa at a time, rotated in modulo P
        x = ((x << 28) & _MODULUS) | (x >> (_BITS - 28))
        m *= 268435456.0
        e -= 28
        y = int(m)
        m -= y
        x += y
        if x >= _MODULUS:
            x -= _MODULUS
    e = e % _BITS if e >= 0 else _BITS - 1 - ((-1 - e) % _BITS)
    x = ((x << e) & _MODULUS) | (x >> (_BITS - e))
    x = x * sign
    return -2 if x == -1 else x


@register_jitable
def _hash_complex(z):
    h = _hash_float(z.real) + _IMAG * _hash_float(z.imag)   # wraps, as C's unsigned sum
    return -2 if h == -1 else h


@register_jitable
def _mix(acc, lane):
    acc += lane * _PRIME_2
    acc = (acc << 31) | ((acc >> 33) & ((1 << 31) - 1))
    return acc * _PRIME_1


def _tuple_hasher(n):
    @register_jitable
    def finish(acc):
        acc += n ^ (_PRIME_5 ^ 3527539)
        return 1546275796 if acc == -1 else acc
    return finish


def hashable(ty) -> bool:
    """Whether values of `ty` can be dict keys."""
    if isinstance(ty, (t.Integer, t.Boolean, t.Float, t.Complex, t.UnicodeType,
                       t.StringLiteral)):
        return True
    return isinstance(ty, t.BaseTuple) and all(map(hashable, ty.types))


@overload(hash)
def _hash(value):
    if isinstance(value, t.Boolean):
        return lambda value: np.int64(1 if value else 0)
    if isinstance(value, t.Integer):
        if value.signed or value.bitwidth < 64:
            return lambda value: _hash_int64(np.int64(value))
        return lambda value: _hash_uint64(value)
    if isinstance(value, t.Float):
        return lambda value: _hash_float(np.float64(value))
    if isinstance(value, t.Complex):
        return lambda value: _hash_complex(np.complex128(value))
    if is_string(value):
        return lambda value: string_hash(value)
    if isinstance(value, t.BaseTuple) and hashable(value):
        finish = _tuple_hasher(len(value))

        def impl_tuple(value):
            acc = _PRIME_5
            for lane in _item_hashes(value):
                acc = _mix(acc, lane)
            return finish(acc)
        return impl_tuple
    if isinstance(value, _MUTABLE):   # Python's TypeError, when the call runs
        message = f"unhashable type: '{value}' (a mutable container)"

        def unhashable(value):
            raise TypeError(message)
            return np.int64(0)
        return unhashable
    if isinstance(value, (t.CharSeq, t.UnicodeCharSeq)):
        return None   # hashed as its text (library/charseq.py)
    raise TypingError(f"unhashable type: {value} (only numbers, strings and tuples of "
                      "them can be hashed in compiled code)")


_MUTABLE = (t.Array, t.List, t.ListType, t.LiteralList, t.DictType, t.Set)


@overload_method((t.Boolean, t.Integer, t.Float, t.Complex, t.UnicodeType, t.StringLiteral,
                  t.BaseTuple), "__hash__")
def _hash_method(value):
    """`x.__hash__()` (or `getattr(x, "__hash__")()`) of a hashable value is `hash(x)`."""
    if hashable(value):
        return lambda value: hash(value)
    return None


def _hash_of(x):
    return hash(x)


@intrinsic
def _item_hashes(tctx, tup):
    """The hashes of a tuple's items (of any types) as a tuple of int64."""
    if not isinstance(tup, t.BaseTuple):
        return None
    rt = t.UniTuple(t.int64, len(tup))

    def codegen(context, b, sig, args):
        return context.make_tuple(b, rt, [
            context.call_python(b, _hash_of, t.int64(item), [b.extract_value(args[0], i)])
            for i, item in enumerate(tup.types)])
    return rt(tup), codegen

"""Strings (`str`, `unicode_type`) in compiled code: the layout, the few primitives that
touch it in LLVM IR, and the string operations written in Python on top of them.

A string is a pointer to an NRT meminfo whose data is `{i64 length, i64 hash, i32 code
points[length]}`: every string stores UCS-4, which keeps indexing and slicing simple
(CPython's 1/2/4-byte kinds would save memory; a possible later optimization). `hash` is
-1 until `hash()` first computes it. Strings are immutable: an operation makes a new string
(`_str_new`, then `_str_set` of each code point before anyone else sees it). A string
constant of the code is a global meminfo with a count that never reaches zero, so using
one allocates nothing.
"""
from __future__ import annotations

import hashlib
import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import boxing
from ..codegen.context import register_constant
from ..codegen.ownership import meminfo_family
from ..runtime import nrt
from .list_layout import _slice_indices
from ..typing.registry import intrinsic, overload, register_jitable

HEADER = ir.LiteralStructType([dm.i64, dm.i64])   # length, hash; the code points follow
LENGTH, HASH = range(2)
HEADER_BYTES = 16
MAX_LENGTH = 1 << 59   # longer strings are a MemoryError before any size arithmetic
_STATIC_COUNT = 1 << 60   # a constant's count: never reaches zero
_INTLIKE = (t.Integer, t.Boolean)


def is_string(ty) -> bool:
    """Whether `ty` is a string (a run-time one or a constant of the code)."""
    return isinstance(ty, (t.UnicodeType, t.StringLiteral))


# ---- the layout in LLVM IR -------------------------------------------------------------------

def _field(b, s, index):
    return b.gep(nrt.meminfo_data(b, s), [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, index)],
                 source_etype=HEADER)


def length_of(b, s):
    return b.load(_field(b, s, LENGTH), typ=dm.i64)


def code_points(b, s):
    """The address of the first code point."""
    return b.gep(nrt.meminfo_data(b, s), [ir.Constant(dm.i64, HEADER_BYTES)],
                 source_etype=dm.i8)


def _code_point_address(b, s, i):
    return b.gep(code_points(b, s), [i], source_etype=dm.i32)


def fill_header(b, s, n):
    """The header of a new string of n code points: its length, and no hash yet."""
    b.store(n, _field(b, s, LENGTH))
    b.store(ir.Constant(dm.i64, -1), _field(b, s, HASH))


def new_string(context, b, n):
    """A new string of n code points (one reference; the code points are not set yet)."""
    too_long = b.icmp_unsigned(">", n, ir.Constant(dm.i64, MAX_LENGTH))
    context.guard(b, too_long, MemoryError, "cannot allocate a string")
    size = b.add(b.mul(n, ir.Constant(dm.i64, 4)), ir.Constant(dm.i64, HEADER_BYTES))
    s = nrt.emit_allocate(b, size)
    context.guard(b, b.icmp_unsigned("==", s, ir.Constant(dm.ptr, None)), MemoryError,
                  "cannot allocate a string")
    fill_header(b, s, n)
    return s


def constant_string(context, b, text: str):
    """The string constant `text`: a global meminfo of the module (borrowed; its count
    starts so high that increfs and decrefs never free it) whose data is a second global
    (one global pointing into itself is a cycle NVPTX cannot emit)."""
    module = context.module
    name = "kiln.str." + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
    gv = module.globals.get(name)
    if gv is None:
        points = [ord(c) for c in text]
        body = ir.LiteralStructType([HEADER, ir.ArrayType(dm.i32, len(points))])
        data = ir.GlobalVariable(module, body, name=name + ".data")
        data.linkage = "internal"
        data.initializer = ir.Constant(body, [
            ir.Constant(HEADER, [ir.Constant(dm.i64, len(points)), ir.Constant(dm.i64, -1)]),
            ir.Constant(ir.ArrayType(dm.i32, len(points)), points)])
        data.align = 16
        gv = ir.GlobalVariable(module, nrt.MEMINFO, name=name)
        gv.linkage = "internal"
        gv.initializer = ir.Constant(nrt.MEMINFO, [
            ir.Constant(dm.i64, _STATIC_COUNT), ir.Constant(dm.i64, 0),
            data.bitcast(dm.ptr), ir.Constant(dm.ptr, None)])
        gv.align = 16
    return gv


def string_iteration(context, b, s):
    """`for c in s`: each character as a new one-character string, held by the function
    (released when the next one replaces it, or at its exit), so the item is a borrow as
    a list's item is."""
    from .iteration import ONE, IndexIteration
    from ..codegen.ownership import decref
    held = context.hold_slot(t.unicode_type)

    def item(b, index):
        char = new_string(context, b, ir.Constant(dm.i64, 1))
        b.store(b.load(_code_point_address(b, s, index), typ=dm.i32),
                _code_point_address(b, char, ir.Constant(dm.i64, 0)))
        decref(b, t.unicode_type, b.load(held, typ=dm.ptr))
        b.store(char, held)
        return char
    return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                          lambda b, index: b.icmp_signed("<", index, length_of(b, s)), item,
                          t.unicode_type)


meminfo_family(t.UnicodeType)   # a string is its meminfo
register_constant(t.UnicodeType, lambda context, b, ty, text: constant_string(context, b, text))


# ---- crossing into Python ----------------------------------------------------------------

@boxing.unboxer(t.UnicodeType, copies=True)
def _unbox(unboxer, ty, obj):
    """A copy of a `str` as a kiln string (released by the entry point after the call)."""
    b, api = unboxer.b, unboxer.api
    unboxer.require(api.is_type(obj, api.global_object("PyUnicode_Type")))
    n = api.call("PyUnicode_GetLength", dm.i64, [obj])
    size = b.add(b.mul(n, ir.Constant(dm.i64, 4)), ir.Constant(dm.i64, HEADER_BYTES))
    s = nrt.emit_allocate(b, size)
    no_memory = unboxer.no_memory_block()
    made = b.append_basic_block("string")
    b.cbranch(b.icmp_unsigned("==", s, ir.Constant(dm.ptr, None)), no_memory, made)
    b.position_at_end(made)
    b.store(s, unboxer.copy_slot())
    fill_header(b, s, n)
    api.call("PyUnicode_AsUCS4", dm.ptr, [obj, code_points(b, s), n, ir.Constant(dm.i32, 0)])
    return s


@boxing.boxer(t.UnicodeType)
def _box(api, ty, value, fail):
    """A `str` copied from the code points (UCS-4 is a kind CPython takes as it is)."""
    b = api.builder
    result = api.call("PyUnicode_FromKindAndData", dm.ptr,
                      [ir.Constant(dm.i32, 4), code_points(b, value), length_of(b, value)])
    nrt.emit_decref(b, value)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    return result


# ---- primitives --------------------------------------------------------------------------

def _new_reference(codegen):
    codegen.new_reference = True
    return codegen


@intrinsic
def _str_new(tctx, n):
    """A new string of n code points, to be filled by `_str_set` before it is used."""
    if not isinstance(n, t.Integer):
        return None
    return t.unicode_type(t.int64), _new_reference(
        lambda context, b, sig, args: new_string(context, b, args[0]))


@intrinsic
def _str_len(tctx, s):
    if not isinstance(s, t.UnicodeType):
        return None
    return t.int64(s), lambda context, b, sig, args: length_of(b, args[0])


@intrinsic
def _str_get(tctx, s, i):
    """The code point at i (no bounds check)."""
    if not isinstance(s, t.UnicodeType):
        return None

    def codegen(context, b, sig, args):
        return b.zext(b.load(_code_point_address(b, args[0], args[1]), typ=dm.i32), dm.i64)
    return t.int64(s, t.int64), codegen


@intrinsic
def _str_set(tctx, s, i, point):
    """Store the code point at i of a string being built (no bounds check)."""
    if not isinstance(s, t.UnicodeType):
        return None

    def codegen(context, b, sig, args):
        b.store(b.trunc(args[2], dm.i32), _code_point_address(b, args[0], args[1]))
        return dm.null_value(t.none)
    return t.none(s, t.int64, t.int64), codegen


@intrinsic
def _str_copy(tctx, dst, at, src, start, n):
    """Copy n code points of src from `start` to dst (being built) at `at`."""
    if not (isinstance(dst, t.UnicodeType) and isinstance(src, t.UnicodeType)):
        return None

    def codegen(context, b, sig, args):
        dst, at, src, start, n = args
        memcpy = context.module.declare_intrinsic("llvm.memcpy", [dm.ptr, dm.ptr, dm.i64])
        b.call(memcpy, [_code_point_address(b, dst, at), _code_point_address(b, src, start),
                        b.mul(n, ir.Constant(dm.i64, 4)), ir.Constant(dm.i1, 0)])
        return dm.null_value(t.none)
    return t.none(dst, t.int64, src, t.int64, t.int64), codegen


@intrinsic
def _str_new_with_room(tctx, n, room):
    """A new string of n code points with room for `room` (>= n) before it must move."""
    if not (isinstance(n, t.Integer) and isinstance(room, t.Integer)):
        return None

    def codegen(context, b, sig, args):
        s = new_string(context, b, args[1])
        fill_header(b, s, args[0])
        return s
    return t.unicode_type(t.int64, t.int64), _new_reference(codegen)


@intrinsic
def _str_spare(tctx, s):
    """The code points that fit past the end of s if only the caller's reference holds it
    (its one count: a local being rebound by `+=`), else -1: no one else can see it grow.
    A string's meminfo records the bytes allocated for it (header and code points)."""
    if not isinstance(s, t.UnicodeType):
        return None

    def codegen(context, b, sig, args):
        meminfo = args[0]
        field = lambda i: b.gep(meminfo, [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, i)],
                                source_etype=nrt.MEMINFO)
        count = b.load(field(nrt.MEMINFO_REFCOUNT), typ=dm.i64)
        room = b.lshr(b.sub(b.load(field(nrt.MEMINFO_SIZE), typ=dm.i64),
                            ir.Constant(dm.i64, HEADER_BYTES)), ir.Constant(dm.i64, 2))
        return b.select(b.icmp_unsigned("==", count, ir.Constant(dm.i64, 1)),
                        b.sub(room, length_of(b, meminfo)), ir.Constant(dm.i64, -1))
    return t.int64(s), codegen


@intrinsic
def _str_grow(tctx, s, n):
    """Set the length of a string grown in place (its code points written), and forget its
    hash."""
    if not isinstance(s, t.UnicodeType):
        return None

    def codegen(context, b, sig, args):
        fill_header(b, args[0], args[1])
        return dm.null_value(t.none)
    return t.none(s, t.int64), codegen


@intrinsic
def _str_cached_hash(tctx, s):
    if not isinstance(s, t.UnicodeType):
        return None
    return t.int64(s), lambda context, b, sig, args: b.load(_field(b, args[0], HASH), typ=dm.i64)


@intrinsic
def _str_cache_hash(tctx, s, h):
    if not isinstance(s, t.UnicodeType):
        return None

    def codegen(context, b, sig, args):
        b.store(args[1], _field(b, args[0], HASH))
        return dm.null_value(t.none)
    return t.none(s, t.int64), codegen


# ---- helpers in Python -------------------------------------------------------------------

@register_jitable
def _substring(s, start, n):
    result = _str_new(n)
    _str_copy(result, 0, s, start, n)
    return result


@register_jitable
def _matches_at(s, sub, at):
    """Whether `sub` occurs in `s` at index `at`."""
    m = _str_len(sub)
    if at < 0 or at + m > _str_len(s):
        return False
    for k in range(m):
        if _str_get(s, at + k) != _str_get(sub, k):
            return False
    return True


@register_jitable
def _find(s, sub, start, end):
    """The first index in [start, end) where `sub` starts, or -1 (naive search)."""
    for i in range(start, end - _str_len(sub) + 1):
        if _matches_at(s, sub, i):
            return i
    return -1


@register_jitable
def _compare(a, b):
    """-1, 0 or 1 as a < b, a == b, a > b (code point by code point, as CPython)."""
    n, m = _str_len(a), _str_len(b)
    for k in range(min(n, m)):
        x, y = _str_get(a, k), _str_get(b, k)
        if x != y:
            return -1 if x < y else 1
    return -1 if n < m else (1 if n > m else 0)


@register_jitable
def _equal(a, b):
    n = _str_len(a)
    if n != _str_len(b):
        return False
    for k in range(n):
        if _str_get(a, k) != _str_get(b, k):
            return False
    return True


# ---- operations --------------------------------------------------------------------------

def _both(a, b):
    return is_string(a) and is_string(b)


@overload(len)
def _len(s):
    if is_string(s):
        return lambda s: _str_len(s)
    return None


def _truth(s):
    if is_string(s):
        return lambda s: _str_len(s) != 0
    return None


overload(operator.truth)(_truth)
overload(bool)(_truth)


@overload(operator.getitem)
def _getitem(s, index):
    if not is_string(s):
        return None
    if isinstance(index, _INTLIKE):
        def impl(s, index):
            n = _str_len(s)
            i = index + 0
            if i < 0:
                i += n
            if i < 0 or i >= n:
                raise IndexError("string index out of range")
            return _substring(s, i, 1)
        return impl
    if isinstance(index, t.SliceType):
        def impl_slice(s, index):
            start, step, count = _slice_indices(index, _str_len(s))
            if step == 1:
                return _substring(s, start, count)
            result = _str_new(count)
            for k in range(count):
                _str_set(result, k, _str_get(s, start + k * step))
            return result
        return impl_slice
    return None


_NEVER_EQUAL = (t.Integer, t.Float, t.Complex, t.Boolean, t.NoneType)


def _equality(negate):
    """`==` of two strings; a string and a number (or None) are never equal, as in Python,
    where neither type's __eq__ knows the other."""
    def ov(a, b):
        if _both(a, b):
            return lambda a, b: _equal(a, b) != negate
        if is_string(a) and isinstance(b, _NEVER_EQUAL) or \
                is_string(b) and isinstance(a, _NEVER_EQUAL):
            return lambda a, b: negate
        return None
    return ov


overload(operator.eq)(_equality(False))
overload(operator.ne)(_equality(True))


def _ordering(op):
    def ov(a, b):
        if _both(a, b):
            return lambda a, b: op(_compare(a, b), 0)
        return None
    return ov


for _op in (operator.lt, operator.le, operator.gt, operator.ge):
    overload(_op)(_ordering(_op))


@overload(operator.add)
def _add(a, b):
    if _both(a, b):
        def impl(a, b):
            n, m = _str_len(a), _str_len(b)
            result = _str_new(n + m)
            _str_copy(result, 0, a, 0, n)
            _str_copy(result, n, b, 0, m)
            return result
        return impl
    return None


@overload(operator.iadd)
def _iadd(a, b):
    """`s += x` without a quadratic copy: a string only the target holds grows in place
    while it has room, and the string that replaces it when it runs out has room to double
    (as CPython's `+=` reallocates its string when it holds the only reference)."""
    if not (isinstance(a, t.UnicodeType) and is_string(b)):
        return None

    def impl(a, b):
        n, m = _str_len(a), _str_len(b)
        spare = _str_spare(a)
        if spare >= m:
            _str_copy(a, n, b, 0, m)
            _str_grow(a, n + m)
            return a
        if spare >= 0 and n + m < MAX_LENGTH // 2:
            result = _str_new_with_room(n + m, 2 * (n + m))
        else:
            result = _str_new(n + m)
        _str_copy(result, 0, a, 0, n)
        _str_copy(result, n, b, 0, m)
        return result
    return impl


@register_jitable
def _repeat(s, times):
    n = _str_len(s)
    if times <= 0 or n == 0:
        return _str_new(0)
    if times > MAX_LENGTH // n:   # checked before the product can overflow
        raise MemoryError("repeated string is too long")
    result = _str_new(n * times)
    for k in range(times):
        _str_copy(result, k * n, s, 0, n)
    return result


@overload(operator.mul)
def _mul(a, b):
    if is_string(a) and isinstance(b, _INTLIKE):
        return lambda a, b: _repeat(a, b + 0)
    if is_string(b) and isinstance(a, _INTLIKE):
        return lambda a, b: _repeat(b, a + 0)
    return None


@overload(operator.contains)
def _contains(s, sub):
    if _both(s, sub):
        return lambda s, sub: _find(s, sub, 0, _str_len(s)) >= 0
    return None

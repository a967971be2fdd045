"""Tuples in compiled code: indexing (a constant index for mixed tuples, any integer for
uniform ones), equality and ordering, membership and concatenation."""
from __future__ import annotations

import operator
from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing import families
from ..typing.unroll import literal_unroll
from ..typing.registry import Resolution, overload, overload_method, template


@families.answers("static_getitem")
def static_getitem(tuple_ty, index: int) -> Resolution:
    """`tup[k]` with k known at compile time: any tuple (or literal list), the item's own
    type."""
    n = len(tuple_ty)
    if not -n <= index < n:
        kind = "list" if isinstance(tuple_ty, t.LiteralList) else "tuple"
        raise TypingError(f"{kind} index {index} is out of range for {tuple_ty}")
    index %= n
    item = tuple_ty.types[index]
    return Resolution(item(tuple_ty, t.int64), lambda context, builder, sig, args:
                      builder.extract_value(args[0], index))


@families.answers("static_getslice")
def static_getslice(tuple_ty, slice_ty, bounds: slice) -> Resolution:
    """`tup[a:b:c]` with constant bounds: the tuple of those items."""
    picked = range(len(tuple_ty))[bounds]
    result = t.tuple_of(tuple_ty.types[i] for i in picked)
    return Resolution(result(tuple_ty, slice_ty), lambda context, builder, sig, args:
                      context.make_tuple(builder, result, [builder.extract_value(args[0], i)
                                                           for i in picked]))


@template(operator.getitem)
def _getitem(tctx, tup, index):
    if not isinstance(tup, t.UniTuple) or not isinstance(index, (t.Integer, t.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        value, i = args
        slot = context.alloca(builder, dm.value_type(tup))
        builder.store(value, slot)
        count = ir.Constant(dm.i64, tup.count)
        i = builder.select(builder.icmp_signed("<", i, ir.Constant(dm.i64, 0)),
                           builder.add(i, count), i)
        context.guard(builder, builder.icmp_unsigned(">=", i, count), IndexError,
                      "tuple index out of range")
        address = builder.gep(slot, [ir.Constant(dm.i64, 0), i], source_etype=slot.allocated_type)
        return builder.load(address, typ=dm.value_type(tup.dtype))
    return tup.dtype(tup, t.int64), codegen


def _itemwise(tctx, op, a, b):
    if not (isinstance(a, t.BaseTuple) and isinstance(b, t.BaseTuple)) or len(a) != len(b):
        return None
    resolutions = [tctx.resolve(op, (x, y)) for x, y in zip(a.types, b.types)]
    return None if any(r is None for r in resolutions) else resolutions


def _compare(context, builder, res, x, tx, y, ty):
    """One item comparison through its resolution, as an i1."""
    x = context.cast(builder, x, tx, res.signature.args[0])
    y = context.cast(builder, y, ty, res.signature.args[1])
    value = res.lower(context, builder, res.signature, [x, y])
    return context.cast(builder, value, res.signature.return_type, t.boolean)


def _call_items(context, builder, resolutions, a, b, ta, tb):
    return [_compare(context, builder, res, builder.extract_value(a, i), ta.types[i],
                     builder.extract_value(b, i), tb.types[i])
            for i, res in enumerate(resolutions)]


@template(operator.eq)
def _eq(tctx, a, b):
    if isinstance(a, t.BaseTuple) and isinstance(b, t.BaseTuple) and len(a) != len(b):
        return t.boolean(a, b), lambda context, builder, sig, args: ir.Constant(dm.i1, 0)
    resolutions = _itemwise(tctx, operator.eq, a, b)
    if resolutions is None:
        return None

    def codegen(context, builder, sig, args):
        result = ir.Constant(dm.i1, 1)
        for r in _call_items(context, builder, resolutions, args[0], args[1], a, b):
            result = builder.and_(result, r)
        return result
    return t.boolean(a, b), codegen


@template(operator.ne)
def _ne(tctx, a, b):
    found = _eq(tctx, a, b)
    if found is None:
        return None
    sig, eq_codegen = found
    return sig, lambda context, builder, sig, args: builder.not_(eq_codegen(context, builder,
                                                                            sig, args))


def _ordering(op):
    """`<`, `<=`, `>`, `>=` of tuples, as Python: the first items that are not equal decide
    (NaN is not equal to itself, so it decides, and compares false); when one tuple is a
    prefix of the other, their lengths do."""
    def typer(tctx, a, b):
        if not (isinstance(a, t.BaseTuple) and isinstance(b, t.BaseTuple)):
            return None
        pairs = list(zip(a.types, b.types))
        equal = [tctx.resolve(operator.eq, pair) for pair in pairs]
        ordered = [tctx.resolve(op, pair) for pair in pairs]
        if any(r is None for r in equal + ordered):
            return None
        by_length = op(len(a), len(b))

        def codegen(context, builder, sig, args):
            result = ir.Constant(dm.i1, int(by_length))
            items = zip(_call_items(context, builder, equal, args[0], args[1], a, b),
                        _call_items(context, builder, ordered, args[0], args[1], a, b))
            for same, decided in reversed(list(items)):
                result = builder.select(same, result, decided)
            return result
        return t.boolean(a, b), codegen
    return typer


for _op in (operator.lt, operator.le, operator.gt, operator.ge):
    template(_op)(_ordering(_op))


@template(operator.contains)
def _contains(tctx, tup, value):
    if not isinstance(tup, t.BaseTuple):
        return None
    resolutions = [tctx.resolve(operator.eq, (item, value)) for item in tup.types]
    if any(r is None for r in resolutions):
        return None

    def codegen(context, builder, sig, args):
        result = ir.Constant(dm.i1, 0)
        for i, res in enumerate(resolutions):
            eq = _compare(context, builder, res, builder.extract_value(args[0], i),
                          tup.types[i], args[1], value)
            result = builder.or_(result, eq)
        return result
    return t.boolean(tup, value), codegen


@overload_method(t.BaseTuple, "index")
def _index(tup, value):
    """tup.index(value): the first position holding an equal item, else ValueError."""
    def index(tup, value):
        i = 0
        for item in literal_unroll(tup):
            if item == value:
                return i
            i += 1
        raise ValueError("tuple.index(x): x not in tuple")
    return index


def count_of(items, value):
    """items.count(value) for a tuple or a literal list: its items unrolled."""
    n = 0
    for item in literal_unroll(items):
        if item == value:
            n += 1
    return n


@overload_method(t.BaseTuple, "count")
def _count(tup, value):
    return count_of


@overload(bool)
@overload(operator.truth)
def _truth(tup):
    """bool(tup), `if tup:`: whether it has items, known from its type."""
    if isinstance(tup, t.BaseTuple):
        return lambda tup: len(tup) != 0
    return None


@overload(tuple)
def _tuple(iterable=None):
    """tuple() and tuple(tup) (a named tuple's items as a plain tuple): the tuples whose
    length is known when compiling."""
    if iterable is None:
        return lambda iterable=None: ()
    if isinstance(iterable, t.BaseTuple):
        if getattr(iterable, "cls", None) is None:
            return lambda iterable=None: iterable
        return lambda iterable=None: (*iterable,)
    return None


@families.answers("sequence_unpacker")
def sequence_unpacker(seq, n):
    """What `a, b, c = seq` calls for a range, a list or an array (typing/statements.py):
    a function of `seq` giving the n-tuple of its items, or None for other types."""
    if isinstance(seq, t.RangeType) or isinstance(seq, t.ListType) and not seq.is_undefined \
            or isinstance(seq, t.Array) and seq.ndim >= 1:
        return _unpacker(n, isinstance(seq, t.RangeType))
    return None


@lru_cache(maxsize=None)
def _unpacker(n, is_range):
    item = "seq.start + {} * seq.step" if is_range else "seq[{}]"
    items = "".join(item.format(i) + ", " for i in range(n))
    source = (f"def unpack_{n}(seq):\n"
              f"    k = len(seq)\n"
              f"    if k > {n}:\n"
              f"        raise ValueError('too many values to unpack (expected {n})')\n"
              f"    if k < {n}:\n"
              f"        raise ValueError(f'not enough values to unpack (expected {n}, got {{k}})')\n"
              f"    return ({items})\n")
    namespace = {}
    exec(compile(source, f"<kiln unpack {n}>", "exec"), namespace)
    unpack = namespace[f"unpack_{n}"]
    overload(unpack)(lambda seq: unpack)
    return unpack


@template(operator.add)
def _concat(tctx, a, b):
    if not (isinstance(a, t.BaseTuple) and isinstance(b, t.BaseTuple)):
        return None
    rt = t.tuple_of(a.types + b.types)

    def codegen(context, builder, sig, args):
        items = [builder.extract_value(args[0], i) for i in range(len(a))] + \
                [builder.extract_value(args[1], i) for i in range(len(b))]
        return context.make_tuple(builder, rt, items)
    return rt(a, b), codegen

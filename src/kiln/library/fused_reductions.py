"""Reductions of an array expression computed where it is reduced (`np.sum(a * b)`,
`(a > 0).any()`), with no temporary array: the float sum and mean (NumPy's pairwise
order, so the bits agree), the sum along the last axis (row by row), min, max, any and
all. Each is an internal LLVM function over a range of flat positions of same-shape
C-contiguous leaves, split across the threads of a parallel=True function in pieces
joined so that the result is the serial one's (`_split_fused`). Any other expression is
computed into a temporary and reduced as a plain array by reductions.py, whose templates
these are registered after (so they are tried first)."""
from __future__ import annotations

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.context import CodegenContext
from ..runtime import nrt
from .allocation import allocate
from .arrays import ArrayValue
from .axes import innermost_of, iterator_order, normalized_axis
from ..codegen.array_expressions import Consumer, Tree, as_trees, dtype_of, leaf_values
from .fusion import (broadcast_shape, counted_loop, elements_at, evaluate, flat_condition,
                     leaf_arrays, leaf_elements, leaf_strides, nest)
from .pairwise import BLOCK, DEPTH, pairwise_sum
from .reductions import (_all, _any, _extreme, _mean, _result_dtype, _sum, _sum_along, greater,
                         less, summed_along)
from .reduction_order import items_in_order
from ..typing.registry import register_jitable, template
from .split import PIECES, split_pieces


def _expression_function(context, tree, name):
    """A new internal function `i32 f(ret*, exc*, leaves..., first, n)` over the elements
    [first, first + n) of the tree's same-shape C-contiguous leaves: (f, its context, a
    builder in its entry, first, n, `element(i)` computing the tree at flat position i)."""
    leaf_types = [ty for _, ty in tree.leaves]
    fnty = ir.FunctionType(dm.i32, [dm.ptr, dm.ptr] + [dm.value_type(ty) for ty in leaf_types]
                           + [dm.i64, dm.i64])
    fn = ir.Function(context.module, fnty, context.module.get_unique_name(name))
    fn.linkage = "internal"
    inner = CodegenContext(context.state, context.options)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    here = Tree(tree.ty, list(zip(fn.args[2:-2], leaf_types)), tree.compute)
    arrays = leaf_arrays(inner, b, here)

    def element(i):
        return here.compute(inner, b, leaf_elements(b, here, arrays, i))
    return fn, inner, b, fn.args[-2], fn.args[-1], element


def _emit_pairwise_sum(context, tree):
    """An LLVM function summing the tree's elements [start, start + n) of same-shape
    C-contiguous leaves as `pairwise_sum` does (the same blocks, the same order), computing
    each element where it is added. It recurses on the two halves, as NumPy does."""
    dtype = dtype_of(tree.ty)
    fn, inner, b, start, n, at = _expression_function(context, tree, "kiln.fused_sum")
    i64 = lambda v: ir.Constant(dm.i64, v)  # noqa: E731

    def element(i):
        return at(b.add(start, i))

    def accumulate(slot, i):
        b.store(b.fadd(b.load(slot), element(i)), slot)

    def finish(value):
        b.store(value, fn.args[0])
        b.ret(ir.Constant(dm.i32, 0))

    split, block = fn.append_basic_block("split"), fn.append_basic_block("block")
    b.cbranch(b.icmp_signed(">", n, i64(BLOCK)), split, block)
    b.position_at_end(split)
    half = b.lshr(n, i64(1))
    half = b.sub(half, b.and_(half, i64(7)))
    left = inner.call_internal(b, fn, dtype, list(fn.args[2:-2]) + [start, half])
    right = inner.call_internal(b, fn, dtype, list(fn.args[2:-2]) + [b.add(start, half),
                                                                    b.sub(n, half)])
    finish(b.fadd(left, right))
    b.position_at_end(block)
    zero = ir.Constant(dm.value_type(dtype), 0.0)
    total = inner.alloca(b, dm.value_type(dtype))
    b.store(zero, total)
    short, unrolled = fn.append_basic_block("short"), fn.append_basic_block("unrolled")
    b.cbranch(b.icmp_signed("<", n, i64(8)), short, unrolled)
    b.position_at_end(short)
    counted_loop(b, n, lambda i: accumulate(total, i))
    finish(b.load(total))
    b.position_at_end(unrolled)
    lanes = [inner.alloca(b, dm.value_type(dtype)) for _ in range(8)]
    for j, lane in enumerate(lanes):
        b.store(element(i64(j)), lane)
    stop = b.sub(n, b.and_(n, i64(7)))
    counted_loop(b, stop, lambda i: [accumulate(lane, b.add(i, i64(j)))
                                     for j, lane in enumerate(lanes)], start=i64(8), step=8)
    r = [b.load(lane) for lane in lanes]
    b.store(b.fadd(zero, b.fadd(b.fadd(b.fadd(r[0], r[1]), b.fadd(r[2], r[3])),
                                b.fadd(b.fadd(r[4], r[5]), b.fadd(r[6], r[7])))), total)
    counted_loop(b, n, lambda i: accumulate(total, i), start=stop)
    finish(b.load(total))
    return fn


def _subtree_bounds(b, k, n):
    """(start, size) of the k-th of PIECES subtrees of the pairwise recursion over n items
    (its path from the root, most significant bit first), as pairwise.py cuts an array."""
    i64 = lambda v: ir.Constant(dm.i64, v)  # noqa: E731
    start, size = i64(0), n
    for level in range(DEPTH - 1, -1, -1):
        half = b.lshr(size, i64(1))
        half = b.sub(half, b.and_(half, i64(7)))   # pairwise.py's _half
        right = b.trunc(b.lshr(k, i64(level)), dm.i1)
        start = b.select(right, b.add(start, half), start)
        size = b.select(right, b.sub(size, half), half)
    return start, size


def _range_bounds(b, k, n):
    """(start, size) of the k-th of PIECES equal ranges of n items."""
    pieces = ir.Constant(dm.i64, PIECES)
    start = b.udiv(b.mul(n, k), pieces)
    return start, b.sub(b.udiv(b.mul(n, b.add(k, ir.Constant(dm.i64, 1))), pieces), start)


def _split_fused(context, builder, name, fn, rt, leaves, count, bounds, join):
    """`fn(leaves..., start, size)` over all `count` elements of an array expression, split
    across the threads in a parallel function when long: PIECES pieces (`bounds(b, k, n)`)
    on the threads, joined in order as a balanced tree by `join(b, left, right)`; a grouping
    that gives the serial result's bits (NumPy's pairwise tree, or an exact fold)."""
    whole = list(leaves) + [ir.Constant(dm.i64, 0), count]
    if not context.options.parallel:
        return context.call_internal(builder, fn, rt, whole)
    return split_pieces(
        context, builder, name, dm.value_type(rt), count, list(leaves) + [count],
        lambda ctx, b, k, passed: ctx.call_internal(b, fn, rt, passed[:-1] +
                                                    list(bounds(b, k, passed[-1]))),
        join, lambda b: context.call_internal(b, fn, rt, whole))


def _reduce_tree(context, builder, sig, args, python_impl, flat_reduce, laid_out=None):
    """A reduction of an array expression: `flat_reduce(tree, count)` over same-shape
    C-contiguous leaves, else `python_impl` of the expression computed into a temporary, or,
    when a leaf is not a C array, `laid_out(temporary, shape, leaf strides)` (NumPy's
    temporary is laid out as its operands are). A plain array goes to `python_impl`."""
    (tree,) = as_trees(args, sig.args)
    if tree.operations == 0:
        return context.call_python(builder, python_impl, sig, args)
    arrays = leaf_arrays(context, builder, tree)
    shape = broadcast_shape(context, builder, [a for a in arrays if a is not None],
                            tree.ty.ndim)
    count = ir.Constant(dm.i64, 1)
    for size in shape:
        count = builder.mul(count, size)
    result = context.alloca(builder, dm.value_type(sig.return_type))

    def through_temporary():
        temp = evaluate(context, builder, tree)
        hold = context.hold_until_done(builder, temp, tree.ty)  # min of nothing raises
        if laid_out is not None and any(ty.layout != "C" for _, ty in tree.leaves
                                        if isinstance(ty, t.Array)):
            layout, layout_types = _leaf_layout(context, builder, arrays, shape)
            value = context.call_python(builder, laid_out,
                                        sig.return_type(tree.ty, *layout_types), [temp] + layout)
        else:
            value = context.call_python(builder, python_impl, sig.return_type(tree.ty), [temp])
        context.done_holding(builder, hold)
        builder.store(value, result)
        nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
    flat = flat_condition(builder, tree, arrays, count) if flat_reduce else None
    if flat is None:
        through_temporary()
    else:
        with builder.if_else(flat) as (fast, slow):
            with fast:
                builder.store(flat_reduce(tree, count), result)
            with slow:
                through_temporary()
    return builder.load(result)


def _pairwise_in_own_type(a):
    """Float arrays but float16, which NumPy sums in float32 (reductions.py does)."""
    return isinstance(a.dtype, t.Float) and a.dtype != t.float16


def _leaf_layout(context, builder, arrays, shape):
    """([shape, strides], their types): the expression's shape and its array leaves'
    strides (broadcast to it) as tuples, as `iterator_order` takes them."""
    row = t.UniTuple(t.int64, len(shape))
    strides = [s for s in leaf_strides(builder, arrays, shape) if s is not None]
    operands = t.UniTuple(row, len(strides))
    pack = lambda ty, values: context.make_tuple(builder, ty, values)  # noqa: E731
    return [pack(row, shape), pack(operands, [pack(row, s) for s in strides])], [row, operands]


@register_jitable
def _sum_laid_out(x, shape, operands):
    """np.sum of the expression computed into x as NumPy sums its own temporary, whose
    memory order is the order its iterator gives the leaves (order 'K')."""
    return np.sum(items_in_order(x, iterator_order(shape, operands)))


@register_jitable
def _mean_laid_out(x, shape, operands):
    return np.mean(items_in_order(x, iterator_order(shape, operands)))


def _fused_float_reduction(method, python_impl_for, finish, laid_out):
    """Register `np.<method>(expr)` and `expr.<method>()` for float and complex arrays so
    that an array expression is summed where it is computed (float32 and float64 over C
    leaves): `finish(builder, total, count)` makes the result of the sum;
    `python_impl_for(array type)` reduces a plain array, `laid_out` the temporary of an
    expression of other leaves."""
    def typer(tctx, a, *more):
        if more or not isinstance(a, t.Array) or \
                not isinstance(a.dtype, (t.Float, t.Complex)) or \
                _result_dtype(a, method) != a.dtype:
            return None
        impl = python_impl_for(a)
        fused = _pairwise_in_own_type(a)

        def codegen(context, builder, sig, args):
            def flat_reduce(tree, count):
                total = _split_fused(context, builder,
                                     "float sum of an array expression (pairwise)",
                                     _emit_pairwise_sum(context, tree), a.dtype,
                                     leaf_values(tree), count, _subtree_bounds,
                                     lambda b, left, right: b.fadd(left, right))
                return finish(builder, total, count)
            return _reduce_tree(context, builder, sig, args, impl, flat_reduce if fused else None,
                                laid_out)
        codegen.fusion = Consumer(frozenset({0}))
        return a.dtype(a), codegen
    template(getattr(np, method))(typer)
    template(("method", method))(typer)


_fused_float_reduction("sum", _sum, lambda builder, total, count: total, _sum_laid_out)


def _fused_sum_along(tctx, a, axis=None):
    """`np.sum(expr, axis)` for float and complex arrays. NumPy computes the expression into
    a temporary laid out as its operands are and sums that along the axis pairwise or in
    order as its loop runs (along_innermost); so does kiln, deciding from the leaves'
    strides, except for C leaves of float32/float64: along the last axis each row of the
    expression is computed into a buffer and summed pairwise (no temporary of the whole
    expression); along another axis the expression is computed first."""
    if not isinstance(a, t.Array) or not isinstance(a.dtype, (t.Float, t.Complex)) or \
            a.ndim < 2 or not isinstance(axis, t.Integer) or \
            _result_dtype(a, "sum") != a.dtype:
        return None
    impl = _sum_along(a)
    result = a.copy(ndim=a.ndim - 1, layout="C", readonly=False)
    row_ty = result.copy(ndim=1)
    dt = a.dtype

    def codegen(context, builder, sig, args):
        (tree,) = as_trees(args[:1], sig.args[:1])
        if tree.operations == 0:
            return context.call_python(builder, impl, sig, args)
        k = normalized_axis(context, builder, args[1], axis, a.ndim)
        arrays = leaf_arrays(context, builder, tree)
        shape = broadcast_shape(context, builder, [x for x in arrays if x is not None],
                                tree.ty.ndim)
        if any(ty.layout != "C" for _, ty in tree.leaves if isinstance(ty, t.Array)):
            return _sum_as_laid_out(context, builder, tree, arrays, shape, k, result)
        if not _pairwise_in_own_type(a):
            return _sum_of_temporary(context, builder, tree, impl, [args[1]], sig)
        slot = context.alloca(builder, dm.value_type(result))
        last = builder.icmp_signed("==", k, ir.Constant(dm.i64, a.ndim - 1))
        with builder.if_else(last) as (by_rows, through_temporary):
            with by_rows:
                builder.store(_sum_rows(context, builder, tree, arrays, shape, result,
                                        row_ty), slot)
            with through_temporary:
                builder.store(_sum_of_temporary(context, builder, tree, impl, [args[1]],
                                                sig), slot)
        return builder.load(slot)
    codegen.new_reference = True
    codegen.fusion = Consumer(frozenset({0}))
    return result(a, axis), codegen


def _sum_of_temporary(context, builder, tree, impl, more, sig):
    """impl(the tree computed into a C temporary, *more) of signature sig (but its first
    argument)."""
    temp = evaluate(context, builder, tree)
    total = context.call_python(builder, impl, sig.return_type(tree.ty, *sig.args[1:]),
                                [temp] + more)
    nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
    return total


def _sum_as_laid_out(context, builder, tree, arrays, shape, k, result):
    """The sum along axis k of the tree computed into a (C) temporary, pairwise or in order
    as NumPy's loop would run over a temporary laid out as the leaves are."""
    layout, layout_types = _leaf_layout(context, builder, arrays, shape)
    pairwise = context.call_python(builder, innermost_of,
                                   t.boolean(*layout_types, t.int64), layout + [k])
    return _sum_of_temporary(context, builder, tree, _summed_along, [k, pairwise],
                             result(tree.ty, t.int64, t.boolean))


def _summed_along(x, k, pairwise):
    return summed_along(x, k, pairwise)


def _sum_rows(context, builder, tree, arrays, shape, result, row_ty):
    """The pairwise sum of each row (last axis) of the tree, into a new array."""
    n = shape[-1]
    out = ArrayValue(context, builder, allocate(context, builder, result, shape[:-1]), result)
    row = ArrayValue(context, builder, allocate(context, builder, row_ty, [n]), row_ty)
    strides = leaf_strides(builder, arrays, shape)
    position = context.alloca(builder, dm.i64)
    builder.store(ir.Constant(dm.i64, 0), position)
    dtype = result.dtype

    total = context.alloca(builder, dm.value_type(dtype))

    def sum_row(offsets):
        def element(j):
            here = [None if off is None else builder.add(off, builder.mul(j, st[-1]))
                    for off, st in zip(offsets, strides)]
            return tree.compute(context, builder, elements_at(builder, tree, arrays, here))

        def add(j):
            builder.store(builder.fadd(builder.load(total), element(j)), total)

        def fill(j):
            target = builder.gep(row.field(dm.ARRAY_DATA), [j],
                                 source_etype=dm.memory_type(dtype))
            dm.store_item(builder, dtype, element(j), target)
        with builder.if_else(builder.icmp_signed("<", n, ir.Constant(dm.i64, 8))) as (
                short, long):
            with short:  # pairwise_sum adds fewer than 8 items in order, from zero
                builder.store(ir.Constant(dm.value_type(dtype), 0.0), total)
                counted_loop(builder, n, add)
            with long:
                counted_loop(builder, n, fill)
                builder.store(context.call_python(
                    builder, pairwise_sum, dtype(row_ty, t.int64, t.int64, dtype),
                    [row.value, ir.Constant(dm.i64, 0), n,
                     ir.Constant(dm.value_type(dtype), 0.0)]), total)
        at = builder.load(position)
        dm.store_item(builder, dtype, builder.load(total), builder.gep(
            out.field(dm.ARRAY_DATA), [at], source_etype=dm.memory_type(dtype)))
        builder.store(builder.add(at, ir.Constant(dm.i64, 1)), position)
    nest(builder, arrays, shape, len(shape) - 1, sum_row, strides)
    nrt.emit_decref(builder, row.field(dm.ARRAY_MEMINFO))
    return out.value


template(np.sum)(_fused_sum_along)
template(("method", "sum"))(_fused_sum_along)


def _mean_of(builder, total, count):
    """total / count in float64, as NumPy divides a sum by its intp count."""
    double = ir.DoubleType()
    wide = total if total.type == double else builder.fpext(total, double)
    mean = builder.fdiv(wide, builder.sitofp(count, double))
    return mean if total.type == double else builder.fptrunc(mean, total.type)


_fused_float_reduction("mean", _mean, _mean_of, _mean_laid_out)


def _truth(builder, value, dtype):
    if isinstance(dtype, t.Boolean):
        return value
    if isinstance(dtype, t.Float):
        return builder.fcmp_unordered("!=", value, ir.Constant(value.type, 0.0))
    return builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))


def _extreme_step(prefer):
    """(best, v) -> the new best: a NaN, once met, stays; else the preferred of the two."""
    def step(builder, best, v, dtype):
        if not isinstance(dtype, t.Float):
            better = builder.icmp_signed(prefer, v, best) if getattr(dtype, "signed", False) \
                else builder.icmp_unsigned(prefer, v, best)
            return builder.select(better, v, best)
        better = builder.fcmp_ordered(prefer, v, best)
        pick = builder.select(builder.fcmp_unordered("uno", v, v), v,
                              builder.select(better, v, best))
        return builder.select(builder.fcmp_unordered("uno", best, best), best, pick)
    return step


def _emit_fold(context, tree, rt, step, start, extreme=None):
    """An LLVM function folding the tree's elements [first, first + n) (n > 0 when `start`
    is None) of same-shape C-contiguous leaves: from the first of them (`start` None) or
    from `start`, by `step(builder, acc, element, dtype)`; a float min or max (`extreme`
    "min" or "max") by `_fold_float_extreme`, which gives the same result."""
    dtype = dtype_of(tree.ty)
    fn, inner, b, first, n, element = _expression_function(context, tree, "kiln.fused_fold")
    acc = inner.alloca(b, dm.value_type(rt))
    b.store(element(first) if start is None else ir.Constant(dm.i1, int(start)), acc)
    if extreme is not None and isinstance(dtype, t.Float):
        _fold_float_extreme(inner, b, element, first, b.add(first, n), acc,
                            dm.value_type(rt), extreme)
    else:
        skip = ir.Constant(dm.i64, 1 if start is None else 0)
        counted_loop(b, b.add(first, n), lambda i: b.store(
            step(b, b.load(acc), element(i), dtype), acc), start=b.add(first, skip))
    b.store(b.load(acc), fn.args[0])
    b.ret(ir.Constant(dm.i32, 0))
    return fn


def _fold_float_extreme(context, b, element, first, stop, acc, ty, method):
    """acc = the min or max of element(first..stop), as the plain array's (`_extremes`):
    `minnum`/`maxnum` with the no-NaN flags in a loop without exits, which LLVM vectorizes,
    noting whether a NaN went by; then, only if one did or the extreme is a zero, a second
    pass takes the first NaN, or the first zero (its sign), as the ordered fold would."""
    extreme = b.module.declare_intrinsic(f"llvm.{method}num", [ty], ir.FunctionType(ty, [ty, ty]))
    unordered = context.alloca(b, dm.i1)
    b.store(ir.Constant(dm.i1, 0), unordered)

    def fold(i):
        v = element(i)
        b.store(b.or_(b.load(unordered), b.fcmp_unordered("uno", v, v)), unordered)
        b.store(b.call(extreme, [b.load(acc), v], fastmath=("nnan", "nsz")), acc)
    counted_loop(b, stop, fold, start=first)
    best, nan_seen = b.load(acc), b.load(unordered)
    with b.if_then(b.or_(nan_seen, b.fcmp_ordered("==", best, ir.Constant(ty, 0.0))),
                   likely=False):   # stops at the first match (an early zero is cheap)
        pre, head = b.block, b.append_basic_block("first.head")
        body, done = b.append_basic_block("first.body"), b.append_basic_block("first.done")
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(dm.i64)
        i.add_incoming(first, pre)
        b.cbranch(b.icmp_signed("<", i, stop), body, done)
        b.position_at_end(body)
        v = element(i)
        match = b.select(nan_seen, b.fcmp_unordered("uno", v, v), b.fcmp_ordered("==", v, best))
        b.store(b.select(match, v, best), acc)
        i.add_incoming(b.add(i, ir.Constant(dm.i64, 1)), b.block)
        b.cbranch(match, done, head)
        b.position_at_end(done)


def _fused_fold(method, python_impl_for, step, join, empty_message=None, start=None,
                extreme=None):
    """`np.<method>(expr)` and `expr.<method>()` folding an array expression where it is
    computed (`_emit_fold`), split across the threads of a parallel function in equal
    ranges joined by `join(builder, left, right)`, which must give the serial fold's
    result; an empty array raises `empty_message` when given."""
    def typer(tctx, a, *more):
        if more or not isinstance(a, t.Array) or isinstance(a.dtype, t.Complex) or \
                a.dtype == t.float16:
            return None
        rt = a.dtype if start is None else t.boolean
        impl = python_impl_for(a)

        def codegen(context, builder, sig, args):
            def flat_reduce(tree, count):
                if empty_message is not None:
                    context.guard(builder, builder.icmp_signed("==", count,
                                                               ir.Constant(dm.i64, 0)),
                                  ValueError, empty_message)
                return _split_fused(context, builder, f"{method} of an array expression",
                                    _emit_fold(context, tree, rt, step, start, extreme), rt,
                                    leaf_values(tree), count, _range_bounds,
                                    lambda b, left, right: join(b, left, right, a.dtype))
            return _reduce_tree(context, builder, sig, args, impl, flat_reduce)
        codegen.fusion = Consumer(frozenset({0}))
        return rt(a), codegen
    for key in (getattr(np, method), ("method", method)):
        template(key)(typer)


for _name, _prefer in (("min", "<"), ("amin", "<"), ("max", ">"), ("amax", ">")):
    # the earlier piece's extreme is the `best` a later one must beat: the first NaN, or
    # the first of equal values, wins as in the serial fold
    _fused_fold(_name, _extreme(_name[-3:], less if _prefer == "<" else greater),
                _extreme_step(_prefer), _extreme_step(_prefer),
                empty_message="zero-size array to reduction operation "
                f"{'minimum' if _prefer == '<' else 'maximum'} which has no identity",
                extreme=_name[-3:])
_fused_fold("any", _any, lambda b, acc, v, dtype: b.or_(acc, _truth(b, v, dtype)),
            lambda b, left, right, dtype: b.or_(left, right), start=False)
_fused_fold("all", _all, lambda b, acc, v, dtype: b.and_(acc, _truth(b, v, dtype)),
            lambda b, left, right, dtype: b.and_(left, right), start=True)

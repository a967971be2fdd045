"""Whole-array reductions: sum, prod, mean, min, max, argmin, argmax, any, all, as NumPy
functions and as array methods. Result types are NumPy's (the sum of int8 is int64, of
float32 is float32); float sums use NumPy's pairwise summation, so they agree bit for bit.
In parallel=True functions the whole-array forms of long arrays are split across the
threads where that changes no bit (split.py says which).
A non-contiguous array is reduced through a contiguous copy. The float sum and mean of an
array expression (`np.sum(a * b)`) compute the expression inside the summation, with no
temporary array. Along an axis (`axis=`), an N-d array is seen as (outer, n, inner)
around that axis (axes.py)."""
from __future__ import annotations

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.context import CodegenContext
from ..runtime import nrt
from .allocation import allocate, empty_array, flat_view
from .arrays import ArrayValue
from .arrays import item_in_range
from .axes import around_axis, axis_normalizer, normalized_axis
from .fusion import (Consumer, Tree, as_trees, broadcast_shape, counted_loop, dtype_of,
                     elements_at, evaluate, flat_condition, leaf_arrays, leaf_elements,
                     leaf_strides, leaf_values, nest)
from .pairwise import BLOCK, DEPTH, pairwise_sum, pairwise_total
from .registry import (intrinsic, omitted, overload, overload_method, register_jitable,
                       template)
from .split import PIECES, add, by_ranges, multiply, split_pieces
from .ufuncs import np_maximum, np_minimum, np_true_divide
from .ufunc_elements import ordered_less

def as_flat(a):
    """The elements of `a` in the order NumPy reduces them, as a 1-d array (compiled code
    only)."""


def in_c_order(a):
    """The elements of `a` in C order (flat indices), as a 1-d array (compiled code only)."""


@overload(as_flat)
def _as_flat(a):
    """C order for C arrays; memory order for Fortran ones, as NumPy reduces them."""
    if a.layout == "F":
        return lambda a: flat_view(a.T)
    return _in_c_order(a)


def c_contiguous(a):
    """`a` itself when C-contiguous, else a C-contiguous copy (compiled code only)."""


@overload(c_contiguous)
def _c_contiguous(a):
    if a.layout == "C":
        return lambda a: a
    dt = a.dtype

    def copy(a):
        out = empty_array(a.shape, dt)
        out[:] = a
        return out
    return copy


@overload(in_c_order)
def _in_c_order(a):
    return lambda a: flat_view(c_contiguous(a))


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


def _reduce_tree(context, builder, sig, args, python_impl, flat_reduce):
    """A reduction of an array expression: `flat_reduce(tree, count)` over same-shape
    C-contiguous leaves, else `python_impl` of the expression computed into a temporary. A
    plain array goes to `python_impl`."""
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
        value = context.call_python(builder, python_impl, sig.return_type(tree.ty), [temp])
        context.done_holding(builder, hold)
        builder.store(value, result)
        nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
    flat = flat_condition(builder, tree, arrays, count)
    if flat is None:
        through_temporary()
    else:
        with builder.if_else(flat) as (fast, slow):
            with fast:
                builder.store(flat_reduce(tree, count), result)
            with slow:
                through_temporary()
    return builder.load(result)


def _fused_float_reduction(method, python_impl_for, finish):
    """Register `np.<method>(expr)` and `expr.<method>()` for float arrays so that an array
    expression is summed where it is computed: `finish(builder, total, count)` makes the
    result of the sum; `python_impl_for(array type)` reduces a plain array."""
    def typer(tctx, a, *more):
        if more or not isinstance(a, t.Array) or not isinstance(a.dtype, t.Float) or \
                _result_dtype(a, method) != a.dtype:
            return None
        impl = python_impl_for(a)

        def codegen(context, builder, sig, args):
            def flat_reduce(tree, count):
                total = _split_fused(context, builder,
                                     "float sum of an array expression (pairwise)",
                                     _emit_pairwise_sum(context, tree), a.dtype,
                                     leaf_values(tree), count, _subtree_bounds,
                                     lambda b, left, right: b.fadd(left, right))
                return finish(builder, total, count)
            return _reduce_tree(context, builder, sig, args, impl, flat_reduce)
        codegen.fusion = Consumer(frozenset({0}))
        return a.dtype(a), codegen
    template(getattr(np, method))(typer)
    template(("method", method))(typer)


def _result_dtype(a, method):
    """The dtype NumPy gives this reduction of an array of a's dtype."""
    return t.from_dtype(np.asarray(getattr(np.zeros(1, a.dtype.np_dtype), method)()).dtype)


def _reduction(method, along=None):
    """Register one overload as `np.<method>(a[, axis])` and as the method
    `a.<method>([axis])`: `ov(a)` reduces the whole array, `along(a)` along an integer
    axis."""
    whole = getattr(np, method)

    def register(ov):
        def on_arrays(a, axis=None):
            if not isinstance(a, t.Array):
                return None
            if axis is None:
                return ov(a)
            if isinstance(axis, t.NoneType) or (isinstance(axis, t.Integer) and a.ndim == 1):
                normalize = axis_normalizer(a.ndim)

                def whole_array(a, axis):
                    if axis is not None:
                        normalize(axis)
                    return whole(a)
                return whole_array if ov(a) is not None else None
            if isinstance(axis, t.Integer) and along is not None:
                return along(a)
            return None
        overload(whole)(on_arrays)
        overload_method(t.Array, method)(on_arrays)
        return ov
    return register


def _along(a, dt, step, identity=None, empty_message=""):
    """`step` folded along an axis in NumPy's order for a C array (the result starts at
    `identity`, or at the first item along the axis when there is none)."""
    normalize = axis_normalizer(a.ndim)
    first = identity is None
    start = 0 if first else identity

    def along(a, axis):
        x, shape = around_axis(c_contiguous(a), normalize(axis))
        outer, n, inner = x.shape
        if first and n == 0:
            raise ValueError(empty_message)
        out = empty_array(shape, dt)
        result = flat_view(out)
        for o in range(outer):
            for j in range(inner):
                result[o * inner + j] = x[o, 0, j] if first else dt(start)
            for i in range(1 if first else 0, n):
                for j in range(inner):
                    result[o * inner + j] = step(result[o * inner + j], x[o, i, j])
        return out
    return along


def _sum_along(a):
    """Along the last axis NumPy sums each row pairwise; along another it adds rows in
    order."""
    dt = _result_dtype(a, "sum")
    if isinstance(dt, (t.Float, t.Complex)) and dt != a.dtype:
        return None
    sequential = register_jitable(_along(a, dt, add, identity=0))
    if not isinstance(dt, (t.Float, t.Complex)):
        return sequential
    normalize = axis_normalizer(a.ndim)

    def float_sum_along(a, axis):
        k = normalize(axis)
        if k != a.ndim - 1:
            return sequential(a, axis)
        x, shape = around_axis(c_contiguous(a), k)
        outer, n = x.shape[0], x.shape[1]
        out = empty_array(shape, dt)
        result, flat = flat_view(out), flat_view(x)
        if n < 8:  # short rows (pairwise_sum adds them in order too), without a call each
            for o in range(outer):
                total = dt(0)
                for i in range(o * n, o * n + n):
                    total += item_in_range(flat, i)
                result[o] = total
            return out
        for o in range(outer):
            result[o] = pairwise_sum(flat, o * n, n, dt(0))
        return out
    return float_sum_along


def _mean_along(a):
    if not isinstance(a.dtype, (t.Float, t.Integer, t.Boolean)):
        return None
    normalize = axis_normalizer(a.ndim)
    as_float = isinstance(a.dtype, (t.Integer, t.Boolean))

    def mean_along(a, axis):
        n = a.shape[normalize(axis)]
        if as_float:
            return np.sum(a.astype(np.float64), axis) / n
        return np.sum(a, axis) / n
    return mean_along


@_reduction("sum", _sum_along)
def _sum(a):
    dt = _result_dtype(a, "sum")
    if isinstance(dt, (t.Float, t.Complex)) and dt == a.dtype:
        def float_sum(a):
            x = as_flat(a)
            return pairwise_total(x, dt(0))
        return float_sum
    if isinstance(dt, (t.Float, t.Complex)):
        return None  # float16 sums in float32 pieces: not yet

    def int_sum(a):
        return _exact_total(as_flat(a), dt(0))
    return int_sum


@register_jitable
def _range_total(x, lo, hi, zero):
    total = zero
    for i in range(lo, hi):
        total += item_in_range(x, i)
    return total


@register_jitable
def _range_product(x, lo, hi, one):
    total = one
    for i in range(lo, hi):
        total *= item_in_range(x, i)
    return total


# integer sums and products wrap, so any grouping gives NumPy's result
_exact_total = by_ranges("integer sum", _range_total, add)
_exact_product = by_ranges("integer product", _range_product, multiply)


_CHUNK = 8192  # NumPy's buffer: an integer array is converted and summed in pieces this long


@register_jitable
def cast_total(x, zero):
    """The sum NumPy takes of the 1-d `x` in another dtype, zero's (`np.sum(x, dtype=...)`,
    the float64 sum of `mean` of integers): converted and summed piece by piece."""
    chunk = np.full(min(x.shape[0], _CHUNK), zero)
    total = zero
    for start in range(0, x.shape[0], _CHUNK):
        n = min(_CHUNK, x.shape[0] - start)
        for i in range(n):
            chunk[i] = x[start + i]
        total += pairwise_sum(chunk, 0, n, zero)
    return total


@_reduction("mean", _mean_along)
def _mean(a):
    dt = _result_dtype(a, "mean")
    if isinstance(a.dtype, (t.Float, t.Complex)) and dt == a.dtype:
        def float_mean(a):
            x = as_flat(a)
            return np_true_divide(pairwise_total(x, dt(0)), dt(x.shape[0]))
        return float_mean
    if isinstance(a.dtype, (t.Integer, t.Boolean)):
        def int_mean(a):
            x = as_flat(a)
            return cast_total(x, 0.0) / x.shape[0] if x.shape[0] else np.nan
        return int_mean
    return None


_fused_float_reduction("sum", _sum, lambda builder, total, count: total)


def _fused_sum_along(tctx, a, axis=None):
    """`np.sum(expr, axis)` for float arrays: along the last axis each row of the
    expression is computed into a buffer and summed pairwise (no temporary of the whole
    expression); along another axis the expression is computed first."""
    if not isinstance(a, t.Array) or not isinstance(a.dtype, t.Float) or a.ndim < 2 or \
            not isinstance(axis, t.Integer) or _result_dtype(a, "sum") != a.dtype:
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
        slot = context.alloca(builder, dm.value_type(result))
        last = builder.icmp_signed("==", k, ir.Constant(dm.i64, a.ndim - 1))
        with builder.if_else(last) as (by_rows, through_temporary):
            with by_rows:
                builder.store(_sum_rows(context, builder, tree, arrays, shape, result,
                                        row_ty), slot)
            with through_temporary:
                temp = evaluate(context, builder, tree)
                builder.store(context.call_python(builder, impl, result(tree.ty, axis),
                                                  [temp, args[1]]), slot)
                nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
        return builder.load(slot)
    codegen.new_reference = True
    codegen.fusion = Consumer(frozenset({0}))
    return result(a, axis), codegen


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
_fused_float_reduction("mean", _mean, lambda builder, total, count: builder.fdiv(
    total, builder.sitofp(count, total.type)))


@_reduction("prod", lambda a: _along(a, _result_dtype(a, "prod"), multiply, 1))
def _prod(a):
    dt = _result_dtype(a, "prod")
    if isinstance(dt, (t.Float, t.Complex)):
        def float_prod(a):  # NumPy multiplies in order: one thread
            x = as_flat(a)
            return _range_product(x, 0, x.shape[0], dt(1))
        return float_prod

    def prod(a):
        return _exact_product(as_flat(a), dt(1))
    return prod


def _extremes(better, method):
    """The split reductions to the extreme of x[lo:hi], and to its (value, index): a NaN,
    once met, wins; of equal values the first."""
    step = _vectorizable_extreme(better, method)

    @register_jitable
    def over(x, lo, hi, seed):
        best = item_in_range(x, lo)
        unordered = False
        for i in range(lo, hi):   # no early exit, so LLVM vectorizes it
            v = item_in_range(x, i)
            unordered |= v != v
            best = step(best, v)
        if unordered or _is_float_zero(best):   # the first NaN; the first zero's sign
            for i in range(lo, hi):
                v = item_in_range(x, i)
                if v != v or (v == best and not unordered):
                    return v
        return best

    @register_jitable
    def over_indexed(x, lo, hi, seed):
        best, where = item_in_range(x, lo), lo
        for i in range(lo, hi):
            v = item_in_range(x, i)
            if v != v:
                return v, i
            if better(v, best):
                best, where = v, i
        return best, where

    @register_jitable
    def first_wins(left, right):
        return left != left or not (right != right or better(right, left))

    @register_jitable
    def join(left, right):
        return left if first_wins(left, right) else right

    @register_jitable
    def join_indexed(left, right):
        return left if first_wins(left[0], right[0]) else right
    return by_ranges(method, over, join), by_ranges(f"arg{method}", over_indexed, join_indexed)


def _extreme(method, better):
    message = ("zero-size array to reduction operation "
               f"{dict(min='minimum', max='maximum')[method]} which has no identity")
    extreme_of = _EXTREMES[better][0]

    def ov(a):
        def extreme(a):
            x = as_flat(a)
            if x.shape[0] == 0:
                raise ValueError(message)
            return extreme_of(x, 0)
        return extreme
    return ov


def _vectorizable_extreme(better, method):
    """`step(best, v)`: v if `better(v, best)` else best. For floats it is LLVM's
    `minnum`/`maxnum` with the no-NaN and no-signed-zero flags, which the loop vectorizer
    turns into SIMD min/max: the caller tests for NaN itself and then discards this result
    (the flags make it undefined, never a trap), and a zero of either sign may win among
    equal zeros, as with NumPy's SIMD loops."""
    @register_jitable
    def choose(best, v):
        return v if better(v, best) else best

    @intrinsic
    def step(typingctx, best, v):
        if best != v:
            return None
        if not isinstance(best, t.Float):
            chosen = typingctx.type_function(choose, (best, v))

            def call_choose(context, builder, sig, args):
                return context.call_function(builder, chosen, args)
            return best(best, v), call_choose

        def codegen(context, builder, sig, args):
            ty = args[0].type
            fn = builder.module.declare_intrinsic(f"llvm.{method}num", [ty],
                                                  ir.FunctionType(ty, [ty, ty]))
            return builder.call(fn, list(args), fastmath=("nnan", "nsz"))
        return best(best, v), codegen
    return step


@intrinsic
def _is_float_zero(typingctx, x):
    """Whether x is a float 0.0 or -0.0 (constant False for other types)."""
    def codegen(context, builder, sig, args):
        if not isinstance(x, t.Float):
            return ir.Constant(dm.i1, 0)
        return builder.fcmp_ordered("==", args[0], ir.Constant(args[0].type, 0.0))
    return t.boolean(x), codegen


@register_jitable
def less(a, b):
    return ordered_less(a, b)


@register_jitable
def greater(a, b):
    return ordered_less(b, a)


_EXTREMES = {less: _extremes(less, "min"), greater: _extremes(greater, "max")}


def _extreme_along(method, step):
    message = ("zero-size array to reduction operation "
               f"{dict(min='minimum', max='maximum')[method]} which has no identity")
    return lambda a: _along(a, a.dtype, step, empty_message=message)


for _name, _step in (("min", np_minimum), ("amin", np_minimum), ("max", np_maximum),
                     ("amax", np_maximum)):
    _reduction(_name, _extreme_along(_name[-3:], _step))(
        _extreme(_name[-3:], less if _name.endswith("min") else greater))


def _arg_extreme(method, better):
    message = f"attempt to get {method} of an empty sequence"
    indexed = _EXTREMES[better][1]

    def ov(a):
        def arg_extreme(a):
            x = in_c_order(a)
            if x.shape[0] == 0:
                raise ValueError(message)
            return indexed(x, 0)[1]
        return arg_extreme
    return ov


def _arg_extreme_along(method, better):
    """The index of each extreme along an axis (int64); the first NaN wins, as NumPy."""
    message = f"attempt to get {method} of an empty sequence"

    def along_for(a):
        normalize = axis_normalizer(a.ndim)
        dt = a.dtype

        def arg_extreme_along(a, axis):
            x, shape = around_axis(c_contiguous(a), normalize(axis))
            outer, n, inner = x.shape
            if n == 0:
                raise ValueError(message)
            out = empty_array(shape, t.int64)
            result = flat_view(out)
            best = empty_array(inner, dt)
            for o in range(outer):
                for j in range(inner):
                    best[j] = x[o, 0, j]
                    result[o * inner + j] = 0
                for i in range(1, n):
                    for j in range(inner):
                        b = best[j]
                        if b == b:  # else a NaN came first: it stays
                            v = x[o, i, j]
                            if v != v or better(v, b):
                                best[j] = v
                                result[o * inner + j] = i
            return out
        return arg_extreme_along
    return along_for


_reduction("argmin", _arg_extreme_along("argmin", less))(_arg_extreme("argmin", less))
_reduction("argmax", _arg_extreme_along("argmax", greater))(_arg_extreme("argmax", greater))


@register_jitable
def _either(found, v):
    return found or bool(v)


@register_jitable
def _both(found, v):
    return found and bool(v)


@register_jitable
def _range_any(x, lo, hi, seed):
    for i in range(lo, hi):
        if item_in_range(x, i):
            return True
    return False


@register_jitable
def _range_all(x, lo, hi, seed):
    for i in range(lo, hi):
        if not item_in_range(x, i):
            return False
    return True


_split_any = by_ranges("any", _range_any, _either)
_split_all = by_ranges("all", _range_all, _both)


@_reduction("any", lambda a: _along(a, t.boolean, _either, identity=False))
def _any(a):
    return lambda a: _split_any(as_flat(a), 0)


@_reduction("all", lambda a: _along(a, t.boolean, _both, identity=True))
def _all(a):
    return lambda a: _split_all(as_flat(a), 0)


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


# ---- accumulations, spread ------------------------------------------------------------------

def _accumulation(method, step):
    """`np.cumsum`/`np.cumprod` (and methods): each item combined with the running result,
    in order, starting from the first item as NumPy's accumulate does; the flattened array
    without an axis, the same shape along one."""
    def whole(a):
        dt = _result_dtype(a, method)

        def accumulate(a):
            x = in_c_order(a)
            out = empty_array(x.shape[0], dt)
            if x.shape[0]:
                out[0] = x[0]
            for i in range(1, x.shape[0]):
                out[i] = step(out[i - 1], x[i])
            return out
        return accumulate

    def along(a):
        dt = _result_dtype(a, method)
        normalize = axis_normalizer(a.ndim)

        def accumulate_along(a, axis):
            k = normalize(axis)
            x = around_axis(c_contiguous(a), k)[0]
            out = empty_array(a.shape, dt)
            y = around_axis(out, k)[0]
            outer, n, inner = x.shape
            for o in range(outer):
                for j in range(inner if n else 0):
                    y[o, 0, j] = x[o, 0, j]
                for i in range(1, n):
                    for j in range(inner):
                        y[o, i, j] = step(y[o, i - 1, j], x[o, i, j])
            return out
        return accumulate_along
    _reduction(method, along)(whole)


_accumulation("cumsum", add)
_accumulation("cumprod", multiply)


def _ptp(a):
    if isinstance(a.dtype, t.Boolean):
        return None  # NumPy refuses to subtract booleans

    def ptp(a, axis=None):
        return np.max(a) - np.min(a)
    return ptp


def _ptp_along(a):
    def ptp_along(a, axis):
        return np.max(a, axis) - np.min(a, axis)
    return ptp_along


def _register_ptp():
    """np.ptp is a function only (NumPy 2 removed the method)."""
    def on_arrays(a, axis=None):
        if not isinstance(a, t.Array):
            return None
        if omitted(axis):
            return _ptp(a)
        return _ptp_along(a) if isinstance(axis, t.Integer) and _ptp(a) is not None else None
    overload(np.ptp)(on_arrays)


_register_ptp()


def _spread(method):
    """`np.var`/`np.std` (and methods) with `ddof`, of the whole array or along an axis:
    NumPy's two passes, the mean and then the summed squared deviations (fused into one
    loop for the whole array; along an axis summed as `np.sum` sums, so the bits agree)."""
    take_root = method == "std"

    def ov(a, axis=None, ddof=0):
        if not isinstance(a, t.Array) or isinstance(a.dtype, t.Complex):
            return None
        dt = _result_dtype(a, method)
        normalize = axis_normalizer(a.ndim)

        def spread(a, axis=None, ddof=0):
            if axis is not None:
                normalize(axis)
            m = np.mean(a)
            d = as_flat(a) - m  # NumPy sums the deviations in memory order
            total = np.sum(d * d)
            variance = np_true_divide(dt(total), dt(max(a.size - ddof, 0)))
            return np.sqrt(variance) if take_root else variance

        def spread_along(a, axis=None, ddof=0):
            k = normalize(axis)
            means = flat_view(np.mean(a, k))
            x, shape = around_axis(c_contiguous(a), k)
            outer, n, inner = x.shape
            squares = empty_array(a.shape, dt)
            flat = flat_view(squares)
            for o in range(outer):
                for i in range(n):
                    for j in range(inner):
                        d = x[o, i, j] - means[o * inner + j]
                        flat[(o * n + i) * inner + j] = d * d
            out = np.sum(squares, k)
            result = flat_view(out)
            divisor = dt(max(n - ddof, 0))
            for i in range(result.shape[0]):
                variance = np_true_divide(result[i], divisor)
                result[i] = np.sqrt(variance) if take_root else variance
            return out
        if omitted(axis) or a.ndim == 1:
            return spread
        return spread_along if isinstance(axis, t.Integer) else None
    overload(getattr(np, method))(ov)
    overload_method(t.Array, method)(ov)


_spread("var")
_spread("std")

"""Whole-array reductions: sum, prod, mean, min, max, argmin, argmax, any, all, as NumPy
functions and as array methods, and var, std, ptp, cumsum and cumprod. Result types are
NumPy's (the sum of int8 is int64, of float32 is float32); float sums use NumPy's pairwise
summation, so they agree bit for bit. In parallel=True functions the whole-array forms of
long arrays are split across the threads where that changes no bit (split.py says which).
A non-contiguous array is reduced through a copy in the order NumPy's iterator visits it,
its float sums in the calls that iterator makes (reduction_order.py). Along an axis
(`axis=`), an N-d array is seen as (outer, n, inner) around that axis (axes.py). The
reductions of an array expression, computed where it is reduced, are fused_reductions.py's."""
from __future__ import annotations

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .allocation import empty_array, flat_view
from .arrays import item_in_range
from .axes import along_innermost, around_axis, axis_normalizer, copy_innermost
from .pairwise import pairwise_sum, pairwise_total
from .reduction_order import BUFFER, calls_of, cast_total_in, in_iteration_order, total_in_calls
from ..typing.registry import intrinsic, omitted, overload, overload_method, register_jitable
from .split import add, by_ranges, multiply
from .ufuncs import np_maximum, np_minimum, np_true_divide
from .ufunc_elements import np_multiply, ordered_less

def as_flat(a):
    """The elements of `a` in the order NumPy's reduction iterator visits them, as a 1-d
    array (compiled code only): C order for C arrays, memory order for Fortran ones,
    reduction_order.py's for others."""


def in_c_order(a):
    """The elements of `a` in C order (flat indices), as a 1-d array (compiled code only)."""


@overload(as_flat)
def _as_flat(a):
    return lambda a: in_iteration_order(a)


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
    """NumPy sums each lane pairwise where its loop runs along the axis innermost (in memory
    order: along_innermost), else it adds the lanes in order; integers in any order."""
    dt = _result_dtype(a, "sum")
    if isinstance(dt, (t.Float, t.Complex)) and dt != a.dtype:
        return None
    if not isinstance(dt, (t.Float, t.Complex)):
        return register_jitable(_along(a, dt, add, identity=0))
    normalize = axis_normalizer(a.ndim)

    def float_sum_along(a, axis):
        k = normalize(axis)
        return summed_along(a, k, along_innermost(a, k))
    return float_sum_along


def sum_along_as(x, axis, like):
    """np.sum(x, axis) as NumPy sums an array laid out as `like` (of x's shape: NumPy's
    temporaries keep their operand's layout, kiln's are C arrays); compiled code only."""


def sum_along_as_copied(x, axis, like):
    """np.sum(x, axis) as NumPy sums its copy of `like` (np.array(like)); compiled code
    only."""


def _laid_out_sum(innermost):
    """The overload of a sum along an axis whose lanes are summed pairwise where
    `innermost(like, k)`."""
    def ov(x, axis, like):
        if not isinstance(x.dtype, (t.Float, t.Complex)) or \
                _result_dtype(x, "sum") != x.dtype:
            return lambda x, axis, like: np.sum(x, axis)
        normalize = axis_normalizer(x.ndim)

        def float_sum_along_as(x, axis, like):
            k = normalize(axis)
            return summed_along(x, k, innermost(like, k))
        return float_sum_along_as
    return ov


overload(sum_along_as)(_laid_out_sum(along_innermost))
overload(sum_along_as_copied)(_laid_out_sum(copy_innermost))


def summed_along(a, k, pairwise):
    """The float sum of `a` along its axis k (normalized), each lane pairwise or the lanes
    added in order, as NumPy's loop runs (compiled code only)."""


def lanes_last(a, k):
    """(a C array (outer, n, 1) holding each lane of `a` along axis k as a row, the shape
    of `a` without k) (compiled code only)."""


@overload(lanes_last)
def _lanes_last(a, k):
    @register_jitable
    def moved(a, k):
        return around_axis(c_contiguous(np.moveaxis(a, k, -1)), a.ndim - 1)
    if a.layout != "C":
        return moved

    def in_place(a, k):   # a C array's lanes are rows when the axes after k have length 1
        x, shape = around_axis(a, k)
        return (x, shape) if x.shape[2] == 1 else moved(a, k)
    return in_place


@overload(summed_along)
def _summed_along(a, k, pairwise):
    dt = a.dtype
    sequential = register_jitable(_along(a, dt, add, identity=0))
    wide = _summed_in(dt)
    short = 4 if isinstance(dt, t.Complex) else 8   # items pairwise_sum adds in order

    def float_summed_along(a, k, pairwise):
        if not pairwise:
            return sequential(a, k)
        x, shape = lanes_last(a, k)
        outer, n = x.shape[0], x.shape[1]
        out = empty_array(shape, dt)
        result, flat = flat_view(out), widened(flat_view(x), wide)
        if n < short:  # short rows (pairwise_sum adds them in order too), without a call each
            for o in range(outer):
                total = wide(0)
                for i in range(o * n, o * n + n):
                    total += item_in_range(flat, i)
                result[o] = total
            return out
        for o in range(outer):
            result[o] = pairwise_sum(flat, o * n, n, wide(0))
        return out
    return float_summed_along


def _summed_in(dt):
    """The type NumPy sums a row of dt in: float16 items pairwise in float32, the sum
    rounded once (NumPy's half loops convert each item)."""
    return np.float32 if dt == t.float16 else dt.np_dtype.type


def widened(x, wide):
    """x (1-d) itself when its items are `wide`'s, else a copy in `wide` (compiled code
    only)."""


@overload(widened)
def _widened(x, wide):
    if x.dtype == wide.instance_type:
        return lambda x, wide: x
    return lambda x, wide: x.astype(wide)


def _mean_along(a):
    if not isinstance(a.dtype, (t.Float, t.Integer, t.Boolean)):
        return None
    normalize = axis_normalizer(a.ndim)
    as_float = isinstance(a.dtype, (t.Integer, t.Boolean))
    half = a.dtype == t.float16

    def mean_along(a, axis):
        n = a.shape[normalize(axis)]
        if as_float:
            return sum_along_as(a.astype(np.float64), axis, a) / n
        if half:   # NumPy's mean of float16 sums and divides in float32
            return (sum_along_as(a.astype(np.float32), axis, a) / n).astype(np.float16)
        return np.sum(a, axis) / n
    return mean_along


@_reduction("sum", _sum_along)
def _sum(a):
    dt = _result_dtype(a, "sum")
    if isinstance(dt, (t.Float, t.Complex)) and dt == a.dtype:
        wide = _summed_in(dt)

        def float_sum(a):   # pairwise in the calls NumPy's iterator makes (reduction_order)
            block, step = calls_of(a, False)
            x = widened(as_flat(a), wide)
            if step >= x.shape[0]:
                return dt(pairwise_total(x, wide(0)))
            return total_in_calls(x, wide(0), block, step, dt)
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


@register_jitable
def cast_total(x, zero):
    """The sum NumPy takes of the contiguous 1-d `x` in another dtype, zero's
    (`np.sum(x, dtype=...)`): converted and summed BUFFER items at a time."""
    return cast_total_in(x, zero, x.shape[0], BUFFER)


@_reduction("mean", _mean_along)
def _mean(a):
    dt = _result_dtype(a, "mean")
    if a.dtype == t.float16:
        def half_mean(a):   # summed in float32 as NumPy's float16 mean is, rounded at the end
            block, step = calls_of(a, True)
            return dt(np_true_divide(np.float64(cast_total_in(as_flat(a), np.float32(0), block,
                                                              step)), np.float64(a.size)))
        return half_mean
    if isinstance(a.dtype, (t.Float, t.Complex)) and dt == a.dtype:
        # NumPy divides by an intp count: in float64 (complex128, times 1 / count)
        wide = np.complex128 if isinstance(dt, t.Complex) else np.float64

        def float_mean(a):
            block, step = calls_of(a, False)
            x = as_flat(a)
            total = pairwise_total(x, dt(0)) if step >= x.shape[0] else \
                total_in_calls(x, dt(0), block, step, dt)
            return dt(np_true_divide(wide(total), wide(a.size)))
        return float_mean
    if isinstance(a.dtype, (t.Integer, t.Boolean)):
        def int_mean(a):
            block, step = calls_of(a, True)
            return cast_total_in(as_flat(a), 0.0, block, step) / a.size if a.size else np.nan
        return int_mean
    return None


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


# ---- accumulations, spread ------------------------------------------------------------------

def _accumulation(method, step, lone_step):
    """`np.cumsum`/`np.cumprod` (and methods): each item combined with the running result,
    in order, starting from the first item as NumPy's accumulate does; the flattened array
    without an axis, the same shape along one. NumPy's accumulate calls its loop once per
    lane for all its steps; with one step (a lane of two items) its input and output do not
    overlap, so the loop may be the SIMD one, which multiplies complex numbers with fused
    multiply-adds (`lone_step`; NumPy fuzzer seed 12779)."""
    def whole(a):
        dt = _result_dtype(a, method)

        @register_jitable
        def accumulate(x):
            out = empty_array(x.shape[0], dt)
            if x.shape[0]:
                out[0] = x[0]
            if x.shape[0] == 2:
                out[1] = lone_step(out[0], x[1])
                return out
            for i in range(1, x.shape[0]):
                out[i] = step(out[i - 1], x[i])
            return out
        if a.ndim == 1:     # any stride: a reversed or strided view is read where it is
            return lambda a: accumulate(a)
        return lambda a: accumulate(in_c_order(a))

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
                if n == 2:
                    for j in range(inner):
                        y[o, 1, j] = lone_step(y[o, 0, j], x[o, 1, j])
                    continue
                for i in range(1, n):
                    for j in range(inner):
                        y[o, i, j] = step(y[o, i - 1, j], x[o, i, j])
            return out
        return accumulate_along
    _reduction(method, along)(whole)


_accumulation("cumsum", add, add)
_accumulation("cumprod", multiply, np_multiply)


def _ptp(a):
    if isinstance(a.dtype, t.Boolean):
        return None  # NumPy refuses to subtract booleans

    dt = a.dtype

    def ptp(a, axis=None):   # in the dtype, as NumPy's subtract: an int8 ptp wraps
        return dt(np.max(a) - np.min(a))
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
        half = a.dtype == t.float16   # NumPy's var of float16: the mean in float16

        def spread(a, axis=None, ddof=0):
            if axis is not None:
                normalize(axis)
            m = dt(np_true_divide(np.float64(np.sum(a)), np.float64(a.size))) if half \
                else np.mean(a)
            d = as_flat(a) - m  # NumPy's deviations are laid out as `a` is (order 'K')
            total = np.sum(d * d)
            # divided by an intp count, in float64 as NumPy's scalar division is
            variance = dt(np_true_divide(np.float64(total), np.float64(max(a.size - ddof, 0))))
            return np.sqrt(variance) if take_root else variance

        def spread_along(a, axis=None, ddof=0):
            k = normalize(axis)
            means = flat_view(np.sum(a, k) / dt(a.shape[k]) if half else np.mean(a, k))
            x, shape = around_axis(c_contiguous(a), k)
            outer, n, inner = x.shape
            squares = empty_array(a.shape, dt)
            flat = flat_view(squares)
            for o in range(outer):
                for i in range(n):
                    for j in range(inner):
                        d = x[o, i, j] - means[o * inner + j]
                        flat[(o * n + i) * inner + j] = d * d
            out = sum_along_as(squares, k, a)
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

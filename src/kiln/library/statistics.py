"""Statistics, of the whole array or along an axis: median, quantile, percentile, average
and the NaN-ignoring reductions (nansum, nanprod, nanmean, nanvar, nanstd, nanmin, nanmax,
nanargmin, nanargmax, nanmedian, nanquantile, nanpercentile, nancumsum, nancumprod).

Each is computed as NumPy computes it, so the numbers and dtypes agree: the nan-reductions
replace NaNs and call the plain reduction (np.sum, np.argmin... along the axis, NumPy's
order); order statistics select, in each lane along the axis (axes.py's (outer, n, inner) view), the
positions `stat(lane, q)` reads for each q (quickselect, NaNs last: no full sort), with
NumPy's interpolation and dtypes."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array
from .axes import around_axis, axis_normalizer
from .reduction_order import in_copy_order
from .reductions import (_along, _result_dtype, as_flat, c_contiguous, cast_total,
                         in_c_order, sum_along_as_copied)
from .arrays import item_in_range
from .introsort import SMALL, insertion_sort, partition
from ..typing.registry import omitted, overload, register_jitable
from .split import by_ranges
from .ufuncs import np_fmax, np_fmin, np_true_divide


def _form(a, axis):
    """How `np.f(a, axis)` reduces: 'whole' (no axis, or a 1-d array's only axis), 'along'
    an integer axis, or None when kiln does not take these arguments."""
    if not isinstance(a, t.Array) or isinstance(a.dtype, t.Complex) or a.dtype == t.float16:
        return None
    if omitted(axis):
        return "whole"
    if isinstance(axis, t.Integer) and not isinstance(axis, t.Boolean):
        return "whole" if a.ndim == 1 else "along"
    return None


def _floats(a):
    return isinstance(a.dtype, t.Float)


# ---- order statistics: median, quantile, percentile and their nan- forms -------------------

# A statistic reads a few order statistics of its lane (the middle items, a quantile's two
# neighbours) and its last item, which is NaN when the lane has one (NaN sorts last). So the
# lane is not sorted: its NaNs are put at the end, and each position the statistic reads is
# selected (quickselect: the item there is the one sorting would put there, smaller ones
# before it, larger ones after), in increasing order, each on what is left after the last.

@register_jitable
def _select(x, lo, hi, k):
    """Reorder x[lo:hi] (no NaN) so that x[k] is the item sorting would put there, with
    x[lo:k] <= x[k] <= x[k+1:hi]: quickselect with a median-of-3 pivot, which sorts the
    range instead once it has taken more rounds than a balanced split needs (introselect)."""
    budget = 8
    n = hi - lo
    while n > 1:
        budget += 2
        n >>= 1
    while hi - lo > SMALL:
        if budget <= 0:
            x[lo:hi].sort()
            return
        budget -= 1
        left_end, right_start = partition(x, lo, hi)
        if k < left_end:
            hi = left_end
        elif k >= right_start:
            lo = right_start
        else:                    # k holds the pivot, in its place
            return
    insertion_sort(x, lo, hi)


@register_jitable
def _select_positions(x, count, positions):
    """Select each of the sorted `positions` (those outside [0, count) are skipped) in
    x[:count]; one that follows the last directly is the minimum of the rest (one pass)."""
    lo = 0
    for p in range(positions.shape[0]):
        k = positions[p]
        if k >= lo and k < count:
            if k == lo and p > 0:
                least = k
                for i in range(k + 1, count):
                    if x[i] < x[least]:
                        least = i
                x[k], x[least] = x[least], x[k]
            else:
                _select(x, lo, count, k)
            lo = k + 1


def _lanes(dt, stat, R, drop_nan, wanted):
    """A compiled `lanes(x, qs)`: `stat(lane, q)` for each lane x[o, :, j] of the 3-d `x`
    (its NaNs dropped when `drop_nan`) and each q of the 1-d `qs`, as an array (len(qs),
    lanes) of R. `wanted(count, qs)` gives the sorted positions the statistic reads in a lane
    of `count` numbers; they are selected, the lane is not sorted."""
    floats = isinstance(dt, t.Float)

    def lanes(x, qs):
        outer, n, inner = x.shape
        out = empty_array((qs.shape[0], outer * inner), R)
        lane = empty_array(n, dt)
        for o in range(outer):
            for j in range(inner):
                count = 0
                nans = 0
                for i in range(n):
                    v = x[o, i, j]
                    if not floats or v == v:
                        lane[count] = v
                        count += 1
                    elif not drop_nan:
                        nans += 1
                        lane[n - nans] = v
                if nans:
                    last = lane[n - nans]        # the last NaN in the lane, where a stable
                    lane[n - nans] = lane[n - 1]  # sort puts it
                    lane[n - 1] = last
                _select_positions(lane, count, wanted(count, qs))
                kept = lane[:count + nans]
                for p in range(qs.shape[0]):
                    out[p, o * inner + j] = stat(kept, qs[p])
        return out
    return register_jitable(lanes)


@register_jitable
def _median_positions(count, qs):
    positions = np.empty(2, np.int64)
    positions[0] = (count - 1) // 2
    positions[1] = count // 2
    return positions


def _quantile_positions(Q):
    """A compiled `positions(count, qs)`: the two neighbours of each q's virtual index
    (count - 1) * q, computed in q's dtype Q as `_quantile_stat` computes it (an integer
    index, or one past the end, reads one item), sorted."""
    if isinstance(Q, t.Integer):
        def positions(count, qs):
            out = np.empty(qs.shape[0], np.int64)
            for p in range(qs.shape[0]):
                out[p] = (count - 1) * qs[p]
            out.sort()
            return out
        return register_jitable(positions)

    def positions(count, qs):
        out = np.empty(2 * qs.shape[0], np.int64)
        for p in range(qs.shape[0]):
            v = Q(count - 1) * qs[p]
            below = int(np.floor(v))
            if v >= Q(count - 1):
                below = count - 2
            out[2 * p] = below
            out[2 * p + 1] = below + 1
        out.sort()
        return out
    return register_jitable(positions)


def _by_lanes(a, axis, stat, R, drop_nan, wanted):
    """A compiled `f(a, qs, axis)`: the statistic of the whole array as a 1-d array (one
    item per q), or along the axis as an array (len(qs),) + the other axes."""
    lanes = _lanes(a.dtype, stat, R, drop_nan, wanted)
    normalize = axis_normalizer(a.ndim)

    def whole(a, qs, axis):
        if axis is not None:
            normalize(axis)
        x = in_c_order(a)
        return lanes(x.reshape((1, x.shape[0], 1)), qs).reshape(qs.shape[0])

    def along(a, qs, axis):
        x, shape = around_axis(c_contiguous(a), normalize(axis))
        return lanes(x, qs).reshape((qs.shape[0],) + shape)
    return register_jitable(whole if _form(a, axis) == "whole" else along)


def _median_stat(R):
    """The median of a sorted lane as NumPy's (the mean of the middle items) or, when
    `small`, as NumPy's nanmedian of short lanes along an axis computes it (a masked
    median: the middle items added from zero, an odd count's twice, and halved); a NaN,
    which sorts last, gives NaN."""
    def median(x, small):
        n = x.shape[0]
        if n == 0:
            return R(np.nan)
        if x[n - 1] != x[n - 1]:
            return R(x[n - 1])
        if small:
            return (R(0) + R(x[(n - 1) // 2]) + R(x[n // 2])) / R(2)
        return np.mean(x[(n - 1) // 2:n // 2 + 1])
    return register_jitable(median)


def _quantile_stat(A, Q, R):
    """The q-quantile of a sorted lane by NumPy's 'linear' method: its virtual index
    (n - 1) * q in q's dtype Q, the neighbours' difference in the items' dtype A and the
    interpolation in R, from the nearer neighbour; an integer index takes the item (R is
    A); a NaN, which sorts last, gives NaN; an empty lane (all NaN) gives NaN."""
    if isinstance(Q, t.Integer):
        # integer lanes are never empty here: quantiles() raises first
        nothing = R(np.nan) if isinstance(R, t.Float) else R(0)

        def take(x, q):
            n = x.shape[0]
            if n == 0:
                return nothing
            if x[n - 1] != x[n - 1]:
                return x[n - 1]
            return x[(n - 1) * q]
        return register_jitable(take)

    def interpolate(x, q):
        n = x.shape[0]
        if n == 0:
            return R(np.nan)
        if x[n - 1] != x[n - 1]:
            return R(x[n - 1])
        v = Q(n - 1) * q
        below = int(np.floor(v))
        above = below + 1
        if v >= Q(n - 1):  # NumPy takes the last item, at index -1, for both
            below, above = -1, -1
        gamma = Q(np.float64(v) - below)
        low, high = x[below], x[above]
        difference = high - low
        if gamma >= 0.5:
            return R(high) - R(difference) * R(Q(1) - gamma)
        return R(low) + R(difference) * R(gamma)
    return register_jitable(interpolate)


def _q_dtypes(a, q, scale):
    """(Q, R): the dtype NumPy computes q / scale in (a Python number's, kiln's int64 and
    float64 scalars, is float64 or int64, else q's) and the result's (a's for an integer Q,
    which takes items; else a float that a Python q does not widen); None for q that is no
    number or 1-d array of numbers."""
    if isinstance(q, t.Array):
        if q.ndim != 1 or not isinstance(q.dtype, (t.Integer, t.Float)) or \
                isinstance(q.dtype, t.Boolean):
            return None
        sample, weak = np.zeros(1, q.dtype.np_dtype), False
    elif isinstance(q, (t.Integer, t.Float)) and not isinstance(q, t.Boolean):
        weak = q in (t.int64, t.float64)
        sample = (0.0 if isinstance(q, t.Float) else 0) if weak else q.np_dtype.type(0)
    else:
        return None
    quotient = sample if scale == 1 else np.true_divide(sample, scale)
    Q = t.from_dtype(np.asarray(quotient).dtype)
    if isinstance(Q, t.Integer):
        return Q, a.dtype
    return Q, t.from_dtype(np.result_type(a.dtype.np_dtype, 0.0 if weak else quotient))


def _fractions(q, Q, scale):
    """A compiled `fractions(q)`: q (a number or 1-d array) / scale in Q, as a 1-d array."""
    if scale == 1:
        def fraction(v):
            return Q(v)
    else:
        def fraction(v):
            return Q(v) / Q(scale)
    fraction = register_jitable(fraction)

    def fractions(q):
        out = empty_array(q.shape[0], Q)
        for i in range(q.shape[0]):
            out[i] = fraction(q[i])
        return out

    def one_fraction(q):
        return np.full(1, fraction(q))
    return register_jitable(fractions if isinstance(q, t.Array) else one_fraction)


def _quantile_function(scale, drop_nan, message):
    """np.quantile/percentile (scale 1 or 100) and their nan- forms: q a number or a 1-d
    array, along no axis or one."""
    def ov(a, q, axis=None):
        form = _form(a, axis)
        if form is None or isinstance(a.dtype, t.Boolean):
            return None  # NumPy cannot subtract booleans
        dtypes = _q_dtypes(a, q, scale)
        if dtypes is None:
            return None
        A, (Q, R) = a.dtype, dtypes
        statistic = _by_lanes(a, axis, _quantile_stat(A, Q, R), R, drop_nan,
                              _quantile_positions(Q))
        fractions = _fractions(q, Q, scale)
        normalize = axis_normalizer(a.ndim)
        vector = isinstance(q, t.Array)
        # NumPy's nan- forms give nanmean(a, axis) for an empty a: kiln's result type when q
        # is a number and the result a float
        empty_differs = drop_nan and (vector or not isinstance(R, t.Float))

        def quantiles(a, q, axis=None):
            qs = fractions(q)
            if not (np.all(qs >= 0) and np.all(qs <= 1)):
                raise ValueError(message)
            n = a.size
            if axis is not None:
                n = a.shape[normalize(axis)]
            if n == 0 and not drop_nan:
                raise IndexError("index -1 is out of bounds for axis 0 with size 0")
            if a.size == 0 and empty_differs:
                raise ValueError("kiln's nanquantile/nanpercentile of an empty array need a "
                                 "scalar q and a float result (NumPy gives nanmean(a, axis))")
            return statistic(a, qs, axis)
        quantiles = register_jitable(quantiles)
        if vector:
            return quantiles

        def quantile(a, q, axis=None):
            return quantiles(a, q, axis)[0]
        return quantile
    return ov


overload(np.quantile)(_quantile_function(1, False, "Quantiles must be in the range [0, 1]"))
overload(np.percentile)(_quantile_function(100, False,
                                           "Percentiles must be in the range [0, 100]"))
overload(np.nanquantile)(_quantile_function(1, True, "Quantiles must be in the range [0, 1]"))
overload(np.nanpercentile)(_quantile_function(100, True,
                                              "Percentiles must be in the range [0, 100]"))


def _median_function(drop_nan):
    """np.median and np.nanmedian; NumPy's nanmedian along an axis of an N-d array (N > 1)
    shorter than 600 items takes the masked median (`_median_stat`'s `small`)."""
    def ov(a, axis=None):
        form = _form(a, axis)
        if form is None:
            return None
        R = _result_dtype(a, "mean")
        statistic = _by_lanes(a, axis, _median_stat(R), R, drop_nan, _median_positions)
        normalize = axis_normalizer(a.ndim)
        masked = drop_nan and form == "along"

        def median(a, axis=None):
            small = 0.0
            if axis is not None:
                if masked:
                    small = 1.0 if a.shape[normalize(axis)] < 600 else 0.0
            return statistic(a, np.full(1, small), axis)[0]
        return median
    return ov


overload(np.median)(_median_function(False))
overload(np.nanmedian)(_median_function(True))


# ---- average ------------------------------------------------------------------------------

def _total_as(dt, R):
    """A compiled sum of a 1-d array of `dt` as NumPy's `sum(dtype=R)`: converted piece by
    piece when the dtypes differ."""
    if dt == R:
        def total(w):
            return np.sum(w)
    else:
        zero = R(0)

        def total(w):
            return cast_total(w, zero)
    return register_jitable(total)


@overload(np.average)
def _average(a, axis=None, weights=None, returned=False):
    """np.average with no weights (the mean), weights of a's shape, or 1-d weights along
    the axis: sum(a * w) / sum(w) in NumPy's result dtype."""
    if returned is not False:
        raise TypingError("np.average: kiln does not take returned= (its value decides the "
                          "result's type)")
    form = _form(a, axis)
    if form is None:
        return None
    if omitted(weights):
        if form == "whole":
            return lambda a, axis=None, weights=None, returned=False: np.mean(a, axis)

        def mean_along(a, axis=None, weights=None, returned=False):
            mean = np.mean(a, axis)
            if mean.size == 0:  # NumPy divides a.size by it (for returned=) in any case
                raise ZeroDivisionError("division by zero")
            return mean
        return mean_along
    if not isinstance(weights, t.Array) or isinstance(weights.dtype, t.Complex):
        return None
    extra = ("f8",) if isinstance(a.dtype, (t.Integer, t.Boolean)) else ()
    R = t.from_dtype(np.result_type(a.dtype.np_dtype, weights.dtype.np_dtype, *extra))
    normalize = axis_normalizer(a.ndim)
    total = _total_as(weights.dtype, R)
    unequal = "Axis must be specified when shapes of a and weights differ."
    inconsistent = "Shape of weights must be consistent with shape of a along specified axis."
    no_weight = "Weights sum to zero, can't be normalized"

    # NumPy sums a's and the weights' products in memory order when both are Fortran's
    flat = as_flat if a.layout == weights.layout == "F" else in_c_order

    def average(a, axis=None, weights=None, returned=False):
        if axis is not None:
            normalize(axis)
        if a.shape != weights.shape:
            raise TypeError(unequal)
        scale = total(as_flat(weights))
        if scale == 0.0:
            raise ZeroDivisionError(no_weight)
        return np.sum(flat(a).astype(R) * flat(weights).astype(R)) / scale

    def refused(a, axis=None, weights=None, returned=False):
        if axis is not None:
            normalize(axis)
            raise ValueError(inconsistent)
        raise TypeError(unequal)

    def same_shape(a, axis=None, weights=None, returned=False):
        k = normalize(axis)
        if a.shape != weights.shape:
            raise ValueError(inconsistent)
        scale = np.sum(weights.astype(R), k)
        if np.any(scale == 0.0):
            raise ZeroDivisionError(no_weight)
        return np.sum(a.astype(R) * weights.astype(R), k) / scale

    def on_the_axis(a, axis=None, weights=None, returned=False):
        k = normalize(axis)
        if weights.shape[0] != a.shape[k]:
            raise ValueError(inconsistent)
        scale = total(weights)
        if scale == 0.0:
            raise ZeroDivisionError(no_weight)
        products = empty_array(a.shape, R)
        around_axis(products, k)[0][...] = around_axis(c_contiguous(a), k)[0] * \
            weights.astype(R)[None, :, None]
        return np.sum(products, k) / scale
    if weights.ndim == a.ndim:
        return average if form == "whole" else same_shape
    if form == "along" and weights.ndim == 1:
        return on_the_axis
    return refused  # NumPy raises when it compares the shapes


# ---- NaN-ignoring reductions --------------------------------------------------------------

def _replacing_nan(func, reduce, fill, flat, along_as=None):
    """np.<func>(a, axis=None) as NumPy computes it: `reduce(a, axis)` of `a` with its NaNs
    replaced by `fill` (integers have none), or `along_as(that, axis, a)` (summed as NumPy
    sums its copy of a); of the whole array, reduce(flat(a))."""
    def ov(a, axis=None):
        form = _form(a, axis)
        if form is None:
            return None
        if not _floats(a):
            return lambda a, axis=None: reduce(a, axis)
        value = a.dtype(fill)
        normalize = axis_normalizer(a.ndim)

        def whole(a, axis=None):
            if axis is not None:
                normalize(axis)
            x = flat(a)
            return reduce(np.where(x != x, value, x))

        def along(a, axis=None):
            return reduce(np.where(a != a, value, a), axis)

        def along_laid_out(a, axis=None):
            return along_as(np.where(a != a, value, a), axis, a)
        if form == "whole":
            return whole
        return along if along_as is None else along_laid_out
    overload(func)(ov)


# sums and products in NumPy's order (the memory order of its copy of the array, in which it
# replaces the NaNs), accumulations in C's
_replacing_nan(np.nansum, np.sum, 0, in_copy_order, sum_along_as_copied)
_replacing_nan(np.nanprod, np.prod, 1, in_copy_order)
_replacing_nan(np.nancumsum, np.cumsum, 0, in_c_order)
_replacing_nan(np.nancumprod, np.cumprod, 1, in_c_order)


@overload(np.nanmean)
def _nanmean(a, axis=None):
    """The sum of the numbers over their count (NaN where there are none)."""
    form = _form(a, axis)
    if form is None:
        return None
    if not _floats(a):
        return lambda a, axis=None: np.mean(a, axis)
    dt = a.dtype
    zero = dt(0)
    normalize = axis_normalizer(a.ndim)

    def nanmean(a, axis=None):
        if axis is not None:
            normalize(axis)
        x = in_copy_order(a)
        return np_true_divide(np.sum(np.where(x != x, zero, x)), dt(np.count_nonzero(x == x)))

    def nanmean_along(a, axis=None):
        return sum_along_as_copied(np.where(a != a, zero, a), axis, a) / \
            np.sum(a == a, axis).astype(dt)
    return nanmean if form == "whole" else nanmean_along


def _nan_spread(func, plain, take_root):
    """np.nanvar/np.nanstd with ddof, as NumPy: the squared deviations of the numbers from
    their mean, summed as np.sum sums, over count - ddof (NaN where that is not positive)."""
    def ov(a, axis=None, ddof=0):
        form = _form(a, axis)
        if form is None:
            return None
        if not _floats(a):
            return lambda a, axis=None, ddof=0: plain(a, axis, ddof=ddof)
        dt = a.dtype
        zero, nan = dt(0), dt(np.nan)
        normalize = axis_normalizer(a.ndim)

        def nan_spread(a, axis=None, ddof=0):
            if axis is not None:
                normalize(axis)
            x = in_copy_order(a)
            numbers = x == x
            count = np.count_nonzero(numbers)
            mean = np_true_divide(np.sum(np.where(numbers, x, zero)), dt(count))
            d = np.where(numbers, x - mean, zero)
            variance = np_true_divide(np.sum(d * d), dt(count - ddof))
            if count - ddof <= 0:
                return nan
            return np.sqrt(variance) if take_root else variance

        def nan_spread_along(a, axis=None, ddof=0):
            k = normalize(axis)
            x, shape = around_axis(c_contiguous(a), k)
            outer, n, inner = x.shape
            numbers = x == x
            means = np.nanmean(a, k).reshape((outer, 1, inner))
            d = np.where(numbers, x - means, zero)
            squares = d * d
            dof = np.sum(numbers, 1).reshape(shape) - ddof
            variance = sum_along_as_copied(squares.reshape(a.shape), k, a) / dof.astype(dt)
            return np.where(dof > 0, np.sqrt(variance) if take_root else variance, nan)
        return nan_spread if form == "whole" else nan_spread_along
    overload(func)(ov)


_nan_spread(np.nanvar, np.var, False)
_nan_spread(np.nanstd, np.std, True)


def _nan_extreme(func, step, ufunc):
    """np.nanmin/np.nanmax as NumPy's fmin/fmax reduction: NaN loses to any number, an
    all-NaN lane gives NaN, an empty one raises. `step` is associative, so the whole-array
    form is split across threads (split.py)."""
    message = f"zero-size array to reduction operation {ufunc} which has no identity"

    @register_jitable
    def over(x, lo, hi, seed):
        best = item_in_range(x, lo)
        for i in range(lo + 1, hi):
            best = step(best, item_in_range(x, i))
        return best

    @register_jitable
    def join(left, right):
        return step(left, right)
    split = by_ranges(func.__name__, over, join)

    def ov(a, axis=None):
        form = _form(a, axis)
        if form is None:
            return None
        if form == "along":
            return _along(a, a.dtype, step, empty_message=message)
        normalize = axis_normalizer(a.ndim)

        def extreme(a, axis=None):
            if axis is not None:
                normalize(axis)
            x = as_flat(a)
            if x.shape[0] == 0:
                raise ValueError(message)
            return split(x, 0)
        return extreme
    overload(func)(ov)


_nan_extreme(np.nanmin, np_fmin, "fmin")
_nan_extreme(np.nanmax, np_fmax, "fmax")


def _nan_arg_extreme(func, plain, fill):
    """np.nanargmin/np.nanargmax as NumPy: the plain arg-reduction with NaNs replaced by
    +inf/-inf, after refusing a lane of NaNs only."""
    message = "All-NaN slice encountered"

    def ov(a, axis=None):
        form = _form(a, axis)
        if form is None:
            return None
        if not _floats(a):
            return lambda a, axis=None: plain(a, axis)
        value = a.dtype(fill)

        def arg_extreme(a, axis=None):
            nan = a != a
            if a.size and np.all(nan):
                raise ValueError(message)
            return plain(np.where(nan, value, a), axis)

        def arg_extreme_along(a, axis=None):
            nan = a != a
            if a.size and np.any(np.all(nan, axis)):
                raise ValueError(message)
            return plain(np.where(nan, value, a), axis)
        return arg_extreme if form == "whole" else arg_extreme_along
    overload(func)(ov)


_nan_arg_extreme(np.nanargmin, np.argmin, np.inf)
_nan_arg_extreme(np.nanargmax, np.argmax, -np.inf)



# ---- np.partition -------------------------------------------------------------------------

@register_jitable
def _nans_last(row):
    """Move the NaNs of the 1-d `row` to its end (NumPy sorts them last); the count of the
    others."""
    count = 0
    for i in range(row.shape[0]):
        v = row[i]
        if v == v:
            row[i] = row[count]
            row[count] = v
            count += 1
    return count


@register_jitable
def _kth_position(k, n):
    if k < -n or k >= n:
        raise ValueError("kth out of bounds")
    return k + n if k < 0 else k


@overload(np.partition)
def _np_partition(a, kth):
    """np.partition(a, kth) along the last axis: a copy in which each kth item is the one
    sorting would put there, smaller ones before it and larger after (in an order of their
    own: NumPy's differs), NaNs last; kth an int or a 1-d sequence of ints."""
    if not isinstance(a, t.Array) or a.ndim == 0 or isinstance(a.dtype, t.Complex) or \
            a.dtype == t.float16:
        return None
    if isinstance(kth, t.Integer) and not isinstance(kth, t.Boolean):
        def positions(kth, n):
            return np.full(1, _kth_position(kth, n))
    elif (isinstance(kth, t.Array) and kth.ndim == 1 and isinstance(kth.dtype, t.Integer)) or \
            (isinstance(kth, t.BaseTuple) and
             all(isinstance(k, t.Integer) and not isinstance(k, t.Boolean) for k in kth.types)):
        def positions(kth, n):
            ks = np.empty(len(kth), np.int64)
            for i in range(len(kth)):
                ks[i] = _kth_position(kth[i], n)
            ks.sort()
            return ks
    else:
        return None
    positions = register_jitable(positions)

    def partition(a, kth):
        out = a.copy()
        n = out.shape[out.ndim - 1]
        ks = positions(kth, n)
        rows = out.reshape(-1, n)
        for r in range(rows.shape[0]):
            row = rows[r]
            _select_positions(row, _nans_last(row), ks)
        return out
    return partition

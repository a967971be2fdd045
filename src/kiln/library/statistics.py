"""Statistics in compiled code, whole-array and along an axis, each computed as NumPy
computes it so the numbers agree: median, quantile, percentile, average, and the
NaN-ignoring family (nansum nanprod nanmean nanvar nanstd nanmin nanmax nanargmin
nanargmax nanmedian nanquantile nanpercentile).

nansum, nanprod, nanmean and average with weights of a's shape go through np.sum's own
axis loop (NumPy's order of additions); the others take each lane along the axis into a
contiguous buffer and apply the one-dimensional function to it: the same numbers for order
statistics and extremes, sums added pairwise as NumPy adds along the last axis.
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array, flat_view
from .axes import around_axis, axis_normalizer
from .reductions import c_contiguous, in_c_order
from .registry import overload, register_jitable


def _real_array(a):
    if isinstance(a, t.Array) and isinstance(a.dtype, t.Complex):
        raise TypingError("kiln's statistics take real arrays")
    return isinstance(a, t.Array)


def _whole(axis):
    return axis is None or isinstance(axis, t.NoneType)


def _float_result(a):
    """NumPy's result dtype for statistics of `a`: its own float type, else float64."""
    return a.dtype if isinstance(a.dtype, t.Float) else t.float64


def _lanes(one, result_dtype=None):
    """`f(a, axis, parameter)`: `one(lane, parameter)` of each lane along the axis, into an
    array of `result_dtype` (by default the float type NumPy gives)."""
    def ov_for(a):
        normalize = axis_normalizer(a.ndim)
        item = a.dtype
        dt = result_dtype or _float_result(a)

        def along(a, axis, parameter):
            x, shape = around_axis(c_contiguous(a), normalize(axis))
            outer, n, inner = x.shape
            out = empty_array(shape, dt)
            result = flat_view(out)
            lane = empty_array(n, item)
            for o in range(outer):
                for j in range(inner):
                    for i in range(n):
                        lane[i] = x[o, i, j]
                    result[o * inner + j] = one(lane, parameter)
            return out
        if a.ndim > 1:
            return register_jitable(along)

        def of_vector(a, axis, parameter):   # NumPy gives a scalar, not a 0-d array
            return along(a, axis, parameter)[()]
        register_jitable(along)
        return register_jitable(of_vector)
    return ov_for


# ---- order statistics ----------------------------------------------------------------------

@register_jitable
def _lerp(a, b, fraction):
    """NumPy's interpolation between neighbours (from the nearer end, for accuracy)."""
    difference = b - a
    if fraction >= 0.5:
        return b - difference * (1.0 - fraction)
    return a + difference * fraction


@register_jitable
def _quantile_sorted(x, q):
    n = x.shape[0]
    if n == 0:
        return np.nan
    if x[n - 1] != x[n - 1]:  # a NaN sorts last: the answer is NaN
        return np.float64(x[n - 1])
    position = q * (n - 1)
    below = int(np.floor(position))
    above = min(below + 1, n - 1)
    return _lerp(np.float64(x[below]), np.float64(x[above]), position - below)


@register_jitable
def _median_sorted(x):
    n = x.shape[0]
    if n == 0:
        return np.nan
    if x[n - 1] != x[n - 1]:
        return np.float64(x[n - 1])
    if n % 2:
        return np.float64(x[n // 2])
    return np.mean(x[n // 2 - 1:n // 2 + 1])


@register_jitable
def _quantile_of_lane(lane, q):
    if lane.shape[0] == 0:   # NumPy indexes the empty sorted lane
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    return _quantile_sorted(np.sort(lane), q)


@register_jitable
def _median_of_lane(lane, unused):
    return _median_sorted(np.sort(lane))


@register_jitable
def _without_nans(x):
    return x[x == x]


@register_jitable
def _nanquantile_of_lane(lane, q):
    return _quantile_sorted(np.sort(_without_nans(lane)), q)


@register_jitable
def _nanmedian_of_lane(lane, unused):
    return _median_sorted(np.sort(_without_nans(lane)))


@register_jitable
def _fraction(q, scale):
    fraction = q / scale
    if not 0.0 <= fraction <= 1.0:
        raise ValueError("Quantiles must be in the range [0, 1]")
    return fraction


def _quantile_family(scale, lane_function):
    lanes = _lanes(lane_function)

    def ov(a, q, axis=None):
        if not _real_array(a) or not isinstance(q, t.Number):
            return None
        if _whole(axis):
            def whole(a, q, axis=None):
                return lane_function(in_c_order(a).copy(), _fraction(q, scale))
            return whole
        along = lanes(a)
        return lambda a, q, axis=None: along(a, axis, _fraction(q, scale))
    return ov


overload(np.quantile)(_quantile_family(1.0, _quantile_of_lane))
overload(np.percentile)(_quantile_family(100.0, _quantile_of_lane))
overload(np.nanquantile)(_quantile_family(1.0, _nanquantile_of_lane))
overload(np.nanpercentile)(_quantile_family(100.0, _nanquantile_of_lane))


def _median_family(lane_function):
    lanes = _lanes(lane_function)

    def ov(a, axis=None):
        if not _real_array(a):
            return None
        if _whole(axis):
            return lambda a, axis=None: lane_function(in_c_order(a).copy(), 0.0)
        along = lanes(a)
        return lambda a, axis=None: along(a, axis, 0.0)
    return ov


overload(np.median)(_median_family(_median_of_lane))
overload(np.nanmedian)(_median_family(_nanmedian_of_lane))


# ---- averages ------------------------------------------------------------------------------

@register_jitable
def _weighted_lane(lane, weights):
    total = np.sum(weights * 1.0)
    if total == 0.0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return np.sum(lane * weights * 1.0) / total


@overload(np.average)
def _average(a, axis=None, weights=None):
    if not isinstance(a, t.Array):
        return None
    unweighted = weights is None or isinstance(weights, t.NoneType)
    if unweighted:
        if _whole(axis):
            return lambda a, axis=None, weights=None: np.mean(a)
        return lambda a, axis=None, weights=None: np.mean(a, axis)
    if not isinstance(weights, t.Array):
        return None
    if _whole(axis):
        def average(a, axis=None, weights=None):
            if a.shape != weights.shape:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            return _weighted_lane(a, weights)
        return average
    if a.ndim == 1:
        normalize = axis_normalizer(1)

        def of_vector(a, axis=None, weights=None):
            normalize(axis)
            if a.shape != weights.shape:
                raise ValueError("Length of weights not compatible with specified axis.")
            return _weighted_lane(a, weights)
        return of_vector
    if weights.ndim == a.ndim:
        def same_shape(a, axis=None, weights=None):
            if a.shape != weights.shape:
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            totals = np.sum(weights * 1.0, axis)
            if np.any(totals == 0.0):
                raise ZeroDivisionError("Weights sum to zero, can't be normalized")
            return np.sum(a * weights * 1.0, axis) / totals
        return same_shape
    if weights.ndim != 1:
        raise TypingError("np.average(): weights must have the shape of a, or be 1-d with "
                          "the length of the axis")
    along = _lanes(_weighted_lane)(a)

    def one_dimensional(a, axis=None, weights=None):
        return along(a, axis, weights)
    return one_dimensional


# ---- the NaN-ignoring family ---------------------------------------------------------------

def _nan_replaced(value):
    """`f(a, axis)` of `a` with NaN replaced by `value` first (integers have no NaN)."""
    def rewrite(plain):
        def ov(a, axis=None):
            if not _real_array(a):
                return None
            if not isinstance(a.dtype, t.Float):
                if _whole(axis):
                    return lambda a, axis=None: plain(a)
                return lambda a, axis=None: plain(a, axis)
            fill = a.dtype(value)
            if _whole(axis):
                return lambda a, axis=None: plain(np.where(a != a, fill, a))
            return lambda a, axis=None: plain(np.where(a != a, fill, a), axis)
        return ov
    return rewrite


overload(np.nansum)(_nan_replaced(0)(np.sum))
overload(np.nanprod)(_nan_replaced(1)(np.prod))


@overload(np.nanmean)
def _nanmean(a, axis=None):
    if not _real_array(a):
        return None
    if not isinstance(a.dtype, t.Float):
        if _whole(axis):
            return lambda a, axis=None: np.mean(a)
        return lambda a, axis=None: np.mean(a, axis)
    zero = a.dtype(0)
    if _whole(axis):
        def nanmean(a, axis=None):
            count = np.count_nonzero(a == a)
            return np.sum(np.where(a != a, zero, a)) / count if count else np.nan
        return nanmean

    dt = a.dtype

    def nanmean_along(a, axis=None):   # the float64 quotient, stored in a's dtype as NumPy
        counts = np.sum(a == a, axis)
        return (np.sum(np.where(a != a, zero, a), axis) / counts).astype(dt)

    def nanmean_of_vector(a, axis=None):
        counts = np.sum(a == a, axis)
        return dt(np.sum(np.where(a != a, zero, a), axis) / counts)
    return nanmean_along if a.ndim > 1 else nanmean_of_vector


@register_jitable
def _nanvar_of_lane(lane, ddof):
    """NumPy's nanvar: the mean of the numbers, then their squared deviations summed; NaN
    where ddof leaves no degree of freedom."""
    valid = lane == lane
    count = np.count_nonzero(valid)
    clean = np.where(valid, lane, 0.0)
    mean = np.sum(clean) / count if count else np.nan
    deviations = np.where(valid, clean - mean, 0.0)
    freedom = count - ddof
    return np.sum(deviations * deviations) / freedom if freedom > 0 else np.nan


@register_jitable
def _nanstd_of_lane(lane, ddof):
    return np.sqrt(_nanvar_of_lane(lane, ddof))


def _nan_spread(lane_function):
    def ov(a, axis=None, ddof=0):
        if not _real_array(a):
            return None
        if _whole(axis):
            return lambda a, axis=None, ddof=0: lane_function(in_c_order(a), ddof)
        along = _lanes(lane_function)(a)
        return lambda a, axis=None, ddof=0: along(a, axis, ddof)
    return ov


overload(np.nanvar)(_nan_spread(_nanvar_of_lane))
overload(np.nanstd)(_nan_spread(_nanstd_of_lane))


@register_jitable
def _nan_extreme_of_lane(lane, pick_max):
    if lane.shape[0] == 0 and pick_max:
        raise ValueError("zero-size array to reduction operation fmax which has no identity")
    if lane.shape[0] == 0:
        raise ValueError("zero-size array to reduction operation fmin which has no identity")
    best = np.nan
    for v in lane:
        if v == v and (best != best or (v > best if pick_max else v < best)):
            best = v
    return best


@register_jitable
def _nan_arg_extreme_of_lane(lane, pick_max):
    where = -1
    for i in range(lane.shape[0]):
        v = lane[i]
        if v == v and (where < 0 or (v > lane[where] if pick_max else v < lane[where])):
            where = i
    if where < 0:
        raise ValueError("All-NaN slice encountered")
    return where


def _nan_pick(lane_function, pick_max, plain, result_dtype):
    """nanmin/nanmax (`result_dtype` None: a's) and nanargmin/nanargmax (int64): integers
    have no NaN, so `plain` serves them."""
    def ov(a, axis=None):
        if not _real_array(a):
            return None
        if not isinstance(a.dtype, t.Float):
            if _whole(axis):
                return lambda a, axis=None: plain(a)
            return lambda a, axis=None: plain(a, axis)
        if _whole(axis):
            return lambda a, axis=None: lane_function(in_c_order(a), pick_max)
        along = _lanes(lane_function, result_dtype or a.dtype)(a)
        return lambda a, axis=None: along(a, axis, pick_max)
    return ov


overload(np.nanmin)(_nan_pick(_nan_extreme_of_lane, False, np.min, None))
overload(np.nanmax)(_nan_pick(_nan_extreme_of_lane, True, np.max, None))
overload(np.nanargmin)(_nan_pick(_nan_arg_extreme_of_lane, False, np.argmin, t.int64))
overload(np.nanargmax)(_nan_pick(_nan_arg_extreme_of_lane, True, np.argmax, t.int64))

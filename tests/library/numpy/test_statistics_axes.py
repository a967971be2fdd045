"""median, quantile, percentile, average and the nan-reductions, of the whole array and
along every axis (negative too) of 1- to 3-d arrays, against NumPy: values and dtypes,
float64/float32/int64, NaN (lanes of NaN only), inf, signed zeros, ties, empty axes,
non-contiguous inputs, and NumPy's errors."""
import copy

import numpy as np
import pytest

from helpers import check, jit, slow_except
from kiln.errors import TypingError

RNG = np.random.default_rng(7)
VALUES = np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, 7.25, np.inf, -np.inf])

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's NaN warnings


def agree(pyfunc, *args):
    """`check` (values, exception types), and the same dtypes as NumPy's results."""
    got = check(pyfunc, *args, jitted=jit(pyfunc))
    if got is None:
        return
    expected = pyfunc(*copy.deepcopy(args))
    pairs = zip(expected, got) if isinstance(expected, tuple) else [(expected, got)]
    for e, g in pairs:
        if isinstance(e, np.ndarray):
            assert g.dtype == e.dtype, f"{pyfunc.__name__}: dtype {g.dtype}, NumPy's {e.dtype}"


def sample(shape, dtype, nan_lanes=False):
    """Values with ties, both zeros, infinities and NaNs (floats), some lanes all NaN."""
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-4, 9, shape).astype(dtype)
    a = RNG.choice(VALUES, shape) + RNG.random(shape).round(1) * (RNG.random(shape) < 0.5)
    a[RNG.random(shape) < 0.2] = np.nan
    if nan_lanes and a.size:
        a[(0,) * (a.ndim - 1)] = np.nan  # a lane along the last axis
        a[(slice(None),) + (0,) * (a.ndim - 1)] = np.nan  # and one along the first
    return a.astype(dtype)


SHAPES = [(7,), (0,), (4, 5), (0, 3), (3, 0), (2, 3, 4), (2, 0, 3), (3, 1, 6)]


def arrays(dtype, nan_lanes=False):
    """Arrays of every shape, then non-contiguous ones (steps, a transpose)."""
    for shape in SHAPES:
        yield sample(shape, dtype, nan_lanes)
    yield sample((5, 8), dtype, nan_lanes)[:, ::-2]
    yield sample((3, 4, 5), dtype, nan_lanes).transpose(2, 0, 1)
    yield sample((6, 4, 3), dtype, nan_lanes)[::2, 1:, ::-1]


def every_axis(pyfunc, dtype, nan_lanes=False, nonempty=False):
    for a in arrays(dtype, nan_lanes):
        if nonempty and a.size == 0:
            continue
        for k in range(-a.ndim, a.ndim):
            agree(pyfunc, a, k)


# functions that give a value for every input, empty or all NaN, as NumPy's
def never_raising(a, k):
    return (np.median(a, axis=k), np.nanmedian(a, k), np.nanquantile(a, 0.3, axis=k),
            np.nanpercentile(a, 62.5, k), np.nansum(a, axis=k), np.nanprod(a, k),
            np.nanmean(a, axis=k), np.nanvar(a, k), np.nanstd(a, axis=k, ddof=1),
            np.nancumsum(a, axis=k), np.nancumprod(a, k), np.average(a, axis=k))


def quantiles(a, k):  # IndexError for an empty axis, as NumPy
    return (np.quantile(a, 0.3, axis=k), np.percentile(a, 62.5, k),
            np.quantile(a, np.array([0.0, 0.25, 0.5, 0.999, 1.0]), axis=k),
            np.percentile(a, np.array([100.0, 12.5, 0.0]), k))


def nan_quantiles(a, k):  # q of a's dtype: integers take items
    return (np.nanquantile(a, np.array([0.0, 0.5, 1.0, 0.7]).astype(a.dtype), axis=k),
            np.nanpercentile(a, np.array([90.0, 33.0]).astype(a.dtype), k))


def nan_extremes(a, k):  # ValueError for an empty axis
    return np.nanmin(a, axis=k), np.nanmax(a, k)


def nan_args(a, k):  # ValueError for an empty axis or a lane of NaN only
    return np.nanargmin(a, axis=k), np.nanargmax(a, k)


def weighted(a, k):
    return np.average(a, axis=k, weights=a * 0.5 + 9.0)


def weighted_along(a, w, k):
    return np.average(a, k, w)


# The grids of every layout and axis (each dtype 15-50 s of compiling) run in the long run
# (-m slow), which CI runs too; the default run has one strided array of each function
# (test_one_strided_array below) and int8, bool, float32 and int64 inputs in the smaller
# tests after it
DTYPES = [pytest.param(d, marks=pytest.mark.slow) for d in (np.float64, np.float32, np.int64)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_never_raising(dtype):
    every_axis(never_raising, dtype, nan_lanes=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_quantiles(dtype):
    every_axis(quantiles, dtype)
    every_axis(nan_quantiles, dtype, nan_lanes=True, nonempty=True)


def strided_sample():
    return sample((6, 4, 3), np.float64, nan_lanes=True)[::2, 1:, ::-1]


def test_one_strided_array():
    a = strided_sample()
    for k in (0, -1):
        agree(quantiles, np.nan_to_num(a, nan=0.5), k)
        agree(nan_quantiles, a, k)
        agree(nan_extremes, a, k)
        agree(nan_args, a, k)
        agree(weighted, a, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_extremes(dtype):
    every_axis(nan_extremes, dtype, nan_lanes=True)
    every_axis(nan_args, dtype)
    every_axis(nan_args, dtype, nan_lanes=True)  # NumPy's ValueError


@pytest.mark.parametrize("dtype", DTYPES)
def test_weighted_average(dtype):
    every_axis(weighted, dtype)
    for a in arrays(dtype):
        for k in range(-a.ndim, a.ndim):
            agree(weighted_along, a, RNG.random(a.shape[k]).astype(np.float32) + 0.5, k)
            agree(weighted_along, a, np.arange(a.shape[k]) % 3, k)  # may sum to zero
    agree(weighted_along, sample((3, 4), dtype), np.ones(3), 1)  # the wrong length
    # sums of more than NumPy's buffer (8192): converted piece by piece, or not at all
    a = np.nan_to_num(sample((2, 9000), dtype), posinf=3.0, neginf=-1.0)
    for w in (RNG.random(9000), RNG.random(9000).astype(np.float32)):
        agree(weighted_along, a, w, 1)
        agree(weighted_whole, a[0], w)


def whole(a):
    return (np.median(a), np.nanmedian(a), np.quantile(a, 0.75), np.percentile(a, 5.0),
            np.nanquantile(a, 0.25), np.nanpercentile(a, 50.0), np.nansum(a), np.nanprod(a),
            np.nanmean(a), np.nanvar(a, ddof=1), np.nanstd(a), np.average(a),
            np.nancumsum(a), np.nancumprod(a), np.nanmin(a), np.nanmax(a),
            np.quantile(a, np.array([0.5, 0.1])), np.nanpercentile(a, np.array([1.0, 99.0])),
            np.average(a, weights=a * 0 + 2.0))


def whole_along_none(a):
    return (np.median(a, axis=None), np.nanquantile(a, 0.5, None), np.nansum(a, axis=None),
            np.nanargmax(a, axis=None), np.average(a, None))


@pytest.mark.parametrize("dtype", DTYPES)   # whole-array statistics also in test_statistics.py
def test_whole_array(dtype):
    for a in [sample((9,), dtype), sample((4, 5), dtype), sample((2, 3, 4), dtype),
              np.asfortranarray(sample((3, 5), dtype)), sample((6, 5), dtype)[::-2, 1:]]:
        agree(whole, a)
        agree(whole_along_none, np.nan_to_num(a, nan=1.5))


def test_nanmedian_of_long_and_short_lanes():
    # NumPy takes a masked median along an axis shorter than 600: (x + x) / 2 overflows
    a = np.array([[1e308, 1.0], [np.nan, 1.0], [np.nan, np.nan]])
    for k in (0, 1, -1):
        agree(never_raising, a, k)
    b = RNG.random((2, 601)) * 1e308
    b[:, ::2] = np.nan
    agree(never_raising, b, 1)
    agree(never_raising, b.T.copy(), 0)


def test_one_dimensional_axis_gives_a_number():
    a = sample((8,), np.float64)
    agree(never_raising, a, 0)
    agree(never_raising, a, -1)
    agree(never_raising, a, 1)  # AxisError, as NumPy


def test_out_of_range_axis():
    a, b = sample((2, 3), np.float64), strided_sample()   # the types compiled above
    agree(never_raising, a, 2)
    agree(never_raising, a, -3)
    for pyfunc in (quantiles, nan_extremes, nan_args, weighted):
        agree(pyfunc, b, 3)
        agree(pyfunc, b, -4)
    with pytest.raises(np.exceptions.AxisError, match="axis is out of bounds"):
        jit(never_raising)(a, 5)


def quantile_of(a, q):
    return np.quantile(a, q)


def percentile_along(a, q, k):
    return np.percentile(a, q, axis=k)


def nanquantile_along(a, q, k):
    return np.nanquantile(a, q, k)


@pytest.mark.slow   # ~40 s: three dtypes of a by nine of q
def test_q_dtypes():
    # NumPy computes q in a float array's dtype when q is a Python number, else in q's own
    f32, i64 = sample((4, 6), np.float32), sample((4, 6), np.int64)
    for a in (f32, i64, sample((4, 6), np.float64)):
        for q in (0.3, np.float32(0.3), 1, np.array([0.1, 0.35], np.float32),
                  np.array([0, 1])):
            agree(nanquantile_along, np.nan_to_num(a), q, 1)
            agree(quantile_of, a, q)
        for q in (30.0, np.float32(70.0), 20, np.array([1, 99])):
            agree(percentile_along, a, q, 0)


def test_quantile_errors():
    a = sample((3, 4), np.float64)
    for q in (1.5, -0.1, np.nan, np.array([0.5, 2.0])):
        with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
            jit(nanquantile_along)(a, q, 0)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        jit(percentile_along)(a, 100.5, 1)
    with pytest.raises(IndexError, match="index -1 is out of bounds"):
        jit(quantile_of)(np.zeros(0), 0.5)
    # NumPy gives nanmean(a, axis) for an empty a whatever q: not a type kiln can know
    with pytest.raises(ValueError, match="empty array"):
        jit(nanquantile_along)(np.zeros((0, 3)), np.array([0.5]), 0)
    with pytest.raises(TypingError):
        jit(quantile_of)(np.array([True, False]), 0.5)  # NumPy cannot subtract booleans


def nanmax_of(a):
    return np.nanmax(a)


def test_nan_errors_and_messages():
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        jit(nan_args)(np.array([[1.0, np.nan], [2.0, np.nan]]), 0)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        jit(nan_args)(np.zeros((0, 2)), 0)
    with pytest.raises(ValueError, match="reduction operation fmin which has no identity"):
        jit(nan_extremes)(np.zeros((2, 0)), 1)
    with pytest.raises(ValueError, match="reduction operation fmax which has no identity"):
        jit(nanmax_of)(np.zeros(0, np.int64))


def average_returned(a):
    return np.average(a, returned=True)


def weighted_whole(a, w):
    return np.average(a, weights=w)


def test_average_errors():
    a = sample((3, 4), np.float64)
    agree(weighted_whole, a, np.ones(4))  # NumPy's TypeError: no axis for 1-d weights
    agree(weighted_along, a, np.ones((3, 4, 1)), 0)  # ValueError
    with pytest.raises(ValueError, match="Shape of weights must be consistent"):
        jit(weighted_along)(a, np.ones(3), 1)
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        jit(weighted_along)(a, np.array([1.0, -1.0, 0.0]), 0)
    with pytest.raises(TypingError, match="returned="):
        jit(average_returned)(a)


def nan_reductions_of_ints(a, k):
    return (np.nansum(a, k), np.nanprod(a, k), np.nanmean(a, k), np.nanvar(a, k),
            np.nanstd(a, k), np.nanmin(a, k), np.nanmax(a, k), np.nanargmin(a, k),
            np.nanargmax(a, k), np.nanmedian(a, k), np.nancumsum(a, k))


SMALL = {"int8": RNG.integers(-100, 100, (3, 5)).astype(np.int8),
         "bool": RNG.integers(0, 2, (4, 3)) > 0}


@pytest.mark.parametrize("dtype", slow_except(list(SMALL), "int8"))
def test_small_integers_and_booleans(dtype):
    for k in (0, 1, -1):
        agree(nan_reductions_of_ints, SMALL[dtype], k)


def sums(a, b, w):
    return (np.nansum(a), np.nanprod(a), np.nanmean(a), np.nanvar(a), np.nanstd(a, ddof=1),
            np.average(b, weights=w))


def test_long_lanes_and_fortran_order():
    # long enough for NumPy's pairwise sums; a Fortran array is summed in memory order
    a = RNG.random((300, 7)) + 0.5
    a[RNG.random(a.shape) < 0.1] = np.nan
    b, w = RNG.random((300, 7)), RNG.random((300, 7))
    agree(sums, a, b, w)
    agree(sums, np.asfortranarray(a), np.asfortranarray(b), np.asfortranarray(w))
    for k in (0, 1, -1):
        agree(never_raising, a, k)

"""Statistics along an axis and the NaN-ignoring family in compiled code, against NumPy on
the same inputs: every axis (negative too) of 1- to 3-d arrays, float64, float32 and int64,
NaN (including all-NaN lanes), infinities, empty axes, non-contiguous layouts."""
import warnings

import numpy as np
import pytest

from kiln import njit

RNG = np.random.default_rng(23)


def _with_nans():
    a = RNG.standard_normal((3, 4, 5))
    a[0, 1, 2] = np.nan
    a[2, :, 3] = np.nan          # an all-NaN lane along axis 1
    a[1, 2, 0] = np.inf
    return a


ARRAYS = {
    "3-d": _with_nans(), "float32": _with_nans().astype(np.float32),
    "int64": (RNG.standard_normal((4, 6)) * 10).astype(np.int64),
    "fortran": np.asfortranarray(_with_nans()[0]), "strided": _with_nans()[:, ::2, ::-2],
    "1-d": RNG.standard_normal(9), "empty axis": np.zeros((3, 0)),
}


def order_statistics(a, k):
    return (np.median(a, k), np.quantile(a, 0.3, k), np.percentile(a, 25.0, k),
            np.nanmedian(a, axis=k), np.nanquantile(a, 0.7, axis=k),
            np.nanpercentile(a, 90.0, axis=k), np.nanmin(a, k), np.nanmax(a, axis=k))


def sums(a, k):
    return np.nansum(a, k), np.nanprod(a, axis=k), np.nanmean(a, k)


def spreads(a, k):
    return np.nanvar(a, k), np.nanstd(a, axis=k, ddof=1)


def whole(a):
    return (np.median(a), np.quantile(a, 0.5), np.nansum(a), np.nanprod(a), np.nanmean(a),
            np.nanvar(a), np.nanstd(a, ddof=1), np.nanmin(a), np.nanmax(a), np.nanmedian(a),
            np.nanquantile(a, 0.25), np.nanpercentile(a, 75.0))


def compare(fn, args, rtol, atol=0.0):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = fn(*args)
        except Exception as e:          # NumPy's error, raised by kiln too
            with pytest.raises(type(e)):
                njit(fn)(*args)
            return
        got = njit(fn)(*args)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (fn.__name__, g, w)
        if w.ndim:
            assert g.dtype == w.dtype, (fn.__name__, g.dtype, w.dtype)
        if rtol:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ARRAYS)
def test_along_every_axis(name):
    a = ARRAYS[name]
    float32 = a.dtype == np.float32
    for k in range(-a.ndim, a.ndim):
        # order statistics are exact in float64; float32 is interpolated in float64 and
        # rounded once, where NumPy rounds each step (an ulp of the neighbours at most)
        compare(order_statistics, (a, k), 1e-6 if float32 else 0, 3e-7 if float32 else 0)
        compare(sums, (a, k), 1e-6 if float32 else 1e-15)
        compare(spreads, (a, k), 1e-5 if float32 else 1e-13)
    compare(order_statistics, (a, a.ndim), 0)      # AxisError, as NumPy


@pytest.mark.parametrize("name", ARRAYS)
def test_whole_array(name):
    compare(whole, (ARRAYS[name],), 1e-5 if ARRAYS[name].dtype == np.float32 else 1e-13)


def arg_extremes(a, k):
    return np.nanargmin(a, axis=k), np.nanargmax(a, k)


def test_nanargmin_nanargmax():
    a = ARRAYS["3-d"]
    for k in (0, 2, -1):
        compare(arg_extremes, (a, k), 0)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        njit(arg_extremes)(a, 1)                   # the all-NaN lane
    assert njit(lambda a: (np.nanargmin(a), np.nanargmax(a)))(a) == \
        (np.nanargmin(a), np.nanargmax(a))
    compare(arg_extremes, (ARRAYS["int64"], 1), 0)


def weighted(a, w, k):
    return np.average(a, k, w), np.average(a, axis=k, weights=w * 2), np.average(a, k)


def test_average_with_weights_along_an_axis():
    a = RNG.standard_normal((4, 5))
    compare(weighted, (a, RNG.random((4, 5)), 0), 1e-15)      # weights of a's shape
    compare(weighted, (a, RNG.random((4, 5)), -1), 1e-15)
    compare(weighted, (a, RNG.random(5), 1), 1e-14)            # 1-d weights along axis 1
    compare(weighted, (a[0], RNG.random(5), 0), 1e-14)         # a vector: scalars
    with pytest.raises(ZeroDivisionError):
        njit(weighted)(a, np.zeros((4, 5)), 0)

"""Order statistics by selection (issue 33): np.median, np.quantile, np.percentile and their
nan- forms select the positions they read instead of sorting; against NumPy on the same
inputs: sizes around the insertion-sort cut-off, duplicates, sorted and adversarial orders,
NaN (one, several, all), signed zeros and infinities, int and float dtypes, axes, strided
arrays."""
import numpy as np
import pytest

from helpers import check, jit


def median(a): return np.median(a)
def nanmedian(a): return np.nanmedian(a)
def median_axis(a, axis): return np.median(a, axis=axis)
def nanmedian_axis(a, axis): return np.nanmedian(a, axis=axis)
def quantiles(a, q): return np.quantile(a, q)
def percentiles(a, q): return np.percentile(a, q)
def nanquantiles(a, q): return np.nanquantile(a, q)
def percentile_axis(a, q, axis): return np.percentile(a, q, axis=axis)


def median_of_3_killer(n):
    """Musser's sequence that makes median-of-3 quickselect quadratic."""
    k = n // 2
    a = np.empty(n)
    for i in range(1, k + 1):
        a[i - 1] = i if i % 2 else k + i - 1
        a[k + i - 1] = 2 * i
    return a


def inputs():
    g = np.random.default_rng(33)
    for n in [1, 2, 3, 4, 5, 16, 17, 18, 33, 1001, 20001]:
        yield g.standard_normal(n)
    yield g.integers(0, 5, 1000).astype(np.float64)          # many duplicates
    yield np.full(257, 3.5)
    yield np.arange(1000.0)
    yield np.arange(1000.0)[::-1]
    yield median_of_3_killer(2000)
    yield np.tile(np.arange(7.0), 300)
    yield np.array([0.0, -0.0, 0.0, -0.0, 1.0])
    yield np.array([-np.inf, 1.0, np.inf, 2.0, np.inf])
    yield g.standard_normal(1000).astype(np.float32)
    yield g.standard_normal(999)[::3]                         # strided
    for dtype in (np.int64, np.int32):
        yield g.integers(0, 100, 301).astype(dtype)


def with_nans():
    g = np.random.default_rng(34)
    a = g.standard_normal(1001)
    yield np.array([np.nan])
    yield np.array([1.0, np.nan, 2.0])
    b = a.copy()
    b[[3, 500, 999]] = np.nan
    yield b
    c = a.copy()
    c[100] = -np.nan
    yield c
    yield np.full(20, np.nan)
    d = g.standard_normal(40)
    d[::2] = np.nan
    yield d


QS = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 1 / 3]


@pytest.mark.parametrize("a", [   # float32 and int32 compile again: the long run
    pytest.param(a, marks=pytest.mark.slow) if a.dtype in (np.float32, np.int32) else a
    for a in inputs()], ids=lambda a: f"{a.dtype}{a.shape}")
def test_median_and_quantiles(a):
    check(median, a)
    check(quantiles, a, np.array(QS))
    check(quantiles, a, 0.37)
    check(percentiles, a, np.array([1.0, 50.0, 99.0]))
    if a.dtype.kind == "f":
        check(nanmedian, a)
        check(nanquantiles, a, np.array(QS))


@pytest.mark.parametrize("a", list(with_nans()), ids=lambda a: f"{a.shape}")
def test_nans(a):
    check(median, a)
    check(quantiles, a, np.array(QS))
    check(percentiles, a, 50.0)
    if not np.isnan(a).all():
        check(nanmedian, a)
        check(nanquantiles, a, np.array(QS))


def test_axes():
    g = np.random.default_rng(35)
    a = g.standard_normal((7, 30, 5))
    a[2, 3, 1] = np.nan
    for axis in [0, 1, 2, -1]:
        check(median_axis, a, axis)
        check(nanmedian_axis, a, axis)
        check(percentile_axis, a, np.array([10.0, 50.0, 90.0]), axis)
        check(median_axis, a[:, ::2, :], axis)
        check(median_axis, np.asfortranarray(a), axis)
    ints = g.integers(-9, 9, (6, 11))
    check(median_axis, ints, 0)
    check(median_axis, ints, 1)
    check(percentile_axis, ints, 40.0, 1)


def test_empty():
    check(median, np.empty(0))
    check(median_axis, np.empty((3, 0)), 1)
    check(median_axis, np.empty((0, 3)), 1)
    check(quantiles, np.empty(0), 0.5)


def partition(a, kth): return np.partition(a, kth)


def assert_partitioned(out, a, kth):
    """np.partition's promise (the order elsewhere is the implementation's own): the kth
    items are the sorted ones, nothing larger before them, nothing smaller after."""
    srt = np.sort(a, axis=-1)
    assert out.shape == a.shape and out.dtype == a.dtype
    np.testing.assert_array_equal(np.sort(out, axis=-1), srt)
    n = a.shape[-1]
    for k in np.atleast_1d(kth):
        k = int(k) % n
        np.testing.assert_array_equal(out[..., k], srt[..., k])
        pivot = srt[..., k:k + 1]
        before, after = out[..., :k], out[..., k + 1:]
        assert not np.any(before > pivot) and not np.any(after < pivot)
        if a.dtype.kind == "f":     # NaNs last: after a number only numbers or NaN
            assert not np.any(np.isnan(before) & ~np.isnan(pivot))


@pytest.mark.parametrize("a", list(inputs())[::3] + list(with_nans())[1:4],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_partition(a):
    f = jit(partition)
    n = a.shape[0]
    for kth in [0, n // 2, n - 1, -1, (0, n // 3, n - 1)]:
        assert_partitioned(f(a, kth), a, kth)
    b = np.random.default_rng(1).standard_normal((5, 40))
    assert_partitioned(f(b, 7), b, 7)
    assert_partitioned(f(b.T, 2), b.T, 2)
    with pytest.raises(ValueError):
        f(a, n)
    with pytest.raises(ValueError):
        np.partition(a, n)

"""NumPy's everyday routines in compiled code against NumPy on the same inputs: NaN, empty,
integer and 2-d inputs, and the errors NumPy raises."""
import warnings

import numpy as np
import pytest

from helpers import check, slow_after_first

RNG = np.random.default_rng(9)
X, X2 = RNG.random(11), RNG.random((3, 4))
N = X.copy()
N[[2, 5]] = np.nan


def flip(a):
    return np.flip(a)


def diff(a):
    return np.diff(a)


def outer(a, b):
    return np.outer(a, b)


def roll(a, s):
    return np.roll(a, s)


def isclose(a, b):
    return np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isclose(a, b, 0.1, 0.0)


def allclose(a, b):
    return np.allclose(a, b), np.allclose(a, b, equal_nan=True)


def array_equal(a, b):
    return np.array_equal(a, b)


def nonzero(a):
    return np.nonzero(a), np.where(a), np.argwhere(a)


def bincount(a):
    return np.bincount(a), np.bincount(a, minlength=7)


def interp(x, xp, fp):
    return np.interp(x, xp, fp)


def order_statistics(a):
    return np.median(a), np.quantile(a, 0.3), np.quantile(a, 1.0), np.percentile(a, 25.0)


def averages(a, w):
    return np.average(a), np.average(a, weights=w)


def nan_reductions(a):
    return np.nansum(a), np.nanmean(a), np.nanmin(a), np.nanmax(a)


def repeated(a):
    return np.repeat(a, 3), np.tile(a.ravel(), 2), np.repeat(a, 0)


def digitized(x, bins):
    return np.digitize(x, bins), np.digitize(x, bins, right=True)


def histogram(a):
    return np.histogram(a), np.histogram(a, 7)


def histogram_in_range(a, low, high):
    return np.histogram(a, 5, (low, high)), np.histogram(a, bins=3, range=(low, high))


def histogram_edges(a, edges):
    return np.histogram(a, edges), np.histogram(a, bins=edges, range=(0, 1))


def histogram_weighted(a, w, edges):
    return (np.histogram(a, 6, weights=w), np.histogram(a, bins=4, range=(-1, 1), weights=w),
            np.histogram(a, edges, weights=w))


def histogram_density(a, w, edges):
    return (np.histogram(a, 6, density=True), np.histogram(a, 4, (-1, 1), True, w),
            np.histogram(a, edges, density=True, weights=w), np.histogram(a, density=False))


WEIGHTED_DATA = RNG.normal(size=150_000)   # more than NumPy's block of 65,536 items
EDGES = np.array([-3.0, -0.5, 0.0, 0.25, 2.0])


def convolved(a, v):
    return np.convolve(a, v)


CASES = [
    (flip, X), (flip, X2), (diff, X), (diff, X2), (diff, np.arange(5)), (outer, X[:3], X2),
    (roll, X, 3), (roll, X2, -5), (roll, np.zeros(0), 2),
    (isclose, X, X + 1e-9), (isclose, N, N), (isclose, np.array([np.inf, 1.0]), np.inf),
    (allclose, X, X + 1e-9), (allclose, X, X + 1e-3), (allclose, N, N),
    (array_equal, X, X), (array_equal, X, X[::-1]), (array_equal, X2, X),
    (nonzero, X > 0.5), (nonzero, X2 > 0.5), (nonzero, np.zeros(3)),
    (bincount, np.array([0, 3, 3, 1])), (bincount, np.zeros(0, np.int64)),
    (bincount, np.array([1, -1])),  # ValueError
    (interp, np.linspace(-1, 12, 40), np.arange(10.0), X[:10]),
    (interp, 3.5, np.arange(10.0), X[:10]), (interp, N, np.arange(11.0), X),
    (order_statistics, X), (order_statistics, X[:10]), (order_statistics, N),
    (order_statistics, np.arange(7)), (order_statistics, X2),
    (averages, X, X[::-1].copy()), (averages, X2, X2),
    (nan_reductions, N), (nan_reductions, X), (nan_reductions, np.array([np.nan, np.nan])),
    (nan_reductions, np.array([3, -1, 7])),
    (repeated, X2), (repeated, np.arange(3)), (digitized, X, np.linspace(0, 1, 6)),
    (digitized, np.array([0.0, 0.2, 1.0, 1.5]), np.array([0.0, 0.2, 1.0])),
    (histogram, X), (histogram, RNG.normal(size=1000)), (histogram, np.ones(5)),
    (histogram, np.arange(10)), (convolved, np.arange(5), np.arange(3)),
    (histogram, np.array([1.0, np.nan])), (histogram, np.array([1.0, np.inf])),  # ValueError
    (histogram_in_range, RNG.normal(size=500), -1, 1.5),
    (histogram_in_range, np.array([0.0, 1.0, 2.0, np.nan, -np.inf]), 0.0, 2.0),
    (histogram_in_range, X, 0.5, 0.5), (histogram_in_range, X, 0.0, np.inf),  # ValueError
    (histogram_in_range, X, 1.0, 0.0), (histogram_in_range, np.zeros(0), 0, 1),  # ValueError
    (histogram_edges, RNG.normal(size=500), np.array([-2.0, -0.5, 0.0, 0.0, 1.0, 3.0])),
    (histogram_edges, np.array([0, 1, 2, 3, 3, 7]), np.array([0, 1, 3])),
    (histogram_edges, np.array([0.5, np.nan, 3.0]), np.array([0.0, 3.0])),
    (histogram_edges, X2, np.linspace(0, 1, 4)),
    (histogram_edges, X, np.array([1.0, 0.0])), (histogram_edges, X, np.array([1.0])),
    (histogram_edges, X, np.zeros(0)),
    (histogram_weighted, WEIGHTED_DATA, RNG.uniform(-1, 2, WEIGHTED_DATA.size), EDGES),
    (histogram_weighted, WEIGHTED_DATA, RNG.uniform(0, 1, WEIGHTED_DATA.size)
     .astype(np.float32), EDGES),
    (histogram_weighted, WEIGHTED_DATA, RNG.integers(-9, 9, WEIGHTED_DATA.size), EDGES),
    (histogram_weighted, np.array([0, 1, 1, 2, 3, 3, 3], np.int32),
     np.array([1, 2, 3, 4, 5, 6, 7], np.int8), np.array([0, 1, 3])),
    (histogram_weighted, np.array([0.5, np.nan, 0.25, -0.75]), np.array([1.0, 2.0, np.nan, 4.0]),
     EDGES),
    (histogram_weighted, X2, X2[::-1, ::-1], EDGES),
    (histogram_weighted, np.zeros(0), np.zeros(0, np.uint16), EDGES),
    (histogram_weighted, X, X[:-1], EDGES),  # ValueError
    (histogram_density, WEIGHTED_DATA[:5000], RNG.uniform(0, 1, 5000), EDGES),
    (histogram_density, np.arange(9), np.arange(9, dtype=np.float32), np.array([0.0, 4.0, 8.0])),
    (histogram_density, np.array([5.0, np.nan]), np.ones(2, np.int64), EDGES),  # nan density
    (histogram_density, np.zeros(0), np.zeros(0), EDGES),
]


@pytest.mark.parametrize("case", slow_after_first(CASES), ids=lambda c: c[0].__name__)
def test_like_numpy(case):
    pyfunc, *args = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(pyfunc, *args)


def test_convolve_of_floats_agrees_to_rounding():
    a, v = RNG.random(50), RNG.random(7)
    from kiln import njit
    np.testing.assert_allclose(njit(convolved)(a, v), np.convolve(a, v), rtol=1e-13)


def test_histogram_density_known_only_at_run_time_is_a_typing_error():
    from kiln import njit
    from kiln.errors import TypingError

    @njit
    def f(a, normalize):
        return np.histogram(a, density=normalize)

    with pytest.raises(TypingError, match="np.histogram's density must be the constant True"):
        f(X, True)


def angle(z, deg):
    return np.angle(z, deg)


def test_angle_against_numpy():
    values = [np.array([1 + 1j, -1j, -1 + 0j, 0j, -0.0 - 0j, complex(np.nan, 1), np.inf * 1j]),
              np.array([1 + 1j, -2j], np.complex64), np.array([-2, 0, 3]),
              np.array([-0.0, 2.5, np.nan, -np.inf], np.float32), 1 + 1j, -3.0, 4]
    for z in values:
        for deg in (False, True):
            check(angle, z, deg)

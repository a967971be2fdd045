"""sort, argsort, unique and searchsorted against NumPy: NaNs last, ties, empty arrays,
rows of 2-d arrays, Fortran order. argsort is compared through the order it produces
(NumPy's quicksort may order the indices of equal keys differently)."""
import numpy as np
import pytest

from helpers import check
from kiln import njit

RNG = np.random.default_rng(4)
WITH_NAN = RNG.random(50)
WITH_NAN[[3, 10]] = np.nan
ARRAYS = [WITH_NAN, RNG.integers(0, 5, 30), RNG.random((3, 7)), np.zeros(0), np.array([2.0]),
          np.asfortranarray(RNG.random((4, 3))), RNG.random(1000), np.array([0.0, -0.0, 1.0]),
          np.array([True, False, True])]


def sorted_and_unique(a):
    return np.sort(a), np.unique(a)


def sort_in_place(a):
    a.sort()
    return a


def order(a):
    return np.argsort(a), a.argsort()


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_sort_unique_argsort(a):
    check(sorted_and_unique, a)
    check(sort_in_place, a)
    got, by_method = njit(order)(a)
    want = np.sort(a)
    assert got.dtype == np.int64 and np.array_equal(got, by_method)
    assert np.array_equal(np.take_along_axis(a, got, -1), want, equal_nan=True)
    if a.ndim == 1:  # stable: equal keys keep their order
        assert np.array_equal(got, np.argsort(a, kind="stable"))


def search(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


@pytest.mark.parametrize("v", [3, 0, 10, -1, np.array([1, 5, 11]), np.array([[2, 3]])])
def test_searchsorted(v):
    check(search, np.sort(RNG.integers(0, 10, 40)), v)
    check(search, np.sort(WITH_NAN), v)

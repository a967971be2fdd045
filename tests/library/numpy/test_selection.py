"""Boolean-mask and integer-array indexing, read and write, against NumPy: C, Fortran and
strided arrays, empty selections, negative and out-of-range indices, overlapping values."""
import numpy as np
import pytest

from helpers import check

RNG = np.random.default_rng(2)
X, M = RNG.random(20), RNG.random((4, 5))


def masked(x):
    return x[x > 0.5], x[np.isnan(x)], np.count_nonzero(x > 0.5)


def taken(x, i):
    return x[i]


def mask_fill(x, v):
    x[x > 0.5] = v
    return x


def mask_scatter(x):
    x[x > 0.5] = x[x > 0.5] * 2
    return x


def put(x, i, v):
    x[i] = v
    return x


@pytest.mark.parametrize("x", [X, M, np.asfortranarray(M), M[:, ::2], np.zeros(0),
                               np.array([np.nan, 1.0, 0.7]), np.arange(10)])
def test_mask_reads_and_writes(x):
    check(masked, x)
    check(mask_fill, x, 0)
    check(mask_fill, x, -1.5 if x.dtype.kind == "f" else -1)
    check(mask_scatter, x)


@pytest.mark.parametrize("x, i", [
    (X, np.array([0, -1, 3])), (M, np.array([2, 0])), (M, np.array([], np.int64)),
    (np.arange(5), np.array([1, 1, 4], np.int32)), (M[::2], np.array([-1])),
    (X, np.array([20])), (X, np.array([-21])),  # IndexError, as NumPy
])
def test_integer_array_reads(x, i):
    check(taken, x, i)


@pytest.mark.parametrize("i, v", [
    (np.array([1, -2]), 7.0), (np.array([1, 2]), np.array([5.0, 6.0])),
    (np.array([3, 3]), np.array([1.0, 2.0])), (np.array([0, 1]), np.array([9.0])),
    (np.array([30]), 1.0), (np.array([1, 2]), np.array([1.0, 2.0, 3.0])),
])
def test_integer_array_writes(i, v):
    check(put, X.copy(), i, v)


def test_mask_of_another_shape_is_an_index_error():
    from kiln import njit
    with pytest.raises(IndexError, match="did not match"):
        njit(taken)(X, np.ones(3, bool))

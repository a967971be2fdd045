"""reshape, ravel, flatten and transpose in compiled code, against NumPy: views where NumPy
makes views (writes show through), copies of non-contiguous arrays, -1, errors."""
import numpy as np
import pytest

from helpers import check
from kiln import njit

RNG = np.random.default_rng(5)


def reshapes(a):
    return (a.reshape((3, 4)), a.reshape(2, 6), a.reshape(-1), np.reshape(a, (2, -1, 3)),
            a.reshape(12, 1).shape, np.reshape(a, 12))


def flattening(a):
    return a.ravel(), np.ravel(a), a.flatten(), a.transpose(), np.transpose(a)


def write_through_reshape(a):
    v = a.reshape(-1)
    v[0] = 99.0
    f = a.flatten()
    f[1] = -1.0
    return a


def bad_reshape(a, n):
    return a.reshape(n, 5)


def two_unknowns(a):
    return a.reshape(-1, -1)


@pytest.mark.parametrize("a", [
    np.arange(12.0), RNG.random((3, 4)), RNG.random((4, 6))[::2, ::2].copy(),
    RNG.random((6, 4))[::2, :].T.copy().T, np.asfortranarray(RNG.random((4, 3))),
    RNG.random((24,))[::2],
])
def test_reshape_and_flatten_like_numpy(a):
    check(reshapes, a)
    check(flattening, a.reshape(3, 4) if a.ndim == 1 else a)


def test_views_write_through_and_copies_do_not():
    check(write_through_reshape, np.arange(12.0).reshape(3, 4))
    check(write_through_reshape, np.asfortranarray(np.arange(12.0).reshape(3, 4)))


def test_bad_shapes_raise_value_error():
    check(bad_reshape, np.arange(12.0), 3)
    check(bad_reshape, np.arange(10.0), -1)
    check(bad_reshape, np.arange(10.0), -2)
    with pytest.raises(ValueError, match="one unknown dimension"):
        njit(two_unknowns)(np.arange(4.0))


def test_reshape_of_an_empty_array():
    check(bad_reshape, np.zeros(0), 0)
    check(bad_reshape, np.zeros(0), -1)


def zero_and_unknown(a):
    return a.reshape(0, -1)


def test_an_unknown_beside_a_zero_dimension_is_refused():
    check(zero_and_unknown, np.zeros(0))


def test_a_bad_shape_for_a_copied_array_leaks_nothing():
    # reshape of a Fortran array copies it first; the copy is freed when the shape is bad
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    check(bad_reshape, a, 7)

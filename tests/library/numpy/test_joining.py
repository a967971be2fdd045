"""concatenate, stack, hstack and vstack against NumPy: tuples and literal lists, every
axis, mixed dtypes and layouts, empty arrays, mismatched shapes."""
import numpy as np
import pytest

from helpers import check

RNG = np.random.default_rng(1)


def joined_2d(a, b):
    return (np.concatenate((a, b)), np.concatenate([a, b], axis=-1), np.stack((a, b)),
            np.stack([a, b], axis=1), np.stack((a, b), axis=-1), np.hstack((a, b)),
            np.vstack((a, b)), np.concatenate((a, b.astype(np.float32), a), 1))


def joined_1d(a, b):
    return np.concatenate((a, b)), np.stack((a, b), -1), np.hstack((a, b)), np.vstack([a, b])


def concatenate_along(a, b, k):
    return np.concatenate((a, b), k)


@pytest.mark.parametrize("a, b", [
    (RNG.random((2, 3)), RNG.random((2, 3))),
    (RNG.random((3, 4))[:, ::2], np.arange(6.0).reshape(3, 2)),
    (np.zeros((0, 2)), np.zeros((0, 2))),
    (np.asfortranarray(RNG.random((2, 2))), np.ones((2, 2), np.int8)),
])
def test_two_dimensional(a, b):
    check(joined_2d, a, b)


def test_one_dimensional_and_mixed_dtypes():
    check(joined_1d, np.arange(3.0), np.arange(3, dtype=np.int32))
    check(joined_1d, np.zeros(0), np.zeros(0))


def test_shape_and_axis_errors():
    check(joined_2d, RNG.random((2, 3)), RNG.random((3, 3)))   # ValueError
    check(joined_1d, np.arange(3.0), np.arange(4.0))            # ValueError (stack)
    check(concatenate_along, RNG.random((2, 3)), RNG.random((2, 3)), 2)   # AxisError
    check(concatenate_along, RNG.random((2, 3)), RNG.random((2, 3)), -3)

"""np.ndindex, np.ndenumerate and a.flat (iterated, read and written by flat position),
against NumPy: C, strided and Fortran arrays, empty shapes, negative and bad positions."""
import numpy as np
import pytest

from helpers import check


def walk(a):
    total = 0.0
    out = np.zeros(a.shape)
    for idx in np.ndindex(a.shape):
        out[idx] = a[idx] * 2
    for i, j in np.ndindex(2, 3):
        total += i * 10 + j
    for idx, v in np.ndenumerate(a):
        total += idx[0] * v + idx[-1]
    for v in a.flat:
        total += v
    return out, total


def flat_items(a, k):
    return a.flat[k]


def write_flat(a, k):
    a.flat[k] = 99.0
    return a


A = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("a", [A, A[:, ::2], np.asfortranarray(A), np.zeros((0, 3)),
                               np.arange(5.0)[::-1].reshape(5, 1)])
def test_walks_in_c_order(a):
    check(walk, a)


@pytest.mark.parametrize("k", [0, 5, -1, -12, 11, 12, -13])
def test_flat_positions(k):
    check(flat_items, A, k)
    check(flat_items, np.asfortranarray(A), k)
    check(write_flat, A.copy(), k)

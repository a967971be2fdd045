"""np.isin, intersect1d, union1d and setdiff1d against NumPy (setops.py)."""
import numpy as np

from helpers import chk, jit

A = np.array([3.0, 1.0, np.nan, 2.0, 3.0, -0.0, 7.5, np.nan])
B = np.array([[3, 0], [9, 2]])


def isin(a, b):
    return np.isin(a, b), np.isin(a, b, invert=True)


def sets(a, b):
    return np.intersect1d(a, b), np.union1d(a, b), np.setdiff1d(a, b), np.setdiff1d(b, a)


def test_isin():
    chk(isin, A, B)
    chk(isin, B.T, A)
    chk(isin, A, A[:0])
    chk(isin, np.array([True, False]), np.array([1, 5]))


def test_set_routines():
    chk(sets, A, B.ravel())
    chk(sets, A[::-1], A[:0])
    chk(sets, B.ravel(), np.array([9, 9, -4, 0, 11]))
    chk(sets, B.T.ravel(), B.ravel())


def argpartition(a, kth):
    return np.argpartition(a, kth)


def _partitioned(a, idx, kth):
    """idx is a valid argpartition of a (last axis) around every kth: NumPy's kth values."""
    assert idx.shape == a.shape and idx.dtype == np.intp
    got = np.take_along_axis(a, idx, -1)
    want = np.partition(a, kth, axis=-1)
    every = np.broadcast_to(np.arange(a.shape[-1]), a.shape)
    np.testing.assert_array_equal(np.sort(idx, -1), every)     # a permutation
    ordered = np.nan_to_num(got, nan=np.inf)                  # NaN sorts last
    for k in np.atleast_1d(kth) % a.shape[-1]:
        np.testing.assert_array_equal(got[..., k], want[..., k])
        assert (ordered[..., :k] <= ordered[..., k:k + 1]).all()
        assert (ordered[..., k:] >= ordered[..., k:k + 1]).all()


def test_argpartition():
    for kth in (0, 3, -1, 7):
        _partitioned(A, jit(argpartition)(A, kth), kth)
    m = (np.arange(20) * 7 % 11).reshape(4, 5)
    _partitioned(m, jit(argpartition)(m, 2), 2)
    _partitioned(A, jit(argpartition)(A, np.array([1, 5])), np.array([1, 5]))
    chk(argpartition, A, 8)          # ValueError: kth past the end
    chk(argpartition, A, np.array([0, -9]))

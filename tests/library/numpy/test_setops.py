"""np.isin, intersect1d, union1d and setdiff1d against NumPy (setops.py)."""
import numpy as np

from helpers import chk

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

"""np.tri, tril, triu, vander, kron, fill_diagonal, inner, cross and meshgrid against NumPy
(matrices.py)."""
import numpy as np

from helpers import chk

M = np.arange(12.0).reshape(3, 4) - 5


def tri(n, m, k):
    return np.tri(n), np.tri(n, m, k)


def triangles(a, k):
    return np.tril(a), np.triu(a), np.tril(a, k), np.triu(a, k)


def test_tri():
    for n, m, k in ((3, 4, 0), (4, 2, -1), (0, 3, 2), (2, 5, 9)):
        chk(tri, n, m, k)
    for a in (M, M.T[::-1], np.zeros((0, 3)), (np.arange(24) - 9).reshape(2, 3, 4).T,
              np.arange(4) > 1, M[0] * 1j):
        for k in (-2, 0, 1, 5):
            chk(triangles, a, k)


def vander(x, n, increasing):
    return np.vander(x), np.vander(x, n, increasing)


def test_vander():
    for x in (np.arange(5.0)[::-1] - 2.5, np.array([3, -2, 7], np.int32),
              np.array([True, False]), np.array([1 + 2j, -0.5j]), np.zeros(0)):
        for n in (0, 2, 6):
            chk(vander, x, n, n == 2)
    chk(vander, np.arange(3.0), -1, False)        # ValueError: a negative dimension
    chk(vander, M, 3, False)                      # ValueError: not 1-d
    chk(vander, np.array([3, 5], np.int64) ** 20, 4, True)   # int64 products wrap


def kron(a, b):
    return np.kron(a, b)


def test_kron():
    chk(kron, M, M[:2, ::-2])
    chk(kron, np.arange(3), np.arange(4.0)[::-1])
    chk(kron, np.arange(3, dtype=np.int32), M)
    chk(kron, np.zeros((0, 2)), M)


def fill(a, val, wrap):
    np.fill_diagonal(a, val, wrap)
    return a


def test_fill_diagonal():
    for shape in ((3, 3), (5, 3), (7, 3), (2, 4), (0, 3)):
        for wrap in (False, True):
            chk(fill, np.zeros(shape), 7.5, wrap)
            chk(fill, np.zeros(shape), np.array([1.0, -2.0]), wrap)
    chk(fill, np.zeros((6, 4)).T, np.array([1.0, -2.0]), True)
    chk(fill, np.zeros((3, 3, 3)), 2.5, False)
    chk(fill, np.zeros((3, 3, 2)), 2.5, False)    # ValueError: unequal dimensions
    chk(fill, np.zeros(3), 2.5, False)           # ValueError: 1-d
    chk(fill, np.zeros((3, 4), np.int64), 2.7, False)
    chk(fill, np.zeros((3, 4)), np.zeros(0), False)


def inner_cross(a, b):
    return np.inner(a, b), np.cross(a, b)


def cross(a, b):
    return np.cross(a, b)


def meshgrid(x, y):
    return np.meshgrid(x, y)


def test_vectors():
    chk(inner_cross, np.array([1.0, -2.0, 3.5]), np.array([4.0, 0.5, -1.0]))
    chk(inner_cross, np.array([1, -2, 3]), np.array([4, 5, -6])[::-1])
    chk(inner_cross, np.array([1, -2, 3, 4]), np.array([4, 5, -6, 0]))   # ValueError
    chk(cross, M[:, :3], np.array([1.0, 0.0, -2.0]))
    chk(cross, np.arange(3), M[::-1, 1:])
    chk(cross, M[:2, :3], M[:, 1:])            # ValueError: 2 rows and 3
    chk(meshgrid, np.arange(3.0), np.arange(4)[::-1])
    chk(meshgrid, np.zeros(0), np.arange(4)[::-1])

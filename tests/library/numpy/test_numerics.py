"""np.logspace, geomspace, polyval, trapezoid, correlate, cov and corrcoef against NumPy
(numerics.py)."""
import numpy as np
import pytest

from helpers import chk, jit

F = np.array([1.5, -2.0, 3.25, 0.5, 4.0, -1.0])
M = np.array([[1.0, 2, 4, 7], [3, -1, 0.5, 2.5], [0, 0, 1, 1]])


def spaces(a, b, n, endpoint):
    return np.logspace(a, b, n), np.logspace(a, b, n, endpoint, 2.0), \
        np.geomspace(a, b, n, endpoint)


def test_spaces():
    for a, b in ((1.0, 1000.0), (-3.0, -1e5), (2.0, 7.0), (0.5, -2.0), (0.0, 3.0)):
        for n in (0, 1, 2, 9):
            chk(spaces, a, b, n, n != 2)
    chk(spaces, 1, 5, 4, True)


def polyval(p, x):
    return np.polyval(p, x)


def test_polyval():
    chk(polyval, F, 2.5)
    chk(polyval, F, M.T)
    chk(polyval, np.array([1, -2, 3]), 3)
    chk(polyval, np.array([1, -2, 3]), np.array([[4, -1], [0, 2]]))
    chk(polyval, F[:0], M)
    chk(polyval, F.astype(np.float32), np.float32(1.5) * np.ones(3, np.float32))


def trapezoid(y, x, dx):
    return np.trapezoid(y), np.trapezoid(y, dx=dx), np.trapezoid(y, x)


def test_trapezoid():
    for y in (F, F[::-2], F[:1], F[:0], np.arange(5)):
        chk(trapezoid, y, np.arange(float(y.shape[0])) ** 2, 0.5)
    chk(trapezoid, F, F[:3], 2.0)        # ValueError: the lengths differ
    chk(trapezoid, F[:2], F[:4], 2.0)    # y[1:] of length 1 broadcasts


def correlate(a, v):
    return np.correlate(a, v)


def test_correlate():
    chk(correlate, F, F[:3])
    chk(correlate, F[:2], F[::-1])
    chk(correlate, F * 1j + 1, F[:2] - 2j)
    chk(correlate, F[:2] + 0j, F * 1j + 1)
    chk(correlate, np.arange(5), np.array([2, -1]))
    chk(correlate, F[:0], F)             # ValueError: empty


def cov(m):
    return np.cov(m), np.corrcoef(m)


def test_cov_corrcoef_exact():
    chk(cov, M)                          # exact products: the same bits
    chk(cov, np.array([1.0, 2.0, 3.0, 6.0]))
    chk(cov, np.arange(12).reshape(3, 4) % 5)
    chk(cov, M[:, :1])                   # one observation: nan and inf as NumPy
    chk(cov, np.array([[1 + 1j, 2, 3 + 2j, 2 - 3j], [0, 1j, 1, -1j]]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_cov_corrcoef_close():
    rng = np.random.default_rng(5)
    m = rng.standard_normal((4, 30))
    got, want = jit(cov)(m), cov(m)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-15)

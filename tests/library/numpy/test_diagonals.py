"""np.diag, np.diagonal and np.trace against NumPy, every offset, dtype and layout."""
import numpy as np
import pytest

from helpers import check


def diag(v, k):
    return np.diag(v, k)


def diag_default(v):
    return np.diag(v)


def diagonal(a):
    return np.diagonal(a)


def trace(a, k):
    return np.trace(a, k)


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128])
def test_against_numpy(dtype):
    m = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    for a in (m, m.T, m[:, ::-2], np.zeros((0, 3), dtype)):
        for k in (-4, -1, 0, 2, 7):
            check(diag, a, k)
            check(trace, a, k)
        check(diag_default, a)
        check(diagonal, a)
    for v in (m[0], m[::-1, 1], np.zeros(0, dtype)):
        for k in (-2, 0, 3):
            check(diag, v, k)

"""Wrong answers and failures of kiln's NumPy library found by the NumPy fuzzer
(tests/fuzz_numpy, issue 31), each checked against NumPy."""
import itertools
import math

import numpy as np
import pytest

from kiln import njit
from tests.fuzz_numpy.compare import same


def _bit_exact(expected, got):
    assert same(expected, got) is None, (expected, got)


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128", "bool"])
def test_fill_and_copy_of_a_0d_array(dtype):
    """a.fill(v) and np.array(a) of a 0-d array failed to compile (the row loop of the copy
    asked the 0-d array for shape[0])."""
    def fill(a):
        a.fill(1)
        return a

    def copied(a):
        return np.array(a)

    for f in (fill, copied):
        a, b = np.array(0, dtype=dtype), np.array(0, dtype=dtype)
        _bit_exact(f(a), njit(f)(b))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sign_of_complex_arrays(dtype):
    """np.sign of complex arrays failed to compile; NumPy 2 gives z / |z|, with its own
    answers for NaN, infinite parts and zero."""
    values = [0.0, -0.0, 1.0, -2.5, 3e-40, 1e38, math.inf, -math.inf, math.nan, 0.3]
    z = np.array([complex(a, b) for a, b in itertools.product(values, values)], dtype=dtype)
    _bit_exact(np.sign(z), njit(lambda z: np.sign(z))(z))

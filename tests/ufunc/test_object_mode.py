"""vectorize and guvectorize with forceobj=True: the function runs as Python per element
(or core) inside compiled loops, as in Numba's object mode; checked against the same
function applied by NumPy (np.vectorize) on the same inputs."""
import fractions

import numpy as np
import pytest

from kiln import guvectorize, vectorize


def halve_exactly(x):
    """A Python object (Fraction) and a name bound after the decoration: only Python runs
    this."""
    return float(fractions.Fraction(x) / 2) + offset(x)


def offset(x):
    return 1.0 if x < 0 else 0.0


def reverse_sorted(a, out):
    out[:] = sorted(a.tolist(), reverse=True)
    a[0] = -1.0   # a kernel may write its input, as a compiled one may


def test_forceobj_kernels_run_as_python():
    ufunc = vectorize(["float64(float64)", "float32(float32)"], forceobj=True)(halve_exactly)
    x = np.array([-3.0, 0.0, 2.5, 1e300, -5e-324])
    expected = np.vectorize(halve_exactly, otypes=[np.float64])(x)
    assert np.array_equal(ufunc(x), expected) and ufunc(x).dtype == np.float64
    assert ufunc(np.float32(-3.0)) == np.float32(halve_exactly(-3.0))

    gufunc = guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", forceobj=True,
                         target="parallel")(reverse_sorted)   # Python in worker threads
    a = np.array([[1.0, 3.0, 2.0], [5.0, -0.0, 6.0]])
    expected_a, expected = a.copy(), np.empty_like(a)
    for row, out in zip(expected_a, expected):
        reverse_sorted(row, out)
    got = gufunc(a)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.array_equal(a, expected_a, equal_nan=True)


def test_forceobj_errors_reach_the_caller():
    @vectorize(["float64(float64)"], forceobj=True)
    def wrong_type(x):
        return "x"

    @vectorize(["float64(float64)"], forceobj=True)
    def raises(x):
        raise KeyError(x)
    with pytest.raises(TypeError, match="declared float64"):
        wrong_type(np.ones(2))
    with pytest.raises(KeyError):
        raises(np.ones(2))
    with pytest.raises(TypeError, match="needs signatures"):
        vectorize(forceobj=True)(offset)(np.ones(2))


def doubles_until_negative(a, out):
    for i in range(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative")
        out[i] = a[i] * 2


def test_a_raising_core_keeps_what_it_wrote_before_raising():
    """As Python's own loop would leave it (and Numba's object mode)."""
    gufunc = guvectorize(["void(int32[:], int32[:])"], "(n)->(n)",
                         forceobj=True)(doubles_until_negative)
    a = np.array([1, 2, -3, 4], np.int32)
    out, expected = np.zeros_like(a), np.zeros_like(a)
    with pytest.raises(ValueError):
        doubles_until_negative(a, expected)
    with pytest.raises(ValueError, match="negative"):
        gufunc(a, out)
    assert out.tolist() == expected.tolist()

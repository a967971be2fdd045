"""a.view(dtype) and x.view(dtype) against NumPy: shared memory, the last axis resized,
NumPy's ValueErrors when the bytes do not fit."""
import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError


def as_bytes(a):
    return a.view(np.uint8)


def as_int64(a):
    return a.view(np.int64)


def as_complex(a):
    return a.view(np.complex128)


def writes_through(a):
    b = a.view(np.int64)
    b[0] = 0x7FF0000000000000   # +inf's bits
    return a


ARRAYS = [np.arange(3.0), np.array([np.nan, -0.0, -np.inf]), np.zeros(0),
          np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4)[::2],
          np.arange(6.0).reshape(2, 3).T, np.array(2.5)]


@pytest.mark.parametrize("a", ARRAYS)
@pytest.mark.parametrize("fn", [as_bytes, as_int64, as_complex])
def test_array_views_match_numpy(fn, a):
    check(fn, a)


def test_a_view_shares_memory():
    check(writes_through, np.arange(3.0))


@pytest.mark.parametrize("a", [np.arange(6, dtype=np.int16), np.arange(8, dtype=np.uint8),
                               np.arange(12, dtype=np.int32).reshape(3, 4)[:, :2]])
def test_views_to_larger_items(a):
    check(as_int64, a)
    check(as_bytes, a)


def bits(x, y):
    return np.float64(x).view(np.int64), np.int32(y).view(np.float32), \
        np.int64(y).view(np.uint64)


@pytest.mark.parametrize("x, y", [(1.5, 3), (-0.0, -1), (np.nan, 2**31 - 1), (np.inf, 0)])
def test_number_views_are_bit_casts(x, y):
    check(bits, x, y)


def test_a_number_view_of_another_size_is_refused():
    with pytest.raises(ValueError, match="itemsize is unchanged") as numpy_says:
        np.float64(1.0).view(np.int32)
    with pytest.raises(TypingError, match=numpy_says.value.args[0]):   # NumPy's words
        njit(lambda x: np.float64(x).view(np.int32))(1.0)
    with pytest.raises(TypingError, match="of its size"):
        njit(lambda x: np.float64(x).view(np.complex64))(1.0)


SCALE = 3


def python_int_view():
    a = 1
    return a.view(np.int64)


def python_float_view():
    return (-2.5).view(np.int64)


def global_int_item():
    return SCALE.item()


def numpy_scalar_view(x):
    a = np.float64(1.5)
    b = 2
    b = b * x            # (rebound: no longer certainly a Python int)
    return a.view(np.int64), b.real, SCALE.real


@pytest.mark.parametrize("fn", [python_int_view, python_float_view, global_int_item])
def test_a_python_number_has_no_numpy_scalar_methods(fn):
    """Python's int and float have no view() or item(): Python raises AttributeError, and
    kiln (whose int64 has NumPy's methods) refuses them when compiling, in Numba's words
    (Numba's test_numbers test_python_scalar_exception), rather than return a value."""
    with pytest.raises(AttributeError) as python_says:
        fn()
    with pytest.raises(TypingError, match="can only be called on NumPy dtypes") as kiln_says:
        njit(fn)()
    assert python_says.value.name in str(kiln_says.value)


def test_numpy_scalars_and_python_number_attributes_stay():
    check(numpy_scalar_view, 3)

"""type(x), a.dtype.type, np.iinfo and np.finfo in compiled code (issue 32), against NumPy."""
import numpy as np
import pytest

from kiln import njit, typed, types
from kiln.errors import KilnError

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def type_converts(scale):
    return type(scale)(1), type(scale)(7.9)


def dtype_type_zero(a):
    return a.dtype.type(0) + a[0]


def int_limits(a):
    info = np.iinfo(a.dtype)
    return info.min, info.max, info.bits


def float_limits(a):
    info = np.finfo(a.dtype)
    return info.eps, info.max, info.tiny, info.resolution, info.bits, info.precision


def limits_of_classes():
    return np.iinfo(np.int16).max, np.finfo(np.float32).eps, np.iinfo(np.uint64).max


def test_type_of_a_number_converts_as_python():
    for value in [2.5, -3, True]:
        assert njit(type_converts)(value) == type_converts(value)


@pytest.mark.parametrize("dtype", INTS + FLOATS + [np.complex64])  # (bool + bool: Python's)
def test_dtype_type_is_the_scalar_class(dtype):
    a = np.ones(3, dtype)
    got, want = njit(dtype_type_zero)(a), dtype_type_zero(a)
    assert got == want and type(got) is type(want.item())   # boxed as Python's, as Numba


@pytest.mark.parametrize("dtype", INTS)
def test_iinfo(dtype):
    a = np.zeros(2, dtype)
    assert njit(int_limits)(a) == int_limits(a)


@pytest.mark.parametrize("dtype", FLOATS + [np.complex128])
def test_finfo(dtype):
    a = np.zeros(2, dtype)
    got, want = njit(float_limits)(a), float_limits(a)
    assert got == tuple(float(w) if isinstance(w, np.floating) else w for w in want)


def test_limits_of_classes_and_refusals():
    assert njit(limits_of_classes)() == limits_of_classes()

    def iinfo_of_float(a):
        return np.iinfo(a.dtype).max
    with pytest.raises(KilnError, match="iinfo"):
        njit(iinfo_of_float)(np.zeros(2))


def typed_lists_of_array_types():
    return (typed.List.empty_list(types.float32[::1, :]),
            typed.List.empty_list(types.complex128[:]), typed.List.empty_list(types.uint8[:, :, ::1]))


def test_an_array_type_written_in_compiled_code_is_the_type_python_makes():
    got = [lst._dtype for lst in njit(typed_lists_of_array_types)()]
    assert got == [types.float32[::1, :], types.complex128[:], types.uint8[:, :, ::1]]
    assert [str(ty) for ty in got] == ["array(float32, 2d, F)", "array(complex128, 1d, A)",
                                       "array(uint8, 3d, C)"]
    with pytest.raises(KilnError, match="allows only ':' and '::1'"):
        njit(lambda: types.float32[::2])()

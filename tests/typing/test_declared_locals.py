"""jit(locals={name: type}) (Numba's option): the variable holds that type, each value
assigned to it converted (a float truncated into an integer) as Numba converts it; the
return type of an explicit signature converts what is returned by the same rule."""
import numpy as np
import pytest

from kiln import cfunc, float32, int64, njit, types
from kiln.errors import TypingError


def divided(a, b):
    c = a / b
    return c


def halves(n):
    s = 0
    for i in range(n):
        s += i * 0.5
    return s


def shadowed_in_a_nested_function(a):
    def half(x):
        c = x / 2      # this function's own c: not declared
        return c
    c = a / 3
    return c, half(a)


def test_declared_locals_convert_what_is_assigned():
    assert [njit(locals={"c": int64})(divided)(a, 3) for a in (8, -8)] == [int(8 / 3), -2]
    assert njit(locals={"s": np.float32})(halves)(5) == np.float32(halves(5))
    assert njit(locals={"s": float32})(halves)(7) == float(np.float32(halves(7)))
    assert njit(locals={"c": int64})(shadowed_in_a_nested_function)(7) == (2, 3.5)
    # a C callback too (Numba's test_cfunc.test_locals), its int result returned as double
    assert cfunc("float64(int64, int64)", locals={"c": int64})(divided).ctypes(8, 3) == 2.0


def test_a_callback_of_a_function_also_compiled_lazily_converts_its_result():
    def identity(a):
        return a
    assert njit(identity)(3) == 3
    assert cfunc("float64(int64)")(identity).ctypes(3) == 3.0   # was 1.5e-323: the int's bits


def test_bad_declarations_are_clear_errors():
    with pytest.raises(TypingError, match="not of its parameters"):
        njit(locals={"a": int64})(divided)(1, 2)
    with pytest.raises(TypeError, match="a kiln type"):
        njit(locals={"c": "nonsense"})(divided)
    with pytest.raises(TypingError, match="cannot assign complex128 to 'c', declared int64"):
        njit(locals={"c": int64})(divided)(1j, 1)


def identity(x):
    y = x
    return y


@pytest.mark.parametrize("ret,arg,value", [
    (np.int16, np.float64, -300.7), (np.uint8, np.float32, 200.5),
    (np.int64, np.float64, 2.0**40 + 0.5), (np.float32, np.int64, 2**40 + 1),
    (np.int64, np.bool_, True)])
def test_a_declared_return_type_converts_what_is_returned(ret, arg, value):
    sig = types.from_dtype(np.dtype(ret))(types.from_dtype(np.dtype(arg)))
    got = njit(sig)(identity)(value)
    expected = ret(arg(value)).item()     # NumPy's C cast (a float truncated)
    assert (got, type(got)) == (expected, type(expected))


def test_a_declared_optional_return_converts_the_value_it_holds():
    to_float = njit(types.Optional(types.float64)(types.Optional(types.intp)))(identity)
    assert (to_float(2), type(to_float(2)), to_float(None)) == (2.0, float, None)


def test_a_complex_is_not_returned_as_a_real():
    with pytest.raises(TypingError, match="cannot return complex128 from a function declared "
                                          "to return float64"):
        njit("float64(complex128)")(identity)

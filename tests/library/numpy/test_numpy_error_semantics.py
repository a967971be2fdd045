"""Array operations follow NumPy's semantics, not Python's (issue 31): a negative shift
count shifts every bit out and complex division by zero gives inf/nan, where Python
scalars raise ValueError and ZeroDivisionError. Checked bit for bit against NumPy."""
import numpy as np
import pytest

from helpers import check, slow_except


def lshift(a, b):
    return a << b


def rshift(a, b):
    return a >> b


def np_shifts(a, b):
    return np.left_shift(a, b), np.right_shift(a, b)


def divide(a, b):
    return a / b


def np_divide(a, b):
    return np.divide(a, b)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", slow_except(INT_DTYPES, np.int8, np.uint64))
def test_shift_counts_negative_or_past_the_width_as_numpy(dtype):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    values = np.array([0, 1, 5, info.max, info.min, info.max // 3], dtype=dtype)
    counts = np.array([-1, -bits, 0, 1, bits - 1, bits, bits + 1, 100, 2], dtype=np.int64)
    a, n = np.meshgrid(values, counts.astype(dtype) if info.min < 0 else
                       np.array([0, 1, bits - 1, bits, bits + 1, 2], dtype=dtype))
    for f in (lshift, rshift, np_shifts):
        check(f, a, n)
        check(f, a[:, ::-1].T, n[:, ::-1].T)      # non-contiguous
        check(f, a, 3)                           # a Python int count
    check(lshift, np.ones(0, dtype=dtype), np.ones(0, dtype=dtype))


def test_shift_of_bools_and_mixed_widths_as_numpy():
    a = np.array([-7, 3, 100, -128], dtype=np.int8)
    check(lshift, a, np.array([-1, 2, 9, 1], dtype=np.int64))
    check(rshift, a, np.array([-3, 1, 70, 7], dtype=np.int16))
    check(np_shifts, np.array([True, False]), np.array([True, True]))


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_division_by_zero_and_special_values_bit_for_bit(dtype):
    special = np.array([0, -0.0, 1, -2.5, np.inf, -np.inf, np.nan, 1e-310, 1e300])
    re, im = np.meshgrid(special, special)
    z = np.empty(re.size, dtype)
    with np.errstate(over="ignore"):
        z.real, z.imag = re.ravel(), im.ravel()
    a, b = (v.ravel() for v in np.meshgrid(z, z))
    rng = np.random.default_rng(31)
    scale = 10.0 ** rng.integers(-20, 20, (2, 500))
    r = ((rng.standard_normal(500) + 1j * rng.standard_normal(500)) * scale[0]).astype(dtype)
    s = ((rng.standard_normal(500) + 1j * rng.standard_normal(500)) * scale[1]).astype(dtype)
    for f in (divide, np_divide):
        with np.errstate(all="ignore"):
            check(f, a, b)
            check(f, r, s)                      # rounding as NumPy's, not CPython's
            check(f, r, s.real.copy())          # a real divisor, promoted
            check(f, r[::-3], 0j)               # by a scalar zero
            check(f, np.zeros(0, dtype), np.zeros(0, dtype))


def power(a, b):
    return a ** b


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_power_of_zero_as_numpy(dtype):
    """0j ** b is 0 for Re(b) > 0, 1 for b == 0, else nan, as NumPy's loop (Python raises
    ZeroDivisionError; found by the NumPy fuzzer, seed 2132)."""
    zeros = np.array([0j, -0.0 - 0.0j, 0j], dtype)
    for e in [2 - 0.25j, -1 + 0j, 0j, -1 - 1j, 1j, 2 + 0j, 0.5 + 0j]:
        with np.errstate(all="ignore"):
            check(power, zeros, np.full(3, e, dtype))
    with np.errstate(all="ignore"):
        check(power, zeros, 2.5)


def classify(z):
    return np.isnan(z), np.isinf(z), np.isfinite(z)


def close(a, b):
    return np.isclose(a, b)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_nan_inf_finite_and_isclose_as_numpy(dtype):
    """np.isnan/isinf/isfinite of complex arrays (either part, both parts) and np.isclose of
    complex values with an infinite part (found by the NumPy fuzzer, seed 2241)."""
    z = np.array([1 + 1j, complex(np.nan, 0), complex(0, np.inf), complex(np.inf, np.nan),
                  0j, complex(-np.inf, 2)], dtype)
    check(classify, z)
    check(close, z, z)
    check(close, z, z[::-1])
    check(close, z, 1.0)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8])
def test_integer_array_power_wraps_as_numpy(dtype):
    """`**` of unsigned arrays compiled (its loop's `& 1` of uint64 and an int64 literal
    was typed float64), wrapping as NumPy's loop does."""
    a = np.array([2, 3, 100, 0, 1, 7], dtype)
    b = np.array([20, 0, 2, 0, 63, 5], dtype)
    check(power, a, b)
    check(power, a[::-2], b[::2])

"""cmath basics and complex numbers against CPython: the same algorithms, the same bits."""
import cmath
import itertools
import math

import numpy as np
import pytest

from helpers import same, jit, chk
from operations import add, div, mul, power, sub

INF, NAN = math.inf, math.nan


def c_sqrt(z): return cmath.sqrt(z)
def c_exp(z): return cmath.exp(z)
def c_log(z): return cmath.log(z)
def c_phase(z): return cmath.phase(z)
def c_polar(z): return cmath.polar(z)
def c_rect(r, phi): return cmath.rect(r, phi)
def c_isnan(z): return cmath.isnan(z)
def c_isinf(z): return cmath.isinf(z)
def c_isfinite(z): return cmath.isfinite(z)
def c_abs(z): return abs(z)
def c_parts(z): return z.real, z.imag, z.conjugate()


FINITE = [1 + 0j, -1 + 0j, 1j, -1j, 3 + 4j, -3 - 4j, 0.5 - 0.25j, 1e-300 + 1e-300j, 2 + 1e-20j,
          -7.5 + 2j, 1e300 + 1j, complex(-2.0, 0.0), complex(-2.0, -0.0), 10 + 10j, 0.1 + 0.7j,
          1 + 1e-20j, 0.6 + 0.8j, 1.1 + 0.3j, -0.8 - 0.6j, 5e-324 + 5e-324j, 1e-310 + 0j,
          -1e-320 + 1e-320j, 1e308 + 1e308j, -1e308 + 1e-308j, 709.9 + 1j, 709 + 1e-300j]
ZEROS = [0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)]
SPECIAL = [complex(INF, 0), complex(-INF, 1), complex(1, INF), complex(NAN, 1), complex(1, NAN),
           complex(INF, NAN), complex(NAN, NAN), complex(-INF, -INF)]


def _compare(f, z):
    try:
        expected = f(z)
    except (ValueError, OverflowError):
        # CPython raises for a domain error or overflow; kiln returns the non-finite value
        got = jit(f)(z)
        assert isinstance(got, (float, complex)) and not cmath.isfinite(got), (f, z, got)
        return
    got = jit(f)(z)
    assert same(expected, got), f"{f.__name__}({z!r}): CPython {expected!r}, kiln {got!r}"


@pytest.mark.parametrize("f", [c_sqrt, c_exp, c_log, c_phase, c_polar, c_abs, c_parts],
                         ids=lambda f: f.__name__)
def test_finite(f):
    # bit-identical, including near the unit circle (log), for subnormal and huge parts
    for z in FINITE:
        _compare(f, z)


@pytest.mark.parametrize("f", [c_sqrt, c_exp, c_log, c_phase, c_polar, c_abs, c_isnan, c_isinf,
                               c_isfinite], ids=lambda f: f.__name__)
def test_special_values_grid(f):
    # C99 Annex G special values, as CPython's tables give them
    parts = [-INF, -2.0, -0.0, 0.0, 2.0, INF, NAN]
    for x in parts:
        for y in parts:
            _compare(f, complex(x, y))


def test_exp_near_overflow_stays_finite():
    got = jit(c_exp)(709.9 + 1j)
    assert cmath.isfinite(got) and got == cmath.exp(709.9 + 1j)


def test_log_near_unit_circle():
    assert jit(c_log)(0.6 + 0.8j).real == cmath.log(0.6 + 0.8j).real != 0.0
    assert jit(c_log)(1 + 1e-20j).real == 5e-41


def test_sqrt_huge_does_not_overflow():
    chk(c_sqrt, 1e308 + 1e308j)
    assert cmath.isfinite(jit(c_sqrt)(1e308 + 1e308j))


@pytest.mark.parametrize("f", [c_sqrt, c_exp, c_log, c_phase, c_polar, c_abs, c_parts],
                         ids=lambda f: f.__name__)
def test_signed_zeros(f):
    for z in ZEROS:
        _compare(f, z)


def test_log_zero():
    # CPython: ValueError (math domain error); kiln: -inf real part, like Numba and NumPy
    for z in ZEROS:
        with pytest.raises(ValueError):
            cmath.log(z)
        got = jit(c_log)(z)
        assert got.real == -INF and got.imag == cmath.phase(z)


@pytest.mark.parametrize("f", [c_sqrt, c_exp, c_log, c_phase, c_abs, c_isnan, c_isinf,
                               c_isfinite], ids=lambda f: f.__name__)
def test_real_arguments(f):
    for x in [0.0, 1.0, -1.0, 2.5, -4.0, 3, -3, True]:
        _compare(f, x)


@pytest.mark.parametrize("f", [c_isnan, c_isinf, c_isfinite], ids=lambda f: f.__name__)
def test_classification(f):
    for z in FINITE + ZEROS + SPECIAL:
        chk(f, z)
    for x in [0.0, INF, NAN, 1]:
        chk(f, x)


def test_special_values_classified():
    for z in SPECIAL:
        assert jit(c_isfinite)(z) is False


def test_rect():
    for r in [0.0, 1.0, 2.5, -1.0, 1e300]:
        for phi in [0.0, -0.0, 0.5, math.pi, -math.pi / 2, 3, 100.0]:
            chk(c_rect, r, phi)
    chk(c_rect, 2, 1)
    parts = [-INF, -2.0, -0.0, 0.0, 2.0, INF, NAN]   # CPython's table; ValueError where it
    for r, phi in itertools.product(parts, parts):   # raises (a nonzero r, an infinite phi)
        chk(c_rect, r, phi)


def c_log_base(z, base): return cmath.log(z, base)


def test_log_with_a_base():
    for z, base in itertools.product([0j, 1, -1, 8, 2.5j, 3 - 4j, complex(INF, 1), NAN],
                                     [2, 0.5, 10, 1j, -3 + 1j, 1, 0j, INF]):
        chk(c_log_base, z, base)   # ValueError for a base of 0 or 1, as CPython


def test_exp_large():
    for z in [710 + 0j, -1000 + 1j, 700 + 3j]:
        try:
            cmath.exp(z)
        except OverflowError:
            got = jit(c_exp)(z)
            assert not cmath.isfinite(got)
            continue
        chk(c_exp, z)


# ---- arithmetic ----------------------------------------------------------------------------


def test_division_algorithm():
    # Smith's algorithm as in CPython's _Py_c_quot: scaled by the larger part of the divisor
    for a, b in itertools.product(FINITE + ZEROS, FINITE):
        try:
            a / b
        except OverflowError:
            continue
        chk(div, a, b)
    for a, b in [(1 + 1j, 1e-300 + 1e300j), (1e300 + 1e300j, 1e-300 + 1e-300j),
                 (1 + 2j, complex(INF, 1)), (1 + 2j, complex(1, INF)), (complex(INF, INF), 1 + 1j)]:
        chk(div, a, b)


def test_division_by_zero():
    for a in FINITE[:3] + ZEROS[:2]:
        for z in ZEROS:
            chk(div, a, z)
        chk(div, a, 0)
        chk(div, a, 0.0)
    chk(div, 1.0, 0j)
    chk(div, 1, 0j)


def test_power_integer_exponents():
    # exponents that are small integers go through repeated squaring, as in CPython
    for a in FINITE[:10] + FINITE[15:18]:
        for n in range(-5, 13):
            chk(power, a, complex(n, 0))
            chk(power, a, n)
            chk(power, a, float(n))


def test_power_general_exponents():
    for a in FINITE[:10]:
        for b in [0.5, -0.5, 1.5 + 0.5j, 1j, -2j, 100.5, 101.0 + 0j, -101.0 + 0j, 2 + 3j]:
            try:
                a ** b
            except OverflowError:
                continue
            chk(power, a, b)


def test_power_real_base_complex_exponent():
    for a in [2.0, -2.0, 0.5, 3, -3, True]:
        for b in [1j, 0.5 + 0.5j, 2 + 0j]:
            chk(power, a, b)


def test_mul_plain_formula():
    # CPython multiplies with the plain formula: inf * (1+1j) gives nan parts, no recovery
    for a, b in [(complex(INF, 0), 1 + 1j), (complex(INF, INF), 2 + 0j), (1e200 + 1e200j,
                                                                            1e200 + 1e200j)]:
        chk(mul, a, b)
        chk(mul, b, a)


# ---- complex64 -------------------------------------------------------------------------------

def test_complex64_arithmetic():
    a, b = np.complex64(1.5 - 2.25j), np.complex64(0.75 + 3j)
    for f in [add, sub, mul]:
        got = jit(f)(a, b)
        want = f(a, b)      # NumPy computes in complex64
        assert isinstance(got, complex)
        assert got == complex(want), (f.__name__, got, want)


def test_complex64_with_complex128():
    a, b = np.complex64(1.5 - 2.25j), 0.1 + 0.2j
    for f in [add, sub, mul, div]:
        got = jit(f)(a, b)
        assert isinstance(got, complex)
        assert same(f(complex(a), b), got), (f.__name__, got)


def test_complex64_sqrt_abs():
    z = np.complex64(3 + 4j)
    assert jit(c_abs)(z) == 5.0
    assert jit(c_sqrt)(z) == 2 + 1j

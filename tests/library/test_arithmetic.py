"""Scalar arithmetic against CPython: + - * / // % ** divmod, bitwise, comparisons, unary ops,
mixed int/float/bool/complex operands and the edge cases (0, -0.0, NaN, inf, int64 limits)."""
import itertools
import math

import numpy as np
import pytest

from kiln.errors import TypingError

from helpers import check, jit, chk, wrap64, I64_MIN, I64_MAX
from operations import add, divmod_, eq, floordiv, ge, gt, le, lt, mod, mul, ne, neg, power, sub, truediv

INF, NAN = math.inf, math.nan


def pow_builtin(a, b): return pow(a, b)
def and_(a, b): return a & b
def or_(a, b): return a | b
def xor(a, b): return a ^ b
def lshift(a, b): return a << b
def rshift(a, b): return a >> b
def pos(a): return +a
def invert(a): return ~a
def not_(a): return not a
def abs_(a): return abs(a)
def truth(a): return True if a else False


ARITH = [add, sub, mul, truediv, floordiv, mod, divmod_]
COMPARE = [eq, ne, lt, le, gt, ge]

SMALL_INTS = [0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 255, -256, 12345, -98765]
INTS_EDGE = [I64_MAX, I64_MIN, I64_MIN + 1, I64_MAX - 1, 2 ** 32, -(2 ** 32)]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, -7.25, 1e-300, -1e-300, 5e-324,
          1.7976931348623157e308, -1.7976931348623157e308, 1e16, 0.1, 1 / 3, INF, -INF, NAN]


# ---- integers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ARITH, ids=lambda f: f.__name__)
def test_int_arith_small(op):
    for a, b in itertools.product(SMALL_INTS, SMALL_INTS):
        chk(op, a, b)


@pytest.mark.parametrize("op", [floordiv, mod, divmod_], ids=lambda f: f.__name__)
def test_int_floor_semantics(op):
    # floor toward negative infinity, the remainder takes the divisor's sign
    for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (6, -3), (1, -10),
                 (-1, 10), (0, -5), (I64_MIN, 2), (I64_MIN, -2), (I64_MAX, -1), (I64_MIN, 3),
                 (I64_MAX, I64_MIN), (I64_MIN, I64_MAX), (I64_MIN, I64_MIN)]:
        chk(op, a, b)


@pytest.mark.parametrize("op", [truediv, floordiv, mod, divmod_], ids=lambda f: f.__name__)
@pytest.mark.parametrize("a", [0, 1, -5, I64_MIN, True])
def test_int_division_by_zero(op, a):
    with pytest.raises(ZeroDivisionError):
        jit(op)(a, 0)
    with pytest.raises(ZeroDivisionError):
        jit(op)(a, False)


@pytest.mark.parametrize("op", [floordiv, mod, divmod_], ids=["floordiv", "mod", "divmod"])
def test_int_division_by_zero_says_cpythons_words(op):
    # the running CPython's message for each operation (% has its own from 3.11; Numba
    # says 'division by zero' after //), signed and unsigned
    with pytest.raises(ZeroDivisionError) as python:
        op(7, 0)
    for a in (7, np.uint64(7)):
        with pytest.raises(ZeroDivisionError) as compiled:
            jit(op)(a, type(a)(0))
        assert str(compiled.value) == str(python.value)


def test_int_min_floordiv_minus_one_wraps():
    # Python gives 2**63; 64-bit integers wrap to INT64_MIN (Numba's behavior)
    assert jit(floordiv)(I64_MIN, -1) == wrap64(I64_MIN // -1) == I64_MIN
    assert jit(mod)(I64_MIN, -1) == 0
    assert jit(divmod_)(I64_MIN, -1) == (I64_MIN, 0)


@pytest.mark.parametrize("op", [add, sub, mul], ids=lambda f: f.__name__)
def test_int_overflow_wraps(op):
    for a, b in itertools.product(INTS_EDGE + [1, -1, 2, 3, 0], repeat=2):
        got = jit(op)(a, b)
        assert type(got) is int
        assert got == wrap64(op(a, b)), (op.__name__, a, b, got)


def test_int_unary_wraps():
    assert jit(neg)(I64_MIN) == I64_MIN
    assert jit(abs_)(I64_MIN) == I64_MIN
    assert jit(neg)(I64_MAX) == -I64_MAX
    assert jit(invert)(I64_MAX) == I64_MIN


def int64_min_literal(): return -9223372036854775808
def folded_extremes(): return max(9223372036854775807, -9223372036854775808) + min(9223372036854775807, -9223372036854775808)
def negated_literals(): return -0, -(3), - 7, -18446744073709551615.0


def test_a_negated_integer_literal_is_one_constant_as_cpython_folds_it():
    # 9223372036854775808 alone is a uint64: negated it was 2**63
    for f in (int64_min_literal, folded_extremes, negated_literals):
        check(f)
    with pytest.raises(TypingError, match="-18446744073709551615 does not fit in 64 bits"):
        jit(lambda: -18446744073709551615)()


def test_int_power():
    for a in [0, 1, -1, 2, -2, 3, -3, 10, 7]:
        for b in [0, 1, 2, 3, 5, 10, 13]:
            chk(power, a, b)
            chk(pow_builtin, a, b)
    assert jit(power)(2, 62) == 2 ** 62
    assert jit(power)(-2, 63) == I64_MIN
    assert jit(power)(2, 64) == wrap64(2 ** 64) == 0
    assert jit(power)(3, 41) == wrap64(3 ** 41)
    assert jit(power)(7, 100) == wrap64(7 ** 100)
    assert type(jit(power)(2, 10)) is int


@pytest.mark.parametrize("a", [0, 1, -1, 2, 10])
@pytest.mark.parametrize("b", [-1, -2, I64_MIN])
def test_int_negative_power_raises_value_error(a, b):
    # kiln's documented choice (NumPy's too); CPython would return a float
    with pytest.raises(ValueError):
        jit(power)(a, b)


def test_bool_arith():
    for a, b in itertools.product([True, False], repeat=2):
        for op in [add, sub, mul, and_, or_, xor, power]:
            chk(op, a, b)
        if b:
            for op in [truediv, floordiv, mod, divmod_]:
                chk(op, a, b)
    for a in [True, False]:
        for op in [neg, pos, not_, abs_, truth]:
            chk(op, a)


def np_invert(a): return np.invert(a)


def test_invert_and_negate_of_a_narrow_unsigned_stay_in_its_width():
    # NumPy's value (~np.uint8(1) is 254), widened as Numba widens it; kiln flipped the
    # 64-bit value before (2**64 - 2)
    for ty in np.uint8, np.uint16, np.uint32:
        for v in 0, 1, 77, np.iinfo(ty).max:
            x = ty(v)
            with np.errstate(over="ignore"):
                assert jit(invert)(x) == int(~x) and jit(neg)(x) == int(-x), (ty, v)


def test_invert_of_a_bool_is_logical_not_as_in_numpy():
    # CPython's ~True is -2 (deprecated since 3.12); NumPy's and Numba's is False, and
    # `B[~mask]` needs it: a bool array's ~ gave all True before (issue 31)
    for a in [True, False]:
        assert jit(invert)(a) is (not a)
        assert jit(invert)(np.bool_(a)) is bool(np.invert(np.bool_(a)))
    for mask in [np.array([True, False, True]), np.zeros(0, bool),
                 np.array([[True, False], [False, False]], order="F")[:, ::-1]]:
        for f in [invert, np_invert]:
            got = jit(f)(mask)
            assert got.dtype == np.bool_ and np.array_equal(got, ~mask)


@pytest.mark.parametrize("op", [and_, or_, xor], ids=lambda f: f.__name__)
def test_bitwise(op):
    values = [0, 1, -1, 5, -6, 0xFF, -0x100, I64_MAX, I64_MIN, 12345678901]
    for a, b in itertools.product(values, repeat=2):
        chk(op, a, b)
    chk(op, True, 6)
    chk(op, -3, False)


def test_invert():
    for a in [0, 1, -1, 5, -6, I64_MAX, I64_MIN]:
        chk(invert, a)


@pytest.mark.parametrize("op", [lshift, rshift], ids=lambda f: f.__name__)
def test_shifts(op):
    for a in [0, 1, -1, 5, -6, 12345, -12345, I64_MAX, I64_MIN]:
        for n in [0, 1, 2, 7, 31, 32, 62, 63, 64, 65, 100, 1000]:
            want = op(a, n)
            got = jit(op)(a, n)
            assert type(got) is int
            assert got == wrap64(want), (op.__name__, a, n, got, want)
    chk(op, True, 3)
    chk(op, 8, True)


def test_a_shift_keeps_the_shifted_operand_s_signedness():
    # as Numba (and NumPy, where both are unsigned): np.uint64(1) << 63 is 2**63, not -2**63
    for a, n in [(np.uint64(1), 63), (np.uint64(2**64 - 1), np.int8(4)), (np.uint8(3), 62),
                 (np.int8(-3), np.uint64(2)), (np.uint32(7), np.uint64(61))]:
        want = np.uint64(a) if a.dtype.kind == "u" else np.int64(a)
        assert jit(lshift)(a, n) == want << type(want)(n), (a, n)
        assert jit(rshift)(a, n) == want >> type(want)(n), (a, n)
    with pytest.raises(ValueError, match="negative shift count"):
        jit(lshift)(np.uint64(1), -1)


@pytest.mark.parametrize("op", [lshift, rshift], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [-1, -64, I64_MIN])
def test_negative_shift_raises(op, n):
    check(op, 5, n, jitted=jit(op))
    check(op, 0, n, jitted=jit(op))


@pytest.mark.parametrize("op", COMPARE, ids=lambda f: f.__name__)
def test_int_comparisons(op):
    values = [0, 1, -1, I64_MAX, I64_MIN, True, False]
    for a, b in itertools.product(values, repeat=2):
        chk(op, a, b)


def test_int_unary():
    for a in [0, 1, -1, 42, -42, I64_MAX, I64_MIN + 1]:
        for op in [neg, pos, invert, not_, abs_, truth]:
            chk(op, a)


# ---- floats ------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", [add, sub, mul, truediv, floordiv, mod, divmod_],
                         ids=lambda f: f.__name__)
def test_float_arith(op):
    for a, b in itertools.product(FLOATS, repeat=2):
        chk(op, a, b)


@pytest.mark.parametrize("op", [floordiv, mod, divmod_], ids=lambda f: f.__name__)
def test_float_floor_semantics(op):
    for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (1.0, 0.1), (-1.0, 0.1),
                 (0.0, -3.0), (-0.0, 3.0), (-0.0, -3.0), (1e-320, -1.0), (-1e308, 1e-308),
                 (5.0, INF), (-5.0, INF), (5.0, -INF), (-5.0, -INF), (INF, 2.0), (NAN, 1.0),
                 (3.0, NAN), (0.5, 1e-323)]:
        chk(op, a, b)


@pytest.mark.parametrize("op", [truediv, floordiv, mod, divmod_], ids=lambda f: f.__name__)
@pytest.mark.parametrize("a", [0.0, -0.0, 1.0, -2.5, INF, NAN, 3])
@pytest.mark.parametrize("zero", [0.0, -0.0])
def test_float_division_by_zero(op, a, zero):
    with pytest.raises(ZeroDivisionError):
        jit(op)(a, zero)


@pytest.mark.parametrize("op", [truediv, floordiv, mod, divmod_], ids=lambda f: f.__name__)
def test_float_by_int_zero(op):
    with pytest.raises(ZeroDivisionError):
        jit(op)(1.5, 0)
    with pytest.raises(ZeroDivisionError):
        jit(op)(1.5, False)


def test_float_power():
    bases = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 10.0, 1e300, INF, -INF, NAN, 1e-300]
    exps = [0.0, -0.0, 1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0, -3.0, 1.5, 1e300, -1e300, INF, -INF,
            NAN, 1023.0, 1024.0]
    for a, b in itertools.product(bases, exps):
        try:
            expected = a ** b
        except (OverflowError, ZeroDivisionError):
            expected = None  # check() compares the exception
        if isinstance(expected, complex):
            continue  # see test_negative_to_fractional_power
        chk(power, a, b)
        chk(pow_builtin, a, b)


@pytest.mark.parametrize("base", [0.0, -0.0, 0])
@pytest.mark.parametrize("exp", [-1.0, -0.5, -2.0, -3.0, -1e300, -5e-324])
def test_zero_to_negative_power_raises(base, exp):
    chk(power, base, exp)   # CPython raises ZeroDivisionError
    with pytest.raises(ZeroDivisionError):
        jit(power)(base, exp)


def test_zero_to_minus_inf_is_inf():
    # CPython checks an infinite exponent before a zero base: 0.0 ** -inf is inf, no error
    for base in [0.0, -0.0, 0]:
        chk(power, base, -INF)
        assert jit(power)(base, -INF) == INF


def test_negative_to_fractional_power():
    # CPython returns a complex number; kiln (like Numba) computes in float and returns NaN
    for a, b in [(-8.0, 1.0 / 3.0), (-1.0, 0.5), (-2.0, -1.5),
                 (-0.5, 1e-300), (-3, 0.5)]:
        got = jit(power)(a, b)
        assert isinstance(got, float) and math.isnan(got), (a, b, got)
        assert isinstance(a ** b, complex)


def test_complex_power_overflow_is_not_finite():
    # CPython raises OverflowError when a finite base gives an infinite result; kiln, like
    # NumPy, returns the non-finite value the algorithm produced
    for a, b in [(1e10 + 1e10j, 101 + 0j), (1e200 + 0j, 2 + 0j), (1e200 + 0j, 2.5 + 0j)]:
        with pytest.raises(OverflowError):
            a ** b
        got = jit(power)(a, b)
        assert isinstance(got, complex) and not (math.isfinite(got.real) and
                                                 math.isfinite(got.imag))


@pytest.mark.parametrize("a, b", [(10.0, 400.0), (-10.0, 401.0), (5e-324, -1.0),
                                  (1e300, 2.0), (2, 1024.0), (-0.5, -1075.0)])
def test_float_overflow_power_raises(a, b):
    # A finite base and exponent with an infinite result: CPython raises OverflowError
    with pytest.raises(OverflowError):
        a ** b
    for f in (power, pow_builtin):
        with pytest.raises(OverflowError, match="Numerical result out of range"):
            jit(f)(a, b)


def test_float_power_of_infinities_is_not_overflow():
    for a, b in [(INF, 2.0), (-INF, 3.0), (2.0, INF), (0.5, -INF), (INF, 0.5)]:
        chk(power, a, b)
        assert math.isinf(jit(power)(a, b))


@pytest.mark.parametrize("op", COMPARE, ids=lambda f: f.__name__)
def test_float_comparisons(op):
    values = [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 5e-324]
    for a, b in itertools.product(values, repeat=2):
        chk(op, a, b)


def test_float_unary():
    for a in FLOATS:
        for op in [neg, pos, not_, abs_, truth]:
            chk(op, a)


# ---- mixed operands ----------------------------------------------------------------------------

MIXED = [(3, 2.5), (-3, 0.5), (2.5, -3), (True, 2.5), (1.5, False if False else True),
         (7, True), (True, -7), (0, -0.0), (-0.0, 0), (I64_MAX, 1.0), (I64_MIN, -1.0),
         (3, NAN), (INF, -4)]


@pytest.mark.parametrize("op", ARITH + COMPARE, ids=lambda f: f.__name__)
def test_mixed_int_float_bool(op):
    for a, b in MIXED:
        chk(op, a, b)
        chk(op, b, a)


def test_mixed_power():
    for a, b in [(3, 2.5), (2.5, -3), (2.5, 3), (True, 2.5), (1.5, True), (0, -0.0), (-0.0, 0),
                 (I64_MAX, 1.0), (3, NAN), (INF, -4), (-2, 3.0), (4, 0.5), (-2.0, 3)]:
        chk(power, a, b)
    chk(power, 7, True)
    chk(power, True, 7)


def test_int_float_comparison_exactness():
    # 2**53 + 1 is not representable as a float; CPython compares exactly
    chk(eq, 2 ** 53 + 1, float(2 ** 53))
    chk(lt, float(2 ** 53), 2 ** 53 + 1)
    chk(eq, I64_MAX, 2.0 ** 63)
    chk(lt, I64_MAX, 2.0 ** 63)


COMPLEX = [0j, 1 + 0j, -1j, 1 + 2j, -3.5 + 0.25j, 1e300 + 1e300j, 1e-310 + 3j, complex(INF, 1),
           complex(1, -INF), complex(NAN, 0), complex(-0.0, -0.0), 2 + 0j, 0.5 - 0.5j]


@pytest.mark.parametrize("op", [add, sub, mul, truediv], ids=lambda f: f.__name__)
def test_complex_arith(op):
    for a, b in itertools.product(COMPLEX, repeat=2):
        chk(op, a, b)


def test_complex_division_by_zero():
    for a in [1 + 1j, 0j, complex(NAN, NAN)]:
        for z in [0j, complex(-0.0, 0.0), complex(0.0, -0.0)]:
            with pytest.raises(ZeroDivisionError):
                jit(truediv)(a, z)
    with pytest.raises(ZeroDivisionError):
        jit(truediv)(1 + 2j, 0)
    with pytest.raises(ZeroDivisionError):
        jit(truediv)(1 + 2j, 0.0)


def test_complex_division_nan_divisor():
    chk(truediv, 1 + 1j, complex(NAN, 1.0))
    chk(truediv, 1 + 1j, complex(1.0, NAN))
    chk(truediv, 1 + 1j, complex(NAN, NAN))


def test_complex_mixed():
    for a, b in [(1 + 2j, 3), (1 + 2j, 2.5), (1 + 2j, True), (-2, 0.5 - 1j), (0.0, 1j)]:
        for op in [add, sub, mul, truediv, eq, ne]:
            chk(op, a, b)
            chk(op, b, a)


def test_complex_power():
    bases = [1 + 2j, -1 - 1j, 0.5j, 2 + 0j, -3 + 0j, 1.5 + 1.5j, 1j, complex(-0.0, 0.0),
             complex(0.0, -0.0)]
    exps = [0j, 1 + 0j, 2 + 0j, 3 + 0j, -1 + 0j, -2 + 0j, 10 + 0j, 100 + 0j, 101 + 0j,
            0.5 + 0j, 1j, 1 + 1j, -0.5 - 2j]
    for a, b in itertools.product(bases, exps):
        chk(power, a, b)
    for a, b in [(1 + 2j, 2), (1 + 2j, 3.0), (2, 1j), (2.5, 1 + 1j), (1 + 1j, -2)]:
        chk(power, a, b)


def test_complex_zero_power():
    chk(power, 0j, 0j)
    chk(power, 0j, 2 + 0j)
    chk(power, 0j, 0.5 + 0j)
    for b in [-1 + 0j, 1j, -2 + 1j]:
        with pytest.raises(ZeroDivisionError):
            jit(power)(0j, b)


def test_complex_comparisons_and_unary():
    for a, b in itertools.product([1 + 2j, 1 + 2j, complex(NAN, 0), 0j, complex(-0.0, 0)], repeat=2):
        chk(eq, a, b)
        chk(ne, a, b)
    for a in COMPLEX:
        for op in [neg, pos, not_, truth, abs_]:
            chk(op, a)


# ---- chained comparisons and compound expressions ----------------------------------------------

def chained(a, b, c):
    return a < b < c, a <= b == c, a < b > c, a != b != c, a < b <= c < 10


def compound(a, b):
    x = a
    x += b
    x *= 3
    x -= a
    x //= 2
    x %= 1000
    return x


def test_chained_comparisons():
    for a, b, c in itertools.product([0, 1, 2, 1.5, NAN], repeat=3):
        chk(chained, a, b, c)


def chained_side_effect(a, b):
    c = 0
    # b + n evaluated once
    if a < (b + 1) < 100:
        c = 1
    return c


def test_chained_comparison_once():
    chk(chained_side_effect, 0, 5)
    chk(chained_side_effect, 0, 500)
    chk(chained_side_effect, 10, 5)


def test_augmented_assignment():
    for a, b in [(5, 7), (-5, 7), (2.5, -1.25), (100, -3), (True, 4)]:
        chk(compound, a, b)


def int_loop(n):
    s = 0
    for i in range(n):
        s = s * 31 + i ^ (i << 3)
        s %= 1000003
    return s


def float_loop(n):
    s = 0
    for i in range(n):
        s += i / 7  # int accumulator widens to float
    return s


def test_loops_with_arithmetic():
    chk(int_loop, 1000)
    chk(float_loop, 100)
    # the accumulator's type is unified over the loop (int64 and float64 widen to float64,
    # as in Numba), so even when the loop does not run the result is a float
    assert jit(float_loop)(0) == 0.0 and type(jit(float_loop)(0)) is float

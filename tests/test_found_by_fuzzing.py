"""Programs that once crashed kiln or gave a wrong number, found by differential fuzzing
against CPython (issue 14). Each stays as a regression test, compared with CPython."""
import math
from fractions import Fraction
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from helpers import jit, check, within_an_ulp
from kiln import njit, prange
from kiln.errors import TypingError
from tests.fuzz.cfuncs import cf_remainder


def mod_by_nan_constant(a):
    return a % math.nan


def nan_constant_mod(t, k):
    return math.nan % (t / (k or 7))


def divmod_nan_constant(v):
    return divmod(math.nan, v)


def fmod_of_int_by_nan(a):
    return math.fmod(a, math.nan)


@pytest.mark.parametrize("a", [5, -5, 0, 2 ** 62, -1])
def test_int_mod_nan_constant_is_nan(a):
    # LLVM folded a call to fmod(int-converted x, NaN) into an undefined value
    check(mod_by_nan_constant, a)
    check(fmod_of_int_by_nan, a)


@pytest.mark.parametrize("t, k", [(3.0, 0), (3.0, 2), (-1.5, 5), (0.0, 0)])
def test_nan_constant_mod(t, k):
    check(nan_constant_mod, t, k)


@pytest.mark.parametrize("v", [-1.8, 1.8, 0.5, math.inf, -math.inf, 5e-324])
def test_divmod_of_nan_constant(v):
    check(divmod_nan_constant, v)


def nan_mod_in_loop(a, x, arr):
    for i0 in range(3, a % 15):
        arr[0 % len(arr)] = math.nan % (i0 / (abs(x) + 0.5))
    return arr[0]


def test_nan_mod_stored_in_loop():
    for a in (100, 4, 3, -7):
        check(nan_mod_in_loop, a, -1.0, np.array([7.9, 0.5, 4.0, -0.5, -1.0, 3.0]))


CRASHER = """
import math
import numpy as np
from kiln import njit, prange
from kiln.errors import TypingError

@njit
def f(a, b, x, arr):
    c = -13
    d = arr.shape[0]
    v = x
    t = ((0 if b < -13 else d), 2.0)
    x = v % 0.1
    if math.erf(x * d) > c / (a % 97):
        w0 = 0
        while w0 < 10:
            if False:
                a = t[0]
            x, v = divmod(math.nan, v)
            if -4 < 6 <= a:
                return a, 1.0

print("started", flush=True)
print(f(-27, 6, -1.806, np.array([-5.28, 1.10, -0.15])))
"""


@pytest.mark.slow   # waits out 8 s of a child looping for ever: the long run
def test_program_that_segfaulted_runs_like_cpython(tmp_path):
    # CPython loops for ever here (divmod(nan, v) is (nan, nan)); kiln once died of SIGSEGV.
    # The child must still be running when the time is up, never dead by a signal.
    program = tmp_path / "crasher.py"
    program.write_text(textwrap.dedent(CRASHER))
    child = subprocess.Popen([sys.executable, str(program)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = child.communicate(timeout=8)
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate()
        assert "started" in out, err
        return
    pytest.fail(f"the program ended (exit {child.returncode}) where CPython loops: {out}{err}")


def second_crasher(a, b, x, y, arr, iarr):
    v = math.gamma(2.0)
    for i0 in range(3, a % 15):
        arr[0 % len(arr)] = (math.nan % (i0 / (abs(x) + 0.5)))
        if math.erf(v) >= 2.0:
            continue
    w1 = 0
    while w1 < 12:
        w1 += 1
        for i2 in range(12, ((i0 - a) % 1000003) % 6, 1):
            c = a
    y = float(round(max(-1e6, min(1e6, x))))
    for i3 in range(-len(arr), len(arr), -3):
        iarr[i0 % iarr.shape[0]] = min(max(a * abs(i0), -1048576), 1048576)
    return y


def test_second_program_that_segfaulted():
    check(second_crasher, 100, 13, -1.0, 1e-300,
          np.array([7.9, 0.5, 4.0, -0.5, -1.0, 3.0]), np.array([-7, -7, 13]))


def int_true_division(a, b):
    return a / b


@pytest.mark.parametrize("a, b", [(3, 9007199254740993), (2 ** 53 + 1, 3), (2 ** 62 + 1, 7),
                                  (-2 ** 63, 3), (-2 ** 63, -2 ** 63), (2 ** 63 - 1, -2 ** 63),
                                  (0, -2 ** 60), (10 ** 18 + 7, -(10 ** 17) - 3), (5, 0),
                                  (-2 ** 63, 1), (2 ** 53, 2 ** 53 + 1)])
def test_int_true_division_is_correctly_rounded(a, b):
    # kiln converted both operands to float first: beyond 2**53 that rounds twice
    check(int_true_division, a, b)


def gcd(a, b):
    return math.gcd(a, b)


@pytest.mark.parametrize("a, b", [(-2 ** 63, 6), (6, -2 ** 63), (-2 ** 63, 2 ** 62), (-12, 18),
                                  (2 ** 63 - 1, -2 ** 63), (0, -7), (0, 0), (-2 ** 63, -1),
                                  (2 ** 62, -2 ** 62)])
def test_gcd_of_int64_extremes(a, b):
    # abs(-2**63) wrapped, so the gcd came out negative
    check(gcd, a, b)


def test_gcd_of_two_pow_63_is_refused():
    # CPython answers 2**63, which no int64 holds: an error, never a wrapped result
    for a, b in [(-2 ** 63, 0), (-2 ** 63, -2 ** 63), (0, -2 ** 63)]:
        assert math.gcd(a, b) == 2 ** 63
        with pytest.raises(OverflowError):
            jit(gcd)(a, b)


def optional_equals_none(x):
    y = None if x > 0 else x
    return y == None, y != None, None == y, None != y  # noqa: E711 (what is tested)


def number_equals_none(x):
    return x == None, x != None, None != x, None == None  # noqa: E711


@pytest.mark.parametrize("x", [1.5, -1.5, 0.0, math.nan])
def test_equality_with_none(x):
    # == and != with None were refused; on an Optional they are its `is None` test
    check(optional_equals_none, x)
    check(number_equals_none, x)
    check(number_equals_none, int(x) if x == x else 3)


def index_with_bool(arr, i):
    return arr[i]


def index_with_int_of_bool(arr, i):
    return arr[int(i)]


def test_bool_array_index_is_refused():
    # arr[True] was read as arr[1]; NumPy reads it as a mask adding an axis
    arr = np.array([1.5, 2.5, 3.5])
    assert index_with_bool(arr, True).shape == (1, 3)
    with pytest.raises(TypingError, match="a bool is not an array index"):
        jit(index_with_bool)(arr, True)
    check(index_with_int_of_bool, arr, True)
    check(index_with_bool, arr, np.int32(-1))


@njit
def overwrite_first(arr):
    arr[0] = 100.0
    return 1.0


def augmented_item_then_call(arr, i):
    arr[i] += overwrite_first(arr)
    arr[i - 1] *= overwrite_first(arr) + arr[i]
    return arr[0]


def test_augmented_assignment_reads_the_item_before_the_value():
    # CPython reads arr[i] before evaluating the right side; kiln read it after
    for i in (0, 1, -2):
        check(augmented_item_then_call, np.array([1.0, 2.0, 3.0]), i)


def square_by_pow(x):
    return x ** 2.0, x ** 2, math.pow(x, 2.0)


def pow_constant_exponents(x):
    return x ** 0.5, x ** -1.0, math.pow(x, 0.5), x ** 3.0


def _correctly_rounded_power(x, n):
    """x ** n rounded once (OverflowError past the largest float, as CPython raises)."""
    if not math.isfinite(x) or x == 0:
        return x ** n
    return float(Fraction(x) ** n)


def square_reference(x):
    square = _correctly_rounded_power(x, 2)
    return square, square, math.pow(x, 2.0)


def constant_exponents_reference(x):
    if x == 0:
        raise ZeroDivisionError   # 0.0 ** -1.0, as CPython
    return x ** 0.5, 1.0 / x, math.pow(x, 0.5), _correctly_rounded_power(x, 3)


@pytest.mark.parametrize("x", [4.827022376715608, 0.3613697910321445, -4.827022376715608,
                               0.9690565263992934, 2.4365776670026157e+278, 0.9284618267054312,
                               9.323332217461244e+267, 2.137716252536213e-86, -0.0, math.inf,
                               -math.inf, math.nan])
def test_pow_is_the_c_librarys_but_small_integral_powers_are_exact(x):
    """math.pow and `**` by other exponents are the C library's pow, as CPython calls it
    (LLVM once rewrote pow(x, 0.5) as sqrt(x)); `x ** 1` .. `x ** 8` are the correctly
    rounded power and `x ** -1.0` is 1 / x, as Numba's and NumPy's are (docs/performance.md,
    "Integer powers"): glibc's pow misrounds a few bases by one unit (4.827022376715608 ** 2
    among them), and there kiln differs from CPython."""
    check(square_reference, x, jitted=njit(square_by_pow))
    if not x < 0:
        check(constant_exponents_reference, x, jitted=njit(pow_constant_exponents))


def array_power(a, e):
    return a ** e, np.power(a, e)


@pytest.mark.parametrize("e", [2.0, 0.5, -1.0, 3.0, np.float32(2.0)])
def test_array_power_with_a_scalar_exponent_is_numpys(e):
    a = np.array([4.827022376715608, 0.3613697910321445, 0.9690565263992934])
    # compared as lists: a failure's traceback must not keep kiln's arrays alive
    got = [r.tolist() for r in jit(array_power)(a, e)]
    want = [r.tolist() for r in array_power(a, e)]
    if e in (2.0, 0.5, -1.0):   # NumPy's square, sqrt and reciprocal: exact
        assert got == want
    else:   # the C library's pow; NumPy 2.4's own may differ in the last bit
        for g, w in zip(got, want):
            within_an_ulp(np.array(g), np.array(w))


def test_array_power_with_other_exponents_is_numpys():
    for e in (-1.0, 3.0, 1.0, 0.0, 2.5):
        # within an ulp: the C library's pow against NumPy 2.4's own (exact for -1, 1, 0)
        check(array_power, np.array([4.827022376715608, 0.3613697910321445, 0.969056526399]),
              e, rtol=0.0 if e in (-1.0, 1.0, 0.0) else 4e-16)


def hypot(a, b):
    return math.hypot(a, b)


@pytest.mark.xfail(strict=True, reason="documented: kiln calls the C library's hypot (as NumPy "
                   "does); CPython 3.10+ computes hypot with its own algorithm, which differs "
                   "from glibc's in the last bit for about 1 pair in 200")
def test_hypot_last_bit_like_cpython():
    check(hypot, -209.62347442802525, 415.2948096210039)


@pytest.mark.parametrize("a, b", [(3.0, 4.0), (math.inf, math.nan), (math.nan, -math.inf),
                                  (0.0, -0.0), (5e-324, 5e-324), (1e308, 1e308), (-1.5, 0.0)])
def test_hypot_special_values(a, b):
    check(hypot, a, b)


def optional_equals_number(x, k):
    y = None if x > 0 else x
    n = None if k > 2 else k
    return y == -1.0, y != -1.0, -1.0 == y, 0 != y, n == 2, n != 2.0, 2 == n


@pytest.mark.parametrize("x, k", [(1.0, 5), (-1.0, 2), (0.0, 1), (math.nan, 3), (-0.0, 0)])
def test_optional_equals_number(x, k):
    # an Optional compared with a number was unwrapped, so None raised TypeError where
    # CPython answers False (or True for !=)
    check(optional_equals_number, x, k)


@njit
def maybe_half(x):
    return None if x > 0 else x / 2


def conditional_unwraps_optional(x, arr):
    o = maybe_half(x)
    v = o if o is not None else 7.5
    w = 1.0 if o is None else o
    return np.full(arr.shape, o if o is not None else x), v, w


@pytest.mark.parametrize("x", [1.0, -3.0, -0.0, math.nan])
def test_conditional_expression_narrows_optional(x):
    # `o if o is not None else x` kept the Optional type, which np.full refused
    check(conditional_unwraps_optional, x, np.arange(3.0))


def bool_of_optional(x):
    o = maybe_half(x)
    return bool(o), not o, (1 if o else 2)


@pytest.mark.parametrize("x", [1.0, -3.0, -0.0, 0.0, math.nan])
def test_bool_of_optional(x):
    # bool(opt) unwrapped opt, so None raised TypeError where CPython answers False
    check(bool_of_optional, x)


def maximum_minimum(a, b):
    return np.maximum(a, b), np.minimum(a, b), np.maximum(b, a), np.minimum(b, a)


@pytest.mark.parametrize("b", [0, 0.0, -0.0, math.nan, 1.5])
def test_maximum_minimum_of_signed_zeros_like_numpy(b):
    # NumPy returns the second operand when they are equal (0.0 and -0.0); kiln the first
    check(maximum_minimum, np.array([-0.0, 0.0, math.nan, 2.0]), b)
    check(maximum_minimum, -0.0, b)


def shift_add_in_a_loop(arr):
    fa1 = np.arange(len(arr))
    for e2 in arr:
        fa1[:-1] += fa1[1:]
    return fa1


def test_augmented_slice_assignment_in_a_loop_frees_its_array():
    # the in-place operator returns its target, the very LLVM value of the item read
    # before it: the two temporaries shared one bookkeeping entry, and each turn of the
    # loop lost a reference to the array (seed 703913)
    check(shift_add_in_a_loop, np.array([-1e-310, np.nan, -1e-310, -1e308]))
    check(shift_add_in_a_loop, np.zeros(0))


def sign_of_infinity_mod_one(y):
    # fuzz seed 5003819: inf % 1 is fmod's NaN, whose sign copysign reads; LLVM expanded
    # fmod by 1.0 inline and gave +NaN where the C library gives the platform's default NaN
    return (math.copysign(1.0, y % 1), math.copysign(1.0, y % 2.5), math.copysign(1.0, y // 1),
            math.copysign(1.0, divmod(y, 1)[1]))


@pytest.mark.parametrize("y", [math.inf, -math.inf, math.nan, 3.5, -0.0])
def test_sign_of_the_nan_of_infinity_mod_a_constant(y):
    check(sign_of_infinity_mod_one, y)


@njit
def always_raises(a):
    if True:
        raise ZeroDivisionError("fuzz", a)
    return a >> 2


def uses_a_function_that_always_raises(a, b):
    if b > 0:
        return always_raises(a) & 7
    return b


def test_the_return_after_a_raise_that_is_always_taken_is_still_typed():
    # fuzz seed 91238 (a change never released): statements after a branch that always
    # leaves were skipped, so `always_raises` was typed as returning None and its caller
    # failed to compile; CPython only raises when the call is made
    check(uses_a_function_that_always_raises, 5, -1)
    check(uses_a_function_that_always_raises, 5, 1)


def private_read_only_where_a_later_prange_raises_first(arr):
    for i in prange(len(arr)):
        v = arr[i] * 2
    s = 0.0
    for j in prange(len(arr)):
        if True:
            raise RuntimeError("fuzz")
        s += v
    return s


@pytest.mark.parametrize("n", [0, 4])
def test_a_read_after_an_always_taken_raise_still_keeps_the_loop_serial(n):
    # fuzz seed 9664: the first loop's `v` is read only in the second loop, after a raise
    # that always happens; the check for private names read after a loop skipped that
    # unreachable read and split the first loop, so `v` was never bound outside it, and
    # the second loop, which reads its shared names when it starts, raised UnboundLocalError
    # instead of the body's RuntimeError
    check(private_read_only_where_a_later_prange_raises_first, np.arange(float(n)),
          parallel=True)


@njit
def shifts_in_place(arr):
    if len(arr) > 1:
        arr[1:] = arr[:-1] * 2.0 + arr[1:]
    return 1.0


def computes_before_a_call_that_writes(arr, c):
    if len(arr) > 1:
        arr[1:] += arr[:-1] * c + np.full(arr.shape, shifts_in_place(arr))[1:]
    return arr * c + shifts_in_place(arr) + arr   # the last `arr` is read after the call


def fills_after_an_operation(a):
    return a * 2.0 + float(a.fill(1.0) is None)   # a.fill writes a


@pytest.mark.parametrize("values", [[3.0, 0.0, 1.0], [], [np.nan, -np.inf, 2.5, 7.0]])
def test_an_array_expression_is_computed_before_a_call_that_writes_its_arrays(values):
    # fuzz seed 60203: `arr[:-1] * 10.0 + f(...)`, f a compiled function writing arr: the
    # fused loop read arr[:-1] after f had written it, where Python computes
    # `arr[:-1] * 10.0` first
    check(computes_before_a_call_that_writes, np.array(values), 10.0)
    check(fills_after_an_operation, np.array(values))


def nan_powers(x, e):
    # fuzz seed 103730: remainder(-inf, 7.25) is a NaN with its sign bit set; CPython's
    # `nan ** 3.0` returns that NaN as it is, C's pow (which kiln called) gave +NaN
    v = cf_remainder(x, 7.25)
    return (math.copysign(1.0, v ** 3.0), math.copysign(1.0, v ** e), (v ** 0.0),
            math.copysign(1.0, 2.0 ** -v), 1.0 ** v, math.copysign(1.0, v ** -2.0))


@pytest.mark.parametrize("x", [-math.inf, math.inf, 2.0])
@pytest.mark.parametrize("e", [3.0, 0.5, -1.0])
def test_a_nan_raised_to_a_power_keeps_its_sign(x, e):
    check(nan_powers, x, e)

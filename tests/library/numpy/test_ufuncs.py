"""Array operators and NumPy ufuncs in compiled code, against NumPy on the same inputs."""
import numpy as np
import pytest

from helpers import jit, slow_except, within_an_ulp
from kiln import njit
from kiln.errors import TypingError


def same_arrays(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    np.testing.assert_array_equal(got, want)


def run(pyfunc, *args, rtol=0.0):
    with np.errstate(all="ignore"):
        want = pyfunc(*args)
    got = jit(pyfunc)(*args)
    for g, w in zip(got, want):
        if rtol:
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=rtol)
        else:
            same_arrays(g, w)


FLOATS = np.array([1.5, -2.0, np.nan, np.inf, -0.0, 0.0, 5e-324, -np.inf])
OTHER = np.array([0.0, 2.0, 1.0, -0.0, np.nan, 3.0, 2.0, -np.inf])


def arithmetic(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, a ** b, -a, abs(a), +a


def comparisons(a, b):
    return a < b, a <= b, a == b, a != b, a > b, a >= b


def math_ufuncs(a, b):
    return (np.sqrt(a), np.exp(a), np.log(a), np.sin(a), np.cos(a), np.tanh(a), np.arctan2(a, b),
            np.hypot(a, b), np.maximum(a, b), np.minimum(a, b), np.isnan(a), np.isinf(a),
            np.isfinite(a), np.absolute(a), np.log1p(a), np.expm1(a), np.floor_divide(a, b))


@pytest.mark.parametrize("f", [arithmetic, comparisons])
def test_float_arrays_with_nan_inf_zero(f):
    run(f, FLOATS, OTHER)
    run(f, FLOATS.astype(np.float32), OTHER.astype(np.float32))


def test_math_ufuncs_within_an_ulp_or_two():
    # kiln calls the C library (as CPython's math does); NumPy has its own SIMD versions of
    # tanh, exp, log, sin... which can differ in the last bit
    run(math_ufuncs, FLOATS, OTHER, rtol=4e-16)
    run(math_ufuncs, FLOATS.astype(np.float32), OTHER.astype(np.float32), rtol=4e-7)


INTS = np.array([7, -7, 0, 3, -1, 2 ** 40, -(2 ** 62), 5])
INT_OTHER = np.array([2, 3, 0, -3, 0, 7, 3, -1])


def int_arithmetic(a, b):
    return a + b, a - b, a * b, a / b, a // b, a % b, -a, abs(a), a & b, a | b, a ^ b, a < b


def test_int_arrays_divide_by_zero_like_numpy():
    run(int_arithmetic, INTS, INT_OTHER)


def scalars_and_promotion(a, x, i):
    return a + x, a * i, x - a, i / a, a + 1, a * 2.5, a > 2


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.float32, np.float64,
                                   np.bool_])
def test_numpy2_promotion_with_python_scalars(dtype):
    a = np.array([1, 0, 3, 1], dtype=dtype)
    run(scalars_and_promotion, a, 1.5, 3)


def broadcasting(A, v, col):
    return A + v, A * col, v - col, A.T / 2, A[:, ::2] * v[:2], A[1] + A[:, 0:1]


def test_broadcasting_and_layouts():
    A = np.arange(12.0).reshape(3, 4)
    run(broadcasting, A, np.arange(4.0), np.arange(3.0).reshape(3, 1))
    run(broadcasting, np.asfortranarray(A), np.arange(4.0), np.arange(3.0).reshape(3, 1))


def mismatch(a, b):
    return a + b


def test_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match="could not be broadcast"):
        njit(mismatch)(np.zeros(3), np.zeros(4))


def empty_arrays(a, b):
    return a + b, np.sqrt(a), a * 2


def test_empty_arrays():
    run(empty_arrays, np.zeros(0), np.zeros(0))
    run(empty_arrays, np.zeros((0, 3)), np.zeros(3))


def in_place(a, b):
    a += b
    a *= 2.0
    a -= 1
    return a


def test_in_place_operators_write_into_the_argument():
    a, b = np.arange(5.0), np.linspace(0, 1, 5)
    expected = in_place(a.copy(), b)
    got = njit(in_place)(a, b)
    same_arrays(a, expected)
    assert got is a


def shift_in_place(a):
    a[1:] += a[:-1]
    return a


def reverse_in_place(a):
    a += a[::-1]
    return a


def slice_copy_overlapping(a):
    a[1:] = a[:-1]
    return a


@pytest.mark.parametrize("f", [shift_in_place, reverse_in_place, slice_copy_overlapping])
def test_overlapping_operands_are_read_before_written(f):
    want = f(np.arange(7.0))
    got = njit(f)(np.arange(7.0))
    same_arrays(got, want)


def int_plus_float_in_place(a):
    a += 1.5


def test_in_place_casting_rule():
    with pytest.raises(TypingError, match="same_kind"):
        njit(int_plus_float_in_place)(np.arange(3))


def scalar_ufuncs(x, y):
    return np.sqrt(x), np.add(x, y), np.maximum(x, y), np.isnan(x)


def test_ufuncs_on_scalars():
    for x, y in [(4.0, 2.0), (np.nan, 1.0), (-1.0, np.inf)]:
        with np.errstate(all="ignore"):
            want = scalar_ufuncs(x, y)
        got = jit(scalar_ufuncs)(x, y)
        for g, w in zip(got, want):
            assert g == w or (g != g and w != w)


def expression(a, b, c):
    return (np.sqrt(a * a + b * b) - 2.0 * c,)


def test_expression_on_views():
    a = np.arange(20.0).reshape(4, 5)
    run(expression, a[:, 1:], a[:, :-1], a[::2].sum() + a[:, 1:])


def rounding_and_logic(a, f):
    return (np.floor(a), np.ceil(f), np.trunc(f), np.rint(f), np.rint(a), np.square(a),
            np.square(f), np.sign(a), np.sign(f), np.reciprocal(f), np.fmax(f, 1.0),
            np.fmin(f, np.nan), np.logical_and(a, f[:2]), np.logical_or(a > 0, f[:2]),
            np.logical_xor(a, 0), np.logical_not(f), np.floor(f))


def test_rounding_sign_fmax_and_logical_functions():
    ints = np.array([1, -2], dtype=np.int16)
    floats = np.array([-0.0, 2.5, -1.5, np.nan, 0.5, -0.5, 3.5, np.inf])
    run(rounding_and_logic, ints, floats)
    run(rounding_and_logic, ints.astype(np.int64), floats.astype(np.float32))


def complex_parts(z):
    r = z.real
    i = z.imag
    return r, i, np.conjugate(z), z.conj(), r * 2 + i


def write_parts(z):
    z.imag[:] = 5.0
    z.real[0] = -1.0
    return z


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_real_imag_and_conjugate_of_complex_arrays(dtype):
    z = ((np.arange(6) + 1j * np.arange(6, 12)).reshape(2, 3)).astype(dtype)
    run(complex_parts, z)
    run(complex_parts, z[:, ::2])
    got = njit(write_parts)(z.copy())
    same_arrays(got, write_parts(z.copy()))
    # |z| is libm's hypot, as CPython's abs(); NumPy's own hypot can differ in the last bit
    np.testing.assert_allclose(njit(abs_of)(z), np.abs(z),
                               rtol=1e-6 if dtype == np.complex64 else 1e-15)


def abs_of(z):
    return np.abs(z)


def test_real_part_of_a_real_array_is_itself():
    x = np.arange(3.0)
    same_arrays(njit(real_of)(x), x)


def real_of(x):
    return x.real


def angles_and_steps(a, b):
    return (np.deg2rad(a), np.radians(a), np.rad2deg(a), np.degrees(a), np.spacing(a),
            np.signbit(a), np.nextafter(a, b), np.heaviside(a, b), np.float_power(a, b),
            np.ldexp(a, np.arange(a.shape[0]) - 3))


def log_sums(a, b):
    return np.logaddexp(a, b), np.logaddexp2(a, b)


def integer_ufuncs(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.bitwise_count(a), np.signbit(a), np.float_power(a, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_angles_steps_and_signs_bit_for_bit(dtype):
    a, b = FLOATS.astype(dtype), OTHER.astype(dtype)
    run(angles_and_steps, a, b)
    run(angles_and_steps, a[::-2], b[::2])                       # non-contiguous
    edges = [90.0, -180.0, np.finfo(dtype).max, -np.finfo(dtype).smallest_subnormal, 3.0]
    run(angles_and_steps, np.array(edges, dtype=dtype),
        np.array([1.0, 0.5, -np.inf, 0.0, np.nan], dtype=dtype))


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 4e-16), (np.float32, 4e-7)])
def test_logaddexp_within_an_ulp(dtype, rtol):
    grid = np.array([-np.inf, -800.0, -1.0, -0.0, 0.0, 1.5, 700.0, 800.0, np.inf, np.nan])
    a, b = (v.astype(dtype).ravel() for v in np.meshgrid(grid, grid))
    with np.errstate(all="ignore"):
        want = log_sums(a, b)
    got = njit(log_sums)(a, b)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=rtol)   # infinities and NaN must match exactly


@pytest.mark.skipif(not hasattr(np, "bitwise_count"), reason="np.bitwise_count is NumPy 2's")
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.int8])
def test_integer_ufuncs(dtype):
    a = np.array([0, 12, -18, 7, 100, -1, 1, 0], dtype=np.int64).astype(dtype)
    b = np.array([0, -18, 12, 0, 75, 5, -1, 9], dtype=np.int64).astype(dtype)
    run(integer_ufuncs, a, b)
    run(integer_ufuncs, a[::2], b[1::2])


def test_new_ufuncs_on_scalars_and_broadcast():
    def scalars(x, n):
        return (np.gcd(n, 12), np.lcm(n, 4), np.deg2rad(x), np.signbit(-0.0),
                np.heaviside(0.0, x), np.logaddexp(x, x), np.spacing(x))
    assert njit(scalars)(90.0, 18) == scalars(90.0, 18)
    column, row = np.arange(3.0).reshape(3, 1), np.array([[-1.0, 0.0, 2.0]])
    run(lambda a, b: (np.heaviside(a - 1, b), np.logaddexp2(a, b)), column, row)


def same_bits(got, want):
    """Equal values, dtypes and shapes, zeros of the same sign (NaN's sign is not compared)."""
    got, want = np.asarray(got), np.asarray(want)
    same_arrays(got, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got) | np.isnan(got),
                                      np.signbit(want) | np.isnan(want))


def run_bits(pyfunc, *args, transcendental=()):
    """Every output bit for bit but those at the positions `transcendental` (within an
    ulp)."""
    with np.errstate(all="ignore"):
        want = pyfunc(*args)
    got = jit(pyfunc)(*args)
    for k, (g, w) in enumerate(zip(got, want)):
        (within_an_ulp if k in transcendental else same_bits)(g, w)


def unary_new(a):
    return (np.deg2rad(a), np.rad2deg(a), np.spacing(a), np.signbit(a), np.exp2(a), np.cbrt(a),
            np.log2(a), np.fabs(a), np.isposinf(a), np.isneginf(a))


UNARY_MATH = (4, 5, 6)   # exp2 cbrt log2: the C library's in kiln


def binary_new(a, b):
    return (np.heaviside(a, b), np.nextafter(a, b), np.float_power(a, b), np.copysign(a, b),
            np.mod(a, b), np.divide(a, b), np.fmod(a, b))


BINARY_MATH = (2,)       # float_power


def two_outputs(a, b):
    return np.modf(a) + np.frexp(a) + np.divmod(a, b) + divmod(b, a)


KINDS = {np.float64: FLOATS, np.float32: FLOATS,
         np.int64: np.array([7, -7, 0, 3, -1, 2 ** 40, -(2 ** 62), 2 ** 63 - 1]),
         np.int32: np.array([7, -7, 0, 3, -1, 2 ** 30, -(2 ** 31), 2 ** 31 - 1]),
         np.bool_: np.array([True, False, True, True, False, False, True, False])}


def operands(dtype):
    a = KINDS[dtype].astype(dtype)
    return a, np.roll(a, 3)


@pytest.mark.parametrize("dtype", slow_except(list(KINDS), np.float32, np.int64, np.bool_),
                         ids=lambda d: d.__name__)
def test_new_unary_ufuncs_on_every_kind(dtype):
    # bool computes in float16 (NumPy's loops: in float32, rounded), ints in float64
    a, _ = operands(dtype)
    run_bits(unary_new, a, transcendental=UNARY_MATH)
    run_bits(unary_new, a[::-3], transcendental=UNARY_MATH)
    run_bits(unary_new, a[:0], transcendental=UNARY_MATH)
    run_bits(unary_new, a.reshape(2, 4).T, transcendental=UNARY_MATH)


KIND_PAIRS = [(first, second) for second in (np.float64, np.int32, np.bool_) for first in KINDS]


@pytest.mark.parametrize("first, second", slow_except(
    KIND_PAIRS, (np.float32, np.float64), (np.int64, np.bool_), (np.bool_, np.int32), rows=True),
    ids=lambda d: d.__name__)
def test_new_binary_ufuncs_and_two_outputs_on_mixed_kinds(first, second):
    a, b = operands(first)[0], operands(second)[1]
    run_bits(binary_new, a, b, transcendental=BINARY_MATH)
    run_bits(binary_new, a[::-2], b[1::2], transcendental=BINARY_MATH)
    # (n,1) against (1,m)
    run_bits(binary_new, a.reshape(-1, 1), b.reshape(1, -1), transcendental=BINARY_MATH)
    run_bits(two_outputs, a, b)
    run_bits(two_outputs, a[:, None][::2], b[None, ::-3])
    run_bits(two_outputs, a[:0], b[:0])


def with_python_scalars(a, x, n):
    return (np.heaviside(a, x), np.nextafter(a, x), np.float_power(a, n), np.ldexp(a, n),
            np.logaddexp(a, x), np.gcd(n, 12), np.lcm(n, -8), np.divmod(a, x), np.modf(x),
            np.frexp(x), np.divmod(n, 4), np.isposinf(x), np.spacing(x), np.deg2rad(n))


@pytest.mark.parametrize("x, n", [(2.5, 3), (-0.0, -18), (np.inf, 0), (-np.inf, 7),
                                  (np.nan, -1)])
def test_python_scalars_are_weak_and_scalar_calls_follow_numpy(x, n):
    for dtype in (np.float64, np.float32):
        run_bits(with_python_scalars, FLOATS.astype(dtype), x, n, transcendental=(2, 4))
    got = jit(with_python_scalars)(np.float32(1.5), x, n)
    with np.errstate(all="ignore"):
        want = with_python_scalars(np.float32(1.5), x, n)
    for g, w in zip(got, want):   # scalars come back as Python numbers: compare values
        np.testing.assert_array_equal(np.asarray(g, dtype=np.asarray(w).dtype), w)


def float16_unary(h):
    return (np.spacing(h), np.deg2rad(h), np.rad2deg(h), np.sqrt(h), np.exp(h), np.log1p(h),
            np.sin(h), np.arctan(h), np.cbrt(h), np.exp2(h), np.reciprocal(h), np.modf(h)[0],
            np.frexp(h)[0], np.frexp(h)[1], np.maximum(h, -h), np.minimum(-h, h))


def float16_binary(a, b):
    return (np.nextafter(a, b), np.logaddexp(a, b), np.logaddexp2(a, b), np.heaviside(a, b),
            np.arctan2(a, b), np.power(a, b), np.true_divide(a, b), np.remainder(a, b),
            np.ldexp(a, b.astype(np.int32) % 40 - 20), np.divmod(a, b)[0])


def test_float16_bit_for_bit_over_every_half():
    # NumPy's float16 loops compute in float32 and round once, but for nextafter and spacing
    # (its own float16 algorithms) and maximum/minimum (equal zeros give the first)
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    run_bits(float16_unary, every, transcendental=(4, 5, 6, 7, 8, 9))
    quiet = every[~np.isnan(every) | (every.view(np.uint16) & 0x200 != 0)]
    # (a signaling NaN is quieted on its way to float32, as by any float16 instruction)
    grid = np.concatenate([quiet[::331], np.array([0, -0.0, np.inf, -np.inf, 65504, -65504, 1,
                                                   2 ** -24, -2 ** -24], dtype=np.float16)])
    a, b = (v.ravel() for v in np.meshgrid(grid, grid))
    run_bits(float16_binary, a, b, transcendental=(1, 2, 4, 5))


def test_gcd_and_lcm_of_the_most_negative_integer():
    # NumPy takes Euclid's algorithm on unsigned magnitudes: |INT_MIN| is 2**63 there
    low = np.iinfo(np.int64).min
    a = np.array([low, low, 6, low, 0, -4, 2 ** 62, low, -1, 2 ** 63 - 1])
    b = np.array([0, 6, low, low, 0, -6, 3, -1, low, 2])
    run_bits(lambda a, b: (np.gcd(a, b), np.lcm(a, b)), a, b)
    small = np.arange(-128, 128).astype(np.int8)
    run_bits(lambda a, b: (np.gcd(a, b), np.lcm(a, b)), small, small[::-1])


def positive(a):
    return np.positive(a)


def gcd(a, b):
    return np.gcd(a, b)


def ldexp(a, b):
    return np.ldexp(a, b)


def modf(a):
    return np.modf(a)


def divmod_(a, b):
    return np.divmod(a, b)


@pytest.mark.parametrize("f, args", [(positive, (np.ones(2, bool),)),
                                     (modf, (np.ones(2, complex),)),
                                     (divmod_, (np.ones(2, complex), 1.0)),
                                     (gcd, (np.ones(2), np.ones(2, np.int32))),
                                     (ldexp, (np.ones(2), np.ones(2))),
                                     (ldexp, (np.ones(2), np.ones(2, np.uint64)))])
def test_loops_numpy_lacks_are_typing_errors(f, args):
    with pytest.raises(TypeError):
        f(*args)
    with pytest.raises(TypingError, match=f"no implementation of np.{f.__name__.strip('_')}"):
        njit(f)(*args)


def infinities(x):
    return np.isposinf(x), np.isneginf(x)


def test_isposinf_refuses_complex_as_numpy():
    with pytest.raises(TypeError, match="not supported for complex128 values because it "
                                        "would be ambiguous"):
        infinities(np.zeros(2, complex))
    with pytest.raises(TypingError, match="not supported for complex128 values because it "
                                          "would be ambiguous"):
        njit(infinities)(np.zeros(2, complex))


def fused_two_outputs(a):
    fraction, whole = np.modf(a * 2.5)
    return fraction + whole, np.frexp(-a)[1] * 2


def test_two_output_ufuncs_take_array_expressions():
    run_bits(fused_two_outputs, np.linspace(-3, 3, 13).reshape(13, 1)[::2])


def test_every_numpy_ufunc_but_the_listed_is_compiled():
    from kiln.library.ufuncs import UFUNCS
    ufuncs = {n: getattr(np, n) for n in dir(np) if isinstance(getattr(np, n), np.ufunc)}
    two = {"divmod", "frexp", "modf"}      # functions returning a tuple of both outputs
    missing = {n for n, u in ufuncs.items() if u not in UFUNCS and n not in two}
    assert missing <= {"isnat", "matmul", "vecdot", "matvec", "vecmat"}, missing

"""Float powers with small integral exponents (issue 33): `x ** 2` is `x * x` bit for bit,
`x ** 3` .. `x ** 8` the correctly rounded power, for scalars and arrays; what NumPy and
CPython give otherwise (C's pow) is kept. References are exact (fractions), and where kiln
differs from NumPy or CPython it must be because C's pow misrounded."""
import math
from fractions import Fraction

import numpy as np
import pytest

from helpers import chk, jit
from kiln import njit

INF, NAN = math.inf, math.nan
MAX = 1.7976931348623157e308


def correctly_rounded(x, n, dtype=np.float64):
    """x ** n rounded once to `dtype` (nearest, ties to even), from exact arithmetic."""
    info = np.finfo(dtype)
    if math.isnan(x):
        return NAN
    if math.isinf(x) or x == 0:
        return float(np.power(dtype(x), n))       # pow is exact on these
    q = Fraction(x) ** n
    sign = -1 if q < 0 else 1
    q = abs(q)
    mant = info.nmant + 1                          # 53 or 24 significant bits
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1                                     # now 2**e <= q < 2**(e+1)
    e = max(e, int(info.minexp))                   # subnormals share the lowest binade's grid
    scale = Fraction(2) ** (e - mant + 1)
    m = q / scale
    whole = m.numerator // m.denominator
    rest = m - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    value = whole * scale
    if value > Fraction(float(info.max)):
        return sign * INF
    return sign * float(value)


def within_subnormal_unit(got, want, dtype=np.float64):
    """A subnormal result may be one unit of the subnormal grid off (docs/performance.md,
    "Integer powers": the products' low part is rounded to that grid before the last rounding)."""
    info = np.finfo(dtype)
    return abs(want) <= float(info.smallest_normal) and \
        abs(got - want) <= float(info.smallest_subnormal) and got * want >= 0


def random_bases(n, seed=0):
    g = np.random.default_rng(seed)
    return np.concatenate([g.standard_normal(n) * 10, g.uniform(-2, 2, n),
                           np.exp(g.uniform(-700, 700, n)) * g.choice([-1, 1], n)])


EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, 1e-300, -1e-300, 5e-324, -5e-324, 2.2250738585072014e-308,
         1e100, -1e100, 1e154, 1.3407807929942596e154, 5.643803094122362e102, 2 ** 128.0, 1.5 ** 255,
         MAX, -MAX, INF, -INF, NAN, 1e-154, 2 ** -170.5, 2 ** -146.3, 2 ** -204.7, 2 ** -340.7,
         2 ** -357.2, 2 ** -134.0]


def power2(x): return x ** 2
def power3(x): return x ** 3
def power4(x): return x ** 4
def power5(x): return x ** 5
def power6(x): return x ** 6
def power7(x): return x ** 7
def power8(x): return x ** 8
def power3f(x): return x ** 3.0
def power_var(x, n): return x ** n


BY_N = {2: power2, 3: power3, 4: power4, 5: power5, 6: power6, 7: power7, 8: power8}


@pytest.mark.parametrize("n", sorted(BY_N))
def test_scalar_small_power_is_correctly_rounded(n):
    f = jit(BY_N[n])
    for x in EDGES + random_bases(300, seed=n).tolist():
        want = correctly_rounded(x, n)
        if math.isinf(want) and math.isfinite(x):
            with pytest.raises(OverflowError):   # as CPython's float ** does
                f(x)
            continue
        got = f(x)
        assert (math.isnan(want) and math.isnan(got)) or \
            (got == want and math.copysign(1, got) == math.copysign(1, want)) or \
            within_subnormal_unit(got, want), (x, n, got, want)
        assert jit(power_var)(x, n) == got or math.isnan(got)            # run-time exponent
        assert jit(power_var)(x, float(n)) == got or math.isnan(got)


def test_scalar_powers_near_overflow_in_both_float_types():
    # float32 ** float32 stays float32 (its own overflow threshold, 3.4e38); bases around
    # 2**127 (float64) and 2**15 (float32), whose 8th power is near the largest float
    bound64, bound32 = 2.0 ** 127, np.float32(2.0 ** 15)
    cases = [(x, np.float64) for x in (bound64, np.nextafter(bound64, 0), 1e38, 2.0 ** 128)]
    cases += [(np.float32(x), np.float32) for x in
              (bound32, np.nextafter(bound32, np.float32(0)), np.nextafter(bound32, np.float32(1e9)),
               6e4, 7e4, 2.0 ** 31, 1.8e38)]
    for x, dtype in cases + [(-x, dtype) for x, dtype in cases]:
        for n in range(3, 9):
            want = correctly_rounded(float(x), n, dtype)
            exponent = dtype(n)
            if math.isinf(want):
                with pytest.raises(OverflowError):
                    jit(power_var)(x, exponent)
            else:
                assert jit(power_var)(x, exponent) == want, (x, n)


def test_square_is_a_product_bit_for_bit():
    xs = random_bases(2000, seed=1)
    got = np.array([jit(power2)(x) for x in xs[np.abs(xs) < 1e150]])
    want = xs[np.abs(xs) < 1e150] ** 2
    assert np.array_equal(got, want)                 # NumPy's square is x * x
    assert all(jit(power3f)(x) == jit(power3)(x) for x in xs[:200])


def test_scalar_differs_from_cpython_only_where_pow_misrounds():
    f = jit(power3)
    misrounded = 0
    for x in random_bases(3000, seed=7).tolist():
        try:
            cpython = x ** 3
        except OverflowError:
            continue
        got = f(x)
        if got != cpython:
            assert got == correctly_rounded(x, 3), x
            assert abs(got - cpython) <= math.ulp(got)
            misrounded += 1
    assert misrounded < 30                           # about 0.07% of bases


def test_scalar_power_keeps_python_semantics():
    for base, exp in [(NAN, 2.0), (-NAN, 3.0), (NAN, 0.0), (INF, 3.0), (-INF, 3.0), (-INF, 2.0),
                      (0.0, 3.0), (-0.0, 3.0), (-0.0, 2.0), (2.0, 8.0), (1e300, 2.0), (1e200, 3.0),
                      (-1e200, 3.0), (-1e100, 4), (1.0000001, 8), (0.0, -1.0), (5e-324, -1.0),
                      (-2.5, -1.0), (3.0, -2), (2.0, 9), (2.0, 0.5), (2, 3), (-3, 3)]:
        chk(power_var, base, exp)
    assert math.copysign(1, jit(power_var)(-NAN, 3.0)) == -1    # the NaN base itself


def np_power(a, n): return a ** n
def np_power_fn(a, n): return np.power(a, n)
def np_cube(a): return a ** 3
def np_cube_in_expr(a, b): return a ** 3 + b ** 2 * 0.5
def np_inplace(a): a **= 4; return a


ARRAY_EXPONENTS = [0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -2, 0.5, 2.0, 3.0, 9, 1.5, -3]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_array_powers_match_numpy_or_are_exact(dtype):
    a = np.concatenate([random_bases(300), np.array(EDGES)]).astype(dtype)
    with np.errstate(all="ignore"):
        for n in ARRAY_EXPONENTS:
            for f in (np_power, np_power_fn):
                got, want = jit(f)(a, n), f(a, n)
                assert got.dtype == want.dtype
                differ = ~((got == want) | (np.isnan(got) & np.isnan(want)))
                if isinstance(n, int) and 3 <= n <= 8 or n == 3.0:
                    exact = np.array([correctly_rounded(float(x), int(n), dtype)
                                      for x in a[differ]], dtype=dtype)
                    ok = [g == e or within_subnormal_unit(float(g), float(e), dtype)
                          for g, e in zip(got[differ], exact)]
                    assert all(ok), (n, a[differ])
                    assert differ.mean() < 0.01, (n, differ.mean())
                else:
                    assert not differ.any(), (n, a[differ], got[differ], want[differ])
                zeros = want == 0
                assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


def test_array_power_layouts_and_expressions():
    g = np.random.default_rng(3)
    a = g.standard_normal((6, 8))
    b = g.standard_normal((6, 8))
    for x in [a, a[:, ::3], a.T, a[::2, 1:], np.empty(0), np.empty((0, 3)), np.array(1.5),
              np.array([NAN, -0.0, INF])]:
        got = jit(np_cube)(x)
        want = np.array([correctly_rounded(float(v), 3) for v in x.ravel()]).reshape(x.shape)
        assert got.shape == x.shape and np.array_equal(got, want, equal_nan=True)
    got = jit(np_cube_in_expr)(a, b)
    c3 = np.array([correctly_rounded(float(v), 3) for v in a.ravel()]).reshape(a.shape)
    assert np.array_equal(got, c3 + (b * b) * 0.5)
    x = a.copy()
    jit(np_inplace)(x)
    assert np.array_equal(x, np.array([correctly_rounded(float(v), 4) for v in a.ravel()])
                          .reshape(a.shape))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])   # unsigned: `&` of uint8 is typed float (not this file's)
def test_integer_array_powers_wrap_like_numpy(dtype):
    a = np.array([0, 1, -1, 2, 3, 7, 100, 127, -128, 12345, 2 ** 31 - 1], dtype=np.int64)
    a = a.astype(dtype)
    for n in [0, 1, 2, 3, 5, 8, 31, 64]:
        for f in (np_power, np_power_fn):
            got, want = jit(f)(a, n), f(a, n)
            assert got.dtype == want.dtype and np.array_equal(got, want), (dtype, n, got, want)
    if np.dtype(dtype).kind == "i":
        with pytest.raises(ValueError):
            np_power(a, -1)
        with pytest.raises(ValueError):
            jit(np_power)(a, -1)


def test_error_model_numpy_scalar_power():
    f = njit(error_model="numpy")(power_var)
    assert f(1e200, 2.0) == INF and f(1e200, 3) == INF
    assert f(0.0, -1.0) == INF
    for x in random_bases(100).tolist():
        if math.isfinite(x ** 0.5 if x > 0 else 1.0):
            assert f(x, 3) == correctly_rounded(x, 3)


def laplacian(u, dx):
    out = np.zeros_like(u)
    for i in range(1, u.shape[0] - 1):
        out[i] = (u[i - 1] + u[i + 1] - 2.0 * u[i]) / dx ** 2
    return out


def test_loop_invariant_power_in_a_loop():
    u = np.random.default_rng(4).standard_normal(100)
    for dx in [0.1, 3.0, 1e-100, 1e200]:
        try:
            want = laplacian(u, dx)
        except (OverflowError, ZeroDivisionError) as e:
            with pytest.raises(type(e)):
                jit(laplacian)(u, dx)
            continue
        np.testing.assert_array_equal(jit(laplacian)(u, dx), want)

"""NumPy scalar types as arguments and results. Results come back as Python int/float/complex/
bool (as in Numba), so values are compared, not NumPy types; float32 arithmetic must give
NumPy's float32 results."""
import itertools
import math

import numpy as np
import pytest

from helpers import jit
from operations import add, div, eq, floordiv, lt, mod, mul, neg, sub

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def identity(x): return x
def sqrt(x): return math.sqrt(x)
def as_float32(x): return np.float32(x)
def as_int8(x): return np.int8(x)


def _same_value(want, got):
    if isinstance(want, (np.floating, float)):
        return isinstance(got, float) and (got == float(want) or
                                           (math.isnan(got) and math.isnan(want)))
    if isinstance(want, (np.complexfloating, complex)):
        return isinstance(got, complex) and got == complex(want)
    if isinstance(want, (np.bool_, bool)):
        return isinstance(got, bool) and got == bool(want)
    return isinstance(got, int) and not isinstance(got, bool) and got == int(want)


@pytest.mark.parametrize("dtype", INTS + [np.float32, np.float64, np.complex64, np.complex128,
                                          np.bool_], ids=lambda d: d.__name__)
def test_identity_returns_python_scalar(dtype):
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    values = [info.min, info.max, 0, 1] if info else [0, 1, True]
    if dtype in (np.float32, np.float64):
        values += [-0.0, 1.5, np.inf, np.nan, np.finfo(dtype).max, np.finfo(dtype).tiny]
    if dtype in (np.complex64, np.complex128):
        values += [1.5 - 2j]
    for v in values:
        x = dtype(v)
        got = jit(identity)(x)
        assert _same_value(x, got), (dtype, v, got)
        if dtype in (np.float32, np.float64) and v == 0.0:
            assert math.copysign(1.0, got) == math.copysign(1.0, float(x))


@pytest.mark.parametrize("dtype", INTS, ids=lambda d: d.__name__)
def test_small_ints_widen_to_64_bits(dtype):
    # as in Numba: arithmetic on small ints happens in (u)int64, so int8(100) + int8(100) is 200
    info = np.iinfo(dtype)
    a, b = dtype(info.max), dtype(1 if info.max > 1 else 0)
    got = jit(add)(a, b)
    assert isinstance(got, int)
    if dtype in (np.int64, np.uint64):
        with np.errstate(over="ignore"):
            assert got == int(a + b)   # wraps at 64 bits like NumPy
    else:
        assert got == int(info.max) + int(b)
    got = jit(mul)(dtype(info.max), dtype(info.max))
    want = (int(info.max) ** 2) % 2 ** 64
    if dtype in (np.int8, np.int16, np.int32, np.int64):
        want = (want + 2 ** 63) % 2 ** 64 - 2 ** 63
    assert got == want


def test_mixed_signedness():
    # int64 with uint64 promotes to float64 in NumPy; Numba's integer typing keeps int64
    got = jit(add)(np.uint64(2 ** 64 - 1), np.int64(-1))
    assert isinstance(got, (int, float))
    assert jit(add)(np.uint8(200), np.int8(-100)) == 100
    assert jit(lt)(np.uint32(4000000000), np.int32(-1)) is False
    assert jit(eq)(np.uint64(2 ** 63), np.int64(-2 ** 63)) is False


def test_uint64_arithmetic_wraps():
    m = np.uint64(2 ** 64 - 1)
    assert jit(add)(m, np.uint64(1)) == 0
    assert jit(sub)(np.uint64(0), np.uint64(1)) == 2 ** 64 - 1
    assert jit(floordiv)(m, np.uint64(2)) == (2 ** 64 - 1) // 2
    assert jit(mod)(m, np.uint64(10)) == (2 ** 64 - 1) % 10
    assert jit(lt)(np.uint64(2 ** 63), np.uint64(1)) is False


F32 = [0.0, -0.0, 1.0, 0.1, -2.5, 3.4028235e38, 1e-45, 1 / 3, 16777217.0, np.inf, np.nan]


@pytest.mark.parametrize("op", [add, sub, mul, div], ids=lambda f: f.__name__)
def test_float32_arithmetic_matches_numpy(op):
    for a, b in itertools.product(F32, repeat=2):
        x, y = np.float32(a), np.float32(b)
        if op is div and y == 0:
            with pytest.raises(ZeroDivisionError):
                jit(op)(x, y)
            continue
        with np.errstate(all="ignore"):
            want = op(x, y)
        assert want.dtype == np.float32
        got = jit(op)(x, y)
        assert _same_value(want, got), (op.__name__, a, b, got, want)


@pytest.mark.parametrize("op", [floordiv, mod], ids=lambda f: f.__name__)
def test_float32_floor_ops(op):
    for a, b in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (0.1, 0.03), (-1e-30, 1.0)]:
        x, y = np.float32(a), np.float32(b)
        want = op(x, y)
        got = jit(op)(x, y)
        assert _same_value(want, got), (op.__name__, a, b, got, want)


def test_float32_with_python_float_promotes_to_float64():
    # Numba's typing: float32 with float64 is float64 (NumPy 2 scalars keep float32 for a
    # Python float operand; kiln types a Python float as float64)
    got = jit(add)(np.float32(0.1), 0.2)
    assert got == float(np.float32(0.1)) + 0.2


def test_float32_math_stays_float32():
    got = jit(sqrt)(np.float32(2.0))
    assert got == float(np.sqrt(np.float32(2.0)))


def test_float32_unary_and_comparisons():
    for a in F32:
        x = np.float32(a)
        assert _same_value(-x, jit(neg)(x))
        for b in F32:
            y = np.float32(b)
            assert jit(lt)(x, y) == bool(x < y)
            assert jit(eq)(x, y) == bool(x == y)


def test_complex64_arithmetic():
    for a, b in [(1.5 - 2j, 0.25 + 4j), (1e20 + 1e20j, 1e20 - 1j), (0.1 + 0.2j, 0.3 + 0.4j)]:
        x, y = np.complex64(a), np.complex64(b)
        for op in [add, sub, mul]:
            with np.errstate(all="ignore"):
                want = op(x, y)
            assert want.dtype == np.complex64
            assert _same_value(want, jit(op)(x, y)), (op.__name__, a, b)


def test_bool_scalars():
    for a, b in itertools.product([np.bool_(True), np.bool_(False)], repeat=2):
        assert jit(add)(a, b) == int(a) + int(b)
        assert jit(eq)(a, b) is (bool(a) == bool(b))
    assert jit(identity)(np.bool_(True)) is True


def test_mixed_numpy_and_python():
    assert jit(add)(np.int8(5), 3) == 8
    assert jit(mul)(np.int32(7), 1.5) == 10.5
    assert jit(add)(np.float32(1.5), 2) == 3.5
    assert jit(div)(np.int16(7), np.int16(2)) == 3.5
    assert jit(add)(np.complex64(1 + 1j), 1) == 2 + 1j


def test_numpy_constructors_in_compiled_code():
    # C casts, as NumPy's constructors: no range checks
    assert jit(as_float32)(0.1) == float(np.float32(0.1))
    assert jit(as_float32)(3) == 3.0
    assert jit(as_int8)(300) == np.int64(300).astype(np.int8)
    assert jit(as_int8)(-129) == 127


def as_float16(x): return np.float16(x)


def test_float64_to_float16_is_rounded_once():
    # LLVM lowers this conversion to a runtime helper (no CPU instruction converts float64
    # to float16); unbound, the call jumped to address 0. Rounding through float32 would
    # round twice: 1 + 2**-11 + 2**-40 must round up, 65519.99 down, 65520.0 to inf.
    rng = np.random.default_rng(0)
    values = rng.standard_normal(300) * np.exp2(rng.uniform(-30, 17, 300))
    values = list(values) + [1 + 2**-11 + 2**-40, 1 + 2**-11, 65519.99, 65520.0, 2**-25,
                             2**-25 + 2**-60, -0.0, np.inf, np.nan, 1e300]
    f = jit(as_float16)
    with np.errstate(over="ignore"):
        for x in values:
            assert _same_value(np.float16(x), f(x)), x


def sequence_as_arrays(seq, nested):
    return np.int8(seq), np.float32(seq), np.bool_(seq), np.complex64(nested), np.uint16(())


def test_a_scalar_type_of_a_sequence_is_an_array():
    # np.int8((1.0, 2.5)) is np.array(..., np.int8): floats truncated, NumPy's dtypes
    for seq, nested in [((1.0, 2.5), ((1, 2j), (3.5, 4))), ((-3, 0.5, 7), ((1.5,),))]:
        got = jit(sequence_as_arrays)(seq, nested)
        for want, have in zip(sequence_as_arrays(seq, nested), got):
            assert want.dtype == have.dtype and np.array_equal(want, have)

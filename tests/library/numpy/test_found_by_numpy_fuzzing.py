"""Wrong answers and failures of kiln's NumPy library found by the NumPy fuzzer
(tests/fuzz_numpy, issue 31), each checked against NumPy."""
import itertools
import math

import numpy as np
import pytest

from helpers import jit, slow_except
from kiln import njit
from tests.fuzz_numpy.compare import same


def _bit_exact(expected, got):
    assert same(expected, got) is None, (expected, got)


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex128", "bool"])
def test_fill_and_copy_of_a_0d_array(dtype):
    """a.fill(v) and np.array(a) of a 0-d array failed to compile (the row loop of the copy
    asked the 0-d array for shape[0])."""
    def fill(a):
        a.fill(1)
        return a

    def copied(a):
        return np.array(a)

    for f in (fill, copied):
        a, b = np.array(0, dtype=dtype), np.array(0, dtype=dtype)
        _bit_exact(f(a), jit(f)(b))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_sign_of_complex_arrays(dtype):
    """np.sign of complex arrays failed to compile; NumPy 2 gives z / |z|, with its own
    answers for NaN, infinite parts and zero."""
    values = [0.0, -0.0, 1.0, -2.5, 3e-40, 1e38, math.inf, -math.inf, math.nan, 0.3]
    z = np.array([complex(a, b) for a, b in itertools.product(values, values)], dtype=dtype)
    _bit_exact(np.sign(z), njit(lambda z: np.sign(z))(z))


def _complex_grid(dtype):
    values = [0.0, -0.0, 1.0, -2.0, math.nan, math.inf]
    return np.array([complex(a, b) for a, b in itertools.product(values, values)], dtype=dtype)


def max_of(z):
    return z.max()


def min_of(z):
    return np.min(z)


def argmax_of(z):
    return z.argmax()


def argmin_of(z):
    return np.argmin(z)


def max_along(z):
    return z.reshape(6, 6).max(axis=1)


def argmin_along(z):
    return np.argmin(z.reshape(6, 6), axis=0)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("f", [max_of, min_of, argmax_of, argmin_of, max_along, argmin_along])
def test_extremes_of_complex_arrays(f, dtype):
    """min, max, argmin and argmax of complex arrays failed to compile inside the library;
    NumPy orders complex numbers by real part, then imaginary part, and a NaN wins."""
    z = _complex_grid(dtype)
    compiled = jit(f)
    for start in range(0, 36, 5):    # NaN first, later, or not at all
        rolled = np.roll(z, start)
        expected, got = f(rolled), compiled(rolled)
        assert same(expected, got) is None, (rolled, expected, got)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_elementwise_extremes_of_complex_arrays(name):
    """np.maximum & co. of complex arrays failed to compile; NumPy's loops order complex
    numbers lexicographically, a NaN winning (maximum, minimum) or losing (fmax, fmin)."""
    ufunc = getattr(np, name)
    z = _complex_grid(np.complex128)
    x, y = np.repeat(z, len(z)), np.tile(z, len(z))
    _bit_exact(ufunc(x, y), njit(lambda x, y: ufunc(x, y))(x, y))


def test_clip_of_complex_arrays_is_refused_at_the_line():
    from kiln.errors import TypingError

    def clip(z):
        return np.clip(z, 0, 1)
    with pytest.raises(TypingError, match="np.clip"):
        jit(clip)(_complex_grid(np.complex128))


def shift_left_in_place(a, b):
    a <<= b


def shift_right_in_place(a, b):
    a >>= b


@pytest.mark.parametrize("f", [shift_left_in_place, shift_right_in_place])
@pytest.mark.parametrize("count", [np.int8(2), 2, np.array([2, 1, 0, 3, 1, 1, 63])])
def test_shifts_in_place_write_the_array(f, count):
    """`a <<= b` and `a >>= b` rebound the local to a new array instead of writing into
    `a`, so the caller's array (and every view of it) stayed as it was."""
    expected, got = np.array([7, -3, 2, 0, -8, 12, -1]), np.array([7, -3, 2, 0, -8, 12, -1])
    f(expected, count)
    jit(f)(got, count)
    _bit_exact(expected, got)


def diff_of(a):
    return np.diff(a)


@pytest.mark.parametrize("shape", [(6,), (2, 3), (0,)])
def test_diff_of_bools_is_where_they_differ(shape):
    """np.diff of a bool array failed to compile (bools have no subtraction); NumPy gives
    not_equal of the neighbours."""
    a = np.array([True, False, False, True, True, False][:int(np.prod(shape))]).reshape(shape)
    _bit_exact(diff_of(a), jit(diff_of)(a))


def multiply(a, b):
    return a * b


def multiply_in_place(a, b):
    a *= b
    return a


def square(a, b):
    return np.square(a)


def outer(a, b):
    return np.outer(a[:9], b[:9])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("f", [multiply, multiply_in_place, square, outer])
def test_complex_products_have_numpys_bits(f, dtype):
    """Complex array products differed from NumPy's in the last bits in about half the
    elements: NumPy's SIMD loop rounds once per part with fused multiply-adds on CPUs that
    have them; kiln rounded every product."""
    rng = np.random.default_rng(3)
    a, b = [(rng.standard_normal(300) + 1j * rng.standard_normal(300)).astype(dtype)
            for _ in range(2)]
    _bit_exact(f(a.copy(), b), jit(f)(a.copy(), b))


def test_hstack_of_0d_arrays_is_refused_at_the_line():
    """np.hstack of 0-d arrays failed inside the library ("zero-dimensional arrays cannot be
    concatenated"), where NumPy makes them 1-d first; kiln now says so at the call."""
    from kiln.errors import TypingError

    def joined(a, b):
        return np.hstack((a, b))
    with pytest.raises(TypingError, match="hstack of 0-d arrays") as caught:
        jit(joined)(np.array(1.0), np.array(2.0))
    assert "return np.hstack((a, b))" in str(caught.value)


def less(a, b):
    return a < b


def greater_equal_reversed(a, b):
    return b >= a


def equal(a, b):
    return np.equal(a, b)


def not_equal_fused(a, b):
    return np.where(a != b, a, 0)


@pytest.mark.parametrize("f", [less, greater_equal_reversed, equal, not_equal_fused])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "uint32", "int64", "uint64"])
def test_integer_arrays_compare_with_python_ints_by_value(f, dtype):
    """`uint8_array > -1` was all False and `int8_array < 300` wrong: kiln converted the
    Python int to the array's dtype, wrapping it; NumPy 2 compares by value."""
    info = np.iinfo(dtype)
    a = np.array([info.min, 0, 1, info.max], dtype=dtype)
    for b in [-1, 300, -129, 255, 256, 2 ** 63 - 1, -2 ** 63, 0, int(info.max)]:
        _bit_exact(f(a, b), jit(f)(a, b))


def take_rows(a, index):
    return a[index]


@pytest.mark.parametrize("shape", [(0, 1), (0, 3, 2), (2, 0), (3, 2)])
def test_fancy_index_of_arrays_with_no_rows(shape):
    """a[np.array([])] of an array with no rows raised ValueError (its rows were seen
    through reshape(0, -1), which NumPy refuses too); NumPy gives an empty array."""
    a = np.arange(int(np.prod(shape)), dtype=np.uint8).reshape(shape)
    index = np.array([], dtype=np.int64)
    _bit_exact(take_rows(a, index), jit(take_rows)(a, index))


def roll_of(a):
    return np.roll(a, 3)


def test_roll_of_a_0d_array():
    """np.roll of a 0-d array failed inside the library (reshape to ())."""
    a = np.array(2.5)
    _bit_exact(roll_of(a), jit(roll_of)(a))


def complex_power_of_itself(a):
    return a ** (-a)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_complex_power_that_overflows_is_inf():
    """(1e-42 - 7e5j) ** -(1e-42 - 7e5j) raised ZeroDivisionError (exp underflowed to 0
    and the division had Python's semantics); NumPy's answer is inf+infj (seed 2123)."""
    a = np.array([1e-42 + 4j, 2 + 0.001j, -1 + 1.5j, 1e-42 - 700000j])
    # (the finite powers may differ in the last bit: CPython's polar form, NumPy's cpow)
    np.testing.assert_allclose(jit(complex_power_of_itself)(a), complex_power_of_itself(a),
                               rtol=1e-13)


def array_power(a, b):
    return a ** b


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_array_power_is_numpys_bit_for_bit(dtype):
    """kiln raised arrays to complex powers with CPython's polar form, which differs from
    NumPy's loop (the C library's cpow, repeated squaring for integral exponents under 100)
    in the last bits of most results, and gave nan where NumPy's cpow underflows to 0
    (seeds 2295, 2376)."""
    rng = np.random.default_rng(5)
    a = (rng.normal(size=300) + 1j * rng.normal(size=300)).astype(dtype)
    b = (rng.normal(size=300) + 1j * rng.normal(size=300)).astype(dtype)
    _bit_exact(array_power(a, b), jit(array_power)(a, b))
    for n in [-101, -100, -99, -7, -3, -2, -1, 1, 2, 3, 4, 5, 17, 99, 100, 0.5]:
        e = np.full(300, n, dtype=dtype)
        _bit_exact(array_power(a, e), jit(array_power)(a, e))
    special = np.array([1e-42 + 1e30j, 1e30 + 0.5j, 65504 + 1e300j, 0j, -0j, 2,
                        complex(np.inf, 1), complex(np.nan, 0)]).astype(dtype)
    _bit_exact(array_power(special, special), jit(array_power)(special, special))


def absolutes(a):
    return np.abs(a), abs(a[::2]) * 1, np.abs(a[::-3])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_absolute_is_numpys_loop_not_hypot(dtype):
    """np.abs of complex arrays called the C library's hypot (Python's abs), which differs
    from NumPy's loop (larger * sqrt(r*r + 1)) in the last bit of about 1% of values
    (seed 2295)."""
    rng = np.random.default_rng(1)
    a = (rng.normal(size=2000) * 10.0 ** rng.integers(-300, 300, 2000) +
         1j * rng.normal(size=2000) * 10.0 ** rng.integers(-300, 300, 2000))
    a = np.concatenate([a, [1e300 - 3j, 0j, -0j, complex(np.inf, np.nan),
                            complex(np.nan, -np.inf), complex(np.nan, 1)]]).astype(dtype)
    expected, got = absolutes(a), jit(absolutes)(a)
    # (NumPy takes hypotf for complex64 with negative strides: differences-numpy.md)
    for e, g in zip(expected[:2] if dtype == np.complex64 else expected, got):
        _bit_exact(e, g)


def take_positions(a, i):
    return a[i], a.reshape(1, -1)[:, i]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8])
def test_an_unsigned_index_array_selects(dtype):
    """An unsigned index array (`a[v.astype(np.uint64)]`, seed 5015) failed to compile
    inside the library: `i + size` of a uint64 and an int64 promotes to float64. NumPy
    casts the index to intp: a uint64 above int64's range is a negative position."""
    a = np.arange(6.0) * 1.5
    wraps = [2 ** 64 - 1, 2 ** 64 - 6] if dtype == np.uint64 else []
    for i in (np.array([0, 5, 1, 1] + wraps, dtype), np.array([], dtype)):
        for e, g in zip(take_positions(a, i), jit(take_positions)(a, i)):
            _bit_exact(e, g)
    too_far = np.array([6], dtype) if dtype != np.uint64 else np.array([2 ** 64 - 7], dtype)
    with pytest.raises(IndexError):
        take_positions(a, too_far)
    with pytest.raises(IndexError):
        jit(take_positions)(a, too_far)



def astype_u8(a):
    return a.astype(np.uint64)


def array_f8(a):
    return np.array(a, dtype=np.float64)


def asarray_i1(a):
    return np.asarray(a, dtype=np.int8)


def fill_f4(v):
    out = np.zeros(2, np.float32)
    out.fill(v)
    return out


def test_complex_items_cast_to_a_real_dtype_are_refused_at_the_callers_line():
    """`np.array(complex_array, dtype=np.uint64)` (seed 6187) failed inside the library's
    copy loop; NumPy drops a complex array's imaginary parts with a ComplexWarning and
    refuses complex scalars and sequences. kiln refuses every form at compile time, naming
    the user's line."""
    from kiln.errors import TypingError
    array = np.array([1.5 + 2j, -3.0 - 1j], np.complex64)
    for f, value in [(astype_u8, array), (array_f8, array), (array_f8, [1j, 2.0 + 0j]),
                     (array_f8, (1j, 2)), (asarray_i1, 1j + 2), (asarray_i1, array),
                     (fill_f4, 1j + 2)]:
        with pytest.raises(TypingError) as caught:
            jit(f)(value)
        message = str(caught.value)
        assert "drops their imaginary parts" in message, message
        assert __file__ in message and "kiln/library" not in message, message


def complex_casts(a, v):
    out = np.zeros(2, np.complex64)
    out.fill(v)
    return a.astype(np.complex64), np.array(a, dtype=np.complex128), out


@pytest.mark.parametrize("a", [np.array([1.5 + 2j, -3.0]), np.array([1, -2], np.int16)])
def test_casts_into_complex_still_agree(a):
    for e, g in zip(complex_casts(a, 2.5 - 1j), jit(complex_casts)(a, 2.5 - 1j)):
        _bit_exact(e, g)


def where_of_scalars(c, x, y):
    return np.where(c, x, y)


def where_then_multiply(s, a):
    return np.where(255, 255, s) * a


@pytest.mark.parametrize("c, x, y", [(True, 255, 1j), (0, 2.5, np.float32(1.5)),
                                     (np.bool_(True), np.int8(3), np.uint64(7)),
                                     (2.5, True, np.complex64(1j))])
def test_where_of_scalars_is_a_0d_array(c, x, y):
    """np.where(255, 255, s3) * a, s3 a Python complex and `a` float32 (seed 6396): kiln
    gave the scalar where NumPy gives a 0-d complex128 array, which is not weak in NumPy 2's
    promotion: the product was complex64 instead of complex128."""
    _bit_exact(where_of_scalars(c, x, y), jit(where_of_scalars)(c, x, y))
    a = np.array([1.5, -2.0], np.float32)
    _bit_exact(where_then_multiply(y, a), jit(where_then_multiply)(y, a))


def _layouts():
    """Fresh arrays of every layout (a new base each call: the functions below write)."""
    b = np.arange(40.0).reshape(4, 10)
    cube = np.arange(24.0).reshape(2, 3, 4)
    return {"strided columns": b[:, ::2], "F": np.asfortranarray(b), "T": b.T,
            "every other row": b[::2], "one row": b[1:2], "3-d slice": cube[:, :, 1:3],
            "reversed": np.arange(10.0)[::-1], "one column": b[:, 3:4], "empty": b[:, 5:5],
            "3-d transposed": cube.transpose(1, 0, 2), "C": b.copy()}


def write_through_reshape(a, shape):
    v = a.reshape(shape)
    v[...] = 7
    return v


def write_through_ravel(a):
    v = a.ravel()
    v[...] = 5
    return v


def write_through_contiguous(a):
    v = np.ascontiguousarray(a)
    v[...] = 3
    w = np.asfortranarray(a[..., :1])
    w[...] = 4
    return v, w


@pytest.mark.parametrize("name", slow_except(   # a few layouts by default, all in the long run
    list(_layouts()), "strided columns", "F", "reversed", "empty", "C"))
def test_reshape_ravel_and_ascontiguousarray_are_views_exactly_when_numpy_s_are(name):
    """`a2.reshape(-1)` of a2 = b[:, ::2] (seed 6610) is a view in NumPy (the strides
    allow one), so `v.fill(1)` writes into a2; kiln copied every array not typed
    C-contiguous, and the write was lost. Now reshape follows NumPy's no-copy rule at run
    time, and ravel/ascontiguousarray/asfortranarray give a view of an array whose items
    are contiguous at run time (a copy otherwise, as NumPy)."""
    n = _layouts()[name].shape[0]
    for f, args in [(write_through_reshape, (-1,)), (write_through_reshape, ((n, -1),)),
                    (write_through_reshape, ((-1, 1),)), (write_through_ravel, ()),
                    (write_through_contiguous, ())]:
        expected_arg, got_arg = _layouts()[name], _layouts()[name]
        expected = f(expected_arg, *args)
        got = jit(f)(got_arg, *args)
        _bit_exact(expected, got)
        _bit_exact(expected_arg, got_arg)   # the writes reached the argument, or did not


def counts(x, n):
    return np.bincount(x), np.bincount(x, minlength=n)


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.int8, np.bool_])
def test_bincount_of_every_integer_dtype(dtype):
    """np.bincount of a uint64 array (seed 6672) failed inside the library: `top + 1` of a
    uint64 and an int64 promotes to float64. NumPy casts the values to intp (a uint64
    above int64's range is negative: ValueError)."""
    for x in (np.array([1, 0, 5, 1], dtype), np.array([], dtype)):
        for e, g in zip(counts(x, 7), jit(counts)(x, 7)):
            _bit_exact(e, g)
    if dtype == np.uint64:
        with pytest.raises(ValueError):
            counts(np.array([2 ** 63], dtype), 0)
        with pytest.raises(ValueError):
            jit(counts)(np.array([2 ** 63], dtype), 0)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_bincount_of_the_largest_int64_raises(dtype):
    """np.bincount of an array holding 2**63 - 1 (seed 8720): `top + 1` counts wrapped to a
    negative length, an empty array was made and the counts were written past it, a heap
    corruption. NumPy 2.4 has the same bug (it returns an empty array and corrupts its heap:
    the fuzzer's generator leaves such arrays out); kiln says the array is too big, as NumPy
    does for 2**62."""
    for top in (2 ** 63 - 1, 2 ** 62):
        with pytest.raises(ValueError, match="array is too big"):
            jit(counts)(np.array([0, 7, top], dtype), 0)
    with pytest.raises(ValueError, match="array is too big"):
        np.bincount(np.array([0, 7, 2 ** 62], dtype))   # NumPy's answer below the edge


def sort_of(a):
    return np.sort(a)


def sort_in_place(a):
    a.sort()


def argsorts(a):
    return np.argsort(a), a.argsort()


def test_sorting_a_0d_array():
    """np.sort of a 0-d array (seed 7118) raised IndexError from inside kiln's typing (NumPy:
    AxisError); now a compile-time error saying so, and argsort gives NumPy's [0]."""
    from kiln.errors import TypingError
    a = np.array(5, np.uint16)
    for f in (sort_of, sort_in_place):
        with pytest.raises(np.exceptions.AxisError):
            f(a.copy())
        with pytest.raises(TypingError, match="out of bounds for array of dimension 0"):
            jit(f)(a.copy())
    for e, g in zip(argsorts(a), jit(argsorts)(a)):
        _bit_exact(e, g)


def clip_by_0d(a, low, high):
    return np.clip(a, low, high), a.clip(low, 3)


def test_clip_by_0d_bounds_keeps_the_element_equal_to_a_bound():
    """a.clip(lo, 3) with 0-d array bounds (seed 7408): NumPy's loop for bounds of stride 0
    keeps -0.0 against a bound of 0.0 (array bounds give the bound); kiln took the array
    bounds' rule for 0-d arrays."""
    for a in (np.array(-0.0), np.array([-0.0, 0.0, 5.0, np.nan])):
        for low in (np.array(False), np.array(0.0), np.array(-0.0)):
            high = np.array(4.0)
            for e, g in zip(clip_by_0d(a, low, high), jit(clip_by_0d)(a, low, high)):
                _bit_exact(e, g)


def half_statistics(a, b):
    return (a.sum(), np.sum(b, axis=0), b.sum(axis=-1), a.mean(), np.mean(b, axis=1),
            a.var(), np.std(b, axis=0), np.sum(a * 2), (b + 1).sum(axis=1), np.mean(a - 1))


@pytest.mark.parametrize("views", slow_except([False, True], False))   # views: long run
def test_float16_sums_are_taken_in_float32(views):
    """A float16 sum was added up in float16, each partial sum rounded to half (seed 8545:
    11008 for NumPy's 11016): NumPy sums float16 items pairwise in float32 and rounds once,
    its mean sums and divides in float32 (converting 8192 items at a time), and its var
    takes the mean in float16. Whole arrays, along an axis, fused expressions."""
    rng = np.random.default_rng(8545)
    for n in (5, 100, 9000):
        a = (rng.standard_normal(n) * 10).astype(np.float16)
        b = (rng.standard_normal((4, n)) * 10).astype(np.float16)
        pairs = ((a[::-1], b[:, ::-1]), (a[::3], b[::2, ::3])) if views else ((a, b),)
        for x, y in pairs:
            with np.errstate(all="ignore"):
                expected = half_statistics(x, y)
            for e, g in zip(expected, jit(half_statistics)(x, y)):
                _bit_exact(e, g)


def sums_along(a, k):
    return np.sum(a, axis=k), a.sum(k), np.sum(a * 2 + 1, axis=k)


def statistics_along(a, k):
    return np.mean(a, axis=k), np.var(a, axis=k), np.nansum(a, axis=k), np.nanvar(a, axis=k)


def _laid_out(rng, dtype):
    """One array's values in the layouts whose lanes NumPy sums differently: C, Fortran,
    transposed, reversed, strided, broadcast, and with axes of length 1."""
    a = rng.standard_normal((10, 90)) * 10.0 ** rng.uniform(-3, 3, (10, 90))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((10, 90))
    a = a.astype(dtype)
    f = np.asfortranarray(a)
    cube = np.ascontiguousarray(a.reshape(5, 2, 90).transpose(2, 0, 1)).transpose(1, 2, 0)
    return (a, f, a.T, f.T, f[::-1], a[:, ::-2], f[::2, ::-1], np.repeat(f, 2, 1)[:, ::2],
            a[:1], f[:, :1], a.reshape(10, 90, 1), cube, cube[::-1, :, ::3],
            np.broadcast_to(a[:, :1], (10, 30)), np.broadcast_to(a[0], (12, 90)))


@pytest.mark.parametrize("dtype, part", slow_except(
    [(d, p) for d in ("float64", "complex64", "float32", "float16") for p in (0, 1)],
    ("float64", 0), rows=True))   # the others: the long run
def test_float_sums_along_an_axis_in_numpys_order_for_every_layout(dtype, part):
    """Along an axis NumPy sums each lane pairwise when its loop runs innermost along it
    (the axis of least |stride| longer than 1), else it adds the lanes in order; kiln went
    by the axis index (pairwise along the last), so a Fortran array's sums differed in the
    last bits from lanes of 9 items (issue 31), and complex lanes were paired as floats are
    (NumPy pairs their interleaved parts: four complex accumulators)."""
    rng = np.random.default_rng(31)
    layouts = _laid_out(rng, dtype)
    for x in layouts[:4] if part == 0 else layouts[4:]:   # two-dimensional C and F; the rest
        for k in range(-x.ndim, x.ndim):
            with np.errstate(all="ignore"):
                expected = sums_along(x, k)
                got = jit(sums_along)(x, k)
            for e, g in zip(expected, got):
                _bit_exact(e, g)
            if dtype in ("float32", "float64") and x.ndim == 2:
                with np.errstate(all="ignore"):
                    expected = statistics_along(x, k)
                for e, g in zip(expected, jit(statistics_along)(x, k)):
                    _bit_exact(e, g)


def to_0d(a, v, sorted_):
    return a.reshape(()), np.reshape(a[::-1], ()), np.searchsorted(sorted_, v)


def test_reshape_to_the_empty_shape():
    """`a.reshape(())` of a one-item array (and np.searchsorted of a 0-d array, which
    reshapes its answer so) failed to compile: the empty tuple was not taken as a shape
    (seeds 8955, 8972, 8999). NumPy's ValueError for more items."""
    sorted_ = np.array([-1.5, 0.0, 2.0, 7.0])
    for a, v in ((np.array([4], np.int16), np.array(0.5)), (np.arange(3.0)[1:2], np.array(9))):
        for e, g in zip(to_0d(a, v, sorted_), jit(to_0d)(a, v, sorted_)):
            _bit_exact(e, g)
    with pytest.raises(ValueError):
        jit(to_0d)(np.arange(2, dtype=np.int16), np.array(0.5), sorted_)


def arange_like(start, stop, step, like):
    return np.arange(start, stop, step, dtype=like.dtype)


@pytest.mark.parametrize("start, stop, step, dtype", [
    (-3.5, 5.0, 1.0, np.int64), (-100, 300, 150, np.int8), (0.0, 1e20, 1e19, np.uint64),
    (0.1, 2.0, 0.3, np.float16), (0.3, 0.1 + 2 ** 24, 7.3, np.float32),
    (1e16, 1e16 + 30, 3.0, np.float64), (-1.5, 3.0, 0.5, np.complex64)])
def test_arange_fills_as_numpy(start, stop, step, dtype):
    """np.arange(-3.5, 5, dtype=np.int64) counted -3, -2, -1, 0, 0, 1, ... (seed 20253):
    kiln cast start + i * step item by item, NumPy casts start and start + step and fills
    the rest with their difference, in the dtype's own arithmetic (wrapping int8, uint64
    modulo 2**64, float32 rounding)."""
    like = np.zeros(1, dtype)
    _bit_exact(arange_like(start, stop, step, like), jit(arange_like)(start, stop, step, like))


def test_arange_of_booleans_longer_than_two_is_numpys_type_error():
    like = np.zeros(1, np.bool_)
    _bit_exact(arange_like(0, 2, 1, like), jit(arange_like)(0, 2, 1, like))
    with pytest.raises(TypeError, match="at most length 2"):
        arange_like(0, 3, 1, like)
    with pytest.raises(TypeError, match="at most length 2"):
        jit(arange_like)(0, 3, 1, like)


def ptp_of(a):
    return np.ptp(a)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8])
def test_ptp_wraps_in_the_dtype(dtype):
    """np.ptp of an int32 array spanning more than int32's range gave 2147483660 (seed
    9808): kiln subtracted the extremes in int64; NumPy subtracts in the dtype and wraps."""
    info = np.iinfo(dtype)
    a = np.array([info.min, 12, info.max - 3], dtype)
    with np.errstate(over="ignore"):
        _bit_exact(ptp_of(a), jit(ptp_of)(a))



def whole_statistics(x, y):
    return (np.sum(x), np.mean(x), np.var(x), np.nansum(x), np.nanvar(x), np.sum(x * y),
            (x - 2 * y).mean())


def product(x):
    return np.prod(x)


def _whole_layouts(a):
    """Views of `a` (2-d) whose items NumPy's reduction iterator passes to its loop in
    other calls than one pairwise sum in C order: rows or columns summed one by one,
    blocks of rows buffered 8192 items at a time, broadcast axes."""
    f = np.asfortranarray(a)
    cube = a.reshape(a.shape[0], -1, 2)
    return (a[::-1], a[:, ::-1], a[::2], f[::-1], f[:, ::2], a.T[::-1], f.T[:, ::-1],
            np.broadcast_to(a[:, :1], a.shape), np.broadcast_to(a[:1], a.shape),
            cube.transpose(2, 0, 1)[:, ::-1], cube.transpose(1, 0, 2)[::-1])


@pytest.mark.parametrize("part", slow_except([0, 1], 0))   # broadcast and 3-d: long run
def test_whole_array_sums_of_views_in_numpys_calls(part):
    """np.sum(a) of a view (issue 31): NumPy's iterator orders the axes by |stride|, merges
    contiguous ones, and passes a short innermost run to its pairwise loop through a buffer
    of 8192 items (whole runs), a long one run by run, adding each call to the total; kiln
    summed a C-ordered copy in one pairwise sum, so reversed, strided, transposed and
    broadcast views of a few thousand items differed in the last bits, and so did mean and
    var, the nan-functions (NumPy's copy of the array: a broadcast axis innermost), sums of
    expressions of such views (NumPy's temporary is laid out as its operands are) and the
    product (multiplied in iteration order)."""
    rng = np.random.default_rng(31)
    a = (rng.standard_normal((300, 300)) * 10.0 ** rng.uniform(-3, 3, (300, 300))).astype(
        np.float32)
    b = (rng.standard_normal((300, 300)) * 10).astype(np.float32)
    pick = slice(0, 7) if part == 0 else slice(7, None)   # writable 2-d views; the rest
    for x, y in zip(_whole_layouts(a)[pick], _whole_layouts(b)[pick]):
        for e, g in zip(whole_statistics(x, y), jit(whole_statistics)(x, y)):
            _bit_exact(e, g)
    for x in _whole_layouts(a[:8, :10] * 3)[pick]:
        _bit_exact(product(x), jit(product)(x))


def sum_and_mean(x):
    return np.sum(x), np.mean(x)


def half_spread(x):
    return np.var(x), np.sum(x * x)


@pytest.mark.parametrize("dtype", slow_except([np.complex64, np.float16, np.int64],
                                              np.float16))   # the others: the long run
def test_whole_array_sums_of_views_in_numpys_calls_of_other_dtypes(dtype):
    """As above for complex sums (paired as NumPy pairs them), float16 sums (each call summed
    in float32 and the total rounded to float16 between calls; the float16 mean converts
    into the buffer: 8192 float32 items a call, in whole runs) and the float64 mean of
    integers (converted through the buffer too). NumPy divides a complex64 mean in complex128
    (1 / count times the sum) and float16 sums by their count in float64, where kiln divided
    by a float16 count (inf beyond 65504 items: a NaN variance)."""
    rng = np.random.default_rng(32)
    a = rng.standard_normal((300, 300)) * 3
    if dtype == np.complex64:
        a = a + 1j * rng.standard_normal((300, 300))
    a = a.astype(dtype) if dtype != np.int64 else rng.integers(-10 ** 15, 10 ** 15, (300, 300))
    for x in _whole_layouts(a)[:9]:   # the 2-d views
        for e, g in zip(sum_and_mean(x), jit(sum_and_mean)(x)):
            _bit_exact(e, g)
        if dtype == np.float16:
            with np.errstate(all="ignore"):
                expected = half_spread(x)
            for e, g in zip(expected, jit(half_spread)(x)):
                _bit_exact(e, g)


def complex_order(a, b, s):
    return (a < b, a <= b, a > b, a >= b, a > s, s >= a, np.less(a, b[::-1]),
            np.greater_equal(a, 1.0))


def test_complex_arrays_compare_in_numpys_order():
    """`a > 0.5` of a complex array was refused (seeds 11200-11799's one unsupported
    program): NumPy orders complex numbers by real part, then imaginary part, and a NaN
    imaginary part makes unequal real parts unordered (its CLT/CGE macros)."""
    nan = np.nan
    a = np.array([1 + 2j, complex(nan, 1), complex(1, nan), 2 + 0j, 1 + 3j, -1j, 0.5 + 0j,
                  complex(3, nan)], np.complex64)
    b = np.array([1 + 3j, 1 + 1j, 1 + 1j, 2 + 0j, 0j, complex(nan, 0), 0.5 - 1j, 2 + 0j])
    with np.errstate(invalid="ignore"):
        for x, y in ((a, b), (a.astype(np.complex128), b.astype(np.complex64))):
            expected = complex_order(x, y, 0.5)
            for e, g in zip(expected, jit(complex_order)(x, y, 0.5)):
                _bit_exact(e, g)


def unsigned_quotients(a, b):
    return a // b, a % b, np.floor_divide(a, b[::-1]), np.divmod(a, np.uint64(3)), a // True


def test_uint64_quotients_and_remainders_past_2_to_the_53():
    """`np.asarray(a, dtype=np.uint64) // True` gave 2**63 for 2**64 - 3 (seed 12014): the
    element's `0 if b == 0 else a // b` typed as float64, the common type of the literal's
    int64 and uint64, so every quotient and remainder was rounded through a double."""
    a = np.array([2 ** 64 - 3, 2 ** 63, 2 ** 63 + 5, 7, 2 ** 64 - 1, 0, 2 ** 53 + 1], np.uint64)
    b = np.array([1, 3, 2 ** 63, 0, 2 ** 64 - 2, 5, 3], np.uint64)
    with np.errstate(divide="ignore"):
        expected = unsigned_quotients(a, b)
    for e, g in zip(expected, jit(unsigned_quotients)(a, b)):
        _bit_exact(e, g)


def complex_products_so_far(a):
    return np.cumprod(a, axis=0), np.cumprod(a[:, :2], axis=1), np.cumprod(a[0]), \
        np.cumprod(a[0, :2]), np.cumprod(a[:3], axis=0)


def test_complex_cumprod_of_two_items_multiplies_as_numpys_simd_loop():
    """`(1 / a).cumprod(axis=0)` of a complex array with 2 rows differed in the last bits
    (seed 12779): NumPy's accumulate calls its loop once per lane, and for a lane of two
    items (one step: no overlap) that is the SIMD loop, whose complex products use fused
    multiply-adds on CPUs with FMA; longer lanes take the plain loop."""
    rng = np.random.default_rng(12779)
    a = 1 / (rng.standard_normal((2, 70, 6)) + 1j * rng.standard_normal((2, 70, 6)))
    for e, g in zip(complex_products_so_far(a), jit(complex_products_so_far)(a)):
        _bit_exact(e, g)

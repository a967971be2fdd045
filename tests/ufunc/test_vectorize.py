"""@vectorize: real NumPy ufuncs from compiled scalar kernels, checked against NumPy and
against the kernel run by CPython element by element."""
import math
import warnings

import numpy as np
import pytest

from helpers import within_an_ulp
from kiln import vectorize
from kiln.ufunc import DUFunc


def hypot_kernel(a, b):
    return math.sqrt(a * a + b * b)


def python_reference(kernel, *arrays, dtype):
    """The kernel applied by CPython to each broadcast element."""
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in arrays])
    out = np.empty(arrays[0].shape, dtype=dtype)
    for index in np.ndindex(out.shape):
        out[index] = kernel(*[a[index].item() for a in arrays])
    return out


@pytest.fixture(params=["cpu", "parallel"])
def hyp(request):
    return vectorize(["float32(float32, float32)", "float64(float64, float64)"],
                     target=request.param)(hypot_kernel)


def test_eager_is_a_real_ufunc(hyp):
    assert isinstance(hyp, np.ufunc)
    assert (hyp.nin, hyp.nout, hyp.ntypes, hyp.types) == (2, 1, 2, ["ff->f", "dd->d"])
    assert hyp.__name__ == "hypot_kernel"


@pytest.mark.parametrize("n", [0, 1, 17, 100_003])
def test_against_numpy_and_python(hyp, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n) * 1e3, rng.standard_normal(n)
    got = hyp(x, y)
    assert got.dtype == np.float64 and np.allclose(got, np.hypot(x, y), rtol=1e-15)
    small = slice(0, 50)
    assert np.array_equal(got[small], python_reference(hypot_kernel, x[small], y[small],
                                                       dtype=np.float64))
    got32 = hyp(x.astype(np.float32), y.astype(np.float32))
    assert got32.dtype == np.float32
    assert np.allclose(got32, np.hypot(x, y).astype(np.float32), rtol=1e-6)


def test_broadcasting_non_contiguous_scalars_and_special_values(hyp):
    a = np.arange(24.0).reshape(4, 6)
    column = np.array([[np.nan], [np.inf], [-0.0], [-3.0]])
    assert np.array_equal(hyp(a[:, ::2], column), python_reference(
        hypot_kernel, a[:, ::2], column, dtype=np.float64), equal_nan=True)
    assert np.array_equal(hyp(a.T, 2.0), np.sqrt(a.T ** 2 + 4.0))
    assert hyp(3.0, 4.0) == 5.0 and isinstance(hyp(3.0, 4.0), np.float64)


def test_ufunc_machinery_out_where_reduce_accumulate_outer_at(hyp):
    x = np.array([3.0, 4.0, 12.0, 84.0])
    out = np.full(4, -1.0)
    assert hyp(x, x, out=out) is out and np.allclose(out, np.sqrt(2) * x)
    masked = np.full(4, -1.0)
    hyp(x, x, out=masked, where=x > 5)
    assert masked.tolist()[:2] == [-1.0, -1.0] and masked[2] == hyp(12.0, 12.0)
    assert hyp.reduce(x) == 85.0
    assert np.allclose(hyp.accumulate(x), [3.0, 5.0, 13.0, 85.0])
    assert np.allclose(hyp.outer(x[:2], x[:3]), np.hypot.outer(x[:2], x[:3]))
    y = x.copy()
    hyp.at(y, [0, 0], 4.0)
    assert np.isclose(y[0], math.sqrt(3.0 ** 2 + 4.0 ** 2 + 4.0 ** 2))
    assert hyp(x, x, dtype=np.float32).dtype == np.float32


def test_identity_makes_reduce_of_empty_work():
    add = vectorize(["int64(int64, int64)"], identity=0)(lambda a, b: a + b)
    assert add.reduce(np.array([], dtype=np.int64)) == 0
    assert add.reduce(np.arange(10)) == 45


def test_lazy_compiles_a_loop_per_new_dtype():
    @vectorize
    def scaled(a, b):
        return a * 2 + b

    assert isinstance(scaled, DUFunc) and scaled.ntypes == 0
    ints = scaled(np.arange(5), np.arange(5))
    assert ints.dtype == np.int64 and ints.tolist() == [0, 3, 6, 9, 12]
    floats = scaled(np.linspace(0, 1, 3), 0.5)
    assert floats.dtype == np.float64 and np.allclose(floats, [0.5, 1.5, 2.5])
    assert scaled.ntypes == 2 and scaled.types == ["ll->l", "dd->d"]
    scaled(np.arange(3), np.arange(3))
    assert scaled.ntypes == 2
    assert scaled.reduce(np.arange(4.0)) == ((0 * 2 + 1) * 2 + 2) * 2 + 3
    assert np.array_equal(scaled.outer(np.arange(2), np.arange(3)),
                          np.arange(2)[:, None] * 2 + np.arange(3))


def test_integer_division_by_zero_follows_numpy():
    floor = vectorize(["int64(int64, int64)"])(lambda a, b: a // b)
    with np.errstate(all="ignore"):
        expected = np.floor_divide(np.array([7, -7, 5]), np.array([2, 0, 0]))
    assert floor(np.array([7, -7, 5]), np.array([2, 0, 0])).tolist() == expected.tolist()


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_exception_raised_by_the_kernel_reaches_the_caller(target):
    @vectorize(["float64(float64)"], target=target)
    def checked(v):
        if v < 0:
            raise ValueError("negative input")
        return math.sqrt(v)

    x = np.linspace(0, 1, 50_000)
    assert np.allclose(checked(x), np.sqrt(x))
    x[31_000] = -1.0
    with pytest.raises(ValueError, match="negative input"):
        checked(x)
    # as Numba's loops: the other elements are computed, the raising one's output is kept
    out = np.full_like(x, 7.0)
    with pytest.raises(ValueError, match="negative input"):
        checked(x, out)
    expected = np.sqrt(np.abs(x))
    expected[31_000] = 7.0
    assert np.allclose(out, expected)


@pytest.mark.parametrize("forceobj", [False, True])
def test_the_first_exception_of_a_loop_is_the_one_raised(forceobj):
    def checked(v):
        if v == -1:
            raise KeyError("minus one")
        if v < 0:
            raise ValueError("negative")
        return v
    checked = vectorize(["float64(float64)"], forceobj=forceobj)(checked)
    out = np.zeros(5)
    with pytest.raises(ValueError):
        checked(np.array([1.0, -3.0, 2.0, -1.0, 4.0]), out)
    assert out.tolist() == [1.0, 0.0, 2.0, 0.0, 4.0]


def test_bad_input_gives_clear_errors():
    with pytest.raises(TypeError, match="no return type"):
        vectorize([("float64", "float64")])(hypot_kernel)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        vectorize(["float64(float64)"])(hypot_kernel)
    with pytest.raises(ValueError, match="unknown vectorize target"):
        vectorize(["float64(float64, float64)"], target="gpu")(hypot_kernel)
    with pytest.raises(TypeError, match="unknown option"):
        vectorize(["float64(float64, float64)"], flavour=1)(hypot_kernel)
    hyp = vectorize(["float64(float64, float64)"])(hypot_kernel)
    with pytest.raises(TypeError):      # NumPy's: no loop for complex input
        hyp(np.ones(2, dtype=complex), np.ones(2))


def test_called_from_compiled_code_fused_on_arrays_and_on_scalars():
    from kiln import njit
    hyp = vectorize(["float32(float32, float32)", "float64(float64, float64)"])(hypot_kernel)

    @vectorize
    def twice(a):
        return a * 2

    def use(x, y):
        return hyp(x, y) + 1.0, hyp(3.0, 4.0), twice(x), twice(3), np.sum(hyp(x, y) * 2)

    compiled = njit(use)
    x, y = np.linspace(-2, 2, 9), np.arange(9.0)[::-1]
    expected, got = use(x, y), compiled(x, y)
    for e, g in zip(expected, got):
        assert np.allclose(e, g, rtol=1e-15) and np.asarray(e).dtype == np.asarray(g).dtype
    (fused,) = compiled.inspect_fusion().values()
    assert any("np.sum(hyp(x, y) * 2): 2 elementwise" in line for line in fused)
    f32 = njit(lambda a, b: hyp(a, b))(x.astype(np.float32), y.astype(np.float32))
    assert f32.dtype == np.float32
    assert njit(lambda a: twice(a))(np.arange(3, dtype=np.int32)).tolist() == [0, 2, 4]


@vectorize(["float64(float64, float64)"])
def module_hypot(a, b):
    return math.sqrt(a * a + b * b)


@vectorize
def module_lazy(a, b):
    return a - b


def numpy_reference(ufunc, *arrays):
    """What NumPy's own loops give on the same operands."""
    with np.errstate(all="ignore"):
        return ufunc(*arrays)


def floordiv(a, b):
    return a // b


def mod(a, b):
    return a % b


def truediv(a, b):
    return a / b


def power(a, b):
    return a ** b


def times_plus_one(a, b):
    return a * b + 1


def three_a_minus_b(a, b):
    return a * 3 - b


SPECIAL = np.array([7.0, -7.0, 0.0, -0.0, 2.5, np.inf, -np.inf, np.nan, 1e300, -3.0])


@pytest.mark.parametrize("op, reference", [
    (floordiv, np.floor_divide), (mod, np.remainder), (truediv, np.true_divide),
    (power, np.power)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_arithmetic_follows_numpy_at_zero_inf_and_nan(op, reference, dtype):
    """Kernels use NumPy's error model: x // 0.0, x % 0.0, 0.0 ** -1 and overflowing powers
    give NumPy's inf/nan, never ZeroDivisionError or OverflowError."""
    ufunc = vectorize(["float32(float32, float32)", "float64(float64, float64)"])(op)
    with np.errstate(all="ignore"):
        a, b = np.meshgrid(SPECIAL.astype(dtype), SPECIAL.astype(dtype))
        got = ufunc(a, b)
    assert got.dtype == dtype
    if op is power:   # the C library's pow; NumPy 2.4's may differ in the last bit
        within_an_ulp(got, numpy_reference(reference, a, b))
    else:
        assert np.array_equal(got, numpy_reference(reference, a, b), equal_nan=True)


@pytest.mark.parametrize("op, reference", [
    (floordiv, np.floor_divide), (mod, np.remainder), (truediv, np.true_divide)])
def test_float_arithmetic_by_zero_warns_as_numpy(op, reference):
    a, b = np.array([5.0, 6.0, 0.0, 9.0]), np.array([1.0, 0.0, 0.0, 4.0])
    ufunc = vectorize(["float64(float64, float64)"])(op)
    said = []
    for f in (ufunc, reference):
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            f(a, b)
        said.append(sorted(str(w.message).split(" encountered")[0] for w in caught))
    assert said[0] == said[1] and said[0]


@pytest.mark.parametrize("op, reference", [
    (floordiv, np.floor_divide), (mod, np.remainder), (truediv, np.true_divide)])
def test_integer_arithmetic_by_zero_follows_numpy(op, reference):
    result = "float64" if op is truediv else "{0}"
    ufunc = vectorize([f"{result.format(ty)}({ty}, {ty})" for ty in ("int32", "int64")])(op)
    a, b = np.meshgrid(np.array([7, -7, 0, 3, -2**31]), np.array([0, 2, -1, -3, 0]))
    for x, y in ((a, b), (a.astype(np.int32), b.astype(np.int32))):
        expected = numpy_reference(reference, x, y)
        with np.errstate(all="ignore"):
            got = ufunc(x, y)
        assert got.dtype == expected.dtype
        assert np.array_equal(got, expected, equal_nan=True)


def first_safe_loop(types, operands):
    """NumPy's linear loop search (and Numba's): the first loop, in the order the signatures
    were written, that every operand's dtype casts to safely; a Python number is its default
    dtype (int64, float64), as Numba types it."""
    chars = [np.asarray(o).dtype.char for o in operands]
    return next(lp for lp in types if all(np.can_cast(k, c, "safe") for k, c in zip(chars, lp)))


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0),   # two orders by default
                                   pytest.param((1, 0, 2), marks=pytest.mark.slow),
                                   pytest.param((1, 2, 0), marks=pytest.mark.slow)])
def test_the_loop_is_the_first_declared_one_the_inputs_cast_to_safely(order):
    """Issue 31: with f8 declared before f4, float32 input runs the f8 loop and gives
    float64, as in Numba (NumPy 2 alone would prefer the exact f4 loop); called from
    compiled code too."""
    from kiln import float32, float64, int64, njit
    declared = [float32(float32, float32), float64(float64, float64), int64(int64, int64)]
    ufunc = vectorize([declared[k] for k in order])(times_plus_one)
    types = ["ff->f", "dd->d", "ll->l"]
    types = [types[k] for k in order]
    assert ufunc.types == types
    compiled = njit(lambda x, y: ufunc(x, y))
    f32, f64 = np.linspace(-1, 1, 7, dtype=np.float32), np.linspace(-1, 1, 7)
    i32 = np.arange(-3, 4, dtype=np.int32)
    for x, y in ((f32, f32), (f64, f64), (f32, f64), (i32, i32), (i32, f32),
                 (np.arange(7), np.arange(7)), (f64, 2), (f32, np.float32(2)), (i32, 2)):
        loop = first_safe_loop(types, (x, y))
        for got in (ufunc(x, y), compiled(x, y)):
            assert got.dtype == np.dtype(loop[-1]), (x.dtype, np.asarray(y).dtype)
            assert np.array_equal(got, python_reference(times_plus_one, x, y, dtype=got.dtype))
    assert ufunc(np.float32(1), np.float32(2)).dtype == np.dtype(first_safe_loop(types, (
        np.float32(1), np.float32(2)))[-1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_shapes_layouts_and_special_values(dtype):
    ufunc = vectorize(["float32(float32, float32)", "int64(int64, int64)",
                       "float64(float64, float64)"])(three_a_minus_b)
    rng = np.random.default_rng(7)
    cube = (rng.standard_normal((4, 5, 6)) * 100).astype(dtype)
    cases = [(cube, cube[::-1]), (cube.transpose(2, 0, 1), cube.transpose(2, 0, 1)[:, :, :1]),
             (cube[:, 1, ::3], cube[0, 1:2, ::3]), (cube[:0], cube[:0]), (cube[0, 0, 0], cube[1]),
             (np.asarray(cube[1, 1, 1]), np.asarray(cube[2, 2, 2]))]
    if dtype != np.int64:
        with np.errstate(over="ignore"):
            cases.append((SPECIAL.astype(dtype), SPECIAL[::-1].astype(dtype)))
    for x, y in cases:
        with np.errstate(all="ignore"):
            expected = python_reference(three_a_minus_b, x, y, dtype=dtype)
            got = ufunc(x, y)
        if np.ndim(x) == np.ndim(y) == 0:       # scalars in, a NumPy scalar out
            assert isinstance(got, np.generic)
        assert got.dtype == dtype and np.array_equal(got, expected, equal_nan=True)


def test_lazy_takes_a_loop_it_has_before_compiling_another():
    """As Numba's DUFunc: NumPy's ufunc takes a call when a loop compiled so far takes its
    dtypes (exactly, else by safe casting); only dtypes no loop takes compile a new one."""
    @vectorize
    def plus(a, b):
        return a + b

    x = np.arange(4)
    assert plus(1.5, 2.0) == 3.5 and isinstance(plus(1.5, 2.0), np.float64)
    # int64 operands, an int32 array with a Python int, float32 scalars: the float64 loop
    assert plus(x, x).dtype == np.float64 and plus(x, x).tolist() == (x + x).tolist()
    assert plus(x.astype(np.int32), 5).dtype == np.float64
    assert isinstance(plus(np.float32(1.5), np.float32(2)), np.float64)
    assert plus(True, 2.5) == 3.5 and plus.types == ["dd->d"]
    got = plus(np.arange(3, dtype=np.complex64), 1j)    # no loop takes complex: compiled
    assert got.dtype == np.complex128 and plus.types == ["dd->d", "FD->D"]
    assert plus([1, 2], [3, 4]).tolist() == [4.0, 6.0]         # lists: their dtypes
    ints = vectorize(lambda a, b: a + b)
    assert ints(x, x).dtype == np.int64 and ints(x.astype(np.int32), np.int32(5)).dtype == \
        np.int64 and ints.types == ["ll->l"]              # int32 casts to int64 safely
    assert ints(1.5, 2.0) == 3.5 and ints.types == ["ll->l", "dd->d"]
    assert plus(x, x, dtype=np.float32).dtype == np.float32
    out = np.zeros(4)
    assert plus(x, 1.0, out=out) is out and out.tolist() == (x + 1.0).tolist()
    masked = np.full(4, -1.0)
    plus(x.astype(float), 1.0, out=masked, where=x > 1)
    assert masked.tolist() == [-1.0, -1.0, 3.0, 4.0]
    assert plus.accumulate(np.arange(5.0)).tolist() == np.add.accumulate(np.arange(5.0)).tolist()
    y = np.zeros(3, dtype=np.int64)
    plus.at(y, [0, 0, 2], 5)
    assert y.tolist() == [10, 0, 5]
    with pytest.raises(ValueError, match="no identity"):
        plus.reduce(np.array([]))
    assert (plus.nin, plus.nout, plus.nargs, plus.identity) == (2, 1, 3, None)


def test_lazy_identity_makes_reduce_of_empty_work():
    @vectorize(identity=1)
    def times(a, b):
        return a * b

    assert times.reduce(np.array([], dtype=np.int64)) == 1
    assert times.reduce(np.arange(1.0, 6.0)) == 120.0
    m = np.arange(1, 13).reshape(3, 4)
    assert times.reduce(m, axis=0).tolist() == np.multiply.reduce(m, axis=0).tolist()


def test_unsupported_operand_dtypes_are_type_errors():
    @vectorize
    def plus(a, b):
        return a + b

    with pytest.raises(TypeError, match="dtype"):
        plus(np.array(["a"]), np.array(["b"]))
    eager = vectorize(["float64(float64, float64)", "int64(int64, int64)"])(plus.__wrapped__)
    loops = r"; its loops are: float64\(float64, float64\), int64\(int64, int64\)$"
    with pytest.raises(TypeError, match=r"^ufunc 'plus' has no loop for "
                                        r"\(complex128, float64\)" + loops):
        eager(np.ones(2, dtype=np.complex128), np.ones(2))
    with pytest.raises(TypeError, match=r"no loop for \(int8, complex128\)" + loops):
        eager(np.int8(1), 1j)
    with pytest.raises(TypeError, match=r"no loop for \(complex64, complex64\)" + loops):
        eager.reduce(np.ones(3, dtype=np.complex64))
    with pytest.raises(TypeError, match=r"no loop for \(<U1, <U1\)" + loops):
        eager(np.array(["a"]), np.array(["b"]))
    with pytest.raises(TypeError, match="casting rule 'no'"):   # other errors: NumPy's
        eager(np.ones(2, dtype=np.int32), np.ones(2, dtype=np.int32), casting="no")
    # the loops it has still run, as NumPy picks them: the first the inputs cast to safely
    assert eager(np.int8(3), np.int8(4)) == 7 and eager(np.int8(3), np.int8(4)).dtype == np.float64
    assert eager(np.int64(3), np.int64(4)).dtype == np.float64   # no exact match first
    assert eager(np.float32(1.5), 2).dtype == np.float64 and eager(np.float32(1.5), 2) == 3.5
    narrow = vectorize(["float32(float32)"])(lambda_free_negate)
    with pytest.raises(TypeError, match=r"^ufunc 'lambda_free_negate' has no loop for "
                                        r"\(float64\); its loops are: float32\(float32\)$"):
        narrow(np.ones(2))


def lambda_free_negate(x):
    return -x


@pytest.mark.parametrize("bad", ["float64(float64,", "notatype(float64, float64)",
                                 "float64 float64", ""])
def test_signatures_that_do_not_parse(bad):
    with pytest.raises(TypeError, match="invalid signature"):
        vectorize([bad])(hypot_kernel)


def test_kernels_take_and_return_numbers():
    with pytest.raises(TypeError, match="take and return numbers"):
        vectorize(["float64(float64[:], float64)"])(hypot_kernel)


def test_pickles_by_reference_at_module_level_and_by_value_otherwise():
    import pickle
    assert pickle.loads(pickle.dumps(module_hypot)) is module_hypot
    assert pickle.loads(pickle.dumps(module_lazy)) is module_lazy
    cloudpickle = pytest.importorskip("cloudpickle")

    @vectorize(["float64(float64, float64)"])
    def nested(a, b):
        return math.sqrt(a * a + b * b)

    copy = pickle.loads(cloudpickle.dumps(nested))
    assert isinstance(copy, np.ufunc) and copy is not nested
    x = np.linspace(-3, 3, 11)
    assert np.array_equal(copy(x, 2.0), nested(x, 2.0))


def test_compiled_code_takes_numpys_loop_or_names_the_loops():
    from kiln import njit
    from kiln.errors import TypingError
    hyp = vectorize(["float32(float32, float32)", "float64(float64, float64)"])(hypot_kernel)
    call = njit(lambda a, b: hyp(a, b))
    i32 = np.arange(5, dtype=np.int32)
    for a, b in ((i32, i32), (i32, np.float32(2)), (i32.astype(np.float32), np.float32(2))):
        assert np.array_equal(call(a, b), hyp(a, b))   # the loop NumPy's call takes
        assert call(a, b).dtype == hyp(a, b).dtype
    with pytest.raises(TypingError, match=r"no loop for \(complex128, float64\).*"
                                          r"float32\(float32, float32\), float64"):
        call(np.ones(2, dtype=complex), np.ones(2))


def test_vectorize_and_guvectorize_take_an_njit_function():
    """Numba accepts a dispatcher (issue 32: 'vectorize compiles Python functions, not
    CPUDispatcher'); the function is compiled again as the kernel."""
    from kiln import guvectorize, njit
    scaled = vectorize(["f8(f8, f8)"])(njit(three_a_minus_b))
    a = np.linspace(-2, 2, 5)
    assert np.array_equal(scaled(a, 1.0), 3 * a - 1.0)

    def cumulative(x, out):
        total = 0.0
        for i in range(x.shape[0]):
            total += x[i]
            out[i] = total
    running = guvectorize(["void(f8[:], f8[:])"], "(n)->(n)")(njit(cumulative))
    assert np.array_equal(running(a), np.cumsum(a))


class _Wrapped:
    """An array wrapper that takes ufunc calls (NEP 13) and refuses to become an array,
    as Dask's and xarray's collections do."""

    def __init__(self, array):
        self.array = array

    def __array__(self, *args, **kwargs):
        raise AssertionError("converted to an array")

    def __array_ufunc__(self, ufunc, method, *args, **kwargs):
        if method != "__call__" or kwargs.get("out") is not None:
            return NotImplemented
        return _Wrapped(ufunc(*[a.array if isinstance(a, _Wrapped) else a for a in args]))


def test_operands_overriding_array_ufunc_take_the_call_as_numpy_gives_it():
    lazy = vectorize(lambda x, y: x * y)         # no loop yet: the wrapper must compile one
    eager = vectorize(["float64(float64, float64)"])(lambda x, y: x * y)
    for ufunc in (lazy, eager):
        got = ufunc(_Wrapped(np.arange(3.0)), 2.0)
        assert isinstance(got, _Wrapped)
        np.testing.assert_array_equal(got.array, np.arange(3.0) * 2)
    with pytest.raises(TypeError, match="returned NotImplemented"):
        eager(_Wrapped(np.arange(3.0)), 2.0, out=_Wrapped(np.arange(3.0)))
    with pytest.raises(TypeError, match="returned NotImplemented"):
        lazy(_Wrapped(np.arange(3.0)), 2.0, out=_Wrapped(np.arange(3.0)))

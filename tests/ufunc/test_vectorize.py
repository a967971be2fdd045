"""@vectorize: real NumPy ufuncs from compiled scalar kernels, checked against NumPy and
against the kernel run by CPython element by element."""
import math

import numpy as np
import pytest

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
    return vectorize(["float64(float64, float64)", "float32(float32, float32)"],
                     target=request.param)(hypot_kernel)


def test_eager_is_a_real_ufunc(hyp):
    assert isinstance(hyp, np.ufunc)
    assert (hyp.nin, hyp.nout, hyp.ntypes, hyp.types) == (2, 1, 2, ["dd->d", "ff->f"])
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


def test_bad_input_gives_clear_errors():
    with pytest.raises(TypeError, match="no return type"):
        vectorize([("float64", "float64")])(hypot_kernel)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        vectorize(["float64(float64)"])(hypot_kernel)
    with pytest.raises(ValueError, match="unknown vectorize target"):
        vectorize(["float64(float64, float64)"], target="gpu")(hypot_kernel)
    with pytest.raises(NotImplementedError, match="CUDA"):
        vectorize(["float64(float64, float64)"], target="cuda")(hypot_kernel)
    with pytest.raises(TypeError, match="unknown option"):
        vectorize(["float64(float64, float64)"], flavour=1)(hypot_kernel)
    hyp = vectorize(["float64(float64, float64)"])(hypot_kernel)
    with pytest.raises(TypeError):      # NumPy's: no loop for complex input
        hyp(np.ones(2, dtype=complex), np.ones(2))


def test_called_from_compiled_code_fused_on_arrays_and_on_scalars():
    from kiln import njit
    hyp = vectorize(["float64(float64, float64)", "float32(float32, float32)"])(hypot_kernel)

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

"""@guvectorize: real NumPy gufuncs from compiled kernels over core dimensions, checked
against NumPy on the same inputs."""
import numpy as np
import pytest

from kiln import guvectorize
from kiln.ufunc import GUFunc
from kiln.types.ufunc_operands import parse_layout


def dot_kernel(a, b, res):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    res[0] = s


def matmul_kernel(a, b, out):
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * b[k, j]
            out[i, j] = acc


def add_scalar_kernel(x, c, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + c


@pytest.fixture(params=["cpu", "parallel"])
def target(request):
    return request.param


def test_dot_is_a_real_gufunc_with_broadcasting(target):
    dot = guvectorize(["void(float64[:], float64[:], float64[:])",
                       "void(float32[:], float32[:], float32[:])"], "(n),(n)->()",
                      target=target)(dot_kernel)
    # as Numba's: the cpu target gives a GUFunc calling its NumPy gufunc, the parallel
    # target the NumPy gufunc itself
    if target == "cpu":
        assert isinstance(dot, GUFunc) and isinstance(dot.ufunc, np.ufunc)
        assert (dot.__name__, dot.__module__) == ("dot_kernel", __name__)
        assert not dot.is_dynamic and dot._frozen
    else:
        assert isinstance(dot, np.ufunc)
    assert (dot.signature, dot.nin, dot.nout, dot.types) == ("(n),(n)->()", 2, 1,
                                                              ["dd->d", "ff->f"])
    rng = np.random.default_rng(0)
    A, v = rng.standard_normal((40_000, 5)), rng.standard_normal(5)
    assert np.allclose(dot(A, v), A @ v, rtol=1e-14)
    assert np.allclose(dot(A[::3, ::2], v[::2]), A[::3, ::2] @ v[::2], rtol=1e-14)
    assert np.allclose(dot(A.T[:, :7].T, A.T[:, :7].T), np.einsum("ij,ij->i", A[:7], A[:7]))
    assert dot(A.astype(np.float32), v.astype(np.float32)).dtype == np.float32
    assert dot(np.zeros((0, 5)), v).shape == (0,)
    assert dot(np.zeros((3, 0)), np.zeros(0)).tolist() == [0.0, 0.0, 0.0]
    out = np.empty(A.shape[0])
    assert dot(A, v, out=out) is out and np.allclose(out, A @ v)
    assert dot(np.array([np.nan, 1.0]), np.array([1.0, np.inf]))[()] != 0.0   # nan


def test_matrix_product_layout_against_numpy(target):
    matmul = guvectorize(["void(float64[:,:], float64[:,:], float64[:,:])"],
                         "(m,n),(n,p)->(m,p)", target=target)(matmul_kernel)
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((6, 3, 4)), rng.standard_normal((4, 2))
    assert np.allclose(matmul(X, Y), X @ Y, rtol=1e-14)
    assert np.allclose(matmul(X.transpose(0, 2, 1)[:, :3, :], Y[:3]),
                       X.transpose(0, 2, 1)[:, :3, :] @ Y[:3], rtol=1e-14)
    with pytest.raises(ValueError):      # NumPy's core-dimension mismatch
        matmul(X, np.ones((5, 2)))


def test_scalar_core_operand_and_output_views():
    add = guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")(
        add_scalar_kernel)
    x = np.arange(6.0).reshape(2, 3)
    assert add(np.arange(3.0), 10.0).tolist() == [10.0, 11.0, 12.0]
    assert np.array_equal(add(x, np.array([1.0, -2.0])[:, None][:, 0]), x + [[1.0], [-2.0]])


def test_lazy_compiles_per_dtype_with_outputs_passed():
    @guvectorize("(n)->()")
    def total(x, out):
        s = 0
        for v in x:
            s += v
        out[0] = s

    assert isinstance(total, GUFunc) and total.signature == "(n)->()"
    out = np.zeros(2, dtype=np.int64)
    total(np.arange(6).reshape(2, 3), out)
    assert out.tolist() == [3, 12]
    fout = np.zeros(2)
    total(np.linspace(0, 1, 6).reshape(2, 3), fout)
    assert np.allclose(fout, np.linspace(0, 1, 6).reshape(2, 3).sum(1))
    assert total.ntypes == 2 and total.types == ["l->l", "d->d"]
    with pytest.raises(TypeError, match="needs all 2 operands"):
        total(np.arange(3))


def test_exception_in_the_kernel_reaches_the_caller(target):
    @guvectorize(["void(float64[:], float64[:])"], "(n)->()", target=target)
    def checked(x, out):
        if x[0] < 0:
            raise ValueError("negative first element")
        out[0] = x.sum()

    x = np.ones((30_000, 2))
    assert np.array_equal(checked(x), np.full(30_000, 2.0))
    x[20_000, 0] = -1
    with pytest.raises(ValueError, match="negative first element"):
        checked(x)


@pytest.mark.parametrize("layout", ["(n)->(", "(n-1)->()", "(n)->()->()", "", "(n),n"])
def test_bad_layouts(layout):
    with pytest.raises(ValueError, match="bad guvectorize layout .*bad token in signature"):
        parse_layout(layout)


def test_bad_identity_is_refused_before_the_function():
    """As Numba's: identity is checked first, whatever the function takes."""
    with pytest.raises(ValueError, match="identity must be"):
        guvectorize(["void(float64[:], float64[:])"], "(n),(n)->()", identity="none")(
            dot_kernel)


def test_bad_signatures_give_clear_errors():
    with pytest.raises(TypeError, match="3 operands"):
        guvectorize(["void(float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError, match="type and shape signature mismatch for arg #1"):
        guvectorize(["void(float64[:,:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError, match="scalar type float64 given for non scalar argument #2"):
        guvectorize(["void(float64[:], float64, float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError, match="returns nothing"):
        guvectorize(["float64(float64[:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    dot = guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError):       # NumPy: no loop for complex operands
        dot(np.ones(3, dtype=complex), np.ones(3))
    assert parse_layout(" (m, n) , (n) -> (m) ") == ([("m", "n"), ("n",)], [("m",)])


@guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def module_total(x, out):
    out[0] = x.sum()


def min_max_kernel(x, lo, hi):
    lo[0] = x[0]
    hi[0] = x[0]
    for v in x:
        lo[0] = min(lo[0], v)
        hi[0] = max(hi[0], v)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_two_scalar_outputs_per_dtype_against_numpy(dtype):
    sigs = [f"void({ty}[:], {ty}[:], {ty}[:])" for ty in ("float64", "float32", "int64")]
    min_max = guvectorize(sigs, "(n)->(),()")(min_max_kernel)
    assert (min_max.nin, min_max.nout) == (1, 2)
    rng = np.random.default_rng(3)
    cube = (rng.standard_normal((3, 4, 7)) * 50).astype(dtype)
    for x in (cube, cube[:, ::2, ::-3], cube.transpose(2, 1, 0), cube[0, 0], cube[:0]):
        lo, hi = min_max(x)
        assert lo.dtype == hi.dtype == dtype
        assert np.array_equal(lo, x.min(axis=-1)) and np.array_equal(hi, x.max(axis=-1))
    if dtype != np.int64:
        special = np.array([1.0, np.inf, -np.inf, 0.0], dtype=dtype)
        assert [float(v) for v in min_max(special)] == [-np.inf, np.inf]


def test_dot_against_numpy_in_every_layout_and_dtype():
    sigs = [f"void({ty}[:], {ty}[:], {ty}[:])" for ty in ("float64", "float32", "int64")]
    dot = guvectorize(sigs, "(n),(n)->()")(dot_kernel)
    rng = np.random.default_rng(5)
    A = rng.standard_normal((4, 5, 6))
    for a, b in ((A, A[::-1]), (A, A[0, 0]), (A[:, None, 0], A[None, :, 1]),
                 (A.transpose(2, 0, 1)[..., :4], A[0, :4, ::-1].T[:, None, :]),
                 (A[0, 0], A[1, 1])):
        expected = np.einsum("...i,...i->...", a, b)
        for dtype in (np.float64, np.float32):
            got = dot(a.astype(dtype), b.astype(dtype))
            assert got.dtype == dtype and np.allclose(got, expected, rtol=1e-5)
    ints = np.arange(24).reshape(2, 3, 4)
    assert dot(ints, ints).dtype == np.int64
    assert np.array_equal(dot(ints, ints), np.einsum("...i,...i->...", ints, ints))
    assert np.array_equal(dot(A, A, axes=[(1,), (1,), ()]), np.einsum("ijk,ijk->ik", A, A))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        dot(np.ones(3), np.ones(4))
    nan = dot(np.array([np.nan, 1.0]), np.array([1.0, 2.0]))
    assert isinstance(nan, np.float64) and np.isnan(nan)


def test_writable_args_by_position_and_by_name():
    @guvectorize(["void(float64[:], float64[:])"], "(n)->()", writable_args=("x",))
    def bump(x, out):
        x[0] += 1.0
        out[0] = x[0]

    a = np.zeros((2, 3))
    assert bump(a).tolist() == [1.0, 1.0] and a[:, 0].tolist() == [1.0, 1.0]
    # a float32 input goes to the float64 loop through a copy, which NumPy writes back
    a32 = np.zeros((2, 3), dtype=np.float32)
    bump(a32)
    assert a32[:, 0].tolist() == [1.0, 1.0]
    readonly = np.zeros(3)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bump(readonly)
    same = guvectorize(["void(float64[:], float64[:])"], "(n)->()", writable_args=(0,))(
        bump_kernel)
    b = np.zeros(2)
    same(b)
    assert b.tolist() == [1.0, 0.0]


def bump_kernel(x, out):
    x[0] += 1.0
    out[0] = x[0]


def test_inputs_are_writable_as_in_numba_but_cast_copies_are_lost():
    """As Numba's: a kernel may write an input; the write lands in the operand unless NumPy
    passed the kernel a cast copy, which only writable_args writes back."""
    bump = guvectorize(["void(float64[:], float64[:])"], "(n)->()")(bump_kernel)
    a = np.zeros((2, 3))
    assert bump(a).tolist() == [1.0, 1.0] and a[:, 0].tolist() == [1.0, 1.0]
    a32 = np.zeros((2, 3), dtype=np.float32)
    assert bump(a32).tolist() == [1.0, 1.0] and a32[:, 0].tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="not one of its 1 inputs"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->()", writable_args=(1,))(
            bump_kernel)
    with pytest.raises(ValueError, match="not one of its 1 inputs"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->()", writable_args=("y",))(
            bump_kernel)


def test_lazy_gufunc_compiles_once_per_dtype():
    @guvectorize("(n),()->(n)")
    def shifted(x, c, out):
        for i in range(x.shape[0]):
            out[i] = x[i] + c

    x = np.arange(6.0).reshape(2, 3)
    out = np.empty_like(x)
    for _ in range(3):
        shifted(x, 1.5, out)
    assert np.array_equal(out, x + 1.5) and shifted.ntypes == 1
    ints = np.arange(6).reshape(2, 3)
    iout = np.empty_like(ints)
    shifted(ints, np.array([10, 20])[:, None][:, 0], iout)
    assert np.array_equal(iout, ints + np.array([[10], [20]])) and shifted.ntypes == 2


def test_gufuncs_pickle_by_reference_at_module_level():
    import pickle
    assert pickle.loads(pickle.dumps(module_total)) is module_total
    x = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(module_total(x), x.sum(axis=1))


@pytest.mark.parametrize("bad", ["void(float64[:], float64[:]", "void(nosuch[:], f8[:])"])
def test_signatures_that_do_not_parse(bad):
    with pytest.raises(TypeError, match="invalid signature"):
        guvectorize([bad], "(n)->()")(bump_kernel)


def test_targets():   # (target='cuda': tests/cuda/test_gufunc.py)
    with pytest.raises(ValueError, match="unknown guvectorize target"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="gpu")(bump_kernel)


@guvectorize("(n),()->(n)")
def add_scaled_into(x, scale, out):
    for i in range(x.shape[0]):
        out[i] += x[i] * scale


@pytest.mark.parametrize("x_dtype, out_dtype", [
    (np.int32, np.float32), (np.int8, np.float64), (np.float32, np.float32),
    (np.uint16, np.int64), (np.float64, np.complex128)])
def test_lazy_gufunc_runs_the_loop_of_the_operands_dtypes(x_dtype, out_dtype):
    """Issue 31: made for float64 first, then called with int32 input and a float32 output
    the kernel adds into, NumPy's search took the float64 loop and the kernel added into a
    fresh cast buffer: doubled or tripled sums (or NaN and 1e36 in a resampling package)."""
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    first = np.ones((3, 4))
    add_scaled_into(x, 2.0, first)
    assert np.array_equal(first, 1 + x * 2.0)
    xs = x.astype(x_dtype)[:, ::-1]            # non-contiguous too
    out = np.full((3, 4), 5, dtype=out_dtype)
    expected = out.copy()
    for row in range(3):
        for i in range(4):
            expected[row, i] += xs[row, i] * 3
    add_scaled_into(xs, 3, out)
    assert out.dtype == out_dtype and np.array_equal(out, expected)


@pytest.mark.parametrize("eager", [True, False])
def test_a_layout_without_outputs_writes_an_operand_in_place(eager):
    """Numba's '(n),(n)' (no '->', in two published packages): no outputs; the kernel
    writes into its operand, broadcast over the outer dimensions; the call gives ()."""
    def doubled_into(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] * 2
    made = guvectorize(["void(f8[:], f8[:])", "void(i4[:], i8[:])"], "(n),(n)") if eager \
        else guvectorize("(n),(n)")
    doubled = made(doubled_into)
    assert (doubled.nin, doubled.nout, doubled.signature) == (2, 0, "(n),(n)")
    for x, out in [(np.arange(5.0), np.zeros(5)), (np.arange(4.0), np.zeros((3, 4))),
                   (np.arange(6, dtype=np.int32)[::-2], np.zeros(3, np.int64))]:
        expected = np.broadcast_to(x * 2, out.shape)
        assert doubled(x, out) == () and np.array_equal(out, expected)

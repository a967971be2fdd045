"""@guvectorize: real NumPy gufuncs from compiled kernels over core dimensions, checked
against NumPy on the same inputs."""
import numpy as np
import pytest

from kiln import guvectorize
from kiln.ufunc import GUFunc
from kiln.ufunc.gufunc import parse_layout


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


@pytest.mark.parametrize("layout", ["(n),(n)", "(n)->(", "(n-1)->()", "(n)->()->()", ""])
def test_bad_layouts(layout):
    with pytest.raises(ValueError, match="bad guvectorize layout"):
        parse_layout(layout)


def test_bad_signatures_give_clear_errors():
    with pytest.raises(TypeError, match="3 operands"):
        guvectorize(["void(float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError, match="must be a 1-d array"):
        guvectorize(["void(float64[:,:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError, match="returns nothing"):
        guvectorize(["float64(float64[:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    dot = guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()")(dot_kernel)
    with pytest.raises(TypeError):       # NumPy: no loop for complex operands
        dot(np.ones(3, dtype=complex), np.ones(3))
    assert parse_layout(" (m, n) , (n) -> (m) ") == ([("m", "n"), ("n",)], [("m",)])

"""Linear algebra in compiled code (runtime/blas.py's BLAS and LAPACK), against NumPy's on
the same inputs: products of every 1-d/2-d pairing, dtypes BLAS has and has not, empty and
strided operands, solve/inv/det/norm, and NumPy's errors. BLAS builds differ in summation order,
so floats agree to a few ulps rather than bit for bit."""
import numpy as np
import pytest

from helpers import jit, requires_blas
from kiln.errors import TypingError

pytestmark = requires_blas

RNG = np.random.default_rng(17)
A, B = RNG.random((5, 4)), RNG.random((4, 3))
x, y = RNG.random(4), RNG.random(5)


def matmul(a, b):
    return a @ b


def dot(a, b):
    return np.dot(a, b)


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and (got.dtype == want.dtype or got.ndim == 0), (got, want)
    rtol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


@pytest.mark.parametrize("pyfunc", [matmul, dot])
@pytest.mark.parametrize("a, b", [
    (A, B), (A, x), (y, A), (x, x), (A.T, y), (A[::2], B), (A, B.astype(np.float32)),
    (A.astype(np.float32), B.astype(np.float32)), (np.asfortranarray(A), B),
    (np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2)), (np.arange(3), np.arange(3)),
    (np.zeros((0, 4)), B), (np.zeros((2, 0)), np.zeros((0, 3))), (np.zeros(0), np.zeros(0)),
])
def test_products(pyfunc, a, b):
    same(jit(pyfunc)(a, b), pyfunc(a, b))


def method_dot_chained(a, b):
    return a.dot(b).dot(b)


def test_the_dot_method_is_np_dot():
    for a, b in ((A[:, :4], RNG.random((4, 4))), (RNG.random((3, 3)), y[:3])):
        same(jit(method_dot_chained)(a, b), method_dot_chained(a, b))


@pytest.mark.parametrize("pyfunc", [matmul, dot])
def test_misaligned_shapes_raise_value_error(pyfunc):
    with pytest.raises(ValueError):
        pyfunc(A, A)
    with pytest.raises(ValueError, match="not aligned"):
        jit(pyfunc)(A, A)


def matmul_in_place(a, b):
    alias = a
    a @= b
    return a, alias


@pytest.mark.parametrize("a, b", [
    (A[:, :3], B[:3]), (x, RNG.random((4, 4))), (A[::2, :3], B[:3].T),
    (np.arange(4).reshape(2, 2), np.arange(4).reshape(2, 2)), (A[:3, :3], A[:3, :3]),
])
def test_matmul_in_place_writes_into_the_array_as_numpy_does(a, b):
    got, want = a.copy(), a.copy()
    got_a, got_alias = jit(matmul_in_place)(got, b)
    want_a, want_alias = matmul_in_place(want, b)
    same(got, want)
    same(got_a, want_a)
    same(got_alias, want_alias)


def test_matmul_in_place_refuses_what_numpy_refuses():
    with pytest.raises(ValueError):
        matmul_in_place(A.copy(), B)
    with pytest.raises(ValueError, match="core dimension"):
        jit(matmul_in_place)(A.copy(), B)   # (5, 4) @ (4, 3) is not (5, 4)
    with pytest.raises(ValueError):
        matmul_in_place(x.copy(), x)
    with pytest.raises(TypingError, match="at least two dimensions"):
        jit(matmul_in_place)(x.copy(), x)
    with pytest.raises(TypeError):
        matmul_in_place(np.arange(4).reshape(2, 2), B[:2, :2])
    with pytest.raises(TypingError, match="same_kind"):
        jit(matmul_in_place)(np.arange(4).reshape(2, 2), B[:2, :2])


def solve(a, b):
    return np.linalg.solve(a, b)


def inverse(a):
    return np.linalg.inv(a)


def determinant(a):
    return np.linalg.det(a)


def norm(a):
    return np.linalg.norm(a)


def vdot(a, b):
    return np.vdot(a, b)


@pytest.mark.parametrize("n", [1, 4, 30])
def test_solve_inv_det(n):
    a = RNG.random((n, n)) + n * np.eye(n)
    b1, b2 = RNG.random(n), RNG.random((n, 3))
    same(jit(solve)(a, b1), solve(a, b1))
    same(jit(solve)(a, b2), solve(a, b2))
    same(jit(solve)(a.astype(np.float32), b1.astype(np.float32)),
         solve(a.astype(np.float32), b1.astype(np.float32)))
    same(jit(inverse)(a), inverse(a))
    same(jit(determinant)(a), determinant(a))
    same(jit(determinant)(np.asfortranarray(a)[::-1]), determinant(a[::-1]))


def test_norm_and_vdot():
    for a in (A, x, np.arange(7), A.astype(np.float32), np.zeros(0)):
        same(jit(norm)(a), norm(a))
    same(jit(vdot)(A, A), vdot(A, A))


def test_singular_matrices():
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        jit(solve)(np.ones((3, 3)), np.ones(3))
    same(jit(determinant)(np.ones((3, 3))), 0.0)
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        jit(inverse)(A)


def test_lapack_leaves_its_inputs_alone_and_empty_matrices():
    a = np.asfortranarray(RNG.random((4, 4)) + 4 * np.eye(4))  # a.T is C-contiguous
    b = np.asfortranarray(RNG.random((4, 2)))
    a0, b0 = a.copy(), b.copy()
    same(jit(solve)(a, b), solve(a0, b0))
    same(jit(determinant)(a), determinant(a0))
    assert np.array_equal(a, a0) and np.array_equal(b, b0)
    empty = np.zeros((0, 0))
    same(jit(inverse)(empty), inverse(empty))
    same(jit(solve)(empty, np.zeros((0, 3))), solve(empty, np.zeros((0, 3))))
    same(jit(determinant)(empty), determinant(empty))


def norm_of_order(a, order):
    return np.linalg.norm(a, order)


def named_norms(a):
    return np.linalg.norm(a, "fro"), np.linalg.norm(a, "nuc"), np.linalg.norm(a, ord=None)


VECTOR = np.array([3.0, -4.0, 0.0, np.pi, -0.5e-3])
COMPLEX_VECTOR = VECTOR + 1j * VECTOR[::-1]


@pytest.mark.parametrize("a", [   # float32 and strided: the long run
    VECTOR, COMPLEX_VECTOR, pytest.param(VECTOR.astype(np.float32), marks=pytest.mark.slow),
    np.array([0, -2, 5]), pytest.param(VECTOR[::2], marks=pytest.mark.slow),
    np.array([np.nan, 1.0]), np.array([np.inf, 1.0])])
@pytest.mark.parametrize("order", [np.inf, -np.inf, 0, 1, 2, 3, 0.5, -1, -2.5])
def test_vector_norms_of_every_order(a, order):
    same(jit(norm_of_order)(a, order), norm_of_order(a, order))


@pytest.mark.parametrize("a", [A, A.T, A.astype(np.complex128) * (1 - 2j), np.eye(3),
                               np.arange(6).reshape(2, 3)])
@pytest.mark.parametrize("order", [np.inf, -np.inf, 1, -1, 2, -2])
def test_matrix_norms_of_every_order(a, order):
    same(jit(norm_of_order)(a, order), norm_of_order(a, order))


@pytest.mark.parametrize("a", [A, A.astype(np.complex64), np.zeros((2, 2))])
def test_named_matrix_norms(a):
    for got, want in zip(jit(named_norms)(a), named_norms(a)):
        same(got, want)


def test_norm_errors_like_numpy():
    from kiln.errors import TypingError
    with pytest.raises(ValueError, match="Invalid norm order for matrices"):
        jit(norm_of_order)(A, 3)
    with pytest.raises(ValueError, match="zero-size array"):
        jit(norm_of_order)(np.zeros(0), np.inf)
    with pytest.raises(TypingError, match="no axis or keepdims"):
        jit(lambda a: np.linalg.norm(a, axis=0))(A)
    with pytest.raises(TypingError, match="invalid norm order 'nuc' for 1-d"):
        jit(lambda a: np.linalg.norm(a, "nuc"))(VECTOR)

"""np.linalg of stacked matrices (3-d and 4-d) in compiled code: each function against
NumPy's own stacked result on the same inputs, empty stacks and NumPy's errors included.
Factors unique only up to signs are checked matrix by matrix by what defines them."""
import numpy as np
import pytest

from helpers import requires_blas, slow_except
from kiln import njit
from kiln.errors import TypingError

pytestmark = requires_blas

RNG = np.random.default_rng(41)
TOL = dict(rtol=1e-9, atol=1e-9)


def stacks(n, lead=(2, 3), dtype=np.float64):
    a = RNG.standard_normal(lead + (n, n)) + n * np.eye(n)
    if np.issubdtype(dtype, np.complexfloating):
        a = a + 1j * RNG.standard_normal(lead + (n, n))
    return a.astype(dtype)


def hermitian(a):
    return a @ np.swapaxes(a, -1, -2).conj() + a.shape[-1] * np.eye(a.shape[-1])


@njit
def inv(a):
    return np.linalg.inv(a)


@njit
def det(a):
    return np.linalg.det(a)


@njit
def solve(a, b):
    return np.linalg.solve(a, b)


@njit
def cholesky(a):
    return np.linalg.cholesky(a)


def ids(value):
    return getattr(value, "__name__", str(value))


# each dtype and rank compiles anew: a few by default, the whole grid in the long run
@pytest.mark.parametrize("dtype, lead", slow_except(
    [(dtype, lead) for dtype in (np.float64, np.complex128, np.float32)
     for lead in ((3,), (2, 3), (0,))],
    (np.float64, (3,)), (np.float64, (0,)), (np.complex128, (2, 3)),
    rows=True), ids=ids)
def test_inv_det_solve_cholesky(dtype, lead):
    tol = dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else TOL
    a = stacks(4, lead, dtype)
    for m in (a, np.swapaxes(a, -1, -2)):           # C-contiguous and strided stacks
        for got, want in ((inv(m), np.linalg.inv(m)), (det(m), np.linalg.det(m)),
                          (cholesky(hermitian(m)), np.linalg.cholesky(hermitian(m)))):
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, **tol)
    b_vector = RNG.standard_normal(4).astype(dtype)
    b_matrices = RNG.standard_normal(lead + (4, 2)).astype(dtype)
    for b in (b_vector, b_matrices):
        got, want = solve(a, b), np.linalg.solve(a, b)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, **tol)


def test_stacked_errors():
    singular = np.ones((2, 3, 3))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        inv(singular)
    np.testing.assert_array_equal(det(singular), np.linalg.det(singular))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        inv(np.ones((2, 2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        det(np.ones((0, 2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky(-hermitian(stacks(3)))
    with pytest.raises(ValueError):
        np.linalg.solve(stacks(3, (2,)), np.ones((3, 3, 1)))
    with pytest.raises(ValueError, match="leading dimensions"):
        solve(stacks(3, (2,)), np.ones((3, 3, 1)))
    with pytest.raises(TypingError, match="not broadcast"):
        solve(stacks(3), np.ones((3, 3, 1)))


@njit
def eigh(a):
    return np.linalg.eigh(a), np.linalg.eigvalsh(a)


@pytest.mark.parametrize("dtype", slow_except([np.float64, np.complex128], np.float64))
def test_eigh(dtype):   # complex128 by default in test_linalg_complex's eigh of one matrix
    a = hermitian(stacks(4, (2, 2), dtype))
    (w, v), values = eigh(a)
    want = np.linalg.eigvalsh(a)
    assert w.shape == want.shape and v.shape == a.shape and w.dtype == want.dtype
    np.testing.assert_allclose(w, want, **TOL)
    np.testing.assert_allclose(values, want, **TOL)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], **TOL)
    (w, v), values = eigh(np.zeros((0, 3, 3), dtype))
    assert w.shape == (0, 3) and v.shape == (0, 3, 3)


@njit
def eig(a):
    return np.linalg.eig(a), np.linalg.eigvals(a)


@pytest.mark.parametrize("dtype", slow_except([np.float64, np.complex128], np.float64))
def test_eig(dtype):   # complex128 by default in test_linalg_complex's eig of one matrix
    a = hermitian(stacks(3, (2, 2), dtype))   # real eigenvalues for real input
    if dtype == np.complex128:
        a = stacks(3, (2, 2), dtype)
    (w, v), values = eig(a)
    want = np.linalg.eigvals(a)
    assert w.shape == want.shape and v.shape == a.shape and w.dtype == want.dtype
    np.testing.assert_allclose(np.sort_complex(w.reshape(-1, 3)),
                               np.sort_complex(want.reshape(-1, 3)), **TOL)
    np.testing.assert_allclose(values, w, **TOL)
    np.testing.assert_allclose(a @ v, v * w[..., None, :], **TOL)
    (w, v), values = eig(np.zeros((0, 3, 3), dtype))
    assert w.shape == (0, 3) and v.shape == (0, 3, 3)
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        eig(np.ones((2, 3, 4), dtype))


@njit
def svd(a, full):
    return np.linalg.svd(a, full)


@njit
def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


@njit
def qr(a):
    return np.linalg.qr(a)


@pytest.mark.parametrize("dtype, shape", slow_except(
    [(dtype, shape) for dtype in (np.float64, np.complex128)
     for shape in ((3, 5, 4), (2, 2, 4, 5), (0, 3, 2))],
    (np.float64, (3, 5, 4)), (np.float64, (0, 3, 2)), (np.complex128, (2, 2, 4, 5)),
    rows=True), ids=ids)
def test_svd_and_qr(dtype, shape):
    a = RNG.standard_normal(shape).astype(dtype)
    if dtype == np.complex128:
        a = a + 1j * RNG.standard_normal(shape)
    for full in (True, False):
        u, s, vh = svd(a, full)
        un, sn, vhn = np.linalg.svd(a, full)
        assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)
        assert (u.dtype, s.dtype, vh.dtype) == (un.dtype, sn.dtype, vhn.dtype)
        np.testing.assert_allclose(s, sn, **TOL)
        k = s.shape[-1]
        np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, **TOL)
    values = singular_values(a)
    want = np.linalg.svd(a, compute_uv=False)
    assert values.shape == want.shape and values.dtype == want.dtype
    np.testing.assert_allclose(values, want, **TOL)
    q, r = qr(a)
    qn, rn = np.linalg.qr(a)
    assert (q.shape, r.shape, q.dtype) == (qn.shape, rn.shape, qn.dtype)
    np.testing.assert_allclose(q @ r, a, **TOL)
    np.testing.assert_allclose(np.abs(r), np.abs(rn), **TOL)

"""Complex matrices in compiled code (the c*/z* BLAS and LAPACK routines), against
NumPy on the same inputs. Tolerances scale with the matrix's condition number where a
result depends on it (solve, inv, lstsq); factors unique only up to a phase (eigenvectors,
singular vectors, Q) are checked by what defines them: A v = w v, reconstructions,
unitarity."""
import numpy as np
import pytest

from helpers import requires_blas, slow_except
from kiln import njit

pytestmark = requires_blas

RNG = np.random.default_rng(23)
COMPLEX = [np.complex128, np.complex64]
# complex64 compiles every routine again (LAPACK's c* routines beside the z* ones): by
# default only in test_solve_inv_det_norm, everywhere in the long run
COMPLEX_128_BY_DEFAULT = slow_except(COMPLEX, np.complex128)


def crandn(*shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def eps(dtype):
    return float(np.finfo(dtype).eps)


def close(got, want, dtype, scale=1.0):
    """got == want to a few hundred ulps of `dtype`, times `scale` (a condition number);
    scalars come back as Python numbers, as from NumPy-less compiled code."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and (got.dtype == want.dtype or got.ndim == 0), (got, want)
    bound = 200 * eps(dtype) * scale * max(1.0, float(np.max(np.abs(want), initial=0.0)))
    assert np.max(np.abs(got - want), initial=0.0) <= bound, (got, want)


def layouts(m):
    """The matrix as C, Fortran, and a strided view of a bigger one, all equal to m."""
    big = np.zeros((2 * m.shape[0], 3 * m.shape[1]), dtype=m.dtype)
    big[::2, ::3] = m
    return [m, np.asfortranarray(m), big[::2, ::3]]


@njit
def matmul(a, b):
    return a @ b


@njit
def dot(a, b):
    return np.dot(a, b)


@njit
def vdot(a, b):
    return np.vdot(a, b)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
def test_products_and_vdot(dtype):
    a, b, x = crandn(5, 4, dtype=dtype), crandn(4, 3, dtype=dtype), crandn(4, dtype=dtype)
    for p, q in ((a, b), (a, x), (x, b), (x, x), (a.T, crandn(5, dtype=dtype)),
                 (np.asfortranarray(a), b[::-1]), (np.zeros((0, 4), dtype), b),
                 (np.zeros((2, 0), dtype), np.zeros((0, 3), dtype))):
        close(matmul(p, q), p @ q, dtype, p.shape[-1] + 1)
        close(dot(p, q), np.dot(p, q), dtype, p.shape[-1] + 1)
    # mixed real and complex operands promote as in NumPy
    close(matmul(a.real.copy(), b), a.real @ b, dtype, 5)
    close(dot(x, b.real.copy()), np.dot(x, b.real), dtype, 5)
    # vdot conjugates its first argument (only)
    close(vdot(x, x[::-1]), np.vdot(x, x[::-1]), dtype, 5)
    close(vdot(a, a), np.vdot(a, a), dtype, 21)
    close(vdot(x.real.copy(), x), np.vdot(x.real, x), dtype, 5)
    close(vdot(np.zeros(0, dtype), np.zeros(0, dtype)), np.vdot(np.zeros(0, dtype),
                                                               np.zeros(0, dtype)), dtype)
    with pytest.raises(ValueError, match="not aligned"):
        matmul(a, a)


@njit
def solve(a, b):
    return np.linalg.solve(a, b)


@njit
def inv(a):
    return np.linalg.inv(a)


@njit
def det(a):
    return np.linalg.det(a)


@njit
def norm(a):
    return np.linalg.norm(a)


@pytest.mark.parametrize("dtype, n", slow_except(   # complex64: n = 4 by default
    [(dtype, n) for dtype in COMPLEX for n in (1, 4, 12)],
    *[(np.complex128, n) for n in (1, 4, 12)], (np.complex64, 4), rows=True),
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_solve_inv_det_norm(dtype, n):
    a = crandn(n, n, dtype=dtype) + n * np.eye(n, dtype=dtype)
    cond = np.linalg.cond(a)
    b1, b2 = crandn(n, dtype=dtype), crandn(n, 3, dtype=dtype)
    for m in layouts(a):
        close(solve(m, b1), np.linalg.solve(a, b1), dtype, cond)
        close(solve(m, b2), np.linalg.solve(a, b2), dtype, cond)
        close(inv(m), np.linalg.inv(a), dtype, cond)
        close(det(m), np.linalg.det(a), dtype, n)
        close(norm(m), np.linalg.norm(a), dtype, n)
    close(solve(a, b1.real.copy()), np.linalg.solve(a, b1.real), dtype, cond)
    close(norm(b1), np.linalg.norm(b1), dtype)
    close(norm(np.zeros(0, dtype)), np.linalg.norm(np.zeros(0, dtype)), dtype)
    assert np.isnan(norm(np.array([1, np.nan], dtype)))


def test_singular_and_empty_complex_matrices():
    singular = np.ones((3, 3), np.complex128) * (1 + 1j)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        solve(singular, np.ones(3, np.complex128))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        inv(singular)
    assert det(singular) == np.linalg.det(singular) == 0
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        inv(np.ones((2, 3), np.complex128))
    empty = np.zeros((0, 0), np.complex128)
    assert inv(empty).shape == (0, 0) and inv(empty).dtype == np.complex128
    assert det(empty) == np.linalg.det(empty) == 1


def hermitian_pd(n, dtype):
    a = crandn(n, n)
    return (a @ a.conj().T + n * np.eye(n)).astype(dtype)


@njit
def cholesky(a):
    return np.linalg.cholesky(a)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
def test_cholesky(dtype):
    h = hermitian_pd(6, dtype)
    want = np.linalg.cholesky(h)
    for m in layouts(h):
        before = m.copy()
        got = cholesky(m)
        close(got, want, dtype, 10)
        close(got @ got.conj().T, h, dtype, 10)
        assert np.array_equal(m, before)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky(-h)
    assert cholesky(np.zeros((0, 0), dtype)).dtype == dtype


@njit
def eigh(a):
    return np.linalg.eigh(a), np.linalg.eigvalsh(a)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
def test_eigh_of_hermitian(dtype):
    h = hermitian_pd(7, dtype) - 7 * np.eye(7, dtype=dtype)
    garbage = np.triu(crandn(7, 7, dtype=dtype), 1)            # only the lower half is read
    want_w = np.linalg.eigvalsh(h)
    for m in layouts(h) + [np.tril(h) + garbage]:
        (w, v), values = eigh(m)
        assert w.dtype == want_w.dtype and v.dtype == dtype
        scale = 20 * max(1.0, np.max(np.abs(want_w)))
        close(w, want_w, dtype, scale)
        close(values, want_w, dtype, scale)
        close(h @ v, v * w.astype(dtype), dtype, scale)           # A v = w v, column by column
        close(v.conj().T @ v, np.eye(7, dtype=dtype), dtype, 20)
    (w, v), values = eigh(np.zeros((0, 0), dtype))
    assert w.shape == (0,) and v.shape == (0, 0) and w.dtype == want_w.dtype


def same_eigenvalues(got, want, dtype, scale):
    """The same multiset of complex numbers (each got value matched to a nearest wanted)."""
    assert got.shape == want.shape and got.dtype == want.dtype
    left = list(want)
    for value in got:
        i = int(np.argmin(np.abs(np.array(left) - value)))
        close(value, left.pop(i), dtype, scale)


@njit
def eig(a):
    return np.linalg.eig(a), np.linalg.eigvals(a)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
def test_eig_of_complex_matrices(dtype):
    a = crandn(6, 6, dtype=dtype)
    want = np.linalg.eigvals(a)
    for m in layouts(a):
        (w, v), values = eig(m)
        assert w.dtype == dtype and v.dtype == dtype
        same_eigenvalues(w, want, dtype, 100)
        same_eigenvalues(values, want, dtype, 100)
        close(a @ v, v * w, dtype, 100)
        close(np.linalg.norm(v, axis=0).astype(dtype), np.ones(6, dtype), dtype)
    # a rotation: complex eigenvalues, which a complex matrix may have
    (w, v), values = eig(np.array([[0, -1], [1, 0]], dtype))
    same_eigenvalues(w, np.array([-1j, 1j], dtype), dtype, 1)
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        eig(np.array([[np.nan, 0], [0, 1]], dtype))
    (w, v), values = eig(np.zeros((0, 0), dtype))
    assert w.shape == (0,) and v.shape == (0, 0)


@njit
def svd(a, full):
    return np.linalg.svd(a, full)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (0, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd(dtype, shape, full):
    a = crandn(*shape, dtype=dtype)
    un, sn, vhn = np.linalg.svd(a, full)
    for m in layouts(a) if a.size else [a]:
        u, s, vh = svd(m, full)
        assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)
        assert (u.dtype, s.dtype, vh.dtype) == (un.dtype, sn.dtype, vhn.dtype)
        close(s, sn, dtype, 20)
        k = s.shape[0]
        close((u[:, :k] * s) @ vh[:k], a, dtype, 20)
        close(u.conj().T @ u, np.eye(u.shape[1], dtype=dtype), dtype, 20)
        close(vh @ vh.conj().T, np.eye(vh.shape[0], dtype=dtype), dtype, 20)


@njit
def qr(a):
    return np.linalg.qr(a)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (0, 2)])
def test_qr(dtype, shape):
    a = crandn(*shape, dtype=dtype)
    qn, rn = np.linalg.qr(a)
    for m in layouts(a) if a.size else [a]:
        q, r = qr(m)
        assert (q.shape, r.shape, q.dtype, r.dtype) == (qn.shape, rn.shape, qn.dtype, rn.dtype)
        close(q @ r, a, dtype, 20)
        close(np.abs(r), np.abs(rn), dtype, 20)
        assert np.array_equal(r, np.triu(r))
        close(q.conj().T @ q, np.eye(q.shape[1], dtype=dtype), dtype, 20)


@njit
def lstsq(a, b):
    return np.linalg.lstsq(a, b)


@pytest.mark.parametrize("dtype", COMPLEX_128_BY_DEFAULT)
@pytest.mark.parametrize("shape", [(8, 3), (3, 8), (5, 5)])
def test_lstsq(dtype, shape):
    a = crandn(*shape, dtype=dtype)
    cond = np.linalg.cond(a)
    for b in (crandn(shape[0], dtype=dtype), crandn(shape[0], 2, dtype=dtype)):
        x, residuals, rank, s = lstsq(a, b)
        xn, rn, rankn, sn = np.linalg.lstsq(a, b)
        close(x, xn, dtype, 10 * cond)
        close(residuals, rn, dtype, 10 * cond)
        close(s, sn, dtype, 10)
        assert rank == rankn

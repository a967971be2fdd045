"""Matrix decompositions in compiled code (LAPACK), against NumPy's on the same
inputs. Factors unique only up to signs (eigenvectors, singular vectors, Q) are checked by
what defines them — the reconstruction, orthonormality — and the unique parts (values,
|R|, shapes, dtypes) against NumPy directly."""
import numpy as np
import pytest

from helpers import requires_blas
from kiln import njit
from kiln.errors import TypingError

pytestmark = requires_blas

RNG = np.random.default_rng(5)


def tol(dtype):
    return dict(rtol=2e-4, atol=2e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)


def spd(n, dtype=np.float64):
    a = RNG.standard_normal((n, n))
    return (a @ a.T + n * np.eye(n)).astype(dtype)


def layouts(m):
    """The matrix as C, Fortran, and a strided view of a bigger one, all equal to m."""
    big = np.zeros((2 * m.shape[0], 3 * m.shape[1]), dtype=m.dtype)
    big[::2, ::3] = m
    return [m, np.asfortranarray(m), big[::2, ::3]]


@njit
def cholesky(a):
    return np.linalg.cholesky(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cholesky(dtype):
    s = spd(6, dtype)
    for a in layouts(s):
        before = a.copy()
        got = cholesky(a)
        assert got.dtype == np.linalg.cholesky(s).dtype
        np.testing.assert_allclose(got, np.linalg.cholesky(s), **tol(dtype))
        assert np.array_equal(a, before)                       # the input is not overwritten
    assert cholesky(np.eye(3, dtype=np.int64)).dtype == np.float64
    assert cholesky(np.zeros((0, 0))).shape == (0, 0)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky(-s)
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        cholesky(np.ones((2, 3)))


@njit
def eigh(a):
    return np.linalg.eigh(a), np.linalg.eigvalsh(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eigh_and_eigvalsh(dtype):
    s = spd(7, dtype)
    s_lower = np.tril(s) + np.triu(RNG.standard_normal(s.shape), 1).astype(dtype)  # only L read
    want_w, _ = np.linalg.eigh(s)
    for a in layouts(s) + [s_lower]:
        (w, v), values = eigh(a)
        assert w.dtype == want_w.dtype and v.shape == (7, 7)
        np.testing.assert_allclose(w, want_w, **tol(dtype))
        np.testing.assert_allclose(values, want_w, **tol(dtype))
        np.testing.assert_allclose(s @ v, v * w, **tol(dtype))
        np.testing.assert_allclose(v.T @ v, np.eye(7), **tol(dtype))
    (w, v), values = eigh(np.zeros((0, 0)))
    assert w.shape == (0,) and v.shape == (0, 0) and values.shape == (0,)


@njit
def eig(a):
    return np.linalg.eig(a), np.linalg.eigvals(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_eig_of_matrices_with_real_eigenvalues(dtype):
    q, _ = np.linalg.qr(RNG.standard_normal((5, 5)))
    a = (q @ np.diag([3.0, -1.0, 0.5, 2.0, 7.0]) @ np.linalg.inv(q)).astype(dtype)
    want = np.sort(np.linalg.eigvals(a).real)
    for m in layouts(a):
        (w, v), values = eig(m)
        assert w.dtype == dtype and v.dtype == dtype
        np.testing.assert_allclose(np.sort(w), want, **tol(dtype))
        np.testing.assert_allclose(np.sort(values), want, **tol(dtype))
        np.testing.assert_allclose(a @ v, v * w, **tol(dtype))


def test_eig_errors():
    with pytest.raises(ValueError, match="complex eigenvalues"):
        eig(np.array([[0.0, -1.0], [1.0, 0.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="infs or NaNs"):
        eig(np.array([[np.nan, 0.0], [0.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        eig(np.ones((3, 2)))


@njit
def svd(a, full):
    return np.linalg.svd(a, full)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (1, 3), (0, 3), (3, 0)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_shapes_values_and_reconstruction(shape, full):
    a = RNG.standard_normal(shape)
    un, sn, vhn = np.linalg.svd(a, full)
    for m in layouts(a) if a.size else [a]:
        u, s, vh = svd(m, full)
        assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)
        np.testing.assert_allclose(s, sn, **tol(np.float64))
        k = s.shape[0]
        np.testing.assert_allclose((u[:, :k] * s) @ vh[:k], a, **tol(np.float64))
        np.testing.assert_allclose(u.T @ u, np.eye(u.shape[1]), **tol(np.float64))
        np.testing.assert_allclose(vh @ vh.T, np.eye(vh.shape[0]), **tol(np.float64))
    assert svd(a.astype(np.float32), full)[1].dtype == np.float32


@njit
def qr(a):
    return np.linalg.qr(a)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (0, 2), (3, 1)])
def test_qr_reduced(shape):
    a = RNG.standard_normal(shape)
    qn, rn = np.linalg.qr(a)
    for m in layouts(a) if a.size else [a]:
        q, r = qr(m)
        assert (q.shape, r.shape) == (qn.shape, rn.shape)
        np.testing.assert_allclose(q @ r, a, **tol(np.float64))
        np.testing.assert_allclose(np.abs(r), np.abs(rn), **tol(np.float64))
        np.testing.assert_allclose(r, np.triu(r))
        np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), **tol(np.float64))


@njit
def lstsq(a, b):
    return np.linalg.lstsq(a, b)


@njit
def lstsq_rcond(a, b, rcond):
    return np.linalg.lstsq(a, b, rcond)


def same_lstsq(got, want, dtype=np.float64):
    x, residuals, rank, s = got
    assert rank == want[2] and isinstance(rank, int)
    for g, w in ((x, want[0]), (residuals, want[1]), (s, want[3])):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, **tol(dtype))


@pytest.mark.parametrize("shape", [(8, 3), (3, 8), (5, 5)])
def test_lstsq_against_numpy(shape):
    a = RNG.standard_normal(shape)
    for b in (RNG.standard_normal(shape[0]), RNG.standard_normal((shape[0], 2))):
        same_lstsq(lstsq(a, b), np.linalg.lstsq(a, b))
        same_lstsq(lstsq(np.asfortranarray(a), b), np.linalg.lstsq(a, b))
    deficient = np.c_[a, a[:, :1]]                                  # rank below n
    b = RNG.standard_normal(shape[0])
    same_lstsq(lstsq(deficient, b), np.linalg.lstsq(deficient, b))
    same_lstsq(lstsq_rcond(a, b, 0.5), np.linalg.lstsq(a, b, rcond=0.5))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        lstsq(a, np.ones(shape[0] + 1))


def test_stacked_lstsq_is_refused_at_compile_time():   # NumPy has no stacked lstsq
    with pytest.raises(TypingError, match="2-d matrix"):
        lstsq(np.ones((2, 3, 3)), np.ones(3))


@njit
def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


@njit
def singular_values_positional(a):
    return np.linalg.svd(a, False, False)


@njit
def svd_reduced(a):
    return np.linalg.svd(a, full_matrices=False, compute_uv=True)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5), (0, 3), (3, 0)])
def test_svd_compute_uv_false_returns_the_singular_values(dtype, shape):
    a = (RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape)
                                       if dtype == np.complex128 else 0)).astype(dtype)
    want = np.linalg.svd(a, compute_uv=False)
    for got in (singular_values(a), singular_values_positional(a)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, **tol(np.float32 if dtype == np.float32 else
                                                    np.float64))
    u, s, vh = svd_reduced(a)
    un, sn, vhn = np.linalg.svd(a, full_matrices=False)
    assert (u.shape, s.shape, vh.shape) == (un.shape, sn.shape, vhn.shape)


def test_svd_of_nan_and_a_compute_uv_that_is_not_a_constant():
    nan = np.array([[np.nan, 1.0], [2.0, 3.0]])
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.svd(nan, compute_uv=False)
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        singular_values(nan)

    @njit
    def svd_flag(a, flag):
        return np.linalg.svd(a, compute_uv=flag)
    with pytest.raises(TypingError, match="compute_uv must be the constant True or False"):
        svd_flag(np.eye(2), False)


@njit
def lstsq_plain(a, b):
    return np.linalg.lstsq(a, b)[0]


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_entries_as_numpy_handles_them(bad):
    """NumPy raises LinAlgError where LAPACK reports an error (svd, lstsq, eig) and
    otherwise returns what LAPACK computed; compiled code does the same."""
    a = np.array([[bad, 1.0], [2.0, 3.0]])
    cases = [(lambda m: singular_values(m), lambda m: np.linalg.svd(m, compute_uv=False)),
             (lambda m: svd(m, True)[1], lambda m: np.linalg.svd(m)[1]),
             (lambda m: lstsq_plain(m, np.ones(2)), lambda m: np.linalg.lstsq(m, np.ones(2))[0]),
             (lambda m: eig(m)[1], np.linalg.eigvals),
             (lambda m: eigh(m)[1], np.linalg.eigvalsh),
             (cholesky, np.linalg.cholesky),
             (lambda m: qr(m)[1], lambda m: np.linalg.qr(m)[1])]
    for compiled, numpy_function in cases:
        try:
            want = numpy_function(a)
        except np.linalg.LinAlgError:
            with pytest.raises(np.linalg.LinAlgError):
                compiled(a)
            continue
        np.testing.assert_allclose(compiled(a), want, rtol=1e-12, equal_nan=True)

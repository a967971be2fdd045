"""Matrix decompositions in compiled code through LAPACK (runtime/blas.py): `np.linalg.cholesky`,
`qr`, `svd`, `eigh`, `eigvalsh`, `eig`, `eigvals`, `lstsq`, with NumPy's results and errors.

LAPACK is column-major: the memory of a C-contiguous matrix is its transpose there, which
each routine below uses instead of moving data (cholesky and eigh of a symmetric matrix
read the other triangle; svd of the transpose swaps U and V; eig, qr and lstsq work on a
copy of the transpose, which is the matrix itself in column-major order). For a complex
matrix that transpose is not the conjugate transpose: eigh's eigenvectors come back
conjugated (LAPACK decomposed conj(a), which is a's transpose when a is Hermitian); the
other routines see a itself or use that A.T = (B C).T = C.T B.T swaps factors, as for real
matrices. Every routine works on a fresh copy, since LAPACK overwrites its input.
Workspace sizes come from LAPACK's own query (lwork = -1). float64, float32, complex128
and complex64 matrices (integers as float64), 2-d (stacked.py loops over stacks of them;
eig and lstsq of a stack are refused at compile time); as in Numba, `eig` of a real matrix
returns real arrays and raises where an eigenvalue is complex (a complex matrix gives
complex results).
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .linalg import _lapack, _square_float, fresh_copy, lapack_ints, real_dtype
from ..typing.registry import literal_flag, omitted, overload, register_jitable

potrf = _lapack(lambda p: p + "potrf", "char:U", "int", "array", "int")
# The complex routines (c*, z*) take a real workspace `rwork` beside `work`, and the
# Hermitian eigensolver is heevd where the symmetric one is syevd: each has its own list.
_SYEVD = ("int", "array", "int", "array", "array", "int", "array", "int")
syevd_vectors = _lapack(lambda p: p + "syevd", "char:V", "char:U", *_SYEVD)
syevd_values = _lapack(lambda p: p + "syevd", "char:N", "char:U", *_SYEVD)
_HEEVD = ("int", "array", "int", "array", "array", "int", "array", "int", "array", "int")
heevd_vectors = _lapack(lambda p: p + "heevd", "char:V", "char:U", *_HEEVD)
heevd_values = _lapack(lambda p: p + "heevd", "char:N", "char:U", *_HEEVD)
_GEEV = ("int", "array", "int", "array", "array", "array", "int", "array", "int", "array",
         "int")
geev_vectors = _lapack(lambda p: p + "geev", "char:N", "char:V", *_GEEV)
geev_values = _lapack(lambda p: p + "geev", "char:N", "char:N", *_GEEV)
_GEEV_COMPLEX = ("int", "array", "int", "array", "array", "int", "array", "int", "array",
                 "int", "array")
geev_complex_vectors = _lapack(lambda p: p + "geev", "char:N", "char:V", *_GEEV_COMPLEX)
geev_complex_values = _lapack(lambda p: p + "geev", "char:N", "char:N", *_GEEV_COMPLEX)
_GESDD = ("int", "int", "array", "int", "array", "array", "int", "array", "int", "array", "int",
          "array")
gesdd_all = _lapack(lambda p: p + "gesdd", "char:A", *_GESDD)
gesdd_some = _lapack(lambda p: p + "gesdd", "char:S", *_GESDD)
gesdd_none = _lapack(lambda p: p + "gesdd", "char:N", *_GESDD)
_GESDD_COMPLEX = _GESDD[:-1] + ("array", "array")
gesdd_complex_all = _lapack(lambda p: p + "gesdd", "char:A", *_GESDD_COMPLEX)
gesdd_complex_some = _lapack(lambda p: p + "gesdd", "char:S", *_GESDD_COMPLEX)
gesdd_complex_none = _lapack(lambda p: p + "gesdd", "char:N", *_GESDD_COMPLEX)
geqrf = _lapack(lambda p: p + "geqrf", "int", "int", "array", "int", "array", "array", "int")
orgqr = _lapack(lambda p: p + ("ungqr" if p in "cz" else "orgqr"), "int", "int", "int",
                "array", "int", "array", "array", "int")
_GELSD = ("int", "int", "int", "array", "int", "array", "int", "array", "float", "array",
          "array", "int", "array")
gelsd = _lapack(lambda p: p + "gelsd", *_GELSD)
gelsd_complex = _lapack(lambda p: p + "gelsd", *_GELSD[:-1], "array", "array")


def _matrix_dtype(a, name):
    """The LAPACK dtype for `a`, or None; a TypingError for what kiln cannot decompose."""
    if isinstance(a, t.Array) and a.ndim != 2:
        raise TypingError(f"np.linalg.{name}() in compiled code takes a 2-d matrix, not a "
                          f"{a.ndim}-d array (kiln takes stacks of matrices in inv, det, "
                          "solve, cholesky, qr, svd, eigh and eigvalsh only)")
    return _square_float(a)


@register_jitable
def _square(a):
    if a.shape[0] != a.shape[1]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def _finite(a):
    """LinAlgError unless every entry of `a` is finite (compiled code only)."""


@overload(_finite)
def _finite_entries(a):
    if isinstance(a.dtype, t.Complex):
        def check(a):
            if not (np.all(np.isfinite(a.real)) and np.all(np.isfinite(a.imag))):
                raise np.linalg.LinAlgError("Array must not contain infs or NaNs")
        return check

    def check_real(a):
        if not np.all(np.isfinite(a)):
            raise np.linalg.LinAlgError("Array must not contain infs or NaNs")
    return check_real


def _squared_magnitudes(x):
    """|x|**2 elementwise, in the real dtype (compiled code only)."""


@overload(_squared_magnitudes)
def _squared(x):
    if isinstance(x.dtype, t.Complex):
        return lambda x: x.real * x.real + x.imag * x.imag
    return lambda x: x * x


@register_jitable
def _workspace(size):
    """LAPACK's answer to a workspace query (real or complex), as an allocation size."""
    return max(1, int(size.real))


@overload(np.linalg.cholesky)
def _cholesky(a):
    dtype = _matrix_dtype(a, "cholesky")
    if dtype is None:
        return None

    def cholesky(a):
        _square(a)
        n = a.shape[0]
        factor = fresh_copy(a, dtype)
        if n and potrf(n, factor, n) > 0:
            raise np.linalg.LinAlgError("Matrix is not positive definite")
        for i in range(n):
            for j in range(i + 1, n):
                factor[i, j] = 0
        return factor
    return cholesky


def _eigh(name, with_vectors):
    def ov(a):
        dtype = _matrix_dtype(a, name)
        if dtype is None:
            return None
        rdtype = real_dtype(dtype)
        if isinstance(dtype, t.Complex):
            heevd = heevd_vectors if with_vectors else heevd_values

            def evd(n, v, w, work, lwork, rwork, lrwork, iwork, liwork):
                return heevd(n, v, n, w, work, lwork, rwork, lrwork, iwork, liwork)
        else:
            syevd = syevd_vectors if with_vectors else syevd_values

            def evd(n, v, w, work, lwork, rwork, lrwork, iwork, liwork):
                return syevd(n, v, n, w, work, lwork, iwork, liwork)
        register_jitable(evd)

        def decompose(a):
            _square(a)
            n = a.shape[0]
            v = fresh_copy(a, dtype)
            w = np.empty(n, rdtype)
            if n:
                work, rwork = np.empty(1, dtype), np.ones(1, rdtype)
                iwork = lapack_ints(1)
                evd(n, v, w, work, -1, rwork, -1, iwork, -1)
                lwork, lrwork = _workspace(work[0]), _workspace(rwork[0])
                liwork = _workspace(iwork[0])
                work, rwork = np.empty(lwork, dtype), np.empty(lrwork, rdtype)
                iwork = lapack_ints(liwork)
                if evd(n, v, w, work, lwork, rwork, lrwork, iwork, liwork) != 0:
                    raise np.linalg.LinAlgError("Eigenvalues did not converge")
            return w, v
        register_jitable(decompose)
        if with_vectors and isinstance(dtype, t.Complex):
            def eigh_complex(a):
                w, v = decompose(a)
                return w, np.conj(v.T)  # eigenvectors of conj(a), conjugated
            return eigh_complex
        if with_vectors:
            def eigh(a):
                w, v = decompose(a)
                return w, v.T   # row j of the column-major result is eigenvector j
            return eigh
        return lambda a: decompose(a)[0]
    return ov


overload(np.linalg.eigh)(_eigh("eigh", True))
overload(np.linalg.eigvalsh)(_eigh("eigvalsh", False))


def _eig(name, with_vectors):
    def ov(a):
        dtype = _matrix_dtype(a, name)
        if dtype is None:
            return None
        geev = geev_vectors if with_vectors else geev_values
        message = (f"np.linalg.{name}() of this real matrix has complex eigenvalues; compiled "
                   "code returns real arrays for real input (as Numba does): pass "
                   "a.astype(np.complex128) for complex eigenvalues")

        def decompose(a):
            _square(a)
            _finite(a)
            n = a.shape[0]
            m = fresh_copy(a.T, dtype)     # column-major a
            wr, wi = np.empty(n, dtype), np.empty(n, dtype)
            left = np.empty((1, 1), dtype)
            right = np.empty((n, n), dtype) if with_vectors else np.empty((1, 1), dtype)
            ldvr = n if with_vectors else 1
            if n:
                work = np.empty(1, dtype)
                geev(n, m, n, wr, wi, left, 1, right, ldvr, work, -1)
                lwork = _workspace(work[0])
                work = np.empty(lwork, dtype)
                if geev(n, m, n, wr, wi, left, 1, right, ldvr, work, lwork) != 0:
                    raise np.linalg.LinAlgError("Eigenvalues did not converge")
                for i in range(n):
                    if wi[i] != 0:
                        raise ValueError(message)
            return wr, right
        register_jitable(decompose)
        if with_vectors:
            def eig(a):
                w, v = decompose(a)
                return w, v.T
            return eig
        return lambda a: decompose(a)[0]
    return ov


def _eig_complex(dtype, with_vectors):
    """eig of a complex matrix: complex eigenvalues and right eigenvectors (as columns)."""
    geev = geev_complex_vectors if with_vectors else geev_complex_values
    rdtype = real_dtype(dtype)

    def decompose(a):
        _square(a)
        _finite(a)
        n = a.shape[0]
        m = fresh_copy(a.T, dtype)     # column-major a
        w = np.empty(n, dtype)
        left = np.empty((1, 1), dtype)
        right = np.empty((n, n), dtype) if with_vectors else np.empty((1, 1), dtype)
        ldvr = n if with_vectors else 1
        if n:
            work, rwork = np.empty(1, dtype), np.empty(2 * n, rdtype)
            geev(n, m, n, w, left, 1, right, ldvr, work, -1, rwork)
            lwork = _workspace(work[0])
            work = np.empty(lwork, dtype)
            if geev(n, m, n, w, left, 1, right, ldvr, work, lwork, rwork) != 0:
                raise np.linalg.LinAlgError("Eigenvalues did not converge")
        return w, right
    return register_jitable(decompose)


def _eig_of(name, with_vectors):
    """eig/eigvals: the complex routine for complex matrices, else the real one."""
    real = _eig(name, with_vectors)

    def ov(a):
        dtype = _matrix_dtype(a, name)
        if not isinstance(dtype, t.Complex):
            return real(a)
        decompose = _eig_complex(dtype, with_vectors)
        if with_vectors:
            def eig(a):
                w, v = decompose(a)
                return w, v.T
            return eig
        return lambda a: decompose(a)[0]
    return ov


overload(np.linalg.eig)(_eig_of("eig", True))
overload(np.linalg.eigvals)(_eig_of("eigvals", False))


def _gesdd(dtype, job):
    """gesdd with `job` 'A', 'S' or 'N' for matrices of `dtype`, as one argument list: the
    complex routine takes a real workspace (rwork) that the real one does not."""
    if isinstance(dtype, t.Complex):
        routine = {"A": gesdd_complex_all, "S": gesdd_complex_some,
                   "N": gesdd_complex_none}[job]

        def gesdd(m, n, x, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork):
            return routine(m, n, x, m, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork)
    else:
        routine = {"A": gesdd_all, "S": gesdd_some, "N": gesdd_none}[job]

        def gesdd(m, n, x, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork):
            return routine(m, n, x, m, s, u, ldu, vt, ldvt, work, lwork, iwork)
    return register_jitable(gesdd)


def _svd_rwork_size(dtype, vectors):
    """The size of zgesdd's real workspace (LAPACK's documented bound), 1 for real dtypes."""
    if not isinstance(dtype, t.Complex):
        return register_jitable(lambda m, n: 1)
    if not vectors:
        return register_jitable(lambda m, n: 7 * min(m, n))

    def size(m, n):
        k, mx = min(m, n), max(m, n)
        return max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k)
    return register_jitable(size)


@overload(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True):
    dtype = _matrix_dtype(a, "svd")
    if dtype is None:
        return None
    rdtype = real_dtype(dtype)
    if not literal_flag(compute_uv, "np.linalg.svd's compute_uv"):
        gesdd = _gesdd(dtype, "N")
        rwork_size = _svd_rwork_size(dtype, False)

        def values(a, full_matrices=True, compute_uv=True):
            m, n = a.shape
            k = min(m, n)
            x = fresh_copy(a, dtype)            # column-major a.T (n x m)
            s = np.empty(k, rdtype)
            if k == 0:
                return s
            unused = np.empty(1, dtype)
            work, iwork = np.empty(1, dtype), lapack_ints(8 * k)
            rwork = np.empty(rwork_size(m, n), rdtype)
            gesdd(n, m, x, s, unused, 1, unused, 1, work, -1, rwork, iwork)
            lwork = _workspace(work[0])
            work = np.empty(lwork, dtype)
            if gesdd(n, m, x, s, unused, 1, unused, 1, work, lwork, rwork, iwork) != 0:
                raise np.linalg.LinAlgError("SVD did not converge")
            return s
        return values
    every, some = _gesdd(dtype, "A"), _gesdd(dtype, "S")
    rwork_size = _svd_rwork_size(dtype, True)

    def svd(a, full_matrices=True, compute_uv=True):
        m, n = a.shape
        k = min(m, n)
        x = fresh_copy(a, dtype)            # column-major a.T (n x m)
        s = np.empty(k, rdtype)
        ucols = n if full_matrices else k   # of the transpose's U, which is a's Vh
        vrows = m if full_matrices else k   # of the transpose's Vt, which is a's U
        vh = np.empty((ucols, n), dtype)
        u = np.empty((m, vrows), dtype)
        if k == 0:
            return np.eye(m, vrows, 0, dtype), s, np.eye(ucols, n, 0, dtype)
        work, iwork = np.empty(1, dtype), lapack_ints(8 * k)
        rwork = np.empty(rwork_size(m, n), rdtype)
        if full_matrices:
            every(n, m, x, s, vh, n, u, vrows, work, -1, rwork, iwork)
        else:
            some(n, m, x, s, vh, n, u, vrows, work, -1, rwork, iwork)
        lwork = _workspace(work[0])
        work = np.empty(lwork, dtype)
        if full_matrices:
            info = every(n, m, x, s, vh, n, u, vrows, work, lwork, rwork, iwork)
        else:
            info = some(n, m, x, s, vh, n, u, vrows, work, lwork, rwork, iwork)
        if info != 0:
            raise np.linalg.LinAlgError("SVD did not converge")
        return u, s, vh
    return svd


@overload(np.linalg.qr)
def _qr(a):
    dtype = _matrix_dtype(a, "qr")
    if dtype is None:
        return None

    def qr(a):
        m, n = a.shape
        k = min(m, n)
        x = fresh_copy(a.T, dtype)          # column-major a
        tau = np.empty(k, dtype)
        r = np.zeros((k, n), dtype)
        if k == 0:
            return np.empty((m, 0), dtype), r
        work = np.empty(1, dtype)
        geqrf(m, n, x, m, tau, work, -1)
        lwork = _workspace(work[0])
        work = np.empty(lwork, dtype)
        geqrf(m, n, x, m, tau, work, lwork)
        for i in range(k):
            for j in range(i, n):
                r[i, j] = x[j, i]
        orgqr(m, k, k, x, m, tau, work, -1)
        lwork = _workspace(work[0])
        work = np.empty(lwork, dtype)
        orgqr(m, k, k, x, m, tau, work, lwork)
        return x[:k, :].T.copy(), r
    return qr


@overload(np.linalg.lstsq)
def _lstsq(a, b, rcond=None):
    dtype = _matrix_dtype(a, "lstsq")
    if dtype is None or not (isinstance(b, t.Array) and 1 <= b.ndim <= 2):
        return None
    dtype = t.from_dtype(np.result_type(dtype.np_dtype, b.dtype.np_dtype))
    rdtype = real_dtype(dtype)
    eps = float(np.finfo(dtype.np_dtype).eps)
    if isinstance(dtype, t.Complex):
        def gelsd_call(m, n, nrhs, x, lda, rhs, ld, s, limit, rank, work, lwork, rwork, iwork):
            return gelsd_complex(m, n, nrhs, x, lda, rhs, ld, s, limit, rank, work, lwork,
                                 rwork, iwork)
    else:
        def gelsd_call(m, n, nrhs, x, lda, rhs, ld, s, limit, rank, work, lwork, rwork, iwork):
            return gelsd(m, n, nrhs, x, lda, rhs, ld, s, limit, rank, work, lwork, iwork)
    register_jitable(gelsd_call)

    if omitted(rcond):
        def cutoff(rcond, m, n):      # NumPy 2's default: machine precision * max(m, n)
            return eps * max(m, n)
    else:
        def cutoff(rcond, m, n):
            return rcond
    register_jitable(cutoff)

    def solve(a, b, rcond):
        m, n = a.shape
        if b.shape[0] != m:
            raise np.linalg.LinAlgError("Incompatible dimensions")
        columns = b.reshape(m, -1)
        nrhs = columns.shape[1]
        x = fresh_copy(a.T, dtype)              # column-major a
        ld = max(m, n, 1)
        rhs = np.zeros((nrhs, ld), dtype)       # column-major b, padded to max(m, n) rows
        rhs[:, :m] = columns.T
        s = np.empty(min(m, n), rdtype)
        rank = lapack_ints(1)
        limit = cutoff(rcond, m, n)
        if min(m, n) > 0:
            work, rwork = np.empty(1, dtype), np.ones(1, rdtype)
            iwork = lapack_ints(1)
            gelsd_call(m, n, nrhs, x, max(m, 1), rhs, ld, s, limit, rank, work, -1, rwork,
                       iwork)
            lwork, lrwork = _workspace(work[0]), _workspace(rwork[0])
            liwork = _workspace(iwork[0])
            work, rwork = np.empty(lwork, dtype), np.empty(lrwork, rdtype)
            iwork = lapack_ints(liwork)
            if gelsd_call(m, n, nrhs, x, max(m, 1), rhs, ld, s, limit, rank, work, lwork,
                          rwork, iwork) != 0:
                raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")
        if rank[0] == n and m > n:
            tail = rhs[:, n:m]
            residuals = np.sum(_squared_magnitudes(tail), axis=1)
        else:
            residuals = np.empty(0, rdtype)
        return rhs[:, :n].T.copy(), residuals, int(rank[0]), s
    register_jitable(solve)

    if b.ndim == 1:
        def lstsq(a, b, rcond=None):
            x, residuals, rank, s = solve(a, b, rcond)
            return x.reshape(x.shape[0]), residuals, rank, s
        return lstsq

    def lstsq_columns(a, b, rcond=None):
        return solve(a, b, rcond)
    return lstsq_columns

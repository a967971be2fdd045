"""Matrix decompositions in compiled code through SciPy's LAPACK: `np.linalg.cholesky`,
`qr`, `svd`, `eigh`, `eigvalsh`, `eig`, `eigvals`, `lstsq`, with NumPy's results and errors.

LAPACK is column-major: the memory of a C-contiguous matrix is its transpose there, which
each routine below uses instead of moving data (cholesky and eigh of a symmetric matrix
read the other triangle; svd of the transpose swaps U and V; eig, qr and lstsq work on a
copy of the transpose, which is the matrix itself in column-major order). Every routine
works on a fresh copy, since LAPACK overwrites its input. Workspace sizes come from
LAPACK's own query (lwork = -1). Real matrices only (float64, float32; integers as
float64), 2-d (NumPy's stacked forms are refused at compile time); as in Numba, `eig` of
a real matrix returns real arrays and raises where an eigenvalue is complex.
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .linalg import _lapack, _square_float, fresh_copy
from .registry import overload, register_jitable

potrf = _lapack(lambda p: p + "potrf", "char:U", "int", "array", "int")
syevd_vectors = _lapack(lambda p: p + "syevd", "char:V", "char:U", "int", "array", "int",
                        "array", "array", "int", "array", "int")
syevd_values = _lapack(lambda p: p + "syevd", "char:N", "char:U", "int", "array", "int",
                       "array", "array", "int", "array", "int")
_GEEV = ("int", "array", "int", "array", "array", "array", "int", "array", "int", "array",
         "int")
geev_vectors = _lapack(lambda p: p + "geev", "char:N", "char:V", *_GEEV)
geev_values = _lapack(lambda p: p + "geev", "char:N", "char:N", *_GEEV)
_GESDD = ("int", "int", "array", "int", "array", "array", "int", "array", "int", "array", "int",
          "array")
gesdd_all = _lapack(lambda p: p + "gesdd", "char:A", *_GESDD)
gesdd_some = _lapack(lambda p: p + "gesdd", "char:S", *_GESDD)
geqrf = _lapack(lambda p: p + "geqrf", "int", "int", "array", "int", "array", "array", "int")
orgqr = _lapack(lambda p: p + "orgqr", "int", "int", "int", "array", "int", "array", "array",
                "int")
gelsd = _lapack(lambda p: p + "gelsd", "int", "int", "int", "array", "int", "array", "int",
                "array", "float", "array", "array", "int", "array")


def _matrix_dtype(a, name):
    """The LAPACK dtype for `a`, or None; a TypingError for what kiln cannot decompose."""
    if isinstance(a, t.Array) and a.ndim != 2:
        raise TypingError(f"np.linalg.{name}() in compiled code takes a 2-d matrix, not a "
                          f"{a.ndim}-d array (NumPy's stacked matrices are not supported)")
    if isinstance(a, t.Array) and isinstance(a.dtype, t.Complex):
        raise TypingError(f"np.linalg.{name}() of a complex matrix is not supported in "
                          "compiled code yet")
    return _square_float(a)


@register_jitable
def _square(a):
    if a.shape[0] != a.shape[1]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


@register_jitable
def _finite(a):
    if not np.all(np.isfinite(a)):
        raise np.linalg.LinAlgError("Array must not contain infs or NaNs")


@register_jitable
def _workspace(size):
    """LAPACK's answer to a workspace query, as an allocation size."""
    return max(1, int(size))


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
        syevd = syevd_vectors if with_vectors else syevd_values

        def decompose(a):
            _square(a)
            n = a.shape[0]
            v = fresh_copy(a, dtype)
            w = np.empty(n, dtype)
            if n:
                work, iwork = np.empty(1, dtype), np.empty(1, np.int32)
                syevd(n, v, n, w, work, -1, iwork, -1)
                lwork, liwork = _workspace(work[0]), _workspace(iwork[0])
                work, iwork = np.empty(lwork, dtype), np.empty(liwork, np.int32)
                if syevd(n, v, n, w, work, lwork, iwork, liwork) > 0:
                    raise np.linalg.LinAlgError("Eigenvalues did not converge")
            return w, v
        register_jitable(decompose)
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
                   "code returns real arrays for real input (as Numba does) and does not "
                   "decompose complex matrices yet")

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
                if geev(n, m, n, wr, wi, left, 1, right, ldvr, work, lwork) > 0:
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


overload(np.linalg.eig)(_eig("eig", True))
overload(np.linalg.eigvals)(_eig("eigvals", False))


@overload(np.linalg.svd)
def _svd(a, full_matrices=True):
    dtype = _matrix_dtype(a, "svd")
    if dtype is None:
        return None

    def svd(a, full_matrices=True):
        m, n = a.shape
        k = min(m, n)
        x = fresh_copy(a, dtype)            # column-major a.T (n x m)
        s = np.empty(k, dtype)
        ucols = n if full_matrices else k   # of the transpose's U, which is a's Vh
        vrows = m if full_matrices else k   # of the transpose's Vt, which is a's U
        vh = np.empty((ucols, n), dtype)
        u = np.empty((m, vrows), dtype)
        if k == 0:
            return np.eye(m, vrows, 0, dtype), s, np.eye(ucols, n, 0, dtype)
        work, iwork = np.empty(1, dtype), np.empty(8 * k, np.int32)
        if full_matrices:
            gesdd_all(n, m, x, n, s, vh, n, u, vrows, work, -1, iwork)
        else:
            gesdd_some(n, m, x, n, s, vh, n, u, vrows, work, -1, iwork)
        lwork = _workspace(work[0])
        work = np.empty(lwork, dtype)
        if full_matrices:
            info = gesdd_all(n, m, x, n, s, vh, n, u, vrows, work, lwork, iwork)
        else:
            info = gesdd_some(n, m, x, n, s, vh, n, u, vrows, work, lwork, iwork)
        if info > 0:
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
    if isinstance(b.dtype, t.Complex):
        raise TypingError("np.linalg.lstsq() of complex arrays is not supported in compiled "
                          "code yet")
    eps = float(np.finfo(dtype.np_dtype).eps)

    if rcond is None or isinstance(rcond, t.NoneType):
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
        s = np.empty(min(m, n), dtype)
        rank = np.zeros(1, np.int32)
        limit = cutoff(rcond, m, n)
        if min(m, n) > 0:
            work, iwork = np.empty(1, dtype), np.empty(1, np.int32)
            gelsd(m, n, nrhs, x, max(m, 1), rhs, ld, s, limit, rank, work, -1, iwork)
            lwork, liwork = _workspace(work[0]), _workspace(iwork[0])
            work, iwork = np.empty(lwork, dtype), np.empty(liwork, np.int32)
            if gelsd(m, n, nrhs, x, max(m, 1), rhs, ld, s, limit, rank, work, lwork,
                     iwork) > 0:
                raise np.linalg.LinAlgError("SVD did not converge in Linear Least Squares")
        if rank[0] == n and m > n:
            tail = rhs[:, n:m]
            residuals = np.sum(tail * tail, axis=1)
        else:
            residuals = np.empty(0, dtype)
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

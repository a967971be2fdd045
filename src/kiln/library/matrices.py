"""Matrices and vectors: np.tri, tril, triu, vander, kron (1-d and 2-d), fill_diagonal,
inner (1-d), cross (3-vectors, rows of them) and meshgrid (two 1-d arrays, 'xy' indexing), each as
NumPy computes it (vander by repeated products in NumPy's promoted dtype, cross term by
term), returning new arrays (fill_diagonal writes its argument)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array, zeroed_array
from .reductions import c_contiguous
from ..typing.registry import omitted, overload, register_jitable

_INTLIKE = (t.Integer, t.Boolean)
_SCALAR = (t.Number, t.Boolean)


def _dtype_of(*tys):
    """NumPy's result dtype of arrays and scalars of these kiln types, as a kiln type."""
    parts = [ty.dtype.np_dtype if isinstance(ty, t.Array) else ty.np_dtype for ty in tys]
    return t.from_dtype(np.result_type(*parts))


@overload(np.tri)
def _tri(N, M=None, k=0):
    if not (isinstance(N, _INTLIKE) and (omitted(M) or isinstance(M, _INTLIKE)) and
            (isinstance(k, _INTLIKE) or k == 0)):
        return None

    def tri(N, M=None, k=0):
        cols = N if M is None else M
        out = zeroed_array((N, cols), np.float64)
        for i in range(N):
            for j in range(min(cols, max(0, i + k + 1))):
                out[i, j] = 1.0
        return out
    return tri


def _triangle(lower):
    def ov(m, k=0):
        if not (isinstance(m, t.Array) and (isinstance(k, _INTLIKE) or k == 0)):
            return None
        dt = m.dtype

        def keep(i, j, k):
            return j - i <= k if lower else j - i >= k
        keep = register_jitable(keep)

        def one_d(m, k=0):
            n = m.shape[0]
            out = zeroed_array((n, n), dt)
            for i in range(n):
                for j in range(n):
                    if keep(i, j, k):
                        out[i, j] = m[j]
            return out

        def stacked(m, k=0):
            rows, cols = m.shape[-2], m.shape[-1]
            out = empty_array(m.shape, dt)
            out[:] = m
            if rows * cols == 0:
                return out
            flat = out.reshape(out.size // (rows * cols), rows, cols)
            for s in range(flat.shape[0]):
                for i in range(rows):
                    for j in range(cols):
                        if not keep(i, j, k):
                            flat[s, i, j] = 0
            return out
        if m.ndim == 0:
            return None
        return one_d if m.ndim == 1 else stacked
    return ov


overload(np.tril)(_triangle(True))
overload(np.triu)(_triangle(False))


@overload(np.vander)
def _vander(x, N=None, increasing=False):
    if not isinstance(x, t.Array) or not (omitted(N) or isinstance(N, _INTLIKE)) or \
            not isinstance(increasing, (t.Boolean, bool)):
        return None
    if x.ndim != 1:
        def fail(x, N=None, increasing=False):
            raise ValueError("x must be a one-dimensional array or sequence.")
        return fail
    dt = t.from_dtype(np.promote_types(x.dtype.np_dtype, np.int64))

    def vander(x, N=None, increasing=False):
        n = x.shape[0]
        cols = n if N is None else N
        out = empty_array((n, cols), dt)
        for i in range(n):
            p = dt(1)
            for j in range(cols):
                col = j if increasing else cols - 1 - j
                if j:
                    p = dt(p * x[i])
                out[i, col] = p
        return out
    return vander


@overload(np.kron)
def _kron(a, b):
    if not (isinstance(a, t.Array) and isinstance(b, t.Array) and a.ndim in (1, 2) and
            b.ndim in (1, 2)):
        return None
    dt = _dtype_of(a, b)
    if a.ndim == 1 and b.ndim == 1:
        def kron1(a, b):
            na, nb = a.shape[0], b.shape[0]
            out = empty_array(na * nb, dt)
            for i in range(na):
                for k in range(nb):
                    out[i * nb + k] = a[i] * b[k]
            return out
        return kron1

    def kron2(a, b):
        a2, b2 = np.atleast_2d(a), np.atleast_2d(b)
        ra, ca = a2.shape
        rb, cb = b2.shape
        out = empty_array((ra * rb, ca * cb), dt)
        for i in range(ra):
            for j in range(ca):
                for k in range(rb):
                    for m in range(cb):
                        out[i * rb + k, j * cb + m] = a2[i, j] * b2[k, m]
        return out
    return kron2


@overload(np.fill_diagonal)
def _fill_diagonal(a, val, wrap=False):
    if not (isinstance(a, t.Array) and isinstance(val, (t.Array, t.Number, t.Boolean)) and
            isinstance(wrap, (t.Boolean, bool))):
        return None
    if a.ndim < 2:
        def fail(a, val, wrap=False):
            raise ValueError("array must be at least 2-d")
        return fail
    if isinstance(val, t.Array):
        def values(val):
            return c_contiguous(val).ravel()
    else:
        def values(val):
            return np.full(1, val)
    values = register_jitable(values)
    nd = a.ndim
    env = {}
    exec(f"def set_diagonal(a, i, v):\n    a[{', '.join(['i'] * nd)}] = v\n", env)
    set_diagonal = register_jitable(env["set_diagonal"])

    def fill_diagonal(a, val, wrap=False):
        v = values(val)
        count = v.shape[0]
        if nd == 2:
            rows, cols = a.shape
            end = rows * cols if wrap else min(rows * cols, cols * cols)
            j = 0
            for pos in range(0, end, cols + 1):
                if count:
                    a[pos // cols, pos % cols] = v[j % count]
                j += 1
            return
        n = a.shape[0]
        for d in range(1, nd):
            if a.shape[d] != n:
                raise ValueError("All dimensions of input must be of equal length")
        if count:
            for i in range(n):
                set_diagonal(a, i, v[i % count])
    return fill_diagonal


@overload(np.inner)
def _inner(a, b):
    if not (isinstance(a, t.Array) and isinstance(b, t.Array) and a.ndim == 1 and
            b.ndim == 1):
        return None
    return lambda a, b: np.dot(a, b)


@register_jitable
def _cross_into(out, i, a, b):
    out[i, 0] = a[1] * b[2] - a[2] * b[1]
    out[i, 1] = a[2] * b[0] - a[0] * b[2]
    out[i, 2] = a[0] * b[1] - a[1] * b[0]


@overload(np.cross)
def _cross(a, b):
    """Cross products of 3-vectors along the last axis (1-d and 2-d arrays, rows
    broadcast). NumPy's deprecated 2-vectors are refused with ValueError."""
    if not (isinstance(a, t.Array) and isinstance(b, t.Array) and a.ndim in (1, 2) and
            b.ndim in (1, 2)):
        return None
    dt = _dtype_of(a, b)
    message = "incompatible dimensions for cross product\n(dimension must be 2 or 3)"
    if a.ndim == 1 and b.ndim == 1:
        def cross(a, b):
            if a.shape[0] != 3 or b.shape[0] != 3:
                raise ValueError(message)
            out = empty_array((1, 3), dt)
            _cross_into(out, 0, a, b)
            return out[0]
        return cross

    def cross_rows(a, b):
        if a.shape[a.ndim - 1] != 3 or b.shape[b.ndim - 1] != 3:
            raise ValueError(message)
        ra = a.shape[0] if a.ndim == 2 else 1
        rb = b.shape[0] if b.ndim == 2 else 1
        if ra != rb and ra != 1 and rb != 1:
            raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
        n = rb if ra == 1 else ra
        rows_a = np.broadcast_to(a, (n, 3))
        rows_b = np.broadcast_to(b, (n, 3))
        out = empty_array((n, 3), dt)
        for i in range(n):
            _cross_into(out, i, rows_a[i], rows_b[i])
        return out
    return cross_rows


@overload(np.meshgrid)
def _meshgrid(x, y):
    if not (isinstance(x, t.Array) and isinstance(y, t.Array)):
        return None
    if x.ndim != 1 or y.ndim != 1:
        raise TypingError("np.meshgrid() takes two 1-d arrays in compiled code")
    dx, dy = x.dtype, y.dtype

    def meshgrid(x, y):
        nx, ny = x.shape[0], y.shape[0]
        xs = empty_array((ny, nx), dx)
        ys = empty_array((ny, nx), dy)
        for i in range(ny):
            for j in range(nx):
                xs[i, j] = x[j]
                ys[i, j] = y[i]
        return xs, ys
    return meshgrid

"""`np.linalg` of stacked matrices (3-d and more): NumPy applies each function to every
matrix of the last two axes and stacks the results over the leading ones. Here the input
becomes a C-contiguous (count, m, n) stack, the 2-d implementation (linalg.py,
decompositions.py) runs on each matrix, and the results take the leading shape back.

These overloads are registered after the 2-d ones, so they are tried first and apply to
ndim > 2 only: `inv det solve cholesky qr svd eigh eigvalsh eig eigvals` (NumPy has no
stacked `lstsq`).
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .arrays import ArrayValue
from .linalg import lapack_dtype, real_dtype
from ..typing.registry import intrinsic, literal_flag, overload, register_jitable


def _stack_dtype(a):
    """The LAPACK dtype of a stack of matrices `a`, or None for anything else."""
    if not (isinstance(a, t.Array) and a.ndim > 2):
        return None
    return lapack_dtype(a.dtype)


@intrinsic
def leading_shape(typingctx, a):
    """`a.shape[:-2]`, the shape of a stack of matrices (compiled tuples do not slice)."""
    if not (isinstance(a, t.Array) and a.ndim > 2):
        return None
    lead = t.UniTuple(t.int64, a.ndim - 2)

    def codegen(context, builder, sig, args):
        array = ArrayValue(context, builder, args[0], a)
        return context.make_tuple(builder, lead, [array.shape(d) for d in range(lead.count)])
    return lead(a), codegen


@register_jitable
def _stack_of(a):
    """`a` as a fresh C-contiguous (count, m, n) array of its matrices."""
    c = np.empty(a.shape, a.dtype)
    c[...] = a
    count = 1
    for size in leading_shape(a):
        count *= size
    return c.reshape((count, a.shape[-2], a.shape[-1]))


@register_jitable
def _square_stack(a):
    if a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def _matrix_each(func):
    """A stacked form of `func` whose results have the input's shape (inv, cholesky)."""
    def ov(a):
        dtype = _stack_dtype(a)
        if dtype is None:
            return None

        def each(a):
            _square_stack(a)
            stack = _stack_of(a)
            out = np.empty(stack.shape, dtype)
            for i in range(stack.shape[0]):
                out[i] = func(stack[i])
            return out.reshape(a.shape)
        return each
    return ov


overload(np.linalg.inv)(_matrix_each(np.linalg.inv))
overload(np.linalg.cholesky)(_matrix_each(np.linalg.cholesky))


@overload(np.linalg.det)
def _det(a):
    dtype = _stack_dtype(a)
    if dtype is None:
        return None

    def det(a):
        _square_stack(a)
        stack = _stack_of(a)
        out = np.empty(stack.shape[0], dtype)
        for i in range(stack.shape[0]):
            out[i] = np.linalg.det(stack[i])
        return out.reshape(leading_shape(a))
    return det


@overload(np.linalg.solve)
def _solve(a, b):
    """NumPy 2's rule: a 1-d `b` is one vector for every matrix; otherwise `b` is a stack
    of (n, k) matrices with `a`'s leading shape (kiln does not broadcast other shapes)."""
    dtype = _stack_dtype(a)
    if dtype is None or not isinstance(b, t.Array):
        return None
    if b.ndim not in (1, a.ndim):
        raise TypingError(f"np.linalg.solve() of a {a.ndim}-d stack of matrices takes a 1-d "
                          f"or {a.ndim}-d b in compiled code, not a {b.ndim}-d one (kiln does "
                          "not broadcast stacks of matrices)")
    dtype = t.from_dtype(np.result_type(dtype.np_dtype, b.dtype.np_dtype))

    if b.ndim == 1:
        def solve_vector(a, b):
            _square_stack(a)
            stack = _stack_of(a)
            out = np.empty((stack.shape[0], b.shape[0]), dtype)
            for i in range(stack.shape[0]):
                out[i] = np.linalg.solve(stack[i], b)
            return out.reshape(leading_shape(a) + (a.shape[-1],))
        return solve_vector

    def solve(a, b):
        _square_stack(a)
        if leading_shape(a) != leading_shape(b):
            raise ValueError("solve: the leading dimensions of a and b differ (kiln does "
                             "not broadcast stacks of matrices)")
        stack, rhs = _stack_of(a), _stack_of(b)
        out = np.empty(rhs.shape, dtype)
        for i in range(stack.shape[0]):
            out[i] = np.linalg.solve(stack[i], rhs[i])
        return out.reshape(b.shape)
    return solve


def _eigen(values_of, vectors_of, with_vectors, hermitian):
    """Stacked eigvalsh/eigh (real eigenvalues) or eigvals/eig (eigenvalues of the matrix's
    dtype: a real matrix with complex eigenvalues raises, as the 2-d form does)."""
    def ov(a):
        dtype = _stack_dtype(a)
        if dtype is None:
            return None
        wdtype = real_dtype(dtype) if hermitian else dtype

        def values(a):
            _square_stack(a)
            stack = _stack_of(a)
            w = np.empty((stack.shape[0], stack.shape[1]), wdtype)
            for i in range(stack.shape[0]):
                w[i] = values_of(stack[i])
            return w.reshape(leading_shape(a) + (a.shape[-1],))

        def vectors(a):
            _square_stack(a)
            stack = _stack_of(a)
            w, v = np.empty((stack.shape[0], stack.shape[1]), wdtype), np.empty(stack.shape, dtype)
            for i in range(stack.shape[0]):
                w[i], v[i] = vectors_of(stack[i])
            return w.reshape(leading_shape(a) + (a.shape[-1],)), v.reshape(a.shape)
        return vectors if with_vectors else values
    return ov


for _values, _vectors, _hermitian in ((np.linalg.eigvalsh, np.linalg.eigh, True),
                                      (np.linalg.eigvals, np.linalg.eig, False)):
    overload(_vectors)(_eigen(_values, _vectors, True, _hermitian))
    overload(_values)(_eigen(_values, _vectors, False, _hermitian))


@overload(np.linalg.qr)
def _qr(a):
    dtype = _stack_dtype(a)
    if dtype is None:
        return None

    def qr(a):
        stack = _stack_of(a)
        count, m, n = stack.shape
        k = min(m, n)
        q, r = np.empty((count, m, k), dtype), np.empty((count, k, n), dtype)
        for i in range(count):
            q[i], r[i] = np.linalg.qr(stack[i])
        return q.reshape(leading_shape(a) + (m, k)), r.reshape(leading_shape(a) + (k, n))
    return qr


@overload(np.linalg.svd)
def _svd(a, full_matrices=True, compute_uv=True):
    dtype = _stack_dtype(a)
    if dtype is None:
        return None
    rdtype = real_dtype(dtype)
    if not literal_flag(compute_uv, "np.linalg.svd's compute_uv"):
        def values(a, full_matrices=True, compute_uv=True):
            stack = _stack_of(a)
            count, m, n = stack.shape
            s = np.empty((count, min(m, n)), rdtype)
            for i in range(count):
                s[i] = np.linalg.svd(stack[i], compute_uv=False)
            return s.reshape(leading_shape(a) + (min(m, n),))
        return values

    def svd(a, full_matrices=True, compute_uv=True):
        stack = _stack_of(a)
        count, m, n = stack.shape
        k = min(m, n)
        ucols, vrows = (m, n) if full_matrices else (k, k)
        u, s = np.empty((count, m, ucols), dtype), np.empty((count, k), rdtype)
        vh = np.empty((count, vrows, n), dtype)
        for i in range(count):
            u[i], s[i], vh[i] = np.linalg.svd(stack[i], full_matrices)
        lead = leading_shape(a)
        return u.reshape(lead + (m, ucols)), s.reshape(lead + (k,)), \
            vh.reshape(lead + (vrows, n))
    return svd

"""Diagonals: np.diag (a 1-d array's square matrix, a matrix's diagonal), np.diagonal and
np.trace of a 2-d array, with NumPy's offsets `k` (above the main diagonal when positive).
A diagonal read from a matrix is a copy (NumPy's np.diagonal gives a read-only view)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from .allocation import zeroed_array
from ..typing.registry import overload, register_jitable


@register_jitable
def _diagonal_of(a, k):
    rows, cols = a.shape
    first_row, first_col = (0, k) if k >= 0 else (-k, 0)
    n = max(0, min(rows - first_row, cols - first_col))
    out = np.empty(n, a.dtype)
    for i in range(n):
        out[i] = a[first_row + i, first_col + i]
    return out


def _integer_offset(k):
    return isinstance(k, (t.Integer, t.Boolean)) or k == 0


@overload(np.diag)
def _diag(v, k=0):
    if not isinstance(v, t.Array) or v.ndim not in (1, 2) or not _integer_offset(k):
        return None
    if v.ndim == 2:
        return lambda v, k=0: _diagonal_of(v, k)
    dt = v.dtype

    def square(v, k=0):
        n = v.shape[0] + abs(k)
        out = zeroed_array((n, n), dt)
        for i in range(v.shape[0]):
            if k >= 0:
                out[i, i + k] = v[i]
            else:
                out[i - k, i] = v[i]
        return out
    return square


@overload(np.diagonal)
def _diagonal(a, offset=0):
    if isinstance(a, t.Array) and a.ndim == 2 and _integer_offset(offset):
        return lambda a, offset=0: _diagonal_of(a, offset)
    return None


@overload(np.trace)
def _trace(a, offset=0):
    if not (isinstance(a, t.Array) and a.ndim == 2 and _integer_offset(offset)):
        return None
    return lambda a, offset=0: _diagonal_of(a, offset).sum()

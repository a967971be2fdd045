"""Sorting and searching: np.sort / a.sort() / np.argsort / a.argsort() along the last axis,
np.unique, np.searchsorted. NaNs sort last, as in NumPy. kiln's sort is a stable merge
sort: values come out as NumPy's; among equal keys argsort keeps the original order (NumPy's
default quicksort gives no such promise, so its indices of ties may differ)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array
from .reductions import c_contiguous, in_c_order
from .registry import overload, overload_method, register_jitable


@register_jitable
def _before(x, y):
    """x sorts before y: numbers in order, NaN after everything."""
    return x < y or (y != y and x == x)


@register_jitable
def _merge_sort_indices(keys, order, scratch):
    """Sort the index array `order` (over `keys`), stably, bottom-up."""
    n = order.shape[0]
    width = 1
    while width < n:
        for left in range(0, n, 2 * width):
            middle = min(left + width, n)
            right = min(left + 2 * width, n)
            i, j, k = left, middle, left
            while i < middle and j < right:
                if _before(keys[order[j]], keys[order[i]]):
                    scratch[k] = order[j]
                    j += 1
                else:
                    scratch[k] = order[i]
                    i += 1
                k += 1
            while i < middle:
                scratch[k] = order[i]
                i += 1
                k += 1
            while j < right:
                scratch[k] = order[j]
                j += 1
                k += 1
        for m in range(n):
            order[m] = scratch[m]
        width *= 2


@register_jitable
def argsort_1d(keys):
    n = keys.shape[0]
    order = np.arange(n)
    _merge_sort_indices(keys, order, np.empty(n, np.int64))
    return order


@register_jitable
def _sort_rows(rows):
    """Sort each row of the C-contiguous 2-d `rows` in place."""
    for r in range(rows.shape[0]):
        row = rows[r]
        order = argsort_1d(row)
        sorted_row = np.empty(row.shape[0], row.dtype)
        for m in range(row.shape[0]):
            sorted_row[m] = row[order[m]]
        row[:] = sorted_row


def _sortable(a):
    if not isinstance(a, t.Array) or isinstance(a.dtype, t.Complex):
        return False
    return True


@overload(np.sort)
def _np_sort(a):
    if not _sortable(a):
        return None

    def sort(a):
        out = a.copy()
        if out.size:
            _sort_rows(out.reshape(-1, out.shape[out.ndim - 1]))
        return out
    return sort


@overload_method(t.Array, "sort")
def _sort_in_place(a):
    if not _sortable(a):
        return None
    if a.readonly:
        raise TypingError(f"cannot sort a read-only array ({a}) in place")

    def sort(a):
        if a.size:
            rows = c_contiguous(a).reshape(-1, a.shape[a.ndim - 1])
            _sort_rows(rows)
            a[:] = rows.reshape(a.shape)
    return sort


def _argsort(a):
    if not _sortable(a):
        return None

    def argsort(a):
        rows = c_contiguous(a).reshape(-1, a.shape[a.ndim - 1]) if a.size else \
            c_contiguous(a).reshape(0, 1)
        out = empty_array(rows.shape, np.int64)
        for r in range(rows.shape[0]):
            out[r] = argsort_1d(rows[r])
        return out.reshape(a.shape)
    return argsort


overload(np.argsort)(_argsort)
overload_method(t.Array, "argsort")(_argsort)


@overload(np.unique)
def _unique(a):
    """The sorted distinct values of the flattened array; NaNs count as one (NumPy 2's
    equal_nan=True)."""
    if not _sortable(a):
        return None
    dt = a.dtype

    def unique(a):
        x = np.sort(in_c_order(a))
        out = empty_array(x.shape[0], dt)
        n = 0
        for i in range(x.shape[0]):
            v = x[i]
            if n == 0 or not (v == out[n - 1] or (v != v and out[n - 1] != out[n - 1])):
                out[n] = v
                n += 1
        return out[:n].copy()
    return unique


@register_jitable
def search_sorted(a, v, right):
    """The insertion point of v in the sorted 1-d `a` (NaN last), left- or right-most."""
    low, high = 0, a.shape[0]
    while low < high:
        middle = (low + high) // 2
        if _before(a[middle], v) or (right and not _before(v, a[middle])):
            low = middle + 1
        else:
            high = middle
    return low


@overload(np.searchsorted)
def _searchsorted(a, v, side="left"):
    if not (isinstance(a, t.Array) and a.ndim == 1):
        return None
    if not isinstance(side, (str, t.StringLiteral)):
        return None
    right = (side if isinstance(side, str) else side.value) == "right"
    if isinstance(v, t.Number):
        return lambda a, v, side="left": search_sorted(a, v, right)
    if isinstance(v, t.Array):
        def search_each(a, v, side="left"):
            x = in_c_order(v)
            out = empty_array(x.shape[0], np.int64)
            for i in range(x.shape[0]):
                out[i] = search_sorted(a, x[i], right)
            return out.reshape(v.shape)
        return search_each
    return None

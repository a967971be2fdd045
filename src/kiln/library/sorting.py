"""Sorting and searching: np.sort / a.sort() / np.argsort / a.argsort() along the last axis,
np.unique, np.searchsorted. NaNs sort last, as in NumPy; complex numbers by real part, then
imaginary part (merge-sorted by index, as float16).

A row is sorted in place: its NaNs are moved to its end first, so the sorts compare with a
plain `<`; a row already in order (or in reverse order) is found in one pass; otherwise
integers, booleans and float32/float64 are radix-sorted (radix_sort.py) where that pays,
and short rows and other dtypes (float16) are introsorted (introsort.py).

argsort is stable: among equal keys it keeps the original order, NaNs' indices last in
their order (NumPy's default quicksort gives no such promise, so its indices of ties may
differ; kind="stable" gives kiln's). It sorts radix keys with their indices (radix, or a
quicksort whose runs of equal keys then get their indices sorted); float16 merge-sorts an
index array."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array
from .introsort import SMALL, insertion_sort, insertion_sort_pairs, introsort, quicksort_pairs
from .radix_sort import (argsort_key, differing_bytes, has_key, new_keys, no_keys, radix_pays,
                         radix_sort, sort_key, sort_pairs, span_bytes)
from .reductions import c_contiguous, in_c_order
from ..typing.registry import overload, overload_method, register_jitable


def _before(x, y):
    """x sorts before y: numbers in order, NaN after everything; complex numbers in NumPy's
    order, by real part, then imaginary part, with a NaN part after every number
    (R + Rj, R + nanj, nan + Rj, nan + nanj: its npysort comparison)."""


@overload(_before)
def _before_in_order(x, y):
    if isinstance(x, t.Complex) or isinstance(y, t.Complex):
        return _complex_before
    return _real_before


@register_jitable
def _real_before(x, y):
    return x < y or (y != y and x == x)


@register_jitable
def _complex_before(x, y):
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    if xr < yr:
        return xi == xi or yi != yi
    if xr > yr:
        return yi != yi and xi == xi
    if xr == yr or (xr != xr and yr != yr):
        return xi < yi or (yi != yi and xi == xi)
    return yr != yr


@register_jitable
def _nans_to_end(x):
    """Move the NaNs of the 1-d x to its end; returns how many items are not NaN."""
    count = x.shape[0]
    i = 0
    while i < count:
        if x[i] != x[i]:
            count -= 1
            x[i], x[count] = x[count], x[i]
        else:
            i += 1
    return count


@register_jitable
def _in_order(x, n):
    """(x[:n] never decreases, x[:n] never increases), with an early exit when neither."""
    rising = falling = True
    for i in range(1, n):
        if x[i] < x[i - 1]:
            rising = False
            if not falling:
                break
        elif x[i - 1] < x[i]:
            falling = False
            if not rising:
                break
    return rising, falling


@register_jitable
def _reverse(x, n):
    for i in range(n // 2):
        x[i], x[n - 1 - i] = x[n - 1 - i], x[i]


def sort_row(x):
    """Sort the C-contiguous 1-d x in place, NaNs last."""


@overload(sort_row)
def _sort_row(x):
    if isinstance(x.dtype, t.Complex):   # by a stable argsort (NumPy's order has 4 classes)
        def sort_by_order(x):
            order = np.empty(x.shape[0], np.int64)
            argsort_row(x, order)
            items = x.copy()
            for i in range(x.shape[0]):
                x[i] = items[order[i]]
        return sort_by_order
    if has_key(x.dtype):
        def large(x, n):
            least, most = x[0], x[0]
            for i in range(1, n):
                least = min(least, x[i])
                most = max(most, x[i])
            if radix_pays(n, span_bytes(sort_key(least), sort_key(most)), x):
                radix_sort(x, n)
            else:
                introsort(x, 0, n)
    else:
        def large(x, n):
            introsort(x, 0, n)
    large = register_jitable(large)

    def sort(x):
        n = _nans_to_end(x)
        if n <= SMALL:
            insertion_sort(x, 0, n)
            return
        rising, falling = _in_order(x, n)
        if falling and not rising:
            _reverse(x, n)
        elif not rising:
            large(x, n)
    return sort


@register_jitable
def _reverse_runs(keys, order, n):
    """order[:n] for keys[:n] that never increase: the runs of equal keys last to first,
    each in its own (increasing) order."""
    out = np.empty(n, np.int64)
    m = 0
    end = n
    while end > 0:
        start = end - 1
        while start > 0 and keys[start - 1] == keys[end - 1]:
            start -= 1
        for i in range(start, end):
            out[m] = order[i]
            m += 1
        end = start
    order[:n] = out


def argsort_row(x, out):
    """Write into the C-contiguous 1-d int64 `out` the stable argsort of the 1-d x."""


@overload(argsort_row)
def _argsort_row(x, out):
    if not has_key(x.dtype):
        def merge_sort(x, out):
            for i in range(x.shape[0]):
                out[i] = i
            _merge_sort_indices(x, out, np.empty(x.shape[0], np.int64))
        return merge_sort

    def argsort(x, out):
        n = x.shape[0]
        keys = new_keys(x, n)
        least, most = no_keys(keys)
        differing = least - least          # the bits in which some key differs from the first
        rising = falling = True
        count = 0
        for i in range(n):
            v = x[i]
            if v != v:                     # NaNs' indices from the end, then reversed
                out[n - 1 - (i - count)] = i
                continue
            k = argsort_key(v)
            if count:
                rising = rising and not k < keys[count - 1]
                falling = falling and not keys[count - 1] < k
                differing |= k ^ keys[0]
            keys[count] = k
            out[count] = i
            count += 1
            least = min(least, k)
            most = max(most, k)
        _reverse(out[count:], n - count)
        if rising:
            return
        if falling:
            _reverse_runs(keys, out, count)
        elif count <= SMALL:
            insertion_sort_pairs(keys, out, 0, count)
        else:
            lowest, nbytes = differing_bytes(differing)
            if radix_pays(count, min(nbytes, span_bytes(least, most)), x):
                sort_pairs(keys[:count], out[:count], least, most, lowest)
            else:
                quicksort_pairs(keys, out, 0, count)
    return argsort


@register_jitable
def _merge_sort_indices(keys, order, scratch):
    """Sort the index array `order` (over `keys`), stably, bottom-up: for dtypes without a
    radix key."""
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
    order = np.empty(keys.shape[0], np.int64)
    argsort_row(keys, order)
    return order


@register_jitable
def _sort_rows(rows):
    """Sort each row of the C-contiguous 2-d `rows` in place."""
    for r in range(rows.shape[0]):
        sort_row(rows[r])


def _sortable(a):
    return isinstance(a, t.Array)


_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _along_last_axis(a, axis, kind):
    """Whether `axis` is a's last (kiln sorts along it only), after checking that `kind` is
    one of NumPy's sort kinds: kiln's sorts give each the same (stable) order, one NumPy's
    kinds also give."""
    if not (kind is None or isinstance(kind, t.NoneType)):
        value = kind if isinstance(kind, str) else getattr(kind, "value", None)
        if value not in _KINDS:
            raise TypingError(f"sort kind must be one of {', '.join(map(repr, _KINDS))} as a "
                              f"constant string (got {kind})")
    return axis == -1 or isinstance(axis, t.IntegerLiteral) and axis.value in (-1, a.ndim - 1)


def _refuse_0d(a):
    """np.sort and a.sort() sort along the last axis, which a 0-d array lacks: NumPy's
    AxisError, as a compile-time error."""
    if a.ndim == 0:
        raise TypingError("axis -1 is out of bounds for array of dimension 0 (a 0-d array "
                          "has no axis to sort along)")


@overload(np.sort)
def _np_sort(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    _refuse_0d(a)
    if not _along_last_axis(a, axis, kind):
        return None

    def sort(a, axis=-1, kind=None):
        out = a.copy()
        if out.size:
            _sort_rows(out.reshape(-1, out.shape[out.ndim - 1]))
        return out
    return sort


@overload_method(t.Array, "sort")
def _sort_in_place(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    _refuse_0d(a)
    if not _along_last_axis(a, axis, kind):
        return None
    if a.readonly:
        raise TypingError(f"cannot sort a read-only array ({a}) in place")

    def sort(a, axis=-1, kind=None):
        if a.size:
            rows = c_contiguous(a).reshape(-1, a.shape[a.ndim - 1])
            _sort_rows(rows)
            a[:] = rows.reshape(a.shape)
    return sort


def _argsort(a, axis=-1, kind=None):
    if not _sortable(a):
        return None
    if not _along_last_axis(a, axis, kind):
        return None
    if a.ndim == 0:   # NumPy: the position of the one item, in a 1-d array
        return lambda a, axis=-1, kind=None: np.zeros(1, np.int64)

    def argsort(a, axis=-1, kind=None):
        rows = c_contiguous(a).reshape(-1, a.shape[a.ndim - 1]) if a.size else \
            c_contiguous(a).reshape(0, 1)
        out = empty_array(rows.shape, np.int64)
        for r in range(rows.shape[0]):
            argsort_row(rows[r], out[r])
        return out.reshape(a.shape)
    return argsort


overload(np.argsort)(_argsort)
overload_method(t.Array, "argsort")(_argsort)


@overload(np.unique)
def _unique(a):
    """The sorted distinct values of the flattened array; NaNs count as one (NumPy 2's
    equal_nan=True): of equal values the first in the array (NumPy's hash table keeps it),
    which the stable sort puts first, and of the complex numbers with a NaN part, which
    the sort does not keep together by position, the first in the array too."""
    if not _sortable(a):
        return None
    dt = a.dtype
    is_complex = isinstance(dt, t.Complex)

    def unique(a):
        flat = in_c_order(a)
        x = np.sort(flat)
        out = empty_array(x.shape[0], dt)
        n = 0
        for i in range(x.shape[0]):
            v = x[i]
            if n == 0 or not (v == out[n - 1] or (v != v and out[n - 1] != out[n - 1])):
                out[n] = v
                n += 1
        if is_complex and n and out[n - 1] != out[n - 1]:
            for i in range(flat.shape[0]):
                if flat[i] != flat[i]:
                    out[n - 1] = flat[i]
                    break
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

"""Comparison sorting of values in place, for np.sort / a.sort() of small rows and of dtypes
that have no radix key (radix_sort.py). The caller has moved NaNs out of the range, so the
comparisons are a plain `<`.

Introsort, as NumPy's and Numba's default quicksort: quicksort with a median-of-3 pivot and
Hoare's partition (it swaps items equal to the pivot, so many duplicates still split in
halves), insertion sort below 17 items, and heapsort for a range that has taken more
rounds than a balanced split needs (so no input is quadratic)."""
from __future__ import annotations

import numpy as np

from ..typing.registry import register_jitable

SMALL = 16


@register_jitable
def insertion_sort(x, lo, hi):
    """Sort x[lo:hi]; stable, quick on short or nearly sorted ranges."""
    for i in range(lo + 1, hi):
        v = x[i]
        j = i - 1
        while j >= lo and v < x[j]:
            x[j + 1] = x[j]
            j -= 1
        x[j + 1] = v


@register_jitable
def _sift_down(x, lo, root, end):
    """Restore the max-heap x[lo:lo+end] below `root` (heap positions count from lo)."""
    v = x[lo + root]
    while True:
        child = 2 * root + 1
        if child >= end:
            break
        if child + 1 < end and x[lo + child] < x[lo + child + 1]:
            child += 1
        if not v < x[lo + child]:
            break
        x[lo + root] = x[lo + child]
        root = child
    x[lo + root] = v


@register_jitable
def heapsort(x, lo, hi):
    n = hi - lo
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(x, lo, root, n)
    for end in range(n - 1, 0, -1):
        x[lo], x[lo + end] = x[lo + end], x[lo]
        _sift_down(x, lo, 0, end)


@register_jitable
def partition(x, lo, hi):
    """Split x[lo:hi] (more than 3 items) around the median of its first, middle and last
    items: returns (end of the left part, start of the right part), every item left of
    the first <= every item right of the second (an item between them is the pivot)."""
    mid = lo + (hi - lo) // 2
    last = hi - 1
    if x[mid] < x[lo]:
        x[mid], x[lo] = x[lo], x[mid]
    if x[last] < x[mid]:
        x[last], x[mid] = x[mid], x[last]
        if x[mid] < x[lo]:
            x[mid], x[lo] = x[lo], x[mid]
    pivot = x[mid]
    i, j = lo, last          # x[lo] <= pivot <= x[last] stop the scans
    while True:
        i += 1
        while x[i] < pivot:
            i += 1
        j -= 1
        while pivot < x[j]:
            j -= 1
        if i >= j:
            break
        x[i], x[j] = x[j], x[i]
    if i == j:               # x[i] equals the pivot: it is in its place
        return i, i + 1
    return j + 1, j + 1


@register_jitable
def introsort(x, lo, hi):
    """Sort x[lo:hi] (no NaN) in place. The larger part of each split waits on a stack and
    the smaller is sorted first, so the stack holds at most log2(n) ranges."""
    if hi - lo <= SMALL:
        insertion_sort(x, lo, hi)
        return
    rounds = 0
    n = hi - lo
    while n > 1:
        rounds += 2
        n >>= 1
    stack = np.empty((64, 3), np.int64)
    top = 0
    while True:
        if hi - lo <= SMALL:
            insertion_sort(x, lo, hi)
        elif rounds == 0:
            heapsort(x, lo, hi)
        else:
            rounds -= 1
            left_end, right_start = partition(x, lo, hi)
            if left_end - lo < hi - right_start:
                stack[top, 0], stack[top, 1], stack[top, 2] = right_start, hi, rounds
                hi = left_end
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = lo, left_end, rounds
                lo = right_start
            top += 1
            continue
        if top == 0:
            return
        top -= 1
        lo, hi, rounds = stack[top, 0], stack[top, 1], stack[top, 2]


# ---- argsort: keys with their indices ------------------------------------------------------

@register_jitable
def _swap_pairs(keys, order, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    order[i], order[j] = order[j], order[i]


@register_jitable
def insertion_sort_pairs(keys, order, lo, hi):
    """Sort keys[lo:hi], stably, and order[lo:hi] with them."""
    for i in range(lo + 1, hi):
        k, o = keys[i], order[i]
        j = i - 1
        while j >= lo and (k < keys[j] or (k == keys[j] and o < order[j])):
            keys[j + 1] = keys[j]
            order[j + 1] = order[j]
            j -= 1
        keys[j + 1] = k
        order[j + 1] = o


@register_jitable
def quicksort_pairs(keys, order, lo, hi):
    """Sort keys[lo:hi], and order[lo:hi] with them, for argsorts too short for radix: a
    quicksort by key alone (one comparison, as Numba's argsort), then the indices of each
    run of equal keys sorted, which gives the stable order. A range that takes more rounds
    than a balanced split needs is insertion-sorted (the caller keeps the ranges short)."""
    _quicksort_pairs(keys, order, lo, hi)
    start = lo
    for i in range(lo + 1, hi + 1):
        if i == hi or keys[i] != keys[start]:
            if i - start > 1:
                introsort(order, start, i)
            start = i


@register_jitable
def _quicksort_pairs(keys, order, lo, hi):
    rounds = 8
    n = hi - lo
    while n > 1:
        rounds += 2
        n >>= 1
    stack = np.empty((64, 3), np.int64)
    top = 0
    while True:
        if hi - lo <= SMALL or rounds == 0:
            insertion_sort_pairs(keys, order, lo, hi)
            if top == 0:
                return
            top -= 1
            lo, hi, rounds = stack[top, 0], stack[top, 1], stack[top, 2]
            continue
        rounds -= 1
        mid = lo + (hi - lo) // 2
        last = hi - 1
        if keys[mid] < keys[lo]:
            _swap_pairs(keys, order, mid, lo)
        if keys[last] < keys[mid]:
            _swap_pairs(keys, order, last, mid)
            if keys[mid] < keys[lo]:
                _swap_pairs(keys, order, mid, lo)
        k = keys[mid]
        i, j = lo, last
        while True:
            i += 1
            while keys[i] < k:
                i += 1
            j -= 1
            while k < keys[j]:
                j -= 1
            if i >= j:
                break
            _swap_pairs(keys, order, i, j)
        left_end, right_start = (i, i + 1) if i == j else (j + 1, j + 1)
        if left_end - lo < hi - right_start:
            stack[top, 0], stack[top, 1], stack[top, 2] = right_start, hi, rounds
            hi = left_end
        else:
            stack[top, 0], stack[top, 1], stack[top, 2] = lo, left_end, rounds
            lo = right_start
        top += 1

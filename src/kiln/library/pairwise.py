"""NumPy's pairwise summation, the order in which `np.sum` adds the items of a contiguous
float array, and that sum split across threads in `parallel=True` functions without
changing a bit: the split follows the pairwise recursion itself.

NumPy sums n > 128 items as the sum of the first `half(n)` and the rest, recursively;
blocks of at most 128 are added eight ways. Cutting the recursion tree at a fixed depth
gives PIECES subtrees whose sums, computed on any threads and joined in the tree's order,
are NumPy's sum exactly, whatever the thread count (split.py runs them).
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from .arrays import item_in_range
from ..typing.registry import overload, register_jitable
from .split import PIECES, SPLIT_ITEMS, add, split_reduction  # noqa: F401 (SPLIT_ITEMS: tests)

BLOCK = 128                    # NumPy's pairwise summation block
DEPTH = PIECES.bit_length() - 1  # levels of the recursion cut for threads: a leaf a piece


@register_jitable
def _added_in_order(x, lo, hi, total):
    """total + x[lo] + ... + x[hi - 1], one at a time: a short block and a block's tail."""
    for i in range(lo, hi):
        total += item_in_range(x, i)
    return total


@register_jitable
def _block_sum(x, start, n, zero):
    if n < 8:
        return _added_in_order(x, start, start + n, zero)
    r0, r1 = item_in_range(x, start), item_in_range(x, start + 1)
    r2, r3 = item_in_range(x, start + 2), item_in_range(x, start + 3)
    r4, r5 = item_in_range(x, start + 4), item_in_range(x, start + 5)
    r6, r7 = item_in_range(x, start + 6), item_in_range(x, start + 7)
    i = start + 8
    stop = start + n - n % 8
    while i < stop:
        r0 += item_in_range(x, i)
        r1 += item_in_range(x, i + 1)
        r2 += item_in_range(x, i + 2)
        r3 += item_in_range(x, i + 3)
        r4 += item_in_range(x, i + 4)
        r5 += item_in_range(x, i + 5)
        r6 += item_in_range(x, i + 6)
        r7 += item_in_range(x, i + 7)
        i += 8
    # from zero, as NumPy's reduction starts from the identity: the sum of -0.0s is 0.0
    total = zero + (((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7)))
    return _added_in_order(x, i, start + n, total)


@register_jitable
def _half(n):
    half = n // 2
    return half - half % 8


@register_jitable
def _complex_block_sum(x, start, n, zero):
    """NumPy sums complex items as their interleaved parts, eight floats at a time: four
    complex accumulators."""
    if n < 4:
        return _added_in_order(x, start, start + n, zero)
    r0, r1 = item_in_range(x, start), item_in_range(x, start + 1)
    r2, r3 = item_in_range(x, start + 2), item_in_range(x, start + 3)
    i = start + 4
    stop = start + n - n % 4
    while i < stop:
        r0 += item_in_range(x, i)
        r1 += item_in_range(x, i + 1)
        r2 += item_in_range(x, i + 2)
        r3 += item_in_range(x, i + 3)
        i += 4
    total = zero + ((r0 + r1) + (r2 + r3))
    return _added_in_order(x, i, start + n, total)


@register_jitable
def _complex_half(n):
    return (n - n % 8) // 2


def _tree(zero):
    """(block size, block sum, left part of n items) of NumPy's pairwise recursion for
    items of zero's type: a complex item counts as two floats (blocks of 64, split where the
    floats split)."""
    if isinstance(zero, t.Complex):
        return BLOCK // 2, _complex_block_sum, _complex_half
    return BLOCK, _block_sum, _half


def _block_size(zero):
    """The largest count NumPy adds up as one block (compiled code only)."""


def _block_total(x, start, n, zero):
    """The sum of one block, as NumPy adds it (compiled code only)."""


def _left_part(n, zero):
    """How many of n items the left half of NumPy's recursion takes (compiled code only)."""


@overload(_block_size)
def _block_size_of(zero):
    size = _tree(zero)[0]
    return lambda zero: size


@overload(_block_total)
def _block_total_of(x, start, n, zero):
    block_sum = _tree(zero)[1]
    return lambda x, start, n, zero: block_sum(x, start, n, zero)


@overload(_left_part)
def _left_part_of(n, zero):
    left = _tree(zero)[2]
    return lambda n, zero: left(n)


@register_jitable
def pairwise_sum(x, first, n, zero):
    """NumPy's pairwise summation of x[first:first + n] (a 1-d array; no view is made, so
    summing many short rows costs no more than their elements): blocks of 128 summed eight
    ways (64 complex items four ways), joined as a binary tree (its recursion walked with an
    explicit stack, left before right)."""
    block = _block_size(zero)
    if n <= block:
        return _block_total(x, first, n, zero)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stages = np.empty(64, np.int64)   # 1: summing the left half; 2: the right half
    lefts = np.full(64, zero)
    top = 0
    starts[0], sizes[0] = first, n
    while True:
        start, size = starts[top], sizes[top]
        if size > block:
            stages[top] = 1
            starts[top + 1], sizes[top + 1] = start, _left_part(size, zero)
            top += 1
            continue
        result = _block_total(x, start, size, zero)
        top -= 1
        while top >= 0 and stages[top] == 2:
            result = lefts[top] + result
            top -= 1
        if top < 0:
            return result
        lefts[top] = result
        stages[top] = 2
        half = _left_part(sizes[top], zero)
        starts[top + 1], sizes[top + 1] = starts[top] + half, sizes[top] - half
        top += 1


@register_jitable
def _leaf_sum(x, leaf, zero):
    """The sum of the subtree `leaf` (its path from the root, most significant bit first)
    of the recursion for all of x."""
    start, size = 0, x.shape[0]
    for level in range(DEPTH - 1, -1, -1):
        half = _half(size)
        if (leaf >> level) & 1:
            start += half
            size -= half
        else:
            size = half
    return pairwise_sum(x, start, size, zero)


@register_jitable
def _whole_sum(x, zero):
    return pairwise_sum(x, 0, x.shape[0], zero)


# NumPy's sum of the 1-d float array x from `zero`, across the threads in a parallel=True
# function when x is long (complex sums stay serial: NumPy pairs their parts its own way)
pairwise_total = split_reduction(
    "float sum (pairwise)", _whole_sum, _leaf_sum, add,
    splittable=lambda x, zero: x.dtype == zero and isinstance(zero, t.Float))

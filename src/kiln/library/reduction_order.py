"""The order in which NumPy's whole-array reductions (`np.sum(a)`, `np.mean(a)`, `np.prod`)
visit an array's items and hand them to the inner loop, so that float sums of any layout
agree bit for bit.

NumPy's reduction iterator orders the axes by |stride| (axes.iterator_order; negative
strides are not flipped: each axis runs forwards), merges axes that are contiguous with
each other, and then picks its inner loop by the cost model of its buffer setup
(nditer_constr.c, npyiter_find_buffering_setup, NumPy 2.3 and later): one contiguous or
evenly strided run is passed whole; a short innermost run is copied, a block of runs at a
time, into a buffer of 8192 items; a conversion (float16 summed in float32, integers in
float64) always goes through that buffer. The add loop sums each call pairwise and adds it
to the running total, which is stored in the result's dtype between calls."""
from __future__ import annotations

import numpy as np

from .allocation import empty_array, flat_view
from .arrays import item_in_range
from .axes import copy_order, iterator_order, permuted
from .pairwise import pairwise_sum
from ..typing.registry import overload, register_jitable

BUFFER = 8192   # NumPy's default buffer size, in items


@register_jitable
def inner_calls(shape, strides, cast):
    """(block, step): NumPy's reduction iterator over an array of this shape and strides
    visits its items (in iteration order) in blocks of `block` items, passing each block to
    the inner loop in calls of at most `step` items; `cast` when the items are converted."""
    sizes = np.empty(len(shape) + 1, np.int64)
    gaps = np.empty(len(shape) + 1, np.int64)
    dims = 0
    for d in iterator_order(shape, (strides,)):   # the axes longer than 1, merged
        if shape[d] == 0:
            return 0, 1
        if shape[d] != 1:
            if dims > 0 and gaps[dims - 1] * sizes[dims - 1] == strides[d]:
                sizes[dims - 1] *= shape[d]
            else:
                sizes[dims], gaps[dims] = shape[d], strides[d]
                dims += 1
    if dims == 0:
        sizes[0], dims = 1, 1
    # npyiter_find_buffering_setup: the cost of buffering (1 + buffered operands) against the
    # items per call; after merging, every further axis needs the input buffered
    cost = 2 if cast else 1
    size = sizes[0]
    best_cost, best_core, best_size, best_dim = cost, 1, size, 0
    for dim in range(1, dims):
        if size >= BUFFER and cost > 1:
            break
        cost = 2
        core = size
        size *= sizes[dim]
        if cost * best_size <= best_cost * min(size, BUFFER):
            best_cost, best_core, best_size, best_dim = cost, core, size, dim
    if not cast and best_dim == 0:
        return best_size, best_size     # unbuffered: each run in one call
    if best_size > BUFFER:
        return best_size, best_core * (BUFFER // best_core)
    return best_size, best_size


def calls_of(a, cast):
    """inner_calls for the array `a` (compiled code only)."""


@overload(calls_of)
def _calls_of(a, cast):
    if a.layout in "CF":    # one contiguous run
        def contiguous(a, cast):
            return a.size, (min(a.size, BUFFER) if cast else a.size)
        return contiguous
    return lambda a, cast: inner_calls(a.shape, a.strides, cast)


def in_iteration_order(a):
    """a's items in the order NumPy's reduction iterator visits them, as a 1-d array, which
    is also the memory order of a new array NumPy makes from `a` (order 'K'); compiled code
    only."""


def in_copy_order(a):
    """a's items in the memory order of NumPy's copy of `a` (np.array(a)), as a 1-d array;
    compiled code only."""


def items_in_order(a, order):
    """a's items, its axes taken in `order` (innermost first, each running forwards), as a
    1-d C array: a itself when that is its memory order (compiled code only)."""


@overload(items_in_order)
def _items_in_order(a, order):
    dt, ndim, c_order = a.dtype, a.ndim, a.layout == "C"

    def in_order(a, order):
        if c_order:
            unmoved = True
            for i in range(ndim):
                unmoved &= order[i] == ndim - 1 - i
            if unmoved:
                return flat_view(a)
        view = permuted(a, order[::-1].copy())
        x = empty_array(view.shape, dt)
        x[:] = view
        return flat_view(x)
    return in_order


def _ordered(order_of):
    def ov(a):
        if a.layout == "C":
            return lambda a: flat_view(a)
        if a.layout == "F":
            return lambda a: flat_view(a.T)
        return lambda a: items_in_order(a, order_of(a.shape, a.strides))
    return ov


@register_jitable
def _iteration_axes(shape, strides):
    return iterator_order(shape, (strides,))


overload(in_iteration_order)(_ordered(_iteration_axes))
overload(in_copy_order)(_ordered(copy_order))


@register_jitable
def total_in_calls(x, zero, block, step, dt):
    """NumPy's sum of the 1-d x (items of zero's type, in iteration order) called as
    inner_calls says: each call summed pairwise from `zero` and added to the total, which
    is rounded to dt between calls (float16 totals of float32 calls). The caller takes one
    call as `pairwise_total`, which splits it across the threads of a parallel function."""
    n = x.shape[0]
    total = dt(0)
    for first in range(0, n, block):
        for start in range(first, first + block, step):
            total = dt(total + pairwise_sum(x, start, min(step, first + block - start), zero))
    return total


@register_jitable
def cast_total_in(x, zero, block, step):
    """The sum NumPy takes of the 1-d x in another dtype, zero's (the float64 sum of `mean`
    of integers, the float32 one of float16): each call's items converted into a buffer and
    summed pairwise, calls as inner_calls says."""
    total = zero
    if x.shape[0] == 0:
        return total
    chunk = np.full(min(x.shape[0], step), zero)
    for first in range(0, x.shape[0], block):
        for start in range(first, first + block, step):
            n = min(step, first + block - start)
            for i in range(n):
                chunk[i] = item_in_range(x, start + i)
            total += pairwise_sum(chunk, 0, n, zero)
    return total

"""Whole-array reductions: sum, prod, mean, min, max, argmin, argmax, any, all, as NumPy
functions and as array methods. Result types are NumPy's (the sum of int8 is int64, of
float32 is float32); float sums use NumPy's pairwise summation, so they agree bit for bit.
A non-contiguous array is reduced through a contiguous copy. (`axis=` is not supported
yet.)"""
from __future__ import annotations

import numpy as np

from .. import types as t
from .allocation import empty_array, flat_view
from .arrays import item_in_range
from .registry import overload, overload_method, register_jitable

_BLOCK = 128  # NumPy's pairwise summation block


def as_flat(a):
    """The elements of `a` in the order NumPy reduces them, as a 1-d array (compiled code
    only)."""


def in_c_order(a):
    """The elements of `a` in C order (flat indices), as a 1-d array (compiled code only)."""


@overload(as_flat)
def _as_flat(a):
    """C order for C arrays; memory order for Fortran ones, as NumPy reduces them."""
    if a.layout == "F":
        return lambda a: flat_view(a.T)
    return _in_c_order(a)


@overload(in_c_order)
def _in_c_order(a):
    if a.layout == "C":
        return lambda a: flat_view(a)
    dt = a.dtype

    def copy_then_flatten(a):
        out = empty_array(a.shape, dt)
        out[:] = a
        return flat_view(out)
    return copy_then_flatten


@register_jitable
def _block_sum(x, start, n, zero):
    if n < 8:
        total = zero
        for i in range(start, start + n):
            total += item_in_range(x, i)
        return total
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
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += item_in_range(x, i)
        i += 1
    return total


@register_jitable
def _half(n):
    half = n // 2
    return half - half % 8


@register_jitable
def pairwise_sum(x, zero):
    """NumPy's pairwise summation of a 1-d array: blocks of 128 summed eight ways, joined
    as a binary tree (its recursion walked with an explicit stack, left before right)."""
    n = x.shape[0]
    if n <= _BLOCK:
        return _block_sum(x, 0, n, zero)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stages = np.empty(64, np.int64)   # 1: summing the left half; 2: the right half
    lefts = np.full(64, zero)
    top = 0
    starts[0], sizes[0] = 0, n
    while True:
        start, size = starts[top], sizes[top]
        if size > _BLOCK:
            stages[top] = 1
            starts[top + 1], sizes[top + 1] = start, _half(size)
            top += 1
            continue
        result = _block_sum(x, start, size, zero)
        top -= 1
        while top >= 0 and stages[top] == 2:
            result = lefts[top] + result
            top -= 1
        if top < 0:
            return result
        lefts[top] = result
        stages[top] = 2
        half = _half(sizes[top])
        starts[top + 1], sizes[top + 1] = starts[top] + half, sizes[top] - half
        top += 1


def _result_dtype(a, method):
    """The dtype NumPy gives this reduction of an array of a's dtype."""
    return t.from_dtype(np.asarray(getattr(np.zeros(1, a.dtype.np_dtype), method)()).dtype)


def _reduction(method):
    """Register one overload as `np.<method>(a)` and as the method `a.<method>()`."""
    def register(ov):
        def on_arrays(a):
            return ov(a) if isinstance(a, t.Array) else None
        overload(getattr(np, method))(on_arrays)
        overload_method(t.Array, method)(on_arrays)
        return ov
    return register


@_reduction("sum")
def _sum(a):
    dt = _result_dtype(a, "sum")
    if isinstance(dt, (t.Float, t.Complex)) and dt == a.dtype:
        def float_sum(a):
            return pairwise_sum(as_flat(a), dt(0))
        return float_sum
    if isinstance(dt, (t.Float, t.Complex)):
        return None  # float16 sums in float32 pieces: not yet

    def int_sum(a):
        total = dt(0)
        for v in as_flat(a):
            total += v
        return total
    return int_sum


_CHUNK = 8192  # NumPy's buffer: an integer array is converted and summed in pieces this long


@register_jitable
def _float_total(x):
    """The float64 sum NumPy's `mean` takes of an integer array, piece by piece."""
    chunk = np.empty(min(x.shape[0], _CHUNK), np.float64)
    total = 0.0
    for start in range(0, x.shape[0], _CHUNK):
        n = min(_CHUNK, x.shape[0] - start)
        for i in range(n):
            chunk[i] = x[start + i]
        total += pairwise_sum(chunk[:n], 0.0)
    return total


@_reduction("mean")
def _mean(a):
    dt = _result_dtype(a, "mean")
    if isinstance(a.dtype, (t.Float, t.Complex)) and dt == a.dtype:
        def float_mean(a):
            x = as_flat(a)
            return pairwise_sum(x, dt(0)) / dt(x.shape[0])
        return float_mean
    if isinstance(a.dtype, (t.Integer, t.Boolean)):
        def int_mean(a):
            x = as_flat(a)
            return _float_total(x) / x.shape[0] if x.shape[0] else np.nan
        return int_mean
    return None


@_reduction("prod")
def _prod(a):
    dt = _result_dtype(a, "prod")

    def prod(a):
        total = dt(1)
        for v in as_flat(a):
            total *= v
        return total
    return prod


def _extreme(method, better):
    message = ("zero-size array to reduction operation "
               f"{dict(min='minimum', max='maximum')[method]} which has no identity")

    def ov(a):
        def extreme(a):
            x = as_flat(a)
            if x.shape[0] == 0:
                raise ValueError(message)
            best = x[0]
            for v in x:
                if v != v:
                    return v
                if better(v, best):
                    best = v
            return best
        return extreme
    return ov


def _less(a, b):
    return a < b


def _greater(a, b):
    return a > b


register_jitable(_less)
register_jitable(_greater)
_reduction("min")(_extreme("min", _less))
_reduction("max")(_extreme("max", _greater))
_reduction("amin")(_extreme("min", _less))
_reduction("amax")(_extreme("max", _greater))


def _arg_extreme(method, better):
    message = f"attempt to get {method} of an empty sequence"

    def ov(a):
        def arg_extreme(a):
            x = in_c_order(a)
            if x.shape[0] == 0:
                raise ValueError(message)
            best, where = x[0], 0
            for i in range(x.shape[0]):
                v = x[i]
                if v != v:
                    return i
                if better(v, best):
                    best, where = v, i
            return where
        return arg_extreme
    return ov


_reduction("argmin")(_arg_extreme("argmin", _less))
_reduction("argmax")(_arg_extreme("argmax", _greater))


@_reduction("any")
def _any(a):
    def any_(a):
        for v in as_flat(a):
            if v:
                return True
        return False
    return any_


@_reduction("all")
def _all(a):
    def all_(a):
        for v in as_flat(a):
            if not v:
                return False
        return True
    return all_

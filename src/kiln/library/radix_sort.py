"""Radix sorting for np.sort and np.argsort of integers, booleans and float32/float64.

Each value maps to an unsigned key of its size whose unsigned order is the value's order
(`sort_key`: the sign bit flipped for signed integers; for floats the sign bit set on
positives and all bits inverted on negatives, NaNs excluded by the caller). The keys less
their minimum are sorted one byte at a time from the lowest (LSD radix: each pass is a
stable scatter into 256 buckets), skipping the bytes all keys share, so a small range of
integers takes one or two passes. Linear time, no comparisons to mispredict, and stable,
which is what argsort needs to give NumPy's order of equal keys (kind="stable"). A pass
costs about as much as a few comparisons per item, so short rows are sorted by
comparisons instead (`radix_pays`)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..typing.registry import overload, register_jitable


def has_key(dt):
    return isinstance(dt, (t.Integer, t.Boolean)) or dt in (t.float32, t.float64)


def sort_key(v):
    """The unsigned key of v (not NaN): keys order as the values do, -0.0 before 0.0."""


def argsort_key(v):
    """`sort_key`, with -0.0 and 0.0 one key (they are equal: argsort keeps their order)."""


def from_key(k, x):
    """The value of x's dtype whose `sort_key` is k."""


def new_keys(x, n):
    """An uninitialized array for n keys of x's items."""


def radix_pays(n, nbytes, x):
    """Whether radix beats comparison sorting for n keys of x's items that differ in
    `nbytes` bytes (measured: a pass over 4-byte keys is cheaper than over 8-byte)."""


def no_keys(keys):
    """(the largest key, the smallest key) of keys' type: the minimum and maximum of no keys."""


def _unsigned(dt):
    return np.uint64 if dt.np_dtype.itemsize == 8 else np.uint32


@overload(new_keys)
def _new_keys(x, n):
    if has_key(x.dtype):
        u = _unsigned(x.dtype)
        return lambda x, n: np.empty(n, u)
    return None


@overload(radix_pays)
def _radix_pays(n, nbytes, x):
    per_byte = 128 if x.dtype.np_dtype.itemsize == 8 else 96
    return lambda n, nbytes, x: n >= per_byte * nbytes


@overload(no_keys)
def _no_keys(keys):
    u = keys.dtype.np_dtype.type
    largest = int(np.iinfo(u).max)
    return lambda keys: (u(largest), u(0))


@overload(sort_key)
def _sort_key(v):
    if v == t.float64:
        def float64_key(v):
            b = v.view(np.uint64)
            return ~b if b >> np.uint64(63) else b | (np.uint64(1) << np.uint64(63))
        return float64_key
    if v == t.float32:
        def float32_key(v):
            b = v.view(np.uint32)     # uint32 arithmetic widens: cut back to 32 bits
            return np.uint32(~b if b >> 31 else b | 0x80000000)
        return float32_key
    if isinstance(v, t.Boolean):
        return lambda v: np.uint32(1) if v else np.uint32(0)
    if isinstance(v, t.Integer):
        u = _unsigned(v)
        if not v.signed:
            return lambda v: u(v)
        if v.np_dtype.itemsize == 8:
            return lambda v: np.uint64(v) ^ (np.uint64(1) << np.uint64(63))
        low = int(np.iinfo(v.np_dtype).min)
        return lambda v: np.uint32(np.int64(v) - low)
    return None


@overload(argsort_key)
def _argsort_key(v):
    if isinstance(v, t.Float):
        return lambda v: sort_key(abs(v)) if v == 0 else sort_key(v)
    return lambda v: sort_key(v)


@overload(from_key)
def _from_key(k, x):
    dt = x.dtype
    if dt == t.float64:
        def float64_value(k, x):
            b = k ^ (np.uint64(1) << np.uint64(63)) if k >> np.uint64(63) else ~k
            return b.view(np.float64)
        return float64_value
    if dt == t.float32:
        def float32_value(k, x):
            k = np.uint32(k)
            return np.uint32(k ^ 0x80000000 if k >> 31 else ~k).view(np.float32)
        return float32_value
    if isinstance(dt, t.Boolean):
        return lambda k, x: k != 0
    if isinstance(dt, t.Integer):
        T = dt.np_dtype.type
        if not dt.signed:
            return lambda k, x: T(k)
        if dt.np_dtype.itemsize == 8:
            return lambda k, x: np.int64(k ^ (np.uint64(1) << np.uint64(63)))
        low = int(np.iinfo(dt.np_dtype).min)
        return lambda k, x: T(np.int64(k) + low)
    return None


@register_jitable
def span_bytes(least, most):
    """How many low bytes hold most - least (keys; a shift gives an int64: the same bits):
    an upper bound on the passes sorting keys between them takes."""
    span = most - least
    nbytes = 0
    while nbytes < 8 and (span >> (8 * nbytes)) != 0:
        nbytes += 1
    return nbytes


@register_jitable
def differing_bytes(differing):
    """(the lowest byte set in `differing`, how many bytes are set): for the OR of each
    key XOR the first, the lowest byte in which keys differ and the passes they need."""
    lowest, total = 8, 0
    for b in range(8):
        if (differing >> (8 * b)) & 255 != 0:
            lowest = min(lowest, b)
            total += 1
    return lowest, total


@register_jitable
def _byte_counts(keys, least, lowest, nbytes):
    """Subtract `least` from each key; count, for each of the bytes lowest .. nbytes - 1
    (the lower ones all keys share), the keys with each value of that byte."""
    counts = np.zeros((max(nbytes, 1), 256), np.int64)
    for i in range(keys.shape[0]):
        k = keys[i] - least
        keys[i] = k
        for b in range(lowest, nbytes):
            counts[b, (k >> (8 * b)) & 255] += 1
    return counts


@register_jitable
def _starts(counts, b, starts):
    """Where each bucket of byte b begins (the counts of the smaller buckets, summed)."""
    total = 0
    for d in range(256):
        starts[d] = total
        total += counts[b, d]


@register_jitable
def sort_keys(keys, least, most):
    """Sort `keys` (between least and most); returns the sorted keys less `least`, in
    `keys` or in a new array."""
    n = keys.shape[0]
    nbytes = span_bytes(least, most)
    counts = _byte_counts(keys, least, 0, nbytes)
    source, target = keys, np.empty_like(keys)
    starts = np.empty(256, np.int64)
    for b in range(nbytes):
        if counts[b, (source[0] >> (8 * b)) & 255] == n:
            continue                      # all keys share this byte
        _starts(counts, b, starts)
        shift = 8 * b
        for i in range(n):
            k = source[i]
            d = (k >> shift) & 255
            p = starts[d]
            target[p] = k
            starts[d] = p + 1
        source, target = target, source
    return source


@register_jitable
def sort_pairs(keys, order, least, most, lowest):
    """Sort `keys` (between least and most, all alike below byte `lowest`), stably, and
    `order` with them, in place."""
    n = keys.shape[0]
    nbytes = span_bytes(least, most)
    counts = _byte_counts(keys, least, lowest, nbytes)
    source, target = keys, np.empty_like(keys)
    source_order, target_order = order, np.empty_like(order)
    odd = False
    starts = np.empty(256, np.int64)
    for b in range(lowest, nbytes):
        if counts[b, (source[0] >> (8 * b)) & 255] == n:
            continue
        _starts(counts, b, starts)
        shift = 8 * b
        for i in range(n):
            k = source[i]
            d = (k >> shift) & 255
            p = starts[d]
            target[p] = k
            target_order[p] = source_order[i]
            starts[d] = p + 1
        source, target = target, source
        source_order, target_order = target_order, source_order
        odd = not odd
    if odd:
        order[:] = source_order


@register_jitable
def radix_sort(x, n):
    """Sort x[:n] (no NaN) in place."""
    keys = new_keys(x, n)
    least, most = no_keys(keys)
    for i in range(n):
        k = sort_key(x[i])
        keys[i] = k
        least = min(least, k)
        most = max(most, k)
    done = sort_keys(keys, least, most)
    for i in range(n):
        x[i] = from_key(done[i] + least, x)

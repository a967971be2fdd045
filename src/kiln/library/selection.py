"""Indexing with arrays: a boolean mask of the array's shape (`x[x > 0]`, `x[mask] = 0`) and
an integer array along the first axis (`x[idx]`, `x[idx] = v`). As in NumPy the result is a
new array (a copy, not a view), negative indices count from the end, and an index out of
range is an IndexError."""
from __future__ import annotations

import operator

import numpy as np

from .. import types as t
from .allocation import empty_array, flat_view
from .arrays import item_in_range
from .reductions import c_contiguous, in_c_order
from .registry import intrinsic, overload, register_jitable
from .split import add, by_ranges


def _is_mask(a, index):
    return isinstance(index, t.Array) and isinstance(index.dtype, t.Boolean) and \
        index.ndim == a.ndim


def _is_positions(index):
    return isinstance(index, t.Array) and isinstance(index.dtype, t.Integer) and index.ndim == 1


@intrinsic
def with_first(typingctx, shape, first):
    """`shape` with its first item replaced by `first`."""
    if not (isinstance(shape, t.UniTuple) and shape.dtype == t.int64 and
            isinstance(first, t.Integer)):
        return None

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[1], first, t.int64)
        return builder.insert_value(args[0], value, 0)
    return shape(shape, first), codegen


@register_jitable
def _check_mask(a, mask):
    if a.shape != mask.shape:
        raise IndexError("boolean index did not match indexed array in shape")


@register_jitable
def _position(i, size):
    j = i + size if i < 0 else i
    if j < 0 or j >= size:
        raise IndexError("index is out of bounds for axis 0")
    return j


@overload(operator.getitem)
def _getitem(a, index):
    if not isinstance(a, t.Array):
        return None
    dt = a.dtype
    if _is_mask(a, index):
        def select(a, index):
            _check_mask(a, index)
            x, keep = in_c_order(a), in_c_order(index)
            out = empty_array(np.count_nonzero(keep), dt)
            k = 0
            for i in range(x.shape[0]):
                if keep[i]:
                    out[k] = x[i]
                    k += 1
            return out
        return select
    if _is_positions(index):
        def take(a, index):
            rows = c_contiguous(a).reshape(a.shape[0], -1)
            out = empty_array((index.shape[0], rows.shape[1]), dt)
            for k in range(index.shape[0]):
                out[k] = rows[_position(index[k], a.shape[0])]
            return out.reshape(with_first(a.shape, index.shape[0]))
        return take
    return None


@overload(operator.setitem)
def _setitem(a, index, value):
    if not isinstance(a, t.Array) or a.readonly:
        return None
    if _is_mask(a, index) and a.layout != "C":
        def through_copy(a, index, value):  # written in C order, then copied back
            c = a.copy()
            c[index] = value
            a[:] = c
        return through_copy
    if _is_mask(a, index):
        if isinstance(value, t.Number):
            def fill(a, index, value):
                _check_mask(a, index)
                x, keep = flat_view(a), in_c_order(index)
                for i in range(x.shape[0]):
                    if keep[i]:
                        x[i] = value
            return fill
        if isinstance(value, t.Array):
            def scatter(a, index, value):
                _check_mask(a, index)
                x, keep, source = flat_view(a), in_c_order(index), in_c_order(value)
                if source.shape[0] != np.count_nonzero(keep) and source.shape[0] != 1:
                    raise ValueError("NumPy boolean array indexing assignment cannot assign "
                                     "these values: their size differs from the mask's count")
                k = 0
                for i in range(x.shape[0]):
                    if keep[i]:
                        x[i] = source[k if source.shape[0] > 1 else 0]
                        k += 1
            return scatter
        return None
    if _is_positions(index) and a.ndim == 1:
        if isinstance(value, t.Number):
            def put(a, index, value):
                for k in range(index.shape[0]):
                    a[_position(index[k], a.shape[0])] = value
            return put
        if isinstance(value, t.Array) and value.ndim == 1:
            def put_each(a, index, value):
                if value.shape[0] != index.shape[0] and value.shape[0] != 1:
                    raise ValueError("shape mismatch: value array could not be broadcast to "
                                     "indexing result")
                source = value.copy()  # the values may be a view of `a`
                for k in range(index.shape[0]):
                    a[_position(index[k], a.shape[0])] = source[k if source.shape[0] > 1 else 0]
            return put_each
    return None


@register_jitable
def _range_count(x, lo, hi, seed):
    n = 0
    for i in range(lo, hi):
        if item_in_range(x, i):
            n += 1
    return n


_split_count = by_ranges("count_nonzero", _range_count, add)


@overload(np.count_nonzero)
def _count_nonzero(a):
    if not isinstance(a, t.Array):
        return None
    return lambda a: _split_count(in_c_order(a), 0)

"""Working along one axis of an N-d array (`np.sum(a, axis=1)`, `np.cumsum(a, axis=0)`):
the axis checked as NumPy checks it, and the array seen as (outer, n, inner) around that
axis, so one loop nest written in Python serves every number of dimensions."""
from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .arrays import ArrayValue, make_array
from ..typing.registry import intrinsic, overload, register_jitable

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    from numpy import AxisError


@functools.lru_cache(maxsize=None)
def axis_normalizer(ndim):
    """A compiled `normalize(axis)` for arrays of `ndim` dimensions: the axis in
    0..ndim-1 (negative counts from the end), else NumPy's AxisError (a ValueError and an
    IndexError)."""
    message = f"axis is out of bounds for array of dimension {ndim}"

    def normalize(axis):
        if axis < -ndim or axis >= ndim:
            raise AxisError(message)
        return axis + ndim if axis < 0 else axis
    return register_jitable(normalize)


@intrinsic
def around_axis(typingctx, arr, axis):
    """(the C-contiguous `arr` as a 3-d view (outer, n, inner) with n the length of `axis`,
    the shape of `arr` without that axis)."""
    if not (isinstance(arr, t.Array) and arr.layout == "C" and arr.ndim >= 1 and
            isinstance(axis, t.Integer)):
        return None
    view_ty = arr.copy(ndim=3)
    shape_ty = t.UniTuple(t.int64, arr.ndim - 1)
    result = t.Tuple((view_ty, shape_ty))

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        k = context.cast(builder, args[1], axis, t.int64)
        one = ir.Constant(dm.i64, 1)
        outer, n, inner = one, one, one
        sizes = [a.shape(d) for d in range(arr.ndim)]
        for d, size in enumerate(sizes):
            at = ir.Constant(dm.i64, d)
            outer = builder.mul(outer, builder.select(builder.icmp_signed("<", at, k), size, one))
            n = builder.select(builder.icmp_signed("==", at, k), size, n)
            inner = builder.mul(inner, builder.select(builder.icmp_signed(">", at, k), size, one))
        itemsize = ir.Constant(dm.i64, arr.dtype.np_dtype.itemsize)
        strides = [builder.mul(builder.mul(n, inner), itemsize), builder.mul(inner, itemsize),
                   itemsize]
        view = make_array(context, builder, view_ty, a.field(dm.ARRAY_DATA), [outer, n, inner],
                          strides, meminfo=a.field(dm.ARRAY_MEMINFO),
                          parent=a.field(dm.ARRAY_PARENT))
        kept = ir.Constant(dm.value_type(shape_ty), ir.Undefined)
        for j in range(arr.ndim - 1):
            before = builder.icmp_signed("<", ir.Constant(dm.i64, j), k)
            kept = builder.insert_value(kept, builder.select(before, sizes[j], sizes[j + 1]), j)
        return context.make_tuple(builder, result, [view, kept])
    return result(arr, axis), codegen


def normalized_axis(context, builder, axis, axis_ty, ndim):
    """In generated code: `axis` in 0..ndim-1 (negative counts from the end), else
    NumPy's AxisError."""
    k = context.cast(builder, axis, axis_ty, t.int64)
    out_of_range = builder.or_(builder.icmp_signed("<", k, ir.Constant(dm.i64, -ndim)),
                               builder.icmp_signed(">=", k, ir.Constant(dm.i64, ndim)))
    context.guard(builder, out_of_range, AxisError,
                  f"axis is out of bounds for array of dimension {ndim}")
    negative = builder.icmp_signed("<", k, ir.Constant(dm.i64, 0))
    return builder.select(negative, builder.add(k, ir.Constant(dm.i64, ndim)), k)


def along_innermost(a, k):
    """Whether NumPy's reduction of the array `a` along axis k runs its innermost loop
    along k, summing each lane pairwise (else it adds the lanes in order: out[j] += x[i, j]);
    compiled code only."""


@register_jitable
def iterator_order(shape, operands):
    """The axes as NumPy's iterator over `shape` with these operands' strides (a tuple of
    stride tuples) orders them, innermost first: from C order by a stable insertion sort on
    |stride|, an axis of length 1 or stride 0 comparing with none, and C order winning where
    operands disagree; negative strides are not flipped. A new array NumPy's ufuncs make
    (order 'K') is laid out in this order, each axis running forwards."""
    ndim = len(shape)
    perm = np.arange(ndim)[::-1].copy()   # innermost first
    for i0 in range(1, ndim):
        j0, place = perm[i0], i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous, swap = True, False
            for strides in operands:
                s0 = abs(strides[j0]) if shape[j0] != 1 else 0
                s1 = abs(strides[j1]) if shape[j1] != 1 else 0
                if s0 != 0 and s1 != 0:
                    swap = s1 > s0 and (ambiguous or swap)
                    ambiguous = False
            if not ambiguous:
                if not swap:
                    break
                place = i1
        for i in range(i0, place, -1):
            perm[i] = perm[i - 1]
        perm[place] = j0
    return perm


@register_jitable
def innermost_of(shape, operands, k):
    """Whether NumPy's iterator over `shape` with these operands' strides has axis k
    innermost of the axes longer than 1 (iterator_order)."""
    for d in iterator_order(shape, operands):
        if shape[d] != 1:
            return d == k
    return True


@register_jitable
def copy_order(shape, strides):
    """The axes as NumPy lays out its copy of an array (np.array(a), order 'K'), innermost
    first: by |stride|, a tie going to the earlier axis outside, so a broadcast axis
    (stride 0) is innermost."""
    ndim = len(shape)
    perm = np.arange(ndim)[::-1].copy()
    for i0 in range(1, ndim):   # stable insertion sort, rising |stride|
        j0, i = perm[i0], i0
        while i > 0 and abs(strides[perm[i - 1]]) > abs(strides[j0]):
            perm[i] = perm[i - 1]
            i -= 1
        perm[i] = j0
    return perm


@intrinsic
def permuted(typingctx, arr, order):
    """A view of `arr` with its axes in `order` (a 1-d int64 C array of ndim axes, the
    outermost first): np.transpose(arr, order)."""
    if not (isinstance(arr, t.Array) and isinstance(order, t.Array) and
            order.dtype == t.int64 and order.layout == "C"):
        return None
    view_ty = arr.copy(layout="A")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        axes = ArrayValue(context, builder, args[1], order).field(dm.ARRAY_DATA)
        shape, strides = [], []
        for i in range(arr.ndim):
            axis = builder.load(builder.gep(axes, [ir.Constant(dm.i64, i)],
                                            source_etype=dm.i64), typ=dm.i64)
            size, stride = a.shape(0), a.stride(0)
            for d in range(1, arr.ndim):
                here = builder.icmp_signed("==", axis, ir.Constant(dm.i64, d))
                size = builder.select(here, a.shape(d), size)
                stride = builder.select(here, a.stride(d), stride)
            shape.append(size)
            strides.append(stride)
        return make_array(context, builder, view_ty, a.field(dm.ARRAY_DATA), shape, strides,
                          meminfo=a.field(dm.ARRAY_MEMINFO), parent=a.field(dm.ARRAY_PARENT))
    return view_ty(arr, order), codegen


@overload(along_innermost)
def _along_innermost(a, k):
    """From the layout where it is known: k is innermost when the axes after it (C) or
    before it (F) all have length 1."""
    if a.layout in "CF":
        c_order = a.layout == "C"

        def contiguous(a, k):
            for d in range(a.ndim):
                if (d > k if c_order else d < k) and a.shape[d] != 1:
                    return False
            return True
        return contiguous
    return lambda a, k: innermost_of(a.shape, (a.strides,), k)


@register_jitable
def copy_innermost(a, k):
    """Whether axis k is innermost in NumPy's copy of `a` (np.array(a), order 'K', as its
    nan-functions make): of the axes longer than 1 the last of least |stride| (a stable sort
    by |stride|, falling), so a broadcast axis (stride 0) is innermost there."""
    best = -1
    for d in range(a.ndim):
        if a.shape[d] != 1 and (best < 0 or abs(a.strides[d]) <= abs(a.strides[best])):
            best = d
    return best < 0 or best == k

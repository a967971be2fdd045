"""Working along one axis of an N-d array (`np.sum(a, axis=1)`, `np.cumsum(a, axis=0)`):
the axis checked as NumPy checks it, and the array seen as (outer, n, inner) around that
axis, so one loop nest written in Python serves every number of dimensions."""
from __future__ import annotations

import functools

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .arrays import ArrayValue, make_array
from ..typing.registry import intrinsic, register_jitable

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

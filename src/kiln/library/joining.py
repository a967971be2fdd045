"""Joining arrays: np.concatenate, np.stack, np.hstack, np.vstack of a tuple (or literal
list) of arrays of one ndim, in NumPy's result dtype. Each array is copied into its part
of the new C-contiguous result, along an axis given at run time."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from .allocation import allocate
from .arrays import ArrayValue, make_array
from .axes import normalized_axis
from ..codegen.array_expressions import Tree
from .fusion import evaluate
from ..typing.registry import intrinsic, overload


def _arrays_of(items):
    """The arrays of a tuple argument, or None."""
    if not isinstance(items, t.BaseTuple) or not items.types or \
            not all(isinstance(a, t.Array) for a in items.types):
        return None
    if len({a.ndim for a in items.types}) != 1:
        raise TypingError("all the input arrays must have the same number of dimensions")
    return items.types


def _select_axis(builder, values, k):
    """values[k] for a run-time k (values: one LLVM value per dimension)."""
    result = values[0]
    for d, v in enumerate(values[1:], 1):
        result = builder.select(builder.icmp_signed("==", k, ir.Constant(dm.i64, d)), v, result)
    return result


def _join(new_axis, typingctx, items, axis):
    """Concatenate `items` along `axis`, or stack them along a new axis there."""
    arrays = _arrays_of(items)
    if arrays is None or not isinstance(axis, t.Integer):
        return None
    dtype = t.from_dtype(np.result_type(*(a.dtype.np_dtype for a in arrays)))
    ndim = arrays[0].ndim + new_axis
    if ndim == 0:
        raise TypingError("zero-dimensional arrays cannot be concatenated")
    result = t.Array(dtype, ndim, "C")

    def codegen(context, builder, sig, args):
        i64 = dm.i64
        k = normalized_axis(context, builder, args[1], axis, ndim)
        values = [builder.extract_value(args[0], i) for i in range(len(arrays))]
        views = [ArrayValue(context, builder, v, ty) for v, ty in zip(values, arrays)]
        first = views[0]
        if new_axis:  # every array has the first one's shape; the new axis counts them
            for view in views[1:]:
                for d in range(first.ty.ndim):
                    context.guard(builder, builder.icmp_signed("!=", view.shape(d),
                                                               first.shape(d)),
                                  ValueError, "all input arrays must have the same shape")
            item_dims = [first.shape(d) for d in range(first.ty.ndim)]
            dims = []
            for d in range(ndim):  # item_dims with len(arrays) inserted at k
                at = ir.Constant(i64, d)
                before = item_dims[d] if d < len(item_dims) else ir.Constant(i64, 0)
                after = item_dims[d - 1] if d > 0 else ir.Constant(i64, 0)
                dims.append(builder.select(builder.icmp_signed("<", at, k), before,
                                           builder.select(builder.icmp_signed("==", at, k),
                                                          ir.Constant(i64, len(arrays)),
                                                          after)))
        else:
            total = ir.Constant(i64, 0)
            for view in views:
                total = builder.add(total, _select_axis(
                    builder, [view.shape(d) for d in range(ndim)], k))
                for d in range(ndim):
                    mismatch = builder.icmp_signed("!=", view.shape(d), first.shape(d))
                    off_axis = builder.icmp_signed("!=", ir.Constant(i64, d), k)
                    context.guard(builder, builder.and_(mismatch, off_axis), ValueError,
                                  "all the input array dimensions except for the "
                                  "concatenation axis must match exactly")
            dims = [builder.select(builder.icmp_signed("==", ir.Constant(i64, d), k), total,
                                   first.shape(d)) for d in range(ndim)]
        out = ArrayValue(context, builder, allocate(context, builder, result, dims), result)
        strides = [out.stride(d) for d in range(ndim)]
        step = _select_axis(builder, strides, k)
        start = ir.Constant(i64, 0)
        for value, view in zip(values, views):
            if new_axis:  # the part: out[..., i, ...] without axis k
                part_dims = [view.shape(d) for d in range(view.ty.ndim)]
                part_strides = []
                for d in range(view.ty.ndim):
                    before = builder.icmp_signed("<", ir.Constant(i64, d), k)
                    part_strides.append(builder.select(before, strides[d], strides[d + 1]))
                length = ir.Constant(i64, 1)
            else:
                part_dims = [view.shape(d) for d in range(ndim)]
                part_strides = strides
                length = _select_axis(builder, part_dims, k)
            data = builder.gep(out.field(dm.ARRAY_DATA), [builder.mul(start, step)],
                               source_etype=dm.i8)
            part_ty = result.copy(ndim=len(part_dims), layout="A")
            part = make_array(context, builder, part_ty, data, part_dims, part_strides)
            evaluate(context, builder, Tree.leaf(value, view.ty), out=part, out_ty=part_ty)
            start = builder.add(start, length)
        return out.value
    codegen.new_reference = True
    return result(items, axis), codegen


@intrinsic
def concatenate_arrays(typingctx, items, axis):
    return _join(False, typingctx, items, axis)


@intrinsic
def stack_arrays(typingctx, items, axis):
    return _join(True, typingctx, items, axis)


def _joiner(join):
    def ov(arrays, axis=0):
        if _arrays_of(arrays) is None or not isinstance(axis, (int, t.Integer)):
            return None

        def joined(arrays, axis=0):
            return join(arrays, axis)
        return joined
    return ov


overload(np.concatenate)(_joiner(concatenate_arrays))
overload(np.stack)(_joiner(stack_arrays))


@overload(np.hstack)
def _hstack(arrays):
    found = _arrays_of(arrays)
    if found is None:
        return None
    _refuse_0d(found, "hstack")
    axis = 0 if found[0].ndim == 1 else 1
    return lambda arrays: concatenate_arrays(arrays, axis)


def _refuse_0d(arrays, name):
    """NumPy makes 0-d arrays 1-d (atleast_1d) before joining them; kiln does not yet, and
    says so at the call, not inside the library."""
    if any(a.ndim == 0 for a in arrays):
        raise TypingError(f"np.{name} of 0-d arrays is not supported")


@overload(np.vstack)
def _vstack(arrays):
    found = _arrays_of(arrays)
    if found is None:
        return None
    _refuse_0d(found, "vstack")
    if found[0].ndim == 1:  # rows of a new matrix
        return lambda arrays: stack_arrays(arrays, 0)
    return lambda arrays: concatenate_arrays(arrays, 0)

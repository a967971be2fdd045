"""Changing an array's shape: `reshape` (a shape tuple or dimensions as arguments, one of
them -1), `ravel`, `flatten`, `transpose`. As in NumPy, `reshape` and `ravel` of a
C-contiguous array are views of it, and of any other array views of a C-contiguous copy;
`flatten` always copies."""
from __future__ import annotations

from llvmlite import ir

import numpy as np

from .. import types as t
from ..codegen import datamodel as dm
from .arrays import ArrayValue, make_array
from ..codegen.array_expressions import Tree
from .fusion import evaluate
from ..typing.registry import template

_INTLIKE = (t.Integer, t.Boolean)


def _c_order(context, builder, arr, ty):
    """(a C-contiguous array with `arr`'s elements, its type, whether it is a new copy)."""
    if ty.layout == "C":
        return arr, ty, False
    copy_ty = ty.copy(layout="C", readonly=False)
    return evaluate(context, builder, Tree.leaf(arr, ty)), copy_ty, True


def _view(context, builder, source, source_ty, result_ty, dims):
    """A C-contiguous view of `source` (C-contiguous) with the shape `dims`."""
    a = ArrayValue(context, builder, source, source_ty)
    strides, step = [], ir.Constant(dm.i64, result_ty.dtype.np_dtype.itemsize)
    for d in reversed(dims):
        strides.insert(0, step)
        step = builder.mul(step, d)
    return make_array(context, builder, result_ty, a.field(dm.ARRAY_DATA), dims, strides,
                      meminfo=a.field(dm.ARRAY_MEMINFO), parent=a.field(dm.ARRAY_PARENT))


def _new_shape(context, builder, size, dims):
    """The dimensions with the unknown one (-1; NumPy takes any negative) replaced by what
    makes their product `size`; ValueError with NumPy's words when no shape fits."""
    i64 = dm.i64
    known, unknowns = ir.Constant(i64, 1), ir.Constant(i64, 0)
    for d in dims:
        unknown = builder.icmp_signed("<", d, ir.Constant(i64, 0))
        unknowns = builder.add(unknowns, builder.zext(unknown, i64))
        known = builder.mul(known, builder.select(unknown, ir.Constant(i64, 1), d))
    context.guard(builder, builder.icmp_signed(">", unknowns, ir.Constant(i64, 1)), ValueError,
                  "can only specify one unknown dimension")
    zero = ir.Constant(i64, 0)
    context.guard(builder, builder.and_(builder.icmp_signed("==", known, zero),
                                        builder.icmp_signed("==", unknowns, ir.Constant(i64, 1))),
                  ValueError, "cannot reshape array: the unknown dimension of a shape with a "
                  "zero dimension is ambiguous")
    inferred = builder.select(builder.icmp_signed("==", known, zero), zero,
                              builder.sdiv(size, builder.select(
                                  builder.icmp_signed("==", known, zero),
                                  ir.Constant(i64, 1), known)))
    dims = [builder.select(builder.icmp_signed("<", d, zero), inferred, d)
            for d in dims]
    total = ir.Constant(i64, 1)
    for d in dims:
        total = builder.mul(total, d)
    context.guard(builder, builder.icmp_signed("!=", total, size), ValueError,
                  "cannot reshape array into the requested shape (the sizes differ)")
    return dims


def _dimension_types(types):
    """The shape's dimension types (one tuple or int argument, or several ints), or None."""
    if len(types) == 1 and isinstance(types[0], t.BaseTuple):
        types = types[0].types
    return types if types and all(isinstance(i, _INTLIKE) for i in types) else None


def _dimensions(context, builder, values, types):
    if len(types) == 1 and isinstance(types[0], t.BaseTuple):
        return [context.cast(builder, builder.extract_value(values[0], i), item, t.int64)
                for i, item in enumerate(types[0].types)]
    return [context.cast(builder, v, ty, t.int64) for v, ty in zip(values, types)]


def _reshape(tctx, arr, *shape):
    items = _dimension_types(shape)
    if not isinstance(arr, t.Array) or items is None:
        return None
    result = arr.copy(ndim=len(items), layout="C")

    def codegen(context, builder, sig, args):
        source, source_ty, copied = _c_order(context, builder, args[0], arr)
        hold = context.hold_until_done(builder, source, source_ty) if copied else None
        size = ArrayValue(context, builder, source, source_ty).field(dm.ARRAY_NITEMS)
        dims = _new_shape(context, builder, size, _dimensions(context, builder, args[1:], shape))
        context.done_holding(builder, hold)  # a bad shape raised above: the copy is freed
        return _view(context, builder, source, source_ty, result, dims)
    codegen.new_reference = arr.layout != "C"  # a view of a new copy
    return result(arr, *shape), codegen


def _flattened(copy_always):
    def typer(tctx, arr):
        if not isinstance(arr, t.Array):
            return None
        result = arr.copy(ndim=1, layout="C", readonly=False if copy_always else arr.readonly)

        def codegen(context, builder, sig, args):
            source, source_ty, copied = _c_order(context, builder, args[0], arr)
            if copy_always and not copied:
                source = evaluate(context, builder, Tree.leaf(source, source_ty))
            a = ArrayValue(context, builder, source, source_ty)
            return _view(context, builder, source, source_ty, result, [a.field(dm.ARRAY_NITEMS)])
        codegen.new_reference = copy_always or arr.layout != "C"
        return result(arr), codegen
    return typer


def _transpose(tctx, arr):
    """`a.transpose()` / `np.transpose(a)`: the axes reversed, as `a.T`."""
    if not isinstance(arr, t.Array):
        return None
    res = tctx.resolve(("attr", "T"), (arr,))
    return None if res is None else (res.signature, res.lower)


template(("method", "reshape"))(_reshape)
template(np.reshape)(lambda tctx, arr, shape: _reshape(tctx, arr, shape))
template(("method", "ravel"))(_flattened(copy_always=False))
template(np.ravel)(_flattened(copy_always=False))
template(("method", "flatten"))(_flattened(copy_always=True))
template(("method", "transpose"))(_transpose)
template(np.transpose)(_transpose)

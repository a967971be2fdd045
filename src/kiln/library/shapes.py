"""Changing an array's shape: `reshape` (a shape tuple or dimensions as arguments, one of
them -1), `ravel`, `flatten`, `transpose`, and np.ascontiguousarray. As in NumPy, whether
the result is a view is decided at run time (a write through it must reach the argument
exactly when it does in NumPy): `ravel` and ascontiguousarray give a view of an array whose
items are C-contiguous in memory, a copy otherwise; `reshape` a view also when the strides
allow one (NumPy's rule, `_nocopy_strides`); `flatten` always copies."""
from __future__ import annotations

from llvmlite import ir

import numpy as np

from .. import types as t
from ..codegen import datamodel as dm
from .arrays import ArrayValue, is_c_contiguous, make_array
from ..codegen.array_expressions import Tree
from .allocation import flat_view
from .fusion import evaluate
from .reductions import c_contiguous
from ..typing.registry import intrinsic, overload, register_jitable, template

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
    """The shape's dimension types (one tuple or int argument, or several ints; the empty
    tuple is a 0-d shape), or None."""
    if len(types) == 1 and isinstance(types[0], t.BaseTuple):
        types = types[0].types
        return types if all(isinstance(i, _INTLIKE) for i in types) else None
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
    if arr.layout != "C":   # a view or a copy, as the strides decide at run time
        dims_ty = t.UniTuple(t.int64, len(items))
        anyhow = tctx.resolve(reshaped, (arr, dims_ty))
        result = anyhow.signature.return_type

        def strided(context, builder, sig, args):
            size = ArrayValue(context, builder, args[0], arr).field(dm.ARRAY_NITEMS)
            dims = _new_shape(context, builder, size,
                              _dimensions(context, builder, args[1:], shape))
            return anyhow.lower(context, builder, anyhow.signature,
                                [args[0], context.make_tuple(builder, dims_ty, dims)])
        strided.new_reference = anyhow.new_reference
        return result(arr, *shape), strided
    result = arr.copy(ndim=len(items), layout="C")

    def codegen(context, builder, sig, args):
        size = ArrayValue(context, builder, args[0], arr).field(dm.ARRAY_NITEMS)
        dims = _new_shape(context, builder, size, _dimensions(context, builder, args[1:], shape))
        return _view(context, builder, args[0], arr, result, dims)
    return result(arr, *shape), codegen


# ---- run-time views: C-contiguous at run time, and NumPy's no-copy reshape ------------------

@intrinsic
def strided_view(typingctx, arr, dims, strides):
    """The view of `arr`'s data with the shape `dims` (a tuple of ints) and the byte
    `strides` (an int64 array of as many items): borrowed, as flat_view."""
    if not (isinstance(arr, t.Array) and isinstance(dims, t.UniTuple)
            and isinstance(strides, t.Array)):
        return None
    result = arr.copy(ndim=dims.count, layout="A")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        steps = ArrayValue(context, builder, args[2], strides)
        shape = [context.cast(builder, builder.extract_value(args[1], d), dims.dtype, t.int64)
                 for d in range(dims.count)]
        return make_array(context, builder, result, a.field(dm.ARRAY_DATA), shape,
                          [steps.load_element([ir.Constant(dm.i64, d)])
                           for d in range(dims.count)],
                          meminfo=a.field(dm.ARRAY_MEMINFO), parent=a.field(dm.ARRAY_PARENT))
    return result(arr, dims, strides), codegen


@intrinsic
def contiguous_view(typingctx, arr):
    """`arr` typed C-contiguous, with C strides: the caller has checked at run time that its
    items are (`is_c_contiguous`). Borrowed, as flat_view."""
    if not isinstance(arr, t.Array):
        return None
    result = arr.copy(layout="C")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        return _view(context, builder, args[0], arr, result,
                     [a.shape(d) for d in range(arr.ndim)])
    return result(arr), codegen


@register_jitable
def _c_strides(dims, itemsize):
    out = np.empty(len(dims), np.int64)
    step = itemsize
    for d in range(len(dims) - 1, -1, -1):
        out[d] = step
        step *= dims[d]
    return out


@register_jitable
def _nocopy_strides(a, dims):
    """The strides of a view of `a` with the shape `dims` (same size), or an empty array when
    there is none: NumPy's rule (its _attempt_nocopy_reshape, C order). Axes of length 1 are
    left out; then each run of old axes that a run of new axes merges or splits must be
    contiguous within itself, and the new axes take strides within that run."""
    old_dims = np.empty(a.ndim, np.int64)
    old_strides = np.empty(a.ndim, np.int64)
    old = 0
    for d in range(a.ndim):
        if a.shape[d] != 1:
            old_dims[old] = a.shape[d]
            old_strides[old] = a.strides[d]
            old += 1
    new = len(dims)
    out = np.empty(new, np.int64)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < new and oi < old:
        np_ = dims[ni]
        op = old_dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= dims[nj]
                nj += 1
            else:
                op *= old_dims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if old_strides[ok] != old_dims[ok + 1] * old_strides[ok + 1]:
                return np.empty(0, np.int64)
        out[nj - 1] = old_strides[oj - 1]
        for nk in range(nj - 1, ni, -1):
            out[nk - 1] = out[nk] * dims[nk]
        ni = nj
        nj += 1
        oi = oj
        oj += 1
    last = out[ni - 1] if ni >= 1 else a.itemsize
    for nk in range(ni, new):
        out[nk] = last
    return out


def reshaped(a, dims):
    """`a.reshape(dims)` of an array not known to be C-contiguous (dims checked, no -1)."""
    raise TypeError("only callable from compiled code")


@overload(reshaped)
def _reshaped(a, dims):
    def reshape_at_run_time(a, dims):
        if is_c_contiguous(a):
            return strided_view(a, dims, _c_strides(dims, a.itemsize))
        strides = _nocopy_strides(a, dims)
        if len(strides) == len(dims):
            return strided_view(a, dims, strides)
        return strided_view(c_contiguous(a), dims, _c_strides(dims, a.itemsize))
    return reshape_at_run_time


def raveled(a):
    """`a.ravel()` of an array not known to be C-contiguous."""
    raise TypeError("only callable from compiled code")


@overload(raveled)
def _raveled(a):
    return lambda a: flat_view(as_c_contiguous(a))


def as_c_contiguous(a):
    """`a` itself when its items are C-contiguous at run time (typed C), else a C copy."""
    raise TypeError("only callable from compiled code")


@overload(as_c_contiguous)
def _as_c_contiguous(a):
    if not isinstance(a, t.Array):
        return None
    if a.layout == "C":
        return lambda a: a
    return lambda a: contiguous_view(a) if is_c_contiguous(a) else c_contiguous(a)


def _flattened(copy_always):
    def typer(tctx, arr):
        if not isinstance(arr, t.Array):
            return None
        if not copy_always and arr.layout != "C":   # a view when contiguous at run time
            found = tctx.resolve(raveled, (arr,))

            def flattened(context, builder, sig, args):
                return found.lower(context, builder, found.signature, args)
            flattened.new_reference = found.new_reference
            return found.signature, flattened
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

"""NumPy arrays in compiled code: indexing (integers, negative indices, slices, views),
item assignment, attributes (shape, size, ndim, dtype, strides, itemsize, nbytes, T).

Element addresses are computed from the layout known at compile time: a C-contiguous
array indexes `data[i * n + j]` (so loops over it vectorize), others use byte strides.
Out-of-range indices are checked only with `boundscheck=True`, as in Numba; negative
indices always wrap."""
from __future__ import annotations

import collections
import operator

import numpy as np

from llvmlite import ir

from .. import types as t
from ..types.charseq import FixedWidth
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import (intrinsic, overload, overload_attribute, overload_method,
                       register_jitable, template)
from .slicing import slice_indices

_INTLIKE = (t.Integer, t.Boolean)


class ArrayValue:
    """Codegen view of an array struct value: fields, element addresses, sub-views."""

    def __init__(self, context, builder, value, ty: t.Array):
        self.context = context
        self.builder = builder
        self.value = value
        self.ty = ty

    def with_builder(self, builder):
        return ArrayValue(self.context, builder, self.value, self.ty)

    def field(self, index):
        return self.builder.extract_value(self.value, index)

    def shape(self, dim):
        return self.builder.extract_value(self.value, [dm.ARRAY_SHAPE, dim])

    def stride(self, dim):
        return self.builder.extract_value(self.value, [dm.ARRAY_STRIDES, dim])

    def normalize_index(self, index, index_ty, dim):
        """Wrap a negative index; with boundscheck, raise IndexError outside the axis."""
        b = self.builder
        index = self.context.cast(b, index, index_ty, t.int64) if index_ty != t.int64 else index
        size = self.shape(dim)
        signed = not (isinstance(index_ty, t.Integer) and not index_ty.signed)
        if signed:
            negative = b.icmp_signed("<", index, ir.Constant(dm.i64, 0))
            index = b.select(negative, b.add(index, size), index)
        if self.context.options.boundscheck:
            outside = b.icmp_unsigned(">=", index, size)
            self.context.guard(b, outside, IndexError,
                               f"index out of bounds for axis {dim} of an array with "
                               f"{self.ty.ndim} dimension(s)")
        return index

    def element_pointer(self, indices):
        """Address of the element at (already normalized) `indices`, one per dimension."""
        b = self.builder
        data = self.field(dm.ARRAY_DATA)
        item_lt = dm.memory_type(self.ty.dtype)
        if not indices:  # a 0-d array's only element
            return data
        if self.ty.layout in ("C", "F") and len(indices) == self.ty.ndim:
            dims = range(self.ty.ndim) if self.ty.layout == "C" else reversed(range(self.ty.ndim))
            linear = None
            for d in dims:
                linear = indices[d] if linear is None else \
                    b.add(b.mul(linear, self.shape(d)), indices[d])
            return b.gep(data, [linear], source_etype=item_lt, inbounds=True)
        offset = ir.Constant(dm.i64, 0)
        for d, index in enumerate(indices):
            offset = b.add(offset, b.mul(index, self.stride(d)))
        return b.gep(data, [offset], source_etype=dm.i8, inbounds=True)

    def load_element(self, indices):
        """The element at `indices` (a record: a reference into the array, sharing its
        meminfo)."""
        record = isinstance(self.ty.dtype, t.Record)
        return dm.load_item(self.builder, self.ty.dtype, self.element_pointer(indices),
                            meminfo=self.field(dm.ARRAY_MEMINFO) if record else None)

    def subarray(self, index, result_ty):
        """`a[i]` of an N-d array: the (N-1)-d view of row i (index already normalized)."""
        return self.view([("int", index)], result_ty)

    def view(self, parts, result_ty):
        """A view from per-axis parts: ("int", i) drops the axis, ("slice", start, step,
        count) keeps it, ("new",) inserts an axis of length 1 (`None`); axes beyond
        `parts` are kept whole."""
        b = self.builder
        offset = ir.Constant(dm.i64, 0)
        shape, strides = [], []
        axis = 0
        for part in parts:
            if part[0] == "new":
                shape.append(ir.Constant(dm.i64, 1))
                strides.append(ir.Constant(dm.i64, 0))
                continue
            stride = self.stride(axis)
            offset = b.add(offset, b.mul(part[1], stride))
            if part[0] == "slice":
                shape.append(part[3])
                strides.append(b.mul(stride, part[2]))
            axis += 1
        for d in range(axis, self.ty.ndim):
            shape.append(self.shape(d))
            strides.append(self.stride(d))
        data = b.gep(self.field(dm.ARRAY_DATA), [offset], source_etype=dm.i8)
        nitems = ir.Constant(dm.i64, 1)
        for s in shape:
            nitems = b.mul(nitems, s)
        return make_array(self.context, b, result_ty, data, shape, strides,
                           meminfo=self.field(dm.ARRAY_MEMINFO),
                           parent=self.field(dm.ARRAY_PARENT),
                           itemsize=self.field(dm.ARRAY_ITEMSIZE), nitems=nitems)


def make_array(context, builder, ty, data, shape, strides, meminfo=None, parent=None,
               itemsize=None, nitems=None):
    value = ir.Constant(dm.value_type(ty), ir.Undefined)
    null = ir.Constant(dm.ptr, None)
    if itemsize is None:
        itemsize = ir.Constant(dm.i64, ty.dtype.np_dtype.itemsize)
    if nitems is None:
        nitems = ir.Constant(dm.i64, 1)
        for s in shape:
            nitems = builder.mul(nitems, s)
    fields = [meminfo or null, parent or null, nitems, itemsize, data]
    for i, f in enumerate(fields):
        value = builder.insert_value(value, f, i)
    for d, (s, st) in enumerate(zip(shape, strides)):
        value = builder.insert_value(value, s, [dm.ARRAY_SHAPE, d])
        value = builder.insert_value(value, st, [dm.ARRAY_STRIDES, d])
    return value


# ---- indexing --------------------------------------------------------------------------------

_WHOLE_AXIS = t.SliceType(has_step=False)


def _index_parts(index_ty, ndim):
    """The per-axis index types (an ellipsis expanded to the whole axes it stands for), or
    None when this is not a basic index."""
    items = index_ty.types if isinstance(index_ty, t.BaseTuple) else (index_ty,)
    if any(isinstance(i, t.Boolean) for i in items):
        # NumPy reads arr[True] as a 0-d mask (a new axis), not as arr[1], as Numba refuses
        raise TypingError("a bool is not an array index: NumPy reads arr[True] as a mask "
                          "that adds an axis, which kiln does not support (use int(b))")
    if not all(isinstance(i, _INTLIKE + (t.SliceType, t.NoneType, t.EllipsisType))
               for i in items):
        return None
    return [part for _, part in _expand_ellipsis(items, ndim)]


def _has_ellipsis(index_ty):
    items = index_ty.types if isinstance(index_ty, t.BaseTuple) else (index_ty,)
    return any(isinstance(i, t.EllipsisType) for i in items)


def _expand_ellipsis(items, ndim):
    """(position in the index or None, type) per item, `...` replaced by whole axes."""
    ellipses = [k for k, i in enumerate(items) if isinstance(i, t.EllipsisType)]
    if len(ellipses) > 1:
        raise TypingError("an index can only have a single ellipsis ('...')")
    if not ellipses:
        return list(enumerate(items))
    axes = sum(not isinstance(i, (t.NoneType, t.EllipsisType)) for i in items)
    k = ellipses[0]
    whole = [(None, _WHOLE_AXIS)] * max(0, ndim - axes)
    return list(enumerate(items))[:k] + whole + [(j + k + 1, i)
                                                  for j, i in enumerate(items[k + 1:])]


def _view_layout(array_ty, items, ndim):
    """C stays C for leading integers, then at most one step-less slice, then whole axes
    (a new axis of length 1 anywhere keeps it)."""
    items = [i for i in items if not isinstance(i, t.NoneType)]
    if array_ty.layout != "C":
        return "A"
    slices = [i for i in items if isinstance(i, t.SliceType)]
    n_ints = 0
    for i in items:
        if not isinstance(i, _INTLIKE):
            break
        n_ints += 1
    contiguous = len(slices) == 0 or (
        len(slices) == 1 and not slices[0].has_step and len(items) == n_ints + 1)
    return "C" if contiguous else "A"


def _index_result(array_ty, items, view=False):
    """What indexing gives: an element when every axis gets an integer (unless `view`: an
    index with `...` always gives an array, 0-d if need be, as in NumPy), else a view."""
    new_axes = sum(isinstance(i, t.NoneType) for i in items)
    if len(items) - new_axes > array_ty.ndim:
        raise TypingError(f"too many indices for {array_ty}: {len(items) - new_axes} given")
    kept = array_ty.ndim - sum(isinstance(i, _INTLIKE) for i in items) + new_axes
    if kept == 0 and not view:
        return array_ty.dtype
    return array_ty.copy(ndim=kept, layout=_view_layout(array_ty, items, kept))


def _index_values(builder, index, index_ty, ndim):
    """The value of each expanded index item (a whole-axis slice for each axis of `...`)."""
    from ..codegen.datamodel import build_slice
    items = index_ty.types if isinstance(index_ty, t.BaseTuple) else (index_ty,)
    values = []
    for position, _ in _expand_ellipsis(items, ndim):
        if position is None:
            values.append(build_slice(builder, None, None, None))
        elif isinstance(index_ty, t.BaseTuple):
            values.append(builder.extract_value(index, position))
        else:
            values.append(index)
    return values


def _resolve_index(context, builder, arr, index, index_ty):
    """Per-axis parts ("int", i) / ("slice", start, step, count) / ("new",) for a basic
    index."""
    items = _index_parts(index_ty, arr.ty.ndim)
    parts = []
    d = 0
    for value, item_ty in zip(_index_values(builder, index, index_ty, arr.ty.ndim), items):
        if isinstance(item_ty, t.NoneType):
            parts.append(("new",))
            continue
        if isinstance(item_ty, t.SliceType):
            fields = [builder.extract_value(value, i) for i in range(3)]
            sig = t.UniTuple(t.int64, 3)(t.int64, t.int64, t.int64, t.int64)
            res = context.call_python(builder, slice_indices, sig, fields + [arr.shape(d)])
            parts.append(("slice",) + tuple(builder.extract_value(res, i) for i in range(3)))
        else:
            parts.append(("int", arr.normalize_index(value, item_ty, d)))
        d += 1
    return parts


@template(operator.getitem)
def _getitem(tctx, array_ty, index_ty):
    if not isinstance(array_ty, t.Array):
        return None
    items = _index_parts(index_ty, array_ty.ndim)
    if items is None:
        return None
    result = _index_result(array_ty, items, view=_has_ellipsis(index_ty))

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], array_ty)
        parts = _resolve_index(context, builder, arr, args[1], index_ty)
        if not isinstance(result, t.Array):
            return arr.load_element([p[1] for p in parts])
        return arr.view(parts, result)
    return result(array_ty, index_ty), codegen


@intrinsic
def item_in_range(typingctx, arr, index):
    """`arr[index]` of a 1-d array for library loops that know 0 <= index < len(arr): no
    wraparound select in the address, so LLVM can vectorize the loop around it."""
    if not (isinstance(arr, t.Array) and arr.ndim == 1 and isinstance(index, t.Integer)):
        return None

    def codegen(context, builder, sig, args):
        position = context.cast(builder, args[1], index, t.int64)
        return ArrayValue(context, builder, args[0], arr).load_element([position])
    return arr.dtype(arr, index), codegen


@template(operator.setitem)
def _setitem(tctx, array_ty, index_ty, value_ty):
    if not isinstance(array_ty, t.Array):
        return None
    items = _index_parts(index_ty, array_ty.ndim)
    if items is None:
        return None
    if array_ty.readonly:
        raise TypingError(f"cannot assign to an item of a read-only array ({array_ty})")
    target = _index_result(array_ty, items, view=_has_ellipsis(index_ty))
    # a 0-d array stored into one item is its one value (`a[i] = np.sum(b, axis=0)` of 1-d b)
    zero_d = isinstance(value_ty, t.Array) and value_ty.ndim == 0 and \
        not (isinstance(target, t.Array) and target.ndim)
    item_ty = value_ty.dtype if zero_d else value_ty
    if isinstance(target, t.Array) and (target.ndim or not isinstance(item_ty, t.Number)):
        return _setitem_view(tctx, array_ty, index_ty, value_ty, target)
    if isinstance(array_ty.dtype, t.Record) or isinstance(item_ty, t.Record):
        if item_ty != array_ty.dtype:   # a record item takes a record of its dtype only
            raise TypingError(f"cannot store a {value_ty} value into an item of {array_ty}")
    elif not isinstance(item_ty, t.Number) and not (
            isinstance(array_ty.dtype, FixedWidth) and array_ty.dtype.takes(item_ty)):
        return None     # (text into a fixed-width string item is cut or padded by the cast)
    check_not_complex_into_real(array_ty, item_ty)

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], array_ty)
        parts = _resolve_index(context, builder, arr, args[1], index_ty)
        value = args[2]
        if zero_d:
            value = context.cast(builder, ArrayValue(context, builder, value, value_ty)
                                 .load_element([]), item_ty, array_ty.dtype)
        dm.store_item(builder, array_ty.dtype, value, arr.element_pointer([p[1] for p in parts]))
        return dm.null_value(t.none)
    return t.none(array_ty, index_ty, value_ty if zero_d else array_ty.dtype), codegen


def _setitem_view(tctx, array_ty, index_ty, value_ty, view_ty):
    """`a[i, :] = x` / `a[1:-1] = b`: fill the view from a scalar, or copy an array into it
    with broadcasting (overlapping memory is read before it is written)."""
    zero_d = isinstance(value_ty, t.Array) and value_ty.ndim == 0   # fills as its one value
    copies = isinstance(value_ty, t.Array) and not zero_d
    item_ty = value_ty.dtype if zero_d else value_ty
    extra = value_ty.ndim - view_ty.ndim if copies else 0   # leading axes of length 1
    squeezed = value_ty.copy(ndim=view_ty.ndim, layout="C" if value_ty.layout == "C" else "A") \
        if extra > 0 else value_ty
    check_not_complex_into_real(array_ty, value_ty)
    fill = None if copies else tctx.resolve(assign_into, (view_ty, item_ty))
    if fill is None and not copies:
        return None

    from ..codegen.array_expressions import Consumer, Tree
    from .fusion import evaluate  # fusion builds on this module

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], array_ty)
        view = arr.view(_resolve_index(context, builder, arr, args[1], index_ty), view_ty)
        if extra > 0:   # NumPy drops the value's extra leading axes when they have length 1
            value = ArrayValue(context, builder, args[2], value_ty)
            one, zero = ir.Constant(dm.i64, 1), ir.Constant(dm.i64, 0)
            for d in range(extra):
                context.guard(builder, builder.icmp_signed("!=", value.shape(d), one),
                              ValueError, "could not broadcast the assigned array into the "
                              "slice: it has more dimensions, and a leading one is not 1")
            args = list(args[:2]) + [value.view([("int", zero)] * extra, squeezed)]
        if copies:  # broadcast, converted, and read first where it overlaps the view
            if not isinstance(args[2], Tree):   # a value of the wrong shape, in words
                context.call_python(builder, _check_assigned_shape,
                                    t.none(view_ty, squeezed), [view, args[2]])
            source = args[2] if isinstance(args[2], Tree) else Tree.leaf(args[2], squeezed)
            evaluate(context, builder, source, out=view, out_ty=view_ty)
        else:
            value = ArrayValue(context, builder, args[2], value_ty).load_element([]) \
                if zero_d else args[2]
            fill.lower(context, builder, fill.signature, [view, context.cast(
                builder, value, item_ty, fill.signature.args[1])])
        return dm.null_value(t.none)
    if copies and extra <= 0:   # the value may be an array expression, computed into the view
        codegen.fusion = Consumer(frozenset({2}))
    return t.none(array_ty, index_ty, value_ty), codegen


def _check_assigned_shape(view, value):
    """`view[...] = value` broadcasts value's axes (aligned right) of length 1 only; the
    error says both shapes (as NumPy's and Numba's do), which a fused copy's guard cannot."""
    offset = len(view.shape) - len(value.shape)
    for d in range(len(value.shape)):
        if value.shape[d] != 1 and value.shape[d] != view.shape[offset + d]:
            raise ValueError(f"cannot assign slice of shape {_shape_text(view.shape)} from "
                             f"input of shape {_shape_text(value.shape)}")


@register_jitable
def _shape_text(shape):
    """A shape as Python writes the tuple: (), (3,), (2, 3)."""
    if len(shape) == 1:
        return f"({shape[0]},)"
    text = "("
    for d in range(len(shape)):
        text += f"{shape[d]}" if d == 0 else f", {shape[d]}"
    return text + ")"


def check_not_complex_into_real(array_ty, value_ty):
    """NumPy refuses to store a complex scalar (or a sequence's) into a real array; it drops
    the imaginary part of a complex array's items with a ComplexWarning. kiln refuses both,
    at compile time."""
    if isinstance(value_ty, (t.BaseTuple, t.ListType)):
        for item in (value_ty.types if isinstance(value_ty, t.BaseTuple) else [value_ty.dtype]):
            check_not_complex_into_real(array_ty, item)
    if isinstance(value_ty, t.Complex) and not isinstance(array_ty.dtype, t.Complex):
        raise TypingError(f"cannot store a {value_ty} value into an element of {array_ty} "
                          "(NumPy does not cast complex to real)")
    if isinstance(value_ty, t.Array) and isinstance(value_ty.dtype, t.Complex) and \
            not isinstance(array_ty.dtype, t.Complex):
        raise TypingError(f"kiln does not store the items of {value_ty} into {array_ty}: "
                          "that drops their imaginary parts (assign value.real)")


def assign_into(dst, src):
    """`dst[...] = src` for a scalar or a same-shaped array, any number of dimensions."""
    raise TypeError("only callable from compiled code")


def _an_item(dst, src) -> bool:
    """Whether `src` is one item of `dst`: a number, or text for fixed-width strings."""
    return isinstance(src, t.Number) or \
        isinstance(dst.dtype, FixedWidth) and dst.dtype.takes(src)


@overload(assign_into)
def _assign_into(dst, src):
    if not isinstance(dst, t.Array):
        return None
    if dst.ndim == 0:      # a 0-d array holds one item: `a.fill(v)`, `np.array(b)`
        if _an_item(dst, src):
            def fill_item(dst, src):
                dst[()] = src
            return fill_item
        if isinstance(src, t.Array) and src.ndim == 0:
            def copy_item(dst, src):
                dst[()] = src[()]
            return copy_item
        return None
    if _an_item(dst, src):
        if dst.ndim == 1:
            def fill(dst, src):
                for i in range(dst.shape[0]):
                    dst[i] = src
            return fill

        def fill_rows(dst, src):
            for i in range(dst.shape[0]):
                assign_into(dst[i], src)
        return fill_rows
    if not (isinstance(src, t.Array) and src.ndim == dst.ndim):
        return None
    if dst.ndim == 1:
        def copy(dst, src):
            if src.shape[0] != dst.shape[0]:
                raise ValueError("could not broadcast input array into the assigned slice")
            for i in range(dst.shape[0]):
                dst[i] = src[i]
        return copy

    def copy_rows(dst, src):  # a row of the wrong length fails before the first write
        if src.shape[0] != dst.shape[0]:
            raise ValueError("could not broadcast input array into the assigned slice")
        for i in range(dst.shape[0]):
            assign_into(dst[i], src[i])
    return copy_rows


# ---- attributes ------------------------------------------------------------------------------

def _array_attribute(name):
    def decorate(fn):
        @template(("attr", name))
        def typer(tctx, array_ty):
            if not isinstance(array_ty, t.Array):
                return None
            return fn(array_ty)
        return fn
    return decorate


def _tuple_field(context, builder, value, field, ndim):
    ty = t.UniTuple(t.int64, ndim)
    return context.make_tuple(builder, ty, [builder.extract_value(value, [field, d])
                                            for d in range(ndim)])


@_array_attribute("shape")
def _shape(ty):
    return t.UniTuple(t.int64, ty.ndim)(ty), lambda context, builder, sig, args: \
        _tuple_field(context, builder, args[0], dm.ARRAY_SHAPE, ty.ndim)


@_array_attribute("strides")
def _strides(ty):
    return t.UniTuple(t.int64, ty.ndim)(ty), lambda context, builder, sig, args: \
        _tuple_field(context, builder, args[0], dm.ARRAY_STRIDES, ty.ndim)


@_array_attribute("ndim")
def _ndim(ty):
    return t.int64(ty), lambda context, builder, sig, args: ir.Constant(dm.i64, ty.ndim)


@_array_attribute("size")
def _size(ty):
    return t.int64(ty), lambda context, builder, sig, args: \
        builder.extract_value(args[0], dm.ARRAY_NITEMS)


@_array_attribute("itemsize")
def _itemsize(ty):
    return t.int64(ty), lambda context, builder, sig, args: \
        ir.Constant(dm.i64, ty.dtype.np_dtype.itemsize)


@_array_attribute("nbytes")
def _nbytes(ty):
    return t.int64(ty), lambda context, builder, sig, args: builder.mul(
        builder.extract_value(args[0], dm.ARRAY_NITEMS),
        ir.Constant(dm.i64, ty.dtype.np_dtype.itemsize))


@_array_attribute("dtype")
def _dtype(ty):
    rt = t.DType(ty.dtype)
    return rt(ty), lambda context, builder, sig, args: dm.null_value(rt)


@_array_attribute("T")
def _transpose(ty):
    layout = {"C": "F", "F": "C"}.get(ty.layout, "A") if ty.ndim > 1 else ty.layout
    rt = ty.copy(layout=layout)

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], ty)
        dims = list(reversed(range(ty.ndim)))
        return make_array(context, builder, rt, arr.field(dm.ARRAY_DATA),
                          [arr.shape(d) for d in dims], [arr.stride(d) for d in dims],
                          meminfo=arr.field(dm.ARRAY_MEMINFO), parent=arr.field(dm.ARRAY_PARENT),
                          itemsize=arr.field(dm.ARRAY_ITEMSIZE),
                          nitems=arr.field(dm.ARRAY_NITEMS))
    return rt(ty), codegen


def _part(index):
    """`.real` (index 0) / `.imag` (1) of a complex array: a strided view of that half of
    every element, as in NumPy."""
    def typer(ty):
        if isinstance(ty.dtype, t.Record):   # NumPy's is the array itself or zeros: Numba's
            raise TypingError(f"cannot access .{('real', 'imag')[index]} of array of "
                              f"{ty.dtype}")
        if not isinstance(ty.dtype, t.Complex):  # a real array is its own real part
            return (ty(ty), lambda context, builder, sig, args: args[0]) if index == 0 else None
        part = t.from_dtype(np.dtype(f"f{ty.dtype.np_dtype.itemsize // 2}"))
        rt = ty.copy(dtype=part, layout="A" if ty.ndim else ty.layout)

        def codegen(context, builder, sig, args):
            arr = ArrayValue(context, builder, args[0], ty)
            data = builder.gep(arr.field(dm.ARRAY_DATA),
                               [ir.Constant(dm.i64, index * part.np_dtype.itemsize)],
                               source_etype=dm.i8)
            return make_array(context, builder, rt, data,
                              [arr.shape(d) for d in range(ty.ndim)],
                              [arr.stride(d) for d in range(ty.ndim)],
                              meminfo=arr.field(dm.ARRAY_MEMINFO),
                              parent=arr.field(dm.ARRAY_PARENT))
        return rt(ty), codegen
    return typer


_array_attribute("real")(_part(0))
_array_attribute("imag")(_part(1))


def _zeros_of(a):
    return np.zeros(a.shape, a.dtype)


@template(("attr", "imag"))
def _imag_of_real(tctx, ty):
    """`.imag` of a real array: zeros of its shape and dtype, read-only (as NumPy's)."""
    if not isinstance(ty, t.Array) or isinstance(ty.dtype, (t.Complex, t.Record)):
        return None
    typed = tctx.type_function(_zeros_of, (ty,))

    def codegen(context, builder, sig, args):
        return context.call_function(builder, typed, args)
    codegen.new_reference = True
    return typed.return_type.copy(readonly=True)(ty), codegen


# ---- a.flags: NumPy's contiguity flags, from the shape and strides ---------------------------

ArrayFlags = collections.namedtuple("flags", ["contiguous", "c_contiguous", "f_contiguous"])


@register_jitable
def is_c_contiguous(a):
    """NumPy's C_CONTIGUOUS flag: the strides of C order, ignoring dimensions of 1; empty
    arrays are."""
    if a.size == 0:
        return True
    expected = a.itemsize
    for i in range(a.ndim - 1, -1, -1):
        if a.shape[i] != 1:
            if a.strides[i] != expected:
                return False
            expected *= a.shape[i]
    return True


@register_jitable
def _f_contiguous(a):
    if a.size == 0:
        return True
    expected = a.itemsize
    for i in range(a.ndim):
        if a.shape[i] != 1:
            if a.strides[i] != expected:
                return False
            expected *= a.shape[i]
    return True


@overload_attribute(t.Array, "flags")
def _flags(a):
    """`a.flags.contiguous`, `.c_contiguous`, `.f_contiguous` (Numba's three)."""
    def flags(a):
        c = is_c_contiguous(a)
        return ArrayFlags(c, c, _f_contiguous(a))
    return flags


# ---- a 0-d integer array in an index stands for its integer, as in NumPy ---------------------

def _zero_d_int(ty):
    return isinstance(ty, t.Array) and ty.ndim == 0 and isinstance(ty.dtype, t.Integer)


def _scalar_items(index_ty):
    """The index with its 0-d integer arrays read as integers, when it has one and is then
    a basic index; else None."""
    items = index_ty.types if isinstance(index_ty, t.BaseTuple) else (index_ty,)
    if not any(map(_zero_d_int, items)):
        return None
    scalar = [i.dtype if _zero_d_int(i) else i for i in items]
    if not all(isinstance(i, _INTLIKE + (t.SliceType, t.NoneType, t.EllipsisType))
               for i in scalar):
        return None
    return t.tuple_of(scalar) if isinstance(index_ty, t.BaseTuple) else scalar[0]


@intrinsic
def _scalar_index(tctx, index):
    rt = _scalar_items(index)
    if rt is None:
        return None

    def codegen(context, b, sig, args):
        if not isinstance(index, t.BaseTuple):
            return ArrayValue(context, b, args[0], index).load_element([])
        items = [b.extract_value(args[0], k) for k in range(len(index))]
        items = [ArrayValue(context, b, v, ty).load_element([]) if _zero_d_int(ty) else v
                 for v, ty in zip(items, index.types)]
        return context.make_tuple(b, rt, items)
    return rt(index), codegen


@overload(operator.getitem)
def _getitem_zero_d_index(arr, index):
    if isinstance(arr, t.Array) and _scalar_items(index) is not None:
        return lambda arr, index: arr[_scalar_index(index)]
    return None


@overload(operator.setitem)
def _setitem_zero_d_index(arr, index, value):
    if isinstance(arr, t.Array) and _scalar_items(index) is not None:
        def impl(arr, index, value):
            arr[_scalar_index(index)] = value
        return impl
    return None


# ---- dtype comparisons (`a.dtype == np.float64`) are known at compile time -----------------

def _dtype_of(ty):
    if isinstance(ty, t.DType):
        return ty.dtype
    if isinstance(ty, t.NumberClass):
        return ty.instance_type
    return None


for _op in (operator.eq, operator.ne):
    @template(_op)
    def _dtype_compare(tctx, a, b, _op=_op):
        da, db = _dtype_of(a), _dtype_of(b)
        if da is None or db is None:
            return None
        same = (da == db) == (_op is operator.eq)
        return t.boolean(a, b), lambda context, builder, sig, args: ir.Constant(dm.i1, int(same))


@overload_method(t.Array, "item")
def _item(a):
    """`a.item()`: the one element of a size-1 array (a 0-d view from np.nditer, say)."""
    def item(a):
        if a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return a.flat[0]
    return item

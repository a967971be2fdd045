"""Arrays made in compiled code: the allocation primitive the NumPy library is built on.

`empty_array(shape, dtype)` allocates a C-contiguous array through NRT, checking the shape
the way NumPy does (negative dimensions and sizes beyond the address space are ValueErrors,
an allocation that fails is a MemoryError). `zeroed_array` also clears the memory.
`flat_view(a)` is the 1-d view of a C-contiguous array, so library code written in Python
can fill or reduce any number of dimensions with one loop.
"""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..runtime import nrt
from .arrays import ArrayValue, make_array
from ..typing.registry import intrinsic

_INTLIKE = (t.Integer, t.Boolean)
_MAX_BYTES = (1 << 63) - 1


def shape_items(shape_ty):
    """The item types of a shape given as an int or a tuple of ints, or None."""
    items = shape_ty.types if isinstance(shape_ty, t.BaseTuple) else (shape_ty,)
    return items if all(isinstance(i, _INTLIKE) for i in items) else None


def _dims(context, builder, shape, shape_ty):
    if not isinstance(shape_ty, t.BaseTuple):
        return [context.cast(builder, shape, shape_ty, t.int64)]
    return [context.cast(builder, builder.extract_value(shape, i), item, t.int64)
            for i, item in enumerate(shape_ty.types)]


TOO_BIG = ("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum "
           "possible size.")   # NumPy's words


def allocate(context, builder, ty: t.Array, dims, zeroed=False):
    """A new C-contiguous array of type `ty` and shape `dims` (a new reference)."""
    i64 = dm.i64
    itemsize = ty.dtype.np_dtype.itemsize
    nbytes = ir.Constant(i64, itemsize)
    too_big = ir.Constant(dm.i1, 0)
    for d in dims:
        context.guard(builder, builder.icmp_signed("<", d, ir.Constant(i64, 0)), ValueError,
                      "negative dimensions are not allowed")
        product = builder.umul_with_overflow(nbytes, d)
        nbytes = builder.extract_value(product, 0)
        too_big = builder.or_(too_big, builder.extract_value(product, 1))
    too_big = builder.or_(too_big, builder.icmp_unsigned(">", nbytes, ir.Constant(i64, _MAX_BYTES)))
    context.guard(builder, too_big, ValueError, TOO_BIG)
    meminfo = nrt.emit_allocate(builder, nbytes)
    context.guard(builder, builder.icmp_unsigned("==", meminfo, ir.Constant(dm.ptr, None)),
                  MemoryError, f"Unable to allocate an array of {ty.dtype}")
    data = nrt.meminfo_data(builder, meminfo)
    if zeroed:
        builder.call(builder.module.declare_intrinsic("llvm.memset", [dm.ptr, i64]),
                     [data, ir.Constant(dm.i8, 0), nbytes, ir.Constant(dm.i1, 0)])
    strides, step = [], ir.Constant(i64, itemsize)
    for d in reversed(dims):
        strides.insert(0, step)
        step = builder.mul(step, d)
    return make_array(context, builder, ty, data, dims, strides, meminfo=meminfo)


def _allocator(shape, dtype, zeroed):
    items = shape_items(shape)
    if items is None or not isinstance(dtype, t.NumberClass):
        return None
    result = t.Array(dtype.instance_type, len(items), "C")

    # text items start empty even in np.empty: garbage would not be text (code points past
    # U+10FFFF cannot become a str)
    zeroed = zeroed or isinstance(result.dtype, (t.CharSeq, t.UnicodeCharSeq))

    def codegen(context, builder, sig, args):
        return allocate(context, builder, result, _dims(context, builder, args[0], shape), zeroed)
    codegen.new_reference = True
    return result(shape, dtype), codegen


@intrinsic
def empty_array(typingctx, shape, dtype):
    """A new uninitialized C-contiguous array of `shape` (an int or a tuple of ints)."""
    return _allocator(shape, dtype, zeroed=False)


@intrinsic
def zeroed_array(typingctx, shape, dtype):
    """A new C-contiguous array of `shape`, all bytes zero."""
    return _allocator(shape, dtype, zeroed=True)


@intrinsic
def flat_view(typingctx, arr):
    """The 1-d view of a C-contiguous array (borrowed: the caller takes its own reference)."""
    if not isinstance(arr, t.Array) or arr.layout != "C":
        return None
    result = arr.copy(ndim=1)

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        itemsize = ir.Constant(dm.i64, arr.dtype.np_dtype.itemsize)
        return make_array(context, builder, result, a.field(dm.ARRAY_DATA),
                          [a.field(dm.ARRAY_NITEMS)], [itemsize],
                          meminfo=a.field(dm.ARRAY_MEMINFO), parent=a.field(dm.ARRAY_PARENT))
    return result(arr), codegen

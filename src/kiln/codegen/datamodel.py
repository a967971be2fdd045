"""How each kiln type is laid out in LLVM, as a value in registers and as bytes in memory.

Booleans are `i1` in registers and `i8` in arrays; everything else has one representation.
An array is `{meminfo*, parent*, nitems, itemsize, data*, shape[N], strides[N]}`. A record
is `{meminfo*, data*}`, a reference to its bytes in an array, which hold `[size x i8]`.

Numbers, arrays, records, tuples, Optionals, ranges, slices and literals are laid out
here. Every other family (lists, dicts, sets, strings, generators, jitclass instances: a
pointer to their NRT meminfo) registers its layout in the module that owns it
(`register_model`, or `ownership.meminfo_family`), so this module names none of them; a
library type with `fields` is a struct of them.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..runtime.irtypes import i1, i8, i32, i64, intp, ptr  # noqa: F401 (named as dm.*)

# Field positions of the array struct.
ARRAY_MEMINFO, ARRAY_PARENT, ARRAY_NITEMS, ARRAY_ITEMSIZE, ARRAY_DATA, ARRAY_SHAPE, \
    ARRAY_STRIDES = range(7)

_FLOATS = {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}
_MODELS = {}   # type class -> model(ty): the LLVM type of its values


def register_model(type_class, model):
    """Lay out the values of `type_class` (and of its subclasses) as `model(ty)` says."""
    _MODELS[type_class] = model
    value_type.cache_clear()


@lru_cache(maxsize=None)
def value_type(ty: t.Type) -> ir.Type:
    """The LLVM type of a value of `ty` held in a register or passed to a function."""
    for cls in type(ty).__mro__:   # first: a family may refine a core type
        if cls in _MODELS:
            return _MODELS[cls](ty)
    if isinstance(ty, t.Boolean):
        return i1
    if isinstance(ty, t.Integer):
        return ir.IntType(ty.bitwidth)
    if isinstance(ty, t.Float):
        return _FLOATS[ty.bitwidth]
    if isinstance(ty, t.Complex):
        f = _FLOATS[ty.bitwidth // 2]
        return ir.LiteralStructType([f, f])
    if isinstance(ty, t.Array):
        dims = ir.ArrayType(intp, ty.ndim)
        return ir.LiteralStructType([ptr, ptr, intp, intp, ptr, dims, dims])
    if isinstance(ty, t.UniTuple):
        return ir.ArrayType(value_type(ty.dtype), ty.count)
    if isinstance(ty, t.Tuple):
        return ir.LiteralStructType([value_type(x) for x in ty.types])
    if isinstance(ty, t.Record):  # its array's meminfo and its address
        return ir.LiteralStructType([ptr, ptr])
    if isinstance(ty, t.Optional):  # the value and whether there is one
        return ir.LiteralStructType([value_type(ty.type), i1])
    if isinstance(ty, (t.RangeType, t.SliceType)):
        return ir.LiteralStructType([intp, intp, intp])
    if isinstance(ty, t.RawPointer):
        return ptr
    if isinstance(ty, t.LiteralArg) and isinstance(ty.type, t.Number):  # a constant
        return value_type(ty.type)                                       # argument
    if isinstance(ty, (t.NoneType, t.Opaque)):
        return i8  # no runtime content: a placeholder byte
    if hasattr(ty, "fields"):  # a library type that is a struct of other kiln types
        return ir.LiteralStructType([value_type(f) for f in ty.fields])
    raise NotImplementedError(f"no data model for {ty}")


def memory_type(ty: t.Type) -> ir.Type:
    """The LLVM type of `ty` stored in an array element."""
    if isinstance(ty, t.Boolean):
        return i8
    if isinstance(ty, t.Record):
        return ir.ArrayType(i8, ty.size)
    return value_type(ty)


def to_memory(builder, ty, value):
    return builder.zext(value, i8) if isinstance(ty, t.Boolean) else value


def from_memory(builder, ty, value):
    return builder.icmp_unsigned("!=", value, ir.Constant(i8, 0)) if isinstance(ty, t.Boolean) \
        else value


def load_item(builder, ty, address, meminfo=None):
    """The item at `address`; a record is a reference to it, owning nothing unless its
    array's `meminfo` is given (the caller counts the reference)."""
    if isinstance(ty, t.Record):
        value = builder.insert_value(null_value(ty), meminfo or ir.Constant(ptr, None), 0)
        return builder.insert_value(value, address, 1)
    return from_memory(builder, ty, builder.load(address, typ=memory_type(ty)))


def store_item(builder, ty, value, address):
    """Store an item; a record's bytes are copied from where it refers."""
    if isinstance(ty, t.Record):
        record = builder.load(builder.extract_value(value, 1), typ=memory_type(ty), align=1)
        builder.store(record, address, align=1)
        return
    builder.store(to_memory(builder, ty, value), address)


SLICE_ABSENT = -(1 << 63)  # marks a slice bound written as empty (`a[:n]`), never an index


def build_slice(builder, start, stop, step):
    """The slice `{start, stop, step}`, a bound given as None marked SLICE_ABSENT."""
    value = ir.Constant(ir.LiteralStructType([i64, i64, i64]), ir.Undefined)
    for i, part in enumerate((start, stop, step)):
        value = builder.insert_value(value, part if part is not None
                                     else ir.Constant(i64, SLICE_ABSENT), i)
    return value


def type_tag(ty) -> int:
    """A number naming a type, the same in every process (it is in cached code): what a
    list, dict or generator that has been to Python carries, so it is checked coming back."""
    digest = hashlib.sha1(str(ty).encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def null_value(ty):
    return ir.Constant(value_type(ty), None)

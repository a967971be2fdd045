"""Fields of records (types/records.py): `r.x`, `r["x"]`, their assignment, and `a["x"]`, the
view of one field across a structured array; and records crossing the CPython boundary.

A field is read and written at its offset from the record's address, converted to and
from its type as an array item would be (a sub-array field is a view there); attribute
templates are registered for each field name as records appear (as jitclass does for its
members). A NumPy record scalar (`np.void`, `np.record`: `a[0]` of a structured array)
passes as a reference to its bytes, so compiled code writes the array it came from, as in
Numba; a record returned to Python is a copy, a new `np.void`."""
from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..codegen.context import register_constant
from ..errors import TypingError
from ..runtime import nrt
from ..runtime import pyapi as P
from ..types.charseq import FixedWidth
from ..types.records import on_new_record
from .arrays import ArrayValue, make_array
from .charseq import text_type
from ..typing.registry import Template, Resolution, registry, template


def _field(record, name):
    """(type, offset) of `record`'s field `name`, or a TypingError naming the fields."""
    found = record.member(name)
    if found is None:
        fields = ", ".join(repr(n) for n, _, _ in record.members)
        raise TypingError(f"{record} has no field {name!r} (its fields: {fields})")
    return found


def _field_address(builder, record, value, name):
    _, offset = record.member(name)
    return builder.gep(builder.extract_value(value, 1), [ir.Constant(dm.i64, offset)],
                       source_etype=dm.i8, inbounds=True)


def _alignment(record, name):
    """1 for a field a packed dtype leaves unaligned (a GPU faults on a misaligned load)."""
    return None if record.aligned(name) else 1


def _c_strides(ty, shape):
    strides, step = [], ty.dtype.np_dtype.itemsize
    for n in reversed(shape):
        strides.insert(0, step)
        step *= n
    return strides


def _read(record, name):
    ty, _ = _field(record, name)
    if isinstance(ty, t.Array):
        return ty, _subarray(record, name, ty)

    def codegen(context, builder, sig, args):
        address = _field_address(builder, record, args[0], name)
        raw = builder.load(address, typ=dm.memory_type(ty), align=_alignment(record, name))
        return dm.from_memory(builder, ty, raw)
    return ty, codegen


def _subarray(record, name, ty):
    """A sub-array field: a C-contiguous view into the record's memory, owned as the
    record is (by its array's meminfo)."""
    shape = record.subarray_shape(name)

    def codegen(context, builder, sig, args):
        constant = lambda n: ir.Constant(dm.i64, n)   # noqa: E731
        return make_array(context, builder, ty, _field_address(builder, record, args[0], name),
                          [constant(n) for n in shape],
                          [constant(n) for n in _c_strides(ty, shape)],
                          meminfo=builder.extract_value(args[0], 0))
    return codegen


def _write(record, name, value_ty):
    ty, _ = _field(record, name)
    if isinstance(ty, t.Array):
        raise TypingError(f"field {name!r} of {record} is an array: assign to its items "
                          f"(r.{name}[...] = value)")
    if isinstance(ty, FixedWidth):   # text: converted (truncated, padded) by the call
        if not ty.takes(value_ty):
            raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) "
                              f"of {record} (it holds {text_type(ty)} text)")
    elif not isinstance(value_ty, t.Number):
        raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) of "
                          f"{record}")
    if isinstance(value_ty, t.Complex) and not isinstance(ty, t.Complex):
        raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) "
                          "(NumPy does not cast complex to real)")

    def codegen(context, builder, sig, args):
        address = _field_address(builder, record, args[0], name)
        builder.store(dm.to_memory(builder, ty, args[-1]), address,
                      align=_alignment(record, name))
        return dm.null_value(t.none)
    return ty, codegen


def _field_name(record, key):
    """The field `r[key]` names: a constant string."""
    return key.value if isinstance(key, t.StringLiteral) else None


@template(operator.getitem)
def _getitem(tctx, record, key):
    name = _field_name(record, key) if isinstance(record, t.Record) else None
    if name is None:
        return None
    ty, codegen = _read(record, name)
    return ty(record, key), codegen


@template(operator.setitem)
def _setitem(tctx, record, key, value):
    name = _field_name(record, key) if isinstance(record, t.Record) else None
    if name is None:
        return None
    ty, codegen = _write(record, name, value)
    return t.none(record, key, ty), codegen


class _Attribute(Template):
    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        if len(args) != 1 or not isinstance(args[0], t.Record) or \
                args[0].member(self.name) is None:
            return None
        ty, codegen = _read(args[0], self.name)
        return Resolution(ty(args[0]), codegen)


class _SetAttribute(Template):
    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        if len(args) != 2 or not isinstance(args[0], t.Record) or \
                args[0].member(self.name) is None:
            return None
        ty, codegen = _write(args[0], self.name, t.unliteral(args[1]))
        return Resolution(t.none(args[0], ty), codegen)


_registered = set()


def _register_fields(record):
    for name, _, _ in record.members:
        if name not in _registered:
            _registered.add(name)
            registry.register(("attr", name), _Attribute(name))
            registry.register(("setattr", name), _SetAttribute(name))


on_new_record(_register_fields)


@template(operator.getitem)
def _field_view(tctx, array, name):
    """`a["x"]`: the field across the array, a view with the array's shape and strides."""
    if not (isinstance(array, t.Array) and isinstance(array.dtype, t.Record)
            and isinstance(name, t.StringLiteral)):
        return None
    ty, offset = _field(array.dtype, name.value)
    sub_shape = array.dtype.subarray_shape(name.value) if isinstance(ty, t.Array) else ()
    item = ty.dtype if isinstance(ty, t.Array) else ty
    result = array.copy(dtype=item, ndim=array.ndim + len(sub_shape), layout="A")

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], array)
        data = builder.gep(arr.field(dm.ARRAY_DATA), [ir.Constant(dm.i64, offset)],
                           source_etype=dm.i8)
        ndim = array.ndim
        constant = lambda n: ir.Constant(dm.i64, n)   # noqa: E731
        return make_array(context, builder, result, data,
                          [arr.shape(d) for d in range(ndim)] + [constant(n) for n in sub_shape],
                          [arr.stride(d) for d in range(ndim)] +
                          [constant(n) for n in (_c_strides(ty, sub_shape) if sub_shape else ())],
                          meminfo=arr.field(dm.ARRAY_MEMINFO),
                          parent=arr.field(dm.ARRAY_PARENT))
    return result(array, name), codegen


# ---- the CPython boundary --------------------------------------------------------------------
# PyVoidScalarObject: PyObject_VAR_HEAD, then `char *obval` (the record's bytes: into its
# array for `a[i]`) and `PyArray_Descr *descr`
_VOID_DATA = P.HEAD + 8
_VOID_DESCR = P.HEAD + 16


@boxing.unboxer(t.Record)
def _unbox(unboxer, ty, obj):
    """A reference to the bytes of `obj`, a NumPy record scalar of exactly this dtype
    (compared as NumPy compares dtypes: names, formats and offsets)."""
    b, api = unboxer.b, unboxer.api
    is_void = api.call("PyObject_IsInstance", dm.i32, [obj, api.constant_object(np.void)])
    unboxer.require(b.icmp_signed("==", is_void, ir.Constant(dm.i32, 1)))
    equal = api.call("PyObject_RichCompareBool", dm.i32,
                     [api.read(obj, _VOID_DESCR, dm.ptr), api.constant_object(ty.np_dtype),
                      ir.Constant(dm.i32, 2)])   # Py_EQ; an error (-1) is no match
    unboxer.require(b.icmp_signed("==", equal, ir.Constant(dm.i32, 1)))
    return dm.load_item(b, ty, api.read(obj, _VOID_DATA, dm.ptr))


@boxing.boxer(t.Record)
def _box(api, ty, value, fail):
    """A new `np.void` holding a copy of the record's bytes (as Numba returns records)."""
    b = api.builder
    raw = api.call("PyBytes_FromStringAndSize", dm.ptr,
                   [b.extract_value(value, 1), ir.Constant(dm.i64, ty.size)])
    with b.if_then(b.icmp_unsigned("==", raw, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(record_from_bytes), raw,
                       api.constant_object(ty.np_dtype), ir.Constant(dm.ptr, None)],
                      var_arg=True, argtypes=[dm.ptr])
    api.decref(raw)
    nrt.emit_decref(b, b.extract_value(value, 0))   # the reference the value held
    return result


def record_from_bytes(raw, dtype):
    """The record scalar of `dtype` over a writable copy of `raw`."""
    return np.frombuffer(raw, dtype=dtype).copy()[0]


def _constant(context, builder, ty, value):
    """A global record scalar: a copy of its bytes taken when compiling, in the module (as
    Numba freezes global records; compiled code's writes go to the copy)."""
    data = bytearray(value.tobytes())
    array_ty = ir.ArrayType(dm.i8, len(data))
    gv = ir.GlobalVariable(context.module, array_ty,
                           name=context.module.get_unique_name("kiln.record"))
    gv.linkage = "internal"
    gv.align = 16
    gv.initializer = ir.Constant(array_ty, data)
    return dm.load_item(builder, ty, gv)


register_constant(t.Record, _constant)

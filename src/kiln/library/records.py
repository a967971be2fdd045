"""Fields of records (types/records.py): `r.x`, `r["x"]`, their assignment, and `a["x"]`, the
view of one field across a structured array; and records crossing the CPython boundary.

A field is read and written at its offset from the record's address, converted to and
from its type as an array item would be (a sub-array field is a view there); attribute
templates are registered for each field name as records appear (as jitclass does for its
members). A NumPy record scalar (`np.void`, `np.record`: `a[0]` of a structured array)
passes as a reference to its bytes, so compiled code writes the array it came from, as in
Numba; a record returned to Python is a copy, a new `np.record`."""
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
    if found is None:   # (Numba's words after ours)
        fields = tuple(n for n, _, _ in record.members)
        raise TypingError(f"{record} has no field {name!r}: Field {name!r} was not found in "
                          f"record with fields {fields}")
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
        if isinstance(ty, t.Record):   # a reference into the record's bytes
            return dm.load_item(builder, ty, address, builder.extract_value(args[0], 0))
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


def _write(tctx, record, name, value_ty):
    ty, _ = _field(record, name)
    if isinstance(ty, t.Array):
        return _fill_subarray(tctx, record, name, ty, value_ty)
    if isinstance(ty, FixedWidth):   # text: converted (truncated, padded) by the call
        if not ty.takes(value_ty):
            raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) "
                              f"of {record} (it holds {text_type(ty)} text)")
    elif isinstance(ty, t.Record) or isinstance(value_ty, t.Record):
        if value_ty != ty:   # a nested record takes a record of its dtype only
            raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) "
                              f"of {record}")
    elif not isinstance(value_ty, t.Number):
        raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) of "
                          f"{record}")
    if isinstance(value_ty, t.Complex) and not isinstance(ty, t.Complex):
        raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) "
                          "(NumPy does not cast complex to real)")

    def codegen(context, builder, sig, args):
        address = _field_address(builder, record, args[0], name)
        if isinstance(ty, t.Record):   # its bytes copied
            dm.store_item(builder, ty, args[-1], address)
        else:
            builder.store(dm.to_memory(builder, ty, args[-1]), address,
                          align=_alignment(record, name))
        return dm.null_value(t.none)
    return ty, codegen


def _fill_subarray(tctx, record, name, ty, value_ty):
    """`r.pos = x`: `r.pos[...] = x`, the array's assignment (a scalar fills the field,
    an array is broadcast into it), as NumPy assigns a sub-array field."""
    fill = tctx.resolve(operator.setitem, (ty, t.ellipsis, value_ty))
    if fill is None:
        raise TypingError(f"cannot store a {value_ty} value into field {name!r} ({ty}) of "
                          f"{record}")
    view = _subarray(record, name, ty)

    def codegen(context, builder, sig, args):
        sub = view(context, builder, sig, args[:1])   # borrowed: the record owns it
        value = context.cast(builder, args[-1], value_ty, fill.signature.args[2])
        fill.lower(context, builder, fill.signature, [sub, dm.null_value(t.ellipsis), value])
        return dm.null_value(t.none)
    return value_ty, codegen


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
    ty, codegen = _write(tctx, record, name, value)
    return t.none(record, key, ty), codegen


class _Attribute(Template):
    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        if len(args) == 1 and _record_array(args[0]) and \
                args[0].dtype.member(self.name) is not None:
            return self._array_field(tctx, args[0])
        if len(args) != 1 or not isinstance(args[0], t.Record) or \
                args[0].member(self.name) is None:
            return None
        ty, codegen = _read(args[0], self.name)
        return Resolution(ty(args[0]), codegen)

    def _array_field(self, tctx, array):
        """`a.x` of a record array: an array attribute of that name (`a.shape`, `a.imag`),
        else the field view `a["x"]`, as Numba (and NumPy's recarray) resolve it."""
        for other in registry.templates(("attr", self.name), tctx.target):
            found = other.resolve(tctx, (array,), {}) if other is not self else None
            if found is not None:
                return found
        ty, codegen = _view(array, self.name)
        return Resolution(ty(array), codegen)


class _SetAttribute(Template):
    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        if len(args) != 2 or not isinstance(args[0], t.Record) or \
                args[0].member(self.name) is None:
            return None
        ty, codegen = _write(tctx, args[0], self.name, t.unliteral(args[1]))
        return Resolution(t.none(args[0], ty), codegen)


_registered = set()


def _register_fields(record):
    for name, _, _ in record.members:
        if name not in _registered:
            _registered.add(name)
            registry.register(("attr", name), _Attribute(name))
            registry.register(("setattr", name), _SetAttribute(name))


on_new_record(_register_fields)


def _record_array(ty):
    return isinstance(ty, t.Array) and isinstance(ty.dtype, t.Record)


@template(operator.getitem)
def _field_view(tctx, array, name):
    """`a["x"]`: the field across the array."""
    if not (_record_array(array) and isinstance(name, t.StringLiteral)):
        return None
    result, codegen = _view(array, name.value)
    return result(array, name), codegen


@template(operator.setitem)
def _assign_field(tctx, array, name, value):
    """`a["x"] = value`: `a["x"][...] = value`, the field across the array filled or
    broadcast into, as NumPy assigns it."""
    if not (_record_array(array) and isinstance(name, t.StringLiteral)):
        return None
    view_ty, view = _view(array, name.value)
    fill = tctx.resolve(operator.setitem, (view_ty, t.ellipsis, value))
    if fill is None:
        raise TypingError(f"cannot store a {value} value into field {name.value!r} of "
                          f"{array}")

    def codegen(context, builder, sig, args):
        field = view(context, builder, sig, args[:1])    # borrowed: the array owns it
        item = context.cast(builder, args[2], value, fill.signature.args[2])
        fill.lower(context, builder, fill.signature, [field, dm.null_value(t.ellipsis), item])
        return dm.null_value(t.none)
    return t.none(array, name, value), codegen


def _view(array, name):
    """The field `name` across a record array: a view with the array's shape and strides
    (and a sub-array field's axes after them)."""
    ty, offset = _field(array.dtype, name)
    sub_shape = array.dtype.subarray_shape(name) if isinstance(ty, t.Array) else ()
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
    return result, codegen


# ---- the CPython boundary --------------------------------------------------------------------
# PyVoidScalarObject: PyObject_VAR_HEAD, then `char *obval` (the record's bytes: into its
# array for `a[i]`) and `PyArray_Descr *descr`
_VOID_DATA = P.HEAD + 8
_VOID_DESCR = P.HEAD + 16


@boxing.unboxer(t.Record, copies=True)
def _unbox(unboxer, ty, obj):
    """A reference to the bytes of `obj`, a NumPy record scalar of exactly this dtype
    (compared as NumPy compares dtypes: names, formats and offsets), counting a reference
    to a meminfo that holds `obj` (released by the entry point after the call), so a view
    of a sub-array field returned to Python keeps the record's bytes alive."""
    b, api = unboxer.b, unboxer.api
    is_void = api.call("PyObject_IsInstance", dm.i32, [obj, api.constant_object(np.void)])
    unboxer.require(b.icmp_signed("==", is_void, ir.Constant(dm.i32, 1)))
    descr = api.read(obj, _VOID_DESCR, dm.ptr)
    equal = api.call("PyObject_RichCompareBool", dm.i32, [descr, api.constant_object(
        ty.np_dtype), ir.Constant(dm.i32, 2)])   # Py_EQ; an error (-1) is no match
    found = api.context.alloca(b, dm.i1)
    b.store(b.icmp_signed("==", equal, ir.Constant(dm.i32, 1)), found)
    with b.if_then(b.not_(b.load(found, typ=dm.i1)), likely=False):   # a wider record:
        wider = api.call("PyObject_CallFunctionObjArgs", dm.ptr,   # taken where converted
                         [api.constant_object(extends), descr, api.constant_object(ty),
                          ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
        b.store(b.icmp_unsigned("==", wider, api.global_object("_Py_TrueStruct")), found)
        api.call("Py_DecRef", ir.VoidType(), [wider])   # (NULL: an error, cleared below)
        api.call("PyErr_Clear", ir.VoidType(), [])
    unboxer.require(b.load(found, typ=dm.i1))
    owner = nrt.emit_python_owner(b, obj)
    held = b.append_basic_block("record")
    b.cbranch(b.icmp_unsigned("==", owner, ir.Constant(dm.ptr, None)),
              unboxer.no_memory_block(), held)
    b.position_at_end(held)
    nrt.emit_incref(b, owner)
    b.store(owner, unboxer.copy_slot())
    return dm.load_item(b, ty, api.read(obj, _VOID_DATA, dm.ptr), owner)


@boxing.boxer(t.Record)
def _box(api, ty, value, fail):
    """A new `np.record` holding a copy of the record's bytes (as Numba returns records)."""
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


def extends(dtype, record) -> bool:
    """Whether a record scalar of `dtype` starts with `record`'s fields (Numba's width
    subtyping: a function compiled for `record` takes it where the dispatcher converts)."""
    try:
        return t.from_dtype(dtype).extends(record)
    except TypeError:   # a dtype kiln does not take
        return False


def record_from_bytes(raw, dtype):
    """The record scalar of `dtype` over a writable copy of `raw`: an `np.record`, whose
    fields are attributes too, as Numba returns records."""
    return np.frombuffer(raw, dtype=np.dtype((np.record, dtype))).copy()[0]


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

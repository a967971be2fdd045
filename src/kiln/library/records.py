"""Fields of records (types/records.py): `r.x`, `r["x"]`, their assignment, and `a["x"]`, the
view of one field across a structured array.

A field is read and written at its offset from the record's address, converted to and
from its type as an array item would be (a sub-array field is a view there); attribute templates are registered for each
field name as records appear (as jitclass does for its members)."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..types.records import on_new_record
from .arrays import ArrayValue, make_array
from .registry import Template, Resolution, registry, template


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
    if not isinstance(value_ty, t.Number):
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


@template(operator.getitem)
def _getitem(tctx, record, name):
    if not (isinstance(record, t.Record) and isinstance(name, t.StringLiteral)):
        return None
    ty, codegen = _read(record, name.value)
    return ty(record, name), codegen


@template(operator.setitem)
def _setitem(tctx, record, name, value):
    if not (isinstance(record, t.Record) and isinstance(name, t.StringLiteral)):
        return None
    ty, codegen = _write(record, name.value, value)
    return t.none(record, name, ty), codegen


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

"""Mutable structs in compiled code (types/classes.py's MutableStruct: jitclass instances
and structrefs): their layout, their destructor, reading and writing a field, and the
templates of a structref's fields.

A struct is a pointer to an NRT meminfo whose data holds its fields in order, each in its
memory layout. A new struct is all zeros (reading a container, array or struct field still
zero is CPython's AttributeError); its destructor (one per struct type, an internal
function of each module that makes them) releases the fields that own references, so a
struct held by nothing is freed with what it holds. A field is read as a borrowed value
and stored with a reference of its own (arrays that NumPy owns are kept alive as a list's
items are, library/list_layout.py).
"""
from __future__ import annotations

import inspect

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.ownership import decref, meminfo_family
from ..errors import TypingError
from ..runtime import nrt
from ..types.structref import on_new_struct_ref
from ..typing.unify import can_convert
from .list_layout import _module_function, _target_data, replace_item
from ..typing.registry import Resolution, Template, registry, template

meminfo_family(t.MutableStruct)   # a struct is its meminfo


def struct_type(ty):
    return ir.LiteralStructType([dm.memory_type(field) for field in ty.field_dict.values()])


def _field_address(b, ty, obj, index):
    return b.gep(nrt.meminfo_data(b, obj), [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, index)],
                 source_etype=struct_type(ty))


def _destructor(module, ty):
    """`void destroy(meminfo)`: release each field that owns references."""
    def body(fn, b):
        for index, field in enumerate(ty.field_dict.values()):
            decref(b, field, dm.load_item(b, field, _field_address(b, ty, fn.args[0], index)))
        b.ret_void()
    return _module_function(module, f"kiln.struct.destroy.{ty}", nrt.DESTRUCTOR, body)


def new_struct(context, b, ty):
    """A new struct of type `ty` (one reference) whose fields are all zeros."""
    size = max(1, struct_type(ty).get_abi_size(_target_data()))
    obj = nrt.emit_allocate(b, ir.Constant(dm.i64, size))
    context.guard(b, b.icmp_unsigned("==", obj, ir.Constant(dm.ptr, None)), MemoryError,
                  f"cannot allocate an instance of {ty.label}")
    b.store(ir.Constant(struct_type(ty), None), nrt.meminfo_data(b, obj))
    nrt.set_destructor(b, obj, _destructor(context.module, ty))
    return obj


def _index(ty, name):
    return list(ty.field_dict).index(name)


def read_field(ty, name) -> Resolution:
    """`obj.name` for the field `name` of the struct type `ty`: a borrowed value."""
    index, field_ty = _index(ty, name), ty.field_dict[name]

    def lower(ctx, b, sig, llargs):
        value = dm.load_item(b, field_ty, _field_address(b, ty, llargs[0], index))
        unset = _never_assigned(b, field_ty, value)
        if unset is not None:   # as CPython: reading an attribute never set
            ctx.guard(b, unset, AttributeError,
                      f"'{ty.label}' object has no attribute '{name}'")
        return value
    return Resolution(t.Signature(field_ty, (ty,)), lower)


def _never_assigned(b, ty, value):
    """For a field whose zeros are no valid value (a container or struct: NULL, an array:
    no data), whether `value` is still those zeros; None for other fields."""
    null = ir.Constant(dm.ptr, None)
    if isinstance(ty, (t.ListType, t.DictType, t.MutableStruct)):
        return b.icmp_unsigned("==", value, null)
    if isinstance(ty, t.Array):
        return b.icmp_unsigned("==", b.extract_value(value, dm.ARRAY_DATA), null)
    return None


def write_field(ty, name, value_ty) -> Resolution:
    """`obj.name = value` for the field `name` of the struct type `ty`: the value converted
    to the field's type, the old value released."""
    index, field_ty = _index(ty, name), ty.field_dict[name]
    if not can_convert(value_ty, field_ty):
        raise TypingError(f"cannot assign {value_ty} to field {ty.label}.{name}, which is "
                          f"{field_ty}")

    def lower(ctx, b, sig, llargs):
        replace_item(ctx, b, field_ty, llargs[1], _field_address(b, ty, llargs[0], index))
        return dm.null_value(t.none)
    return Resolution(t.Signature(t.none, (ty, field_ty)), lower)


# ---- structrefs: their fields by name ------------------------------------------------------

class _FieldGet(Template):
    """`obj.name`: the field of a structref (an Optional one unwrapped, checked not None)."""

    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        (obj,) = args
        if isinstance(obj, t.Optional):
            obj = obj.type
        if not isinstance(obj, t.StructRef) or self.name not in obj.field_dict:
            return None
        return read_field(obj, self.name)


class _FieldSet(Template):
    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        obj, value = args
        if isinstance(obj, t.Optional):
            obj = obj.type
        if not isinstance(obj, t.StructRef) or self.name not in obj.field_dict:
            return None
        return write_field(obj, self.name, t.unliteral(value))


_registered = set()


def _register_fields(ty):
    for name in ty.field_dict:
        if name not in _registered:
            _registered.add(name)
            registry.register(("attr", name), _FieldGet(name))
            registry.register(("setattr", name), _FieldSet(name))


on_new_struct_ref(_register_fields)


class Constructor(Template):
    """`Cls(*values)` for a structref proxy class `Cls` (structref.define_constructor): a
    new struct of the type `typeclass` makes of the fields and the values' types, each
    field set to its value; the values may be passed by field name."""

    def __init__(self, name, typeclass, fields):
        self.name, self.typeclass, self.fields = name, typeclass, tuple(fields)
        self.signature = inspect.Signature([
            inspect.Parameter(f, inspect.Parameter.POSITIONAL_OR_KEYWORD) for f in fields])

    def resolve(self, tctx, args, kws):
        try:
            bound = self.signature.bind(*args, **kws).arguments
        except TypeError as e:
            raise TypingError(f"{self.name}(): {e}") from None
        given = {name: t.unliteral(ty) for name, ty in bound.items()}
        ty = self.typeclass([(name, given[name]) for name in self.fields])
        writes = [write_field(ty, name, given[name]) for name in self.fields]
        kw_order = tuple(kws)
        order = self.fields[:len(args)] + kw_order

        def lower(ctx, b, sig, llargs):
            obj = new_struct(ctx, b, ty)
            values = dict(zip(order, llargs))
            for name, write in zip(self.fields, writes):
                value = ctx.cast(b, values[name], given[name], write.signature.args[1])
                write.lower(ctx, b, write.signature, [obj, value])
            return obj
        return Resolution(t.Signature(ty, tuple(given[name] for name in order)), lower,
                          kw_order, new_reference=True)

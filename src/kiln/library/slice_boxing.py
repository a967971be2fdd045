"""Slices crossing into and out of Python: an argument `slice(1, None, 2)` (bounds None or
int64, as typeof checked) and a slice returned to Python. Kept apart from slicing.py, which
is what compiled code does with a slice, as array_boxing.py is from arrays.py."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..codegen.context import register_constant
from .slicing import ABSENT, build_slice

_SLICE_BOUNDS = 16   # PySliceObject: the head, then start, stop and step (object pointers)


@boxing.unboxer(t.SliceType)
def _unbox_slice(unboxer, ty, obj):
    """A Python slice whose bounds are None or ints (typeof checked them): None is absent."""
    api, b = unboxer.api, unboxer.b
    unboxer.require(api.is_type(obj, api.global_object("PySlice_Type")))
    none = api.global_object("_Py_NoneStruct")
    bounds = []
    for i in range(3):
        bound = api.read(obj, _SLICE_BOUNDS + 8 * i, dm.ptr)
        slot = b.alloca(dm.i64)
        b.store(ir.Constant(dm.i64, ABSENT), slot)
        with b.if_then(b.icmp_unsigned("!=", bound, none)):
            value, failed = unboxer.convert_long("PyLong_AsLongLong", bound)
            unboxer.mismatch_if(failed)
            b.store(value, slot)
        bounds.append(b.load(slot, typ=dm.i64))
        if i == 2 and not ty.has_step:   # compiled for a step of 1: none, or 1 (kept)
            unboxer.require(b.or_(*(b.icmp_signed("==", bounds[2], ir.Constant(dm.i64, n))
                                    for n in (ABSENT, 1))))
    return build_slice(b, *bounds)


def _constant_slice(context, builder, ty, value):
    """A slice frozen into the code (a global, a closure variable, a literal argument)."""
    return build_slice(builder, *[None if bound is None else ir.Constant(dm.i64, int(bound))
                                  for bound in (value.start, value.stop, value.step)])


register_constant(t.SliceType, _constant_slice)


@boxing.boxer(t.SliceType)
def _box_slice(api, ty, value, fail):
    """slice(start, stop, step), an absent bound None; a SliceLiteral is its value."""
    b = api.builder
    if isinstance(ty, t.SliceLiteral):
        obj = api.constant_object(ty.value)
        api.incref(obj)
        return obj
    parts = []
    for i in range(3):
        bound = b.extract_value(value, i)
        absent = b.icmp_signed("==", bound, ir.Constant(dm.i64, ABSENT))
        slot = b.alloca(dm.ptr)
        with b.if_else(absent) as (none, number):
            with none:
                b.store(api.new_reference("_Py_NoneStruct"), slot)
            with number:
                b.store(api.call("PyLong_FromLongLong", dm.ptr, [bound]), slot)
        parts.append(b.load(slot, typ=dm.ptr))
    result = api.call("PySlice_New", dm.ptr, parts)
    for part in parts:
        api.decref(part)
    return result

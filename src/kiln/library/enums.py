"""Enum members in compiled code (types/enums.py): `Color.red` read as a constant,
`==`, `!=`, `is` and `is not` between members, `.value`, and members crossing to and from
Python (a member in, the same member out). IntEnum members are integers and need no more
than their boxing here."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import template

_MEMBERS = (t.EnumMember, t.IntEnumMember)


def _member_value(context, builder, ty, value):
    return builder.extract_value(value, 0) if isinstance(ty, t.EnumMember) else value


def _comparison(op, negate, identity):
    """==, != between Enum members; `is`, `is not` between any members (an IntEnum
    member `==` a number is the integer comparison)."""
    def typer(tctx, a, b):
        kinds = _MEMBERS if identity else t.EnumMember
        if not (isinstance(a, kinds) and isinstance(b, kinds)):
            return None
        if a != b:   # members of two classes are never equal
            def different(context, builder, sig, args):
                return ir.Constant(dm.i1, int(negate))
            return t.boolean(a, b), different
        equal = tctx.resolve(operator.eq, (a.dtype, a.dtype))
        if equal is None:
            return None

        def codegen(context, builder, sig, args):
            result = equal.lower(context, builder, equal.signature,
                                 [_member_value(context, builder, a, v) for v in args])
            return builder.not_(result) if negate else result
        return t.boolean(a, b), codegen
    return template(op)(typer)


for _op, _negate, _identity in ((operator.eq, False, False), (operator.ne, True, False),
                                (operator.is_, False, True), (operator.is_not, True, True)):
    _comparison(_op, _negate, _identity)


@template(operator.getitem)
def _member_by_name(tctx, cls, name):
    """`Color["red"]`: the member, a constant."""
    if not (isinstance(cls, t.EnumClass) and isinstance(name, t.StringLiteral)):
        return None
    member = cls.module.__members__.get(name.value)
    if member is None:
        raise TypingError(f"{cls.label} has no member {name.value!r} (its members: "
                          f"{', '.join(cls.module.__members__)})")
    rt = t.typeof(member)

    def codegen(context, builder, sig, args):
        return context.get_constant(builder, rt, member)
    return rt(cls, name), codegen


@template(("attr", "value"))
def _value(tctx, member):
    if not isinstance(member, _MEMBERS):
        return None
    result = t.int64 if isinstance(member, t.IntEnumMember) else member.dtype

    def codegen(context, builder, sig, args):
        return _member_value(context, builder, member, args[0])
    return result(member), codegen


def _value_of(member):
    """The `.value` of a member, called by unboxing (a plain Enum member is no number)."""
    return member.value


@boxing.boxer(t.EnumMember)
@boxing.boxer(t.IntEnumMember)
def _box_member(api, ty, value, fail):
    """`cls(value)`: the member itself (enum classes look their members up by value)."""
    number = boxing.box(api, ty.dtype if isinstance(ty, t.EnumMember) else t.int64,
                        _member_value(api.context, api.builder, ty, value), fail)
    member = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(ty.instance_class), number,
                       ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(number)
    return member


@boxing.unboxer(t.EnumMember)
@boxing.unboxer(t.IntEnumMember)
def _unbox_member(unboxer, ty, obj):
    api, b = unboxer.api, unboxer.b
    unboxer.require(api.is_type(obj, api.constant_object(ty.instance_class)))
    if isinstance(ty, t.IntEnumMember):
        value, failed = unboxer.convert_long("PyLong_AsLongLong", obj)
        unboxer.mismatch_if(failed)
        return value
    number = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(_value_of), obj, ir.Constant(dm.ptr, None)],
                      var_arg=True, argtypes=[dm.ptr])
    value = unboxer.unbox(ty.dtype, number)
    api.decref(number)
    return b.insert_value(ir.Constant(dm.value_type(ty), ir.Undefined), value, 0)

"""How kiln's values cross a C call, both ways (a @cfunc's wrapper in ccallback.py, a call
of a C function in library/foreign.py): a C `_Bool` is a byte, a first-class function its
C address (kiln's value of a FunctionType pairs it with the address of the same function
in kiln's own convention, where there is one)."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from . import datamodel as dm


def c_value_type(ty):
    """How C passes a value of `ty` (a C `_Bool` is a byte, a function its C address;
    `none` is void)."""
    if ty == t.none:
        return ir.VoidType()
    if isinstance(ty, t.FunctionType):
        return dm.ptr
    return dm.i8 if isinstance(ty, t.Boolean) else dm.value_type(ty)


def to_c(builder, ty, value):
    if isinstance(ty, t.FunctionType):
        return builder.extract_value(value, 0)
    return builder.zext(value, dm.i8) if isinstance(ty, t.Boolean) else value


def from_c(builder, ty, value):
    if isinstance(ty, t.FunctionType):   # a function from C has no kiln-convention code
        return function_value(builder, ty, value)
    return builder.icmp_unsigned("!=", value, ir.Constant(dm.i8, 0)) \
        if isinstance(ty, t.Boolean) else value


def function_value(builder, ty, c_address, kiln_address=None):
    """The value of a FunctionType (see its docstring) from its two addresses."""
    value = ir.Constant(dm.value_type(ty), ir.Undefined)
    value = builder.insert_value(value, c_address, 0)
    return builder.insert_value(value, kiln_address or ir.Constant(dm.ptr, None), 1)

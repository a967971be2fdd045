"""`print()` in compiled code (CPU): each argument is boxed and handed to Python's own
print, holding the GIL for the call, so output is exactly what Python prints."""
from __future__ import annotations

import builtins

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.ownership import incref
from ..typing.registry import template


def _printable(ty):
    return isinstance(ty, (t.Number, t.NoneType, t.StringLiteral, t.UnicodeType, t.BaseTuple,
                           t.Array, t.Record, t.CharSeq, t.UnicodeCharSeq))


@template(print, target="cpu")
def _print(tctx, *args):
    if not all(_printable(a) for a in args):
        return None

    def codegen(context, builder, sig, llargs):
        from ..codegen.boxing import box
        from ..runtime.pyapi import PyAPI
        api = PyAPI(context, builder)
        gil = api.call("PyGILState_Ensure", dm.i32, [])

        def fail(b):
            api.call("PyErr_Clear", ir.VoidType(), [])
            api.call("PyGILState_Release", ir.VoidType(), [gil])
            context.raise_error(b, RuntimeError, "print() could not convert its arguments")
        objects = []
        for ty, value in zip(args, llargs):
            if isinstance(ty, t.StringLiteral):
                text = context.state.global_string(ty.value)
                objects.append(api.call("PyUnicode_FromString", dm.ptr, [text]))
            else:
                incref(builder, ty, value)   # lent to print; boxing takes a reference
                objects.append(box(api, ty, value, fail))
        result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                          [api.constant_object(builtins.print)] + objects +
                          [ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
        for obj in objects + [result]:
            api.call("Py_DecRef", ir.VoidType(), [obj])
        api.call("PyGILState_Release", ir.VoidType(), [gil])
        return dm.null_value(t.none)
    return t.none(*args), codegen

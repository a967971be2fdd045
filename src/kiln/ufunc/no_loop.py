"""The TypeError of a call to a kiln ufunc with input dtypes none of its loops accepts,
naming the ufunc, the dtypes given and the loops it has (NumPy's own message names none).

A ufunc made by `PyUFunc_FromFuncAndData` finds its loop through the `type_resolver` of
its PyUFuncObject (NumPy's default: the first loop the inputs cast to safely). kiln puts
a compiled wrapper there that calls NumPy's resolver and, when it fails with NumPy's
no-loop TypeError, raises this module's message instead; every other error (a casting
rule that refuses, `signature=` that names no loop) passes through unchanged. The
wrapper is installed only when the ufunc object is laid out as kiln expects."""
from __future__ import annotations

import ctypes
import threading

import numpy as np
from llvmlite import ir

from ..codegen import datamodel as dm

# offsets in PyUFuncObject (NumPy 1.x and 2.x alike on 64-bit builds)
_NIN, _NTYPES, _NAME, _TYPE_RESOLVER = 16, 48, 56, 144
_SYMBOL, _RESOLVER, _HANDLER = ("kiln.ufunc.type_resolver", "kiln.ufunc.numpy_resolver",
                                 "kiln.ufunc.no_loop_handler")
_NUMPY_MESSAGE = "not supported for the input types"
_lock = threading.Lock()
_wrapper = {}   # "numpy": NumPy's default resolver, "kiln": the wrapper (addresses)


class NoLoopError(TypeError):
    """No loop of a kiln ufunc takes the call's dtypes."""


def is_no_loop(error):
    """Whether `error` (a ufunc call's TypeError) says that no loop takes the dtypes:
    this module's, or NumPy's own where the wrapper is not installed."""
    return isinstance(error, NoLoopError) or type(error).__name__ == "_UFuncNoLoopError"


def no_loop_error(ufunc, operands, error):
    """Called by the wrapper with NumPy's exception: raises the message listing the loops,
    or returns (the wrapper then raises NumPy's own error again)."""
    if type(error) is not TypeError or _NUMPY_MESSAGE not in str(error):
        return
    slots = ctypes.cast(operands, ctypes.POINTER(ctypes.c_void_p))
    given = [str(ctypes.cast(slots[k], ctypes.py_object).value.dtype)
             for k in range(ufunc.nin)]

    def loop(types):
        inputs, outputs = types.split("->")
        names = [np.dtype(c).name for c in outputs]
        result = names[0] if len(names) == 1 else f"({', '.join(names)})"
        return f"{result}({', '.join(np.dtype(c).name for c in inputs)})"
    raise NoLoopError(f"ufunc {ufunc.__name__!r} has no loop for ({', '.join(given)}); its "
                    f"loops are: {', '.join(map(loop, ufunc.types))}")


def install(ufunc, name, nin, ntypes):
    """Put the wrapper in `ufunc`'s type_resolver, when its fields are where kiln expects
    and the resolver there is NumPy's default (the one the wrapper calls)."""
    base = id(ufunc)
    laid_out = (ctypes.c_int.from_address(base + _NIN).value == nin and
                ctypes.c_int.from_address(base + _NTYPES).value == ntypes and
                ctypes.c_char_p.from_address(base + _NAME).value == name.encode())
    slot = ctypes.c_void_p.from_address(base + _TYPE_RESOLVER)
    if not laid_out or not slot.value:
        return
    with _lock:
        if not _wrapper:
            _wrapper.update(_compile(slot.value))
    if slot.value == _wrapper["numpy"]:
        slot.value = _wrapper["kiln"]


def _compile(numpy_resolver):
    """`int resolver(ufunc, casting, operands, type_tup, out_dtypes)` calling NumPy's
    resolver and `no_loop_error` through two globals set after loading, so the machine
    code is the same in every process and comes from kiln's cache."""
    from ..runtime.cache import internal_cache
    from ..runtime.engine import get_engine
    module = ir.Module("kiln.ufunc.no_loop")
    i32 = ir.IntType(32)
    signature = ir.FunctionType(i32, [dm.ptr, i32, dm.ptr, dm.ptr, dm.ptr])
    fn = ir.Function(module, signature, _SYMBOL)
    ufunc, casting, operands, type_tup, out_dtypes = fn.args

    def declare(name, ret, *args, var_arg=False):
        return ir.Function(module, ir.FunctionType(ret, list(args), var_arg=var_arg), name)

    def variable(name):
        g = ir.GlobalVariable(module, dm.ptr, name)
        g.initializer = ir.Constant(dm.ptr, None)
        return g
    resolver_slot, handler_slot = variable(_RESOLVER), variable(_HANDLER)
    fetch = declare("PyErr_Fetch", ir.VoidType(), dm.ptr, dm.ptr, dm.ptr)
    normalize = declare("PyErr_NormalizeException", ir.VoidType(), dm.ptr, dm.ptr, dm.ptr)
    restore = declare("PyErr_Restore", ir.VoidType(), dm.ptr, dm.ptr, dm.ptr)
    decref = declare("Py_DecRef", ir.VoidType(), dm.ptr)
    as_int = declare("PyLong_FromVoidPtr", dm.ptr, dm.ptr)
    call = declare("PyObject_CallFunctionObjArgs", dm.ptr, dm.ptr, var_arg=True)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    status = b.call(b.load(resolver_slot, typ=signature.as_pointer()),
                    [ufunc, casting, operands, type_tup, out_dtypes])
    with b.if_then(b.icmp_signed(">=", status, ir.Constant(i32, 0)), likely=True):
        b.ret(status)
    kind, value, trace = (b.alloca(dm.ptr) for _ in range(3))
    b.call(fetch, [kind, value, trace])
    b.call(normalize, [kind, value, trace])
    address = b.call(as_int, [operands])
    result = b.call(call, [b.load(handler_slot, typ=dm.ptr), ufunc, address,
                           b.load(value, typ=dm.ptr), ir.Constant(dm.ptr, None)])
    b.call(decref, [address])
    raised = b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None))
    with b.if_else(raised) as (new_error, same_error):
        with new_error:  # the new TypeError is set: NumPy's is dropped
            for slot in (kind, value, trace):
                pointer = b.load(slot, typ=dm.ptr)
                with b.if_then(b.icmp_unsigned("!=", pointer, ir.Constant(dm.ptr, None))):
                    b.call(decref, [pointer])
        with same_error:
            b.call(decref, [result])
            b.call(restore, [b.load(kind, typ=dm.ptr), b.load(value, typ=dm.ptr),
                             b.load(trace, typ=dm.ptr)])
    b.ret(ir.Constant(i32, -1))
    compiled = get_engine().compile(str(module), level=1, cache=internal_cache("no_loop"))
    engine = compiled.engine.engine
    for name, value in ((_RESOLVER, numpy_resolver), (_HANDLER, id(no_loop_error))):
        ctypes.c_void_p.from_address(engine.get_global_value_address(name)).value = value
    return {"numpy": numpy_resolver, "kiln": compiled.address(_SYMBOL)}

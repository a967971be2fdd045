"""C from compiled code: calling a `FunctionType` value (a ctypes or cffi foreign function, a
`WrapperAddressProtocol` object such as a Cython function's address, a `@cfunc`, a
compiled function passed as a callback), C pointers (`p[i]`, `p[i] = v`, `carray`,
`farray`) and `arr.ctypes` / `arr.ctypes.data` / `ffi.from_buffer(arr)`.

What may be passed to a C parameter is decided here, at compile time: numbers that
convert without loss of kind (as ctypes allows), for a `CPointer(T)` an array or pointer
of exactly T (or a `voidptr`, or an integer address), for a `voidptr` any array, pointer
or integer address, for a `FunctionType` the same type or a compiled function (wrapped
for C where it is passed). An array of another dtype is a TypingError naming both.
"""
from __future__ import annotations

import ctypes
import math
import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.c_values import c_value_type, from_c, to_c
from ..errors import TypingError
from ..runtime.pyapi import capsule_pointer
from ..types.cffi_types import CffiFFI, kiln_type_of_cffi
from ..typing.unify import can_convert
from .allocation import _dims, shape_items
from .arrays import make_array
from .creation import dtype_of
from ..typing.registry import template


class ArrayCTypes(t.CPointer):
    """`arr.ctypes`: the array's data pointer (borrowed: the array must outlive its use);
    `.data` is its address as an integer, as in NumPy."""

    def __init__(self, dtype):
        super().__init__(dtype)
        self.name = f"ArrayCTypes({dtype})"


def _refusal(given, param):
    """Why a value of type `given` cannot be passed to a C parameter of type `param`."""
    if isinstance(param, t.FunctionType):
        if given == param or isinstance(given, t.Dispatcher):
            return None
        return f"{given} is not a C function of signature {param.signature}"
    if isinstance(param, t.RawPointer):
        if isinstance(given, t.Integer):  # an address, such as arr.ctypes.data
            return None
        if isinstance(param, t.VoidPointer):
            ok = isinstance(given, (t.Array, t.RawPointer, t.FunctionType))
            return None if ok else f"{given} is not an array, a pointer or an address"
        if isinstance(given, t.VoidPointer):
            return None
        if isinstance(given, (t.Array, t.CPointer)):
            if given.dtype == param.dtype:
                return None
            what = "array" if isinstance(given, t.Array) else "pointer"
            return f"a {given.dtype} {what} cannot be passed as {param}"
        return f"{given} is not an array or a pointer of {param.dtype}"
    if isinstance(given, t.Number) and can_convert(given, param):
        return None
    return f"{given} does not convert to {param}"


@template("call")
def call_c_function(tctx, fn, *args):
    """`f(x, ...)` where `f` is a FunctionType value: a C call through its address."""
    if not isinstance(fn, t.FunctionType):
        return None
    sig = fn.signature
    if len(args) != len(sig.args):
        raise TypingError(f"the C function {fn} takes {len(sig.args)} argument(s), "
                          f"{len(args)} given")
    for i, (given, param) in enumerate(zip(args, sig.args)):
        refusal = _refusal(given, param)
        if refusal:
            raise TypingError(f"argument {i + 1} of the C function {fn}: {refusal}")
    ret = sig.return_type
    c_fnty = ir.FunctionType(c_value_type(ret), [c_value_type(a) for a in sig.args])
    kiln_fnty = ir.FunctionType(dm.i32, [dm.ptr, dm.ptr] + [dm.value_type(a) for a in sig.args])

    def codegen(context, builder, s, llargs):
        value, args = llargs[0], llargs[1:]
        kiln_address = builder.extract_value(value, 1)
        result = context.alloca(builder, dm.value_type(ret))
        compiled = builder.icmp_unsigned("!=", kiln_address, ir.Constant(dm.ptr, None))
        with builder.if_else(compiled) as (kiln_code, c_code):
            with kiln_code:   # a compiled function: its exception propagates from here
                builder.store(context.call_internal(
                    builder, _callee(builder, kiln_address, kiln_fnty), ret, args), result)
            with c_code:
                out = builder.call(_callee(builder, builder.extract_value(value, 0), c_fnty),
                                   [to_c(builder, ty, v) for ty, v in zip(sig.args, args)])
                if ret != t.none:
                    builder.store(from_c(builder, ret, out), result)
        return builder.load(result, typ=dm.value_type(ret))
    return ret(fn, *sig.args), codegen


def _callee(builder, address, fnty):
    """`address` as something to call with the function type `fnty` (llvmlite wants a
    typed pointer for an indirect call)."""
    return builder.inttoptr(builder.ptrtoint(address, dm.i64), ir.PointerType(fnty))


@template(operator.getitem)
def _pointer_getitem(tctx, pointer, index):
    if not (isinstance(pointer, t.CPointer) and isinstance(index, t.Integer)):
        return None

    def codegen(context, builder, sig, args):
        return dm.load_item(builder, pointer.dtype, _element(context, builder, pointer, *args))
    return pointer.dtype(pointer, t.intp), codegen


@template(operator.setitem)
def _pointer_setitem(tctx, pointer, index, value):
    if not (isinstance(pointer, t.CPointer) and isinstance(index, t.Integer)):
        return None
    if not can_convert(value, pointer.dtype):
        raise TypingError(f"cannot store {value} through {pointer}")

    def codegen(context, builder, sig, args):
        dm.store_item(builder, pointer.dtype, args[2],
                      _element(context, builder, pointer, args[0], args[1]))
        return dm.null_value(t.none)
    return t.none(pointer, t.intp, pointer.dtype), codegen


def _element(context, builder, pointer, base, index):
    """The address of `base[index]` (C's pointer arithmetic: no bounds, no wraparound)."""
    return builder.gep(base, [index], source_etype=dm.memory_type(pointer.dtype))


@template(("attr", "ctypes"))
def _array_ctypes(tctx, array):
    if not isinstance(array, t.Array):
        return None

    def codegen(context, builder, sig, args):
        return builder.extract_value(args[0], dm.ARRAY_DATA)
    return ArrayCTypes(array.dtype)(array), codegen


@template(("method", "from_buffer"))
def _cffi_from_buffer(tctx, ffi, *args):
    """`ffi.from_buffer(array)` or `ffi.from_buffer("double[]", array)`: the array's data
    pointer (borrowed, as `arr.ctypes`), for a cffi function's pointer parameter."""
    if not isinstance(ffi, CffiFFI):
        return None
    *cdecl, array = args
    if len(cdecl) > 1 or (cdecl and not isinstance(cdecl[0], t.StringLiteral)):
        raise TypingError("ffi.from_buffer takes an array, or a C type given as a string "
                          "constant and an array")
    if not isinstance(array, t.Array):
        raise TypingError(f"ffi.from_buffer needs an array, not {array}")
    if array.layout != "C":
        raise TypingError(f"ffi.from_buffer needs a C-contiguous array; {array} may not be "
                          "(pass np.ascontiguousarray(...) of it)")
    result = t.CPointer(array.dtype)
    if cdecl:
        declared = cdecl[0].value
        item = _declared_item(ffi.ffi, declared)
        if item.kind in ("struct", "union"):
            result = t.voidptr   # kiln has no struct types: an opaque pointer
        elif kiln_type_of_cffi(item, f"the type {declared!r}") != array.dtype:
            raise TypingError(f"ffi.from_buffer({declared!r}, ...) of a {array.dtype} "
                              "array: the item types differ")

    def codegen(context, builder, sig, llargs):
        return builder.extract_value(llargs[-1], dm.ARRAY_DATA)
    return result(ffi, *args), codegen


def _declared_item(ffi, declared):
    """The item CType of the array or pointer type `declared` (C source text)."""
    import cffi
    try:
        ctype = ffi.typeof(declared)
    except (getattr(ffi, "error", cffi.CDefError), cffi.CDefError, TypeError, ValueError) as e:
        raise TypingError(f"ffi.from_buffer({declared!r}, ...): {e}") from None
    if ctype.kind not in ("array", "pointer"):
        raise TypingError(f"ffi.from_buffer({declared!r}, ...) needs an array or pointer type")
    return ctype.item


@template(("attr", "data"))
def _array_ctypes_data(tctx, pointer):
    if not isinstance(pointer, ArrayCTypes):
        return None

    def codegen(context, builder, sig, args):
        return builder.ptrtoint(args[0], dm.i64)
    return t.uintp(pointer), codegen


def get_cython_function_address(module_name, name) -> int:
    """The address of the C function `name` that the Cython module `module_name` exports
    (its `__pyx_capi__`), e.g. ("scipy.special.cython_special", "ndtri"); wrap it in a
    `WrapperAddressProtocol` or a ctypes prototype to call it from compiled code."""
    import importlib
    module = importlib.import_module(module_name)
    table = getattr(module, "__pyx_capi__", None)
    if table is None:
        raise ValueError(f"{module_name!r} exports no C functions (it has no __pyx_capi__)")
    if name not in table:
        raise ValueError(f"{module_name!r} exports no C function {name!r}")
    return capsule_pointer(table[name])


def carray(ptr, shape, dtype=None):
    """A C-ordered array over the memory `ptr` points to (Numba's carray): a ctypes pointer
    (or, with `dtype`, a `c_void_p` or an address) in Python, a CPointer (or a voidptr with
    `dtype`) in compiled code. The memory is borrowed: it must outlive the array."""
    return _pointer_array(ptr, shape, dtype, "C")


def farray(ptr, shape, dtype=None):
    """`carray`, Fortran-ordered."""
    return _pointer_array(ptr, shape, dtype, "F")


def _pointer_array(ptr, shape, dtype, order):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if any(n < 0 for n in shape):
        raise ValueError("negative dimensions are not allowed")
    if isinstance(ptr, ctypes._Pointer):
        own = np.dtype(ptr._type_)
        if dtype is not None and np.dtype(dtype) != own:
            raise TypeError(f"mismatching dtype '{np.dtype(dtype)}' for pointer type "
                            f"'{own}*'")
        dtype = own
    elif dtype is None:
        raise TypeError("carray/farray of a void pointer or an address needs a dtype")
    dtype = np.dtype(dtype)
    address = ptr if isinstance(ptr, int) else ctypes.cast(ptr, ctypes.c_void_p).value
    count = math.prod(shape)
    if count == 0:
        return np.empty(shape, dtype, order=order)
    memory = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(memory, dtype).reshape(shape, order=order)


def _typed_pointer_array(order):
    def typer(tctx, ptr, shape, dtype=None):
        if isinstance(ptr, t.Integer):   # an address, such as arr.ctypes.data
            ptr = t.voidptr
        if not isinstance(ptr, t.RawPointer) or isinstance(ptr, t.FunctionType):
            return None
        if shape_items(shape) is None:
            raise TypingError(f"the shape of a {order}-ordered pointer array must be an int "
                              f"or a tuple of ints, not {shape}")
        own = ptr.dtype if isinstance(ptr, t.CPointer) else None
        given = dtype_of(dtype)
        if own is None and given is None:
            raise TypingError(f"an array over a {ptr} needs a dtype")
        if own is not None and given is not None and own != given:
            raise TypingError(f"mismatching dtype '{given}' for pointer type '{own}*'")
        item = own or given
        if not isinstance(item, (t.Number, t.Record)):   # (a Record: cffi_utils.map_type's)
            raise TypingError(f"kiln cannot view {ptr} as an array")
        result = t.Array(item, len(shape_items(shape)), order)
        args = (ptr, shape) if dtype is None else (ptr, shape, dtype)

        def codegen(context, builder, sig, llargs):
            dims = _dims(context, builder, llargs[1], shape)
            for d in dims:
                context.guard(builder, builder.icmp_signed("<", d, ir.Constant(dm.i64, 0)),
                              ValueError, "negative dimensions are not allowed")
            step, strides = ir.Constant(dm.i64, item.np_dtype.itemsize), []
            for d in (dims if order == "F" else dims[::-1]):
                strides.append(step)
                step = builder.mul(step, d)
            strides = strides if order == "F" else strides[::-1]
            return make_array(context, builder, result, llargs[0], dims, strides)
        return result(*args), codegen
    return typer


template(carray)(_typed_pointer_array("C"))
template(farray)(_typed_pointer_array("F"))

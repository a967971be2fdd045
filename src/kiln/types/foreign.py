"""ctypes types seen as kiln types, and back: how a ctypes foreign function (a `CDLL`
function with `argtypes` and `restype` set, or a `CFUNCTYPE` pointer) gets its
`FunctionType`, and how a `@cfunc` gets its ctypes prototype."""
from __future__ import annotations

import ctypes

from . import core
from .cffi_types import cffi_address, cffi_function
from .functions import CPointer, FunctionType, RawPointer, VoidPointer, voidptr
from .records import Record
from .signature import Signature

_FLOAT_CODES = {"f": core.float32, "d": core.float64}
_INTEGER_CODES = "bBhHiIlLqQ"


def kiln_type_of_ctype(ctype, what="a C type"):
    """The kiln type of a ctypes type (`None` is void); TypeError naming what has none."""
    if ctype is None:
        return core.none
    if isinstance(ctype, type) and issubclass(ctype, ctypes._SimpleCData):
        code = ctype._type_
        if code in _FLOAT_CODES:
            return _FLOAT_CODES[code]
        if code in _INTEGER_CODES:
            return core.integer_of(8 * ctypes.sizeof(ctype), code.islower())
        if code == "?":
            return core.boolean
        if code == "P":
            return voidptr
    if isinstance(ctype, type) and issubclass(ctype, ctypes._Pointer):
        if issubclass(ctype._type_, (ctypes.Structure, ctypes.Union)):
            return voidptr   # kiln has no struct types: a pointer to one is opaque
        return CPointer(kiln_type_of_ctype(ctype._type_, what))
    if isinstance(ctype, type) and issubclass(ctype, ctypes._CFuncPtr):
        return FunctionType(ctypes_signature(ctype._restype_, ctype._argtypes_, what))
    if isinstance(ctype, type) and issubclass(ctype, (ctypes.Structure, ctypes.Union)):
        raise TypeError(f"{what} is the struct {ctype.__name__}, passed by value: kiln "
                        "passes structs only by pointer")
    raise TypeError(f"{what} is {getattr(ctype, '__name__', ctype)}, which kiln cannot "
                    "map to a number or pointer type")


def ctypes_signature(restype, argtypes, name) -> Signature:
    if argtypes is None:
        raise TypeError(f"the C function {name} has no argtypes: set them (kiln does not call "
                        "C functions whose arguments it does not know, variadic ones included)")
    args = tuple(kiln_type_of_ctype(a, f"argument {i + 1} of {name}")
                 for i, a in enumerate(argtypes))
    return Signature(kiln_type_of_ctype(restype, f"the return type of {name}"), args)


def ctypes_function_type(fn) -> FunctionType:
    """The FunctionType of a ctypes foreign function object."""
    name = getattr(fn, "__name__", None) or repr(fn)
    return FunctionType(ctypes_signature(fn.restype, fn.argtypes, repr(name)))


def foreign_address(value) -> int:
    if isinstance(value, ctypes._CFuncPtr):
        return ctypes.cast(value, ctypes.c_void_p).value
    function = cffi_function(value)
    if function is not None:
        return cffi_address(function)
    raise TypeError(f"kiln cannot take the C address of {value!r:.60}")


def ctype_of(ty):
    """The ctypes type of a kiln type that can appear in a C signature."""
    if ty == core.none:
        return None
    if isinstance(ty, core.Boolean):
        return ctypes.c_bool
    if isinstance(ty, core.Integer):
        return getattr(ctypes, f"c_{'' if ty.signed else 'u'}int{ty.bitwidth}")
    if ty == core.float32:
        return ctypes.c_float
    if ty == core.float64:
        return ctypes.c_double
    if isinstance(ty, VoidPointer):
        return ctypes.c_void_p
    if isinstance(ty, CPointer) and not isinstance(ty.dtype, Record):   # (a struct*: void*)
        return ctypes.POINTER(ctype_of(ty.dtype))
    if isinstance(ty, FunctionType):
        return ctypes_prototype(ty.signature)
    assert isinstance(ty, RawPointer), ty
    return ctypes.c_void_p


def ctypes_prototype(sig: Signature):
    """`CFUNCTYPE(restype, *argtypes)` for a C signature."""
    return ctypes.CFUNCTYPE(ctype_of(sig.return_type), *map(ctype_of, sig.args))

"""cffi's C types seen as kiln types: how a cffi function (`lib.f` of `ffi.dlopen(...)`, or
of an out-of-line module that cffi compiled) gets its `FunctionType` and its address, how
a cffi library and an `FFI` object are seen when compiled code names them, and how a
`@cfunc` becomes a cffi function pointer (`.cffi`).

cffi is optional: nothing here imports it before a cffi object is met (its `_cffi_backend`
is then in `sys.modules`). A pointer to a struct or union is an opaque `voidptr` (kiln has
no struct types); a struct by value, `long double` and variadic functions are refused.
"""
from __future__ import annotations

import sys

from . import core
from .functions import CPointer, FunctionType, RawPointer, voidptr
from .signature import Signature

_FLOATS = {"float": core.float32, "double": core.float64}
_CHARACTERS = {"char": True, "wchar_t": False, "char16_t": False, "char32_t": False}


def _backend():
    return sys.modules.get("_cffi_backend")


def _ffi():
    """A private FFI, for casts and for parsing C declarations."""
    global _private_ffi
    if _private_ffi is None:
        import cffi
        _private_ffi = cffi.FFI()
    return _private_ffi


_private_ffi = None


class CffiLibrary(core.Module):
    """A cffi library (`ffi.dlopen(...)`, or the `lib` of an out-of-line module): compiled
    code reads its functions as frozen globals, as it reads a module's."""
    kind = "cffi library"

    def __init__(self, library):
        self.module = library
        self.label = getattr(library, "__name__", None) or f"{id(library):#x}"
        self.name = f"CffiLibrary({self.label})"

    @property
    def key(self):
        return (id(self.module),)


class CffiFFI(core.Opaque):
    """An `FFI` object named by compiled code, for `ffi.from_buffer(array)`."""

    def __init__(self, ffi):
        self.ffi = ffi
        self.name = f"CffiFFI({id(ffi):#x})"

    @property
    def key(self):
        return (id(self.ffi),)


def _library_function(value):
    """The function pointer (cdata) of `value`, a function of an out-of-line module's `lib`
    (a builtin bound to the `_cffi_backend.Lib`), or None."""
    backend = _backend()
    owner = getattr(value, "__self__", None)
    if backend is None or type(owner) is not backend.Lib:
        return None
    return backend.FFI().addressof(owner, value.__name__)


def cffi_function(value):
    """`value` as a cffi function pointer (cdata), or None if it is not a cffi function."""
    backend = _backend()
    if backend is None:
        return None
    if isinstance(value, backend._CDataBase):
        return value if backend.typeof(value).kind == "function" else None
    return _library_function(value)


def global_cffi_type(value):
    """The type of a cffi library or FFI object frozen into compiled code, or None."""
    backend = _backend()
    if backend is None:
        return None
    cls = type(value)
    if cls is backend.Lib or (cls.__module__, cls.__name__) == ("cffi.api", "FFILibrary"):
        return CffiLibrary(value)
    api = sys.modules.get("cffi.api")
    if isinstance(value, (backend.FFI,) + ((api.FFI,) if api else ())):
        return CffiFFI(value)
    return None


def cffi_function_type(function) -> FunctionType:
    """The FunctionType of a cffi function pointer (see `cffi_function`)."""
    ctype = _backend().typeof(function)
    return FunctionType(_signature(ctype, _name(ctype)))


def cffi_address(function) -> int:
    return int(_ffi().cast("uintptr_t", function))


def _name(ctype):
    return f"the C function of type {ctype.cname!r}"


def _signature(ctype, name) -> Signature:
    if ctype.ellipsis:
        raise TypeError(f"{name} is variadic: kiln calls only C functions whose arguments "
                        "it knows")
    args = tuple(kiln_type_of_cffi(a, f"argument {i + 1} of {name}")
                 for i, a in enumerate(ctype.args))
    return Signature(kiln_type_of_cffi(ctype.result, f"the return type of {name}"), args)


def kiln_type_of_cffi(ctype, what="a C type"):
    """The kiln type of a cffi CType (`void` is none); TypeError naming what has none."""
    kind = ctype.kind
    if kind == "void":
        return core.none
    if kind == "primitive":
        return _primitive(ctype, what)
    if kind == "enum":
        return _integer(ctype)
    if kind == "pointer":
        item = ctype.item
        if item.kind in ("void", "struct", "union"):
            return voidptr
        pointee = kiln_type_of_cffi(item, what)
        return CPointer(pointee) if isinstance(pointee, core.Number) else voidptr
    if kind == "function":
        return FunctionType(_signature(ctype, what))
    if kind in ("struct", "union"):
        raise TypeError(f"{what} is the {ctype.cname!r}, passed by value: kiln passes "
                        "structs only by pointer")
    raise TypeError(f"{what} is {ctype.cname!r}, which kiln cannot map to a number or "
                    "pointer type")


def _primitive(ctype, what):
    cname = ctype.cname
    if cname in _FLOATS:
        return _FLOATS[cname]
    if cname == "_Bool":
        return core.boolean
    if cname in _CHARACTERS:
        return core.integer_of(8 * _ffi().sizeof(ctype), _CHARACTERS[cname])
    if "double" in cname or "float" in cname or "complex" in cname:
        raise TypeError(f"{what} is {cname!r}, which kiln cannot map to a number type")
    return _integer(ctype)


def _integer(ctype):
    """The kiln integer of a C integer or enum type: its size, and signed if -1 stays < 0."""
    return core.integer_of(8 * _ffi().sizeof(ctype), int(_ffi().cast(ctype, -1)) < 0)


def c_declaration(ty, name=""):
    """The C declaration of `name` with kiln type `ty` (e.g. `double (*name)(double)`),
    for cffi's parser."""
    if ty == core.none:
        return f"void {name}".rstrip()
    if isinstance(ty, FunctionType):
        sig = ty.signature
        params = ", ".join(c_declaration(a) for a in sig.args) or "void"
        return c_declaration(sig.return_type, f"(*{name})({params})")
    if isinstance(ty, CPointer):
        return c_declaration(ty.dtype, f"*{name}")
    if isinstance(ty, RawPointer):
        return f"void *{name}"
    if isinstance(ty, core.Boolean):
        base = "_Bool"
    elif isinstance(ty, core.Integer):
        base = f"{'' if ty.signed else 'u'}int{ty.bitwidth}_t"
    else:
        base = {core.float32: "float", core.float64: "double"}[ty]
    return f"{base} {name}".rstrip()


def cffi_pointer(sig: Signature, address: int):
    """A cffi function pointer of C signature `sig` at `address`."""
    return _ffi().cast(c_declaration(FunctionType(sig)), address)

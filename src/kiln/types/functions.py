"""C-level values in compiled code: raw pointers and C function pointers.

A `FunctionType(sig)` value is a function of that signature with the C calling convention
(a `@cfunc`, a ctypes foreign function, a Cython function's address, or a compiled
function wrapped for C). It is a run-time value, so a kernel that takes its callback as a
parameter is compiled once for every callee of that signature. Only types that C passes
in registers can appear in such a signature: see `c_signature_problem`.
"""
from __future__ import annotations

from . import core
from .signature import Signature, parse_signature


class RawPointer(core.Type):
    """A machine address in compiled code (LLVM `ptr`); kiln does not own what it points to."""


class VoidPointer(RawPointer):
    name = "voidptr"


class CPointer(RawPointer):
    """`T*`: indexing reads and writes `T`s; an array of dtype T passes as one."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.name = f"CPointer({dtype})"

    @property
    def key(self):
        return (self.dtype,)


class FunctionType(core.Type):
    """A C function of signature `sig` as a value: its C address and, for a compiled
    function, the address of its code in kiln's own convention (null for C functions).
    Compiled code calls the second when there is one, so that the callee's exceptions
    reach the caller; C code receives the first."""

    def __init__(self, sig):
        sig = parse_signature(sig)
        problem = c_signature_problem(sig)
        if problem:
            raise TypeError(f"kiln cannot make a C function of signature {sig}: {problem}")
        self.signature = sig
        self.name = f"FunctionType[{sig}]"
        self.fields = (voidptr, voidptr)   # {C address, kiln-convention address or null}
        _by_name.setdefault(self.name, self)

    @property
    def key(self):
        return (self.signature.return_type, self.signature.args)

    @property
    def sig(self):
        """Numba's name of `signature` (its ExternalFunctionPointer's)."""
        return self.signature

    def get_pointer(self, function) -> int:
        """Numba's ExternalFunctionPointer.get_pointer: the C address of `function`, a
        ctypes or cffi function of this type."""
        from .foreign import foreign_address
        return foreign_address(function)

    @staticmethod
    def named(name):
        """The FunctionType whose `name` this is (entry points name the type they unbox)."""
        return _by_name[name]


voidptr = VoidPointer()
_by_name = {}


def c_signature_problem(sig: Signature) -> str | None:
    """Why `sig` is not a signature kiln can call or define in C, or None."""
    if sig.return_type is None:
        return "the return type must be given"
    for where, ty in [("the return type", sig.return_type)] + \
            [(f"argument {i + 1}", a) for i, a in enumerate(sig.args)]:
        if ty is core.none and where == "the return type":
            continue
        if isinstance(ty, core.Complex):
            return f"{where} is {ty}, a struct passed by value (pass a CPointer to it)"
        if ty == core.float16 or not isinstance(
                ty, (core.Boolean, core.Integer, core.Float, RawPointer, FunctionType)):
            return f"{where} is {ty}, which is not a C scalar or pointer"
    return None


class WrapperAddressProtocol:
    """A C function known by its address: subclass it with `__wrapper_address__(self)`
    (the address, an int) and `signature(self)` (a kiln signature); instances are called
    from compiled code, or passed to it as `FunctionType(signature)` values (Numba's
    protocol, as used with `get_cython_function_address`)."""

    def __wrapper_address__(self) -> int:
        raise NotImplementedError

    def signature(self):
        raise NotImplementedError

    def _kiln_typeof_(self):
        return FunctionType(self.signature())

    def _kiln_address_(self):
        return int(self.__wrapper_address__())

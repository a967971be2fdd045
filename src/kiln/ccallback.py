"""`@cfunc(signature)`: a compiled function with the C calling convention, for C code to
call back (qsort comparators, `scipy.LowLevelCallable`), and the C wrappers that let a
compiled function be passed where a `FunctionType` is expected.

An exception cannot cross into C. When the function raises, its C wrapper reports the
exception through Python's unraisable hook (printed to stderr as "Exception ignored in:
<kiln.cfunc name>" with the exception) and returns zero of the return type (0, 0.0,
False, a null pointer; nothing for void), as Numba does. (Compiled code calling a
compiled function through a FunctionType value does not go through C: the exception
propagates, see types/functions.py.)
"""
from __future__ import annotations

import functools
import hashlib
import threading
import weakref

from llvmlite import ir

from . import types as t
from .codegen import boxing
from .codegen import datamodel as dm
from .codegen.c_values import c_value_type, from_c, function_value, to_c
from .codegen.context import register_cast, register_constant
from .codegen.exceptions import emit_set_python_error
from .runtime.cache import function_cache
from .errors import TypingError
from .options import CompileOptions
from .runtime import pyapi as P
from .runtime.pyapi import PyAPI
from .types.cffi_types import cffi_pointer
from .types.foreign import ctypes_prototype, foreign_address
from .typing.infer import ascii_name
from .types.functions import c_signature_problem


def _c_function(sig, symbol, owner, context, native, typed):
    """What surrounds a @cfunc's compiled function (compiler.compile_wrapped): `symbol`, its
    C wrapper, and `symbol.kiln`, the function in kiln's own convention."""
    build_c_wrapper(context, sig, native, symbol, owner)
    kiln_entry = ir.Function(context.module, native.function_type, name=f"{symbol}.kiln")
    builder = ir.IRBuilder(kiln_entry.append_basic_block())
    builder.ret(builder.call(native, kiln_entry.args))


def build_c_wrapper(context, sig, native, symbol, owner):
    """Add `symbol`, a C function of `sig` that calls `native` (the internal convention);
    an exception it raises is reported in the name of `owner` (see the module docstring)."""
    ret = sig.return_type
    fnty = ir.FunctionType(c_value_type(ret), [c_value_type(a) for a in sig.args])
    fn = ir.Function(context.module, fnty, name=symbol)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    retslot = builder.alloca(dm.value_type(ret))
    excslot = builder.alloca(dm.ptr)
    args = [from_c(builder, ty, a) for ty, a in zip(sig.args, fn.args)]
    status = builder.call(native, [retslot, excslot] + args)
    with builder.if_then(builder.icmp_signed("!=", status, ir.Constant(dm.i32, 0)),
                         likely=False):
        api = PyAPI(context, builder)
        gil = api.call("PyGILState_Ensure", dm.i32, [])
        emit_set_python_error(context, builder, builder.load(excslot, typ=dm.ptr))
        api.call("PyErr_WriteUnraisable", ir.VoidType(),
                 [api.constant_object(owner, name=symbol)])   # bound at load: cacheable
        api.call("PyGILState_Release", ir.VoidType(), [gil])
        _return(builder, ret)
    _return(builder, ret, retslot)
    return fn


def _return(builder, ret, slot=None):
    """Return the value in `slot`, or zero of `ret` without one."""
    if ret == t.none:
        builder.ret_void()
    elif slot is None:
        builder.ret(ir.Constant(c_value_type(ret), None))
    else:
        builder.ret(to_c(builder, ret, builder.load(slot, typ=dm.value_type(ret))))


def checked_signature(sig, name):
    """`sig` parsed, with a TypingError naming `name` if C cannot have it."""
    try:
        sig = t.parse_signature(sig)
    except TypeError as e:
        raise TypingError(f"cfunc {name!r}: {e}") from None
    problem = c_signature_problem(sig)
    if problem:
        raise TypingError(f"cfunc {name!r} cannot have the C signature {sig}: {problem}")
    return sig


_made = {}   # symbol stem -> how many C functions have it in this process
_made_lock = threading.Lock()


def _symbol_for(py_func, sig, qualname):
    """The C function's symbol: the same in every process for the first C function made of
    `py_func` and `sig` (so cache=True finds its code), and unique in this one."""
    what = repr((py_func.__module__, qualname, sig))
    stem = f"cfunc.{ascii_name(qualname)}.{hashlib.sha1(what.encode()).hexdigest()[:12]}"
    with _made_lock:
        n = _made[stem] = _made.get(stem, -1) + 1
    return stem if n == 0 else f"{stem}.{n}"


class CFunc:
    """A compiled C function (Numba's CFunc): `address`, `ctypes`, `cffi`, `native_name`,
    `inspect_llvm()`; calling it from Python goes through `ctypes`, into the machine code.
    `kiln_address` is the same function in kiln's own convention (for compiled callers)."""

    def __init__(self, py_func, sig, options, owner=None, cache=False):
        from .compiler import compile_wrapped
        self.py_func = py_func
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func
        self.signature = checked_signature(sig, self.__qualname__)
        self.native_name = _symbol_for(py_func, self.signature, self.__qualname__)
        self._compiled, _, self._keepalive = compile_wrapped(
            py_func, tuple(self.signature.args), self.signature.return_type, options,
            functools.partial(_c_function, self.signature, self.native_name,
                              self if owner is None else owner),
            function_cache(py_func) if cache else None)
        self.address = self._compiled.address(self.native_name)
        self.kiln_address = self._compiled.address(f"{self.native_name}.kiln")
        self.ctypes = ctypes_prototype(self.signature)(self.address)

    @property
    def cffi(self):
        """The function as a cffi function pointer (needs cffi installed)."""
        return cffi_pointer(self.signature, self.address)

    def _kiln_typeof_(self):
        return t.FunctionType(self.signature)

    def _kiln_address_(self):
        return self.address

    def __call__(self, *args):
        return self.ctypes(*args)

    def inspect_llvm(self):
        """The optimized LLVM IR of the function and its C wrapper."""
        return self._compiled.optimized_ir

    def inspect_asm(self):
        return self._compiled.assembly

    def __repr__(self):
        return f"<kiln.cfunc {self.__qualname__}>"


def cfunc(sig, cache=False, **options):
    """Compile the decorated function now, for `sig`, as a C function (see CFunc); with
    `cache=True` its machine code is kept on disk as `@njit(cache=True)` keeps it."""
    from .decorators import declared_locals
    if options.get("forceobj"):
        raise NotImplementedError("cfunc(forceobj=True): a C callback is compiled code; "
                                  "kiln (as Numba) has no object mode for it")
    compile_options = CompileOptions.from_kwargs(**options)
    declared = declared_locals(options.get("locals"))

    def decorate(fn):
        return CFunc(fn, sig, compile_options.with_locals(fn, declared), cache=cache)
    return decorate


_wrappers = weakref.WeakKeyDictionary()   # dispatcher -> {signature: CFunc}
_wrappers_lock = threading.RLock()


def c_wrapper_of(dispatcher, sig):
    """A C function of `sig` calling the compiled function `dispatcher` (made once): what a
    compiled function is when passed as a `FunctionType` value."""
    with _wrappers_lock:
        per_signature = _wrappers.setdefault(dispatcher, {})
        if sig not in per_signature:
            per_signature[sig] = CFunc(dispatcher.typed_func, sig, dispatcher.options, dispatcher)
        return per_signature[sig]


def function_addresses(value, fty):
    """The (C, kiln-convention) addresses of `value`, known to be of type `fty`: a compiled
    function is compiled for the signature and wrapped for C; others have no kiln code (0)."""
    from .cpu.dispatcher import Dispatcher
    if isinstance(value, Dispatcher):
        wrapper = c_wrapper_of(value, fty.signature)
        return wrapper.address, wrapper.kiln_address
    hook = getattr(type(value), "_kiln_address_", None)
    return (hook(value) if hook is not None else foreign_address(value)), 0


def entry_address(value, type_name):
    """How an entry point unboxes a FunctionType argument: the addresses of `value` (see
    `function_addresses`) if it is a C function of the type named `type_name` or a compiled
    function, else None: the specialization does not apply."""
    from .cpu.dispatcher import Dispatcher
    fty = t.FunctionType.named(type_name)
    if not isinstance(value, Dispatcher):
        try:
            if t.typeof(value) != fty:
                return None
        except TypeError:
            return None
    return function_addresses(value, fty)


def _constant(context, builder, ty, value):
    """A function frozen into the code: its addresses."""
    context.state.keepalive.append(value)
    context.state.cacheable = False
    return ir.Constant(dm.value_type(ty), [ir.Constant(dm.i64, a).inttoptr(dm.ptr)
                                           for a in function_addresses(value, ty)])


def _compiled_function(context, builder, value, src, dst):
    """A compiled function passed as a C function: its code, and a C wrapper of it, in
    this module."""
    sig, disp = dst.signature, src.dispatcher
    typed = context.state.tctx.type_function(disp.typed_func, tuple(sig.args),
                                             sig.return_type, disp.options)
    native = context.lower_function(typed)
    symbol = f"{typed.symbol}.cfunc"
    wrapper = context.module.globals.get(symbol)
    if wrapper is None:
        wrapper = build_c_wrapper(context, sig, native, symbol, disp)
        wrapper.linkage = "internal"
    return function_value(builder, dst, wrapper, native)


register_constant(t.FunctionType, _constant)
register_cast(t.Dispatcher, t.FunctionType, _compiled_function)


@boxing.unboxer(t.FunctionType)
def _unbox(unboxer, ty, obj):
    """A function's two addresses, from `entry_address`: None, or a failure, means the
    argument does not match."""
    b, api = unboxer.b, unboxer.api
    name = api.call("PyUnicode_FromString", dm.ptr, [api.context.state.global_string(ty.name)])
    found = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                     [api.constant_object(entry_address), obj, name,
                      ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(name)
    unboxer.mismatch_if(b.icmp_unsigned("==", found, ir.Constant(dm.ptr, None)))
    with b.if_then(b.icmp_unsigned("==", found, api.global_object("_Py_NoneStruct")),
                   likely=False):
        api.decref(found)
        b.branch(unboxer.mismatch)
    addresses = [api.call("PyLong_AsVoidPtr", dm.ptr,
                          [api.read(found, P.TUPLE_ITEMS + 8 * i, dm.ptr)])
                 for i in range(2)]
    api.decref(found)
    return function_value(b, ty, *addresses)

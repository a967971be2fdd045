"""Turning JIT-compiled entry points into Python callables, and the shared dispatch
trampoline that makes calling a kiln function a C-speed operation.

Each dispatcher owns a table `[fallback, count, entry0, entry1, ...]`. Its `__call__` is
the trampoline: a built-in function (PyMethodDef, METH_FASTCALL|METH_KEYWORDS) whose
`self` is the table's address. It tries each entry point in turn, `entry(table, args,
nargsf)`; the first that does not answer `NotImplemented` has the call. When none matches
(new argument types, keywords) it calls the Python fallback, which compiles and adds an
entry. A function's entries ignore the table; a CUDA launch's read the launch
configuration stored before it (cuda/driver/entry.py)."""
from __future__ import annotations

import ctypes
import threading

METH_KEYWORDS = 0x0002
METH_FASTCALL = 0x0080
TABLE_CAPACITY = 32
NARGS_MASK = (1 << 63) - 1   # nargsf less CPython's PY_VECTORCALL_ARGUMENTS_OFFSET bit


class PyMethodDef(ctypes.Structure):
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_new_cfunction = ctypes.pythonapi.PyCFunction_NewEx
_new_cfunction.restype = ctypes.py_object
_new_cfunction.argtypes = [ctypes.POINTER(PyMethodDef), ctypes.py_object, ctypes.py_object]


class BuiltinFunction:
    """Owns a PyMethodDef and the built-in function object made from it."""

    def __init__(self, name: str, address: int, flags: int, self_obj):
        self._name = name.encode()
        self._def = PyMethodDef(self._name, address, flags, None)
        self.function = _new_cfunction(ctypes.byref(self._def), self_obj, None)


def entry_callable(name: str, address: int) -> BuiltinFunction:
    """A Python callable for one specialization's entry point."""
    return BuiltinFunction(name, address, METH_FASTCALL, None)


def _trampoline_ir() -> str:
    """Built only when the trampoline is not in the cache: a cached call loads no
    code generator."""
    from llvmlite import ir
    from ..codegen import datamodel as dm
    entry_type = ir.FunctionType(dm.ptr, [dm.ptr, dm.ptr, dm.i64])
    module = ir.Module(name="kiln.trampoline")
    fn = ir.Function(module, ir.FunctionType(dm.ptr, [dm.ptr, dm.ptr, dm.i64, dm.ptr]),
                     name=TRAMPOLINE)
    self_obj, args, nargsf, kwnames = fn.args
    entry, loop, body, next_, fallback = (fn.append_basic_block(n) for n in
                                          ("entry", "loop", "body", "next", "fallback"))

    def declare(name, ret, argtys):
        return ir.Function(module, ir.FunctionType(ret, argtys), name=name)
    as_ptr = declare("PyLong_AsVoidPtr", dm.ptr, [dm.ptr])
    decref = declare("Py_DecRef", ir.VoidType(), [dm.ptr])
    from_pointer = declare("PyLong_FromVoidPtr", dm.ptr, [dm.ptr])
    from_size = declare("PyLong_FromSsize_t", dm.ptr, [dm.i64])
    call_objects = ir.Function(module, ir.FunctionType(dm.ptr, [dm.ptr], var_arg=True),
                               name="PyObject_CallFunctionObjArgs")
    none = ir.GlobalVariable(module, dm.i8, name="_Py_NoneStruct")
    not_implemented = ir.GlobalVariable(module, dm.i8, name="_Py_NotImplementedStruct")

    b = ir.IRBuilder(entry)
    table = b.call(as_ptr, [self_obj])
    count = b.load(b.gep(table, [ir.Constant(dm.i64, 1)], source_etype=dm.i64), typ=dm.i64)
    b.cbranch(b.icmp_unsigned("!=", kwnames, ir.Constant(dm.ptr, None)), fallback, loop)

    b.position_at_end(loop)
    index = b.phi(dm.i64)
    index.add_incoming(ir.Constant(dm.i64, 0), entry)
    b.cbranch(b.icmp_signed("<", index, count), body, fallback)

    b.position_at_end(body)
    slot = b.gep(table, [b.add(index, ir.Constant(dm.i64, 2))], source_etype=dm.ptr)
    callee = b.load(slot, typ=entry_type.as_pointer())
    result = b.call(callee, [table, args, nargsf])
    mismatch = b.icmp_unsigned("==", result, not_implemented)
    done = fn.append_basic_block("done")
    b.cbranch(mismatch, next_, done)
    b.position_at_end(done)
    b.ret(result)

    b.position_at_end(next_)
    b.call(decref, [result])
    index.add_incoming(b.add(index, ir.Constant(dm.i64, 1)), next_)
    b.branch(loop)

    # The miss path calls fallback(args address, nargsf, kwnames or None): the Python side
    # reads the arguments from the caller's array (PyObject_Vectorcall is not in every
    # CPython's ABI).
    b.position_at_end(fallback)
    fallback_obj = b.load(table, typ=dm.ptr)
    address, count_obj = b.call(from_pointer, [args]), b.call(from_size, [nargsf])
    names = b.select(b.icmp_unsigned("==", kwnames, ir.Constant(dm.ptr, None)), none, kwnames)
    result = b.call(call_objects, [fallback_obj, address, count_obj, names,
                                   ir.Constant(dm.ptr, None)])
    b.call(decref, [address])
    b.call(decref, [count_obj])
    b.ret(result)
    return str(module)


TRAMPOLINE = "kiln_dispatch"
_trampoline_address = None
_lock = threading.Lock()


def trampoline_address(library=None) -> int:
    """The trampoline's address, loaded once per process: from `library` (the runtime's
    shared library, cpu/nativelib.py) when it is the first to ask, else from the JIT."""
    global _trampoline_address
    with _lock:
        if _trampoline_address is None:
            if library is not None:
                _trampoline_address = library.address(TRAMPOLINE)
            else:
                from ..runtime.engine import get_engine
                compiled = get_engine().compile_internal("trampoline", _trampoline_ir)
                _trampoline_address = compiled.address(TRAMPOLINE)
        return _trampoline_address


_ObjectArray = ctypes.POINTER(ctypes.py_object)


def vectorcall_arguments(address, nargsf, kwnames):
    """The (args, kwargs) of a vectorcall, read from the caller's argument array."""
    items = ctypes.cast(address, _ObjectArray)
    nargs = nargsf & NARGS_MASK
    args = tuple(items[i] for i in range(nargs))
    kwargs = {name: items[nargs + j] for j, name in enumerate(kwnames or ())}
    return args, kwargs


class DispatchTable:
    """The table behind one dispatcher's trampoline, and the trampoline callable itself.
    `fallback(address, nargsf, kwnames)` handles the calls no entry point takes. A `header`
    (a ctypes structure) is stored right before the slots, where entries find it at the
    table's address less its size."""

    def __init__(self, name: str, fallback, header=None):
        self._fallback = fallback  # kept alive: the table holds a borrowed pointer to it
        slots = ctypes.c_void_p * (2 + TABLE_CAPACITY)
        if header is None:
            self._memory = self._slots = slots()
        else:
            layout = type("HeadedTable", (ctypes.Structure,), {
                "_fields_": [("header", type(header)), ("slots", slots)]})
            assert layout.slots.offset == ctypes.sizeof(header)
            self._memory = layout(header, slots())
            self._slots = self._memory.slots
        self._slots[0] = id(fallback)
        self._slots[1] = 0
        address = ctypes.addressof(self._slots)
        self._builtin = BuiltinFunction(name, trampoline_address(),
                                        METH_FASTCALL | METH_KEYWORDS, address)
        self.function = self._builtin.function

    def add(self, entry_address: int) -> bool:
        """Append an entry point; False once the table is full (the fallback still works)."""
        n = self._slots[1] or 0
        if n >= TABLE_CAPACITY:
            return False
        self._slots[2 + n] = entry_address
        self._slots[1] = n + 1
        return True

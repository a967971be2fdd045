"""The process's symbols that compiled code links against: CPython's C API, its exception
classes (under kiln's own names) and compiler-rt's float16 conversions. Bound once, when
the CPU engine starts; apart from code generation, so that loading cached code does not
import the compiler."""
from __future__ import annotations

import builtins
import ctypes

# kiln's symbols for CPython's `PyExc_*` cells (the address of the variable holding the
# class). The bare names are Numba's too, bound there to the class itself, and LLVM's
# symbol table is one per process: with both loaded, the last binding won and a raise
# crashed the other compiler's code.
BUILTIN_CLASS_SYMBOL = "kiln.PyExc_{}"

_PY_SYMBOLS = [
    "PyLong_AsLongLong", "PyLong_AsUnsignedLongLong", "PyLong_FromLongLong",
    "PyLong_FromUnsignedLongLong", "PyFloat_FromDouble",
    "PyBool_FromLong", "PyComplex_FromDoubles", "PyTuple_New", "PyTuple_SetItem",
    "PyErr_SetString", "PyErr_SetObject", "PyErr_SetNone", "PyErr_Occurred", "PyErr_Clear",
    "PyType_IsSubtype", "Py_IncRef", "Py_DecRef",
    "PyObject_CallFunctionObjArgs", "PyObject_CallObject", "PyLong_FromVoidPtr", "PyLong_FromSsize_t",
    "PyLong_AsVoidPtr", "PyUnicode_FromString", "PyGILState_Ensure", "PyGILState_Release",
    "PyEval_SaveThread", "PyEval_RestoreThread", "PyCapsule_New", "PyCapsule_GetPointer",
    "PyGILState_Check", "PyErr_Fetch", "PyErr_NormalizeException", "PyException_SetTraceback",
    "PySlice_New",
]
_PY_DATA = ["_Py_NoneStruct", "_Py_TrueStruct", "_Py_FalseStruct", "_Py_NotImplementedStruct",
            "PyLong_Type", "PyFloat_Type", "PyComplex_Type", "PyBool_Type", "PyTuple_Type",
            "PySlice_Type", "_Py_HashSecret"]

# LLVM lowers a float16 conversion the CPU has no instruction for (float64 -> float16
# always) to a call to compiler-rt's helper; the JIT has no compiler-rt, and an unresolved
# call jumps to address 0. GCC's runtime (12 and later) has the same helpers, same ABI.
HALF_HELPERS = ["__truncdfhf2", "__truncsfhf2", "__extendhfsf2"]


def bind_process_symbols(add_symbol):
    """Make the CPython C API, the exception classes and the float16 helpers visible to
    JIT-compiled code (`add_symbol(name, address)` is LLVM's)."""
    api = ctypes.pythonapi
    for name in _PY_SYMBOLS:
        add_symbol(name, ctypes.cast(getattr(api, name), ctypes.c_void_p).value)
    for name in _PY_DATA:
        add_symbol(name, ctypes.addressof(ctypes.c_char.in_dll(api, name)))
    for name, value in vars(builtins).items():
        if isinstance(value, type) and issubclass(value, BaseException):
            try:
                address = ctypes.addressof(ctypes.c_char.in_dll(api, f"PyExc_{name}"))
            except ValueError:
                continue
            add_symbol(BUILTIN_CLASS_SYMBOL.format(name), address)
    try:
        library = ctypes.CDLL("libgcc_s.so.1")
    except OSError:
        return
    for name in HALF_HELPERS:
        if hasattr(library, name):
            add_symbol(name, ctypes.cast(getattr(library, name), ctypes.c_void_p).value)

"""The CPython and NumPy object layouts and C API calls that generated entry points use.

Offsets come from the running interpreter (`object.__basicsize__` etc.), not constants, so
the same code is right on every supported build."""
from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir

from . import irtypes as ll

HEAD = object.__basicsize__                  # size of PyObject_HEAD
OB_TYPE = HEAD - ctypes.sizeof(ctypes.c_void_p)
TUPLE_SIZE = HEAD                            # ob_size of a tuple
TUPLE_ITEMS = tuple.__basicsize__            # first item pointer
SCALAR_VALUE = HEAD                          # the value inside float, complex, NumPy scalars

# PyArrayObject fields, after the head.
ARRAY_DATA = HEAD
ARRAY_ND = HEAD + 8
ARRAY_DIMS = HEAD + 16
ARRAY_STRIDES = HEAD + 24
ARRAY_DESCR = HEAD + 40
ARRAY_FLAGS = HEAD + 48
# PyArray_Descr fields.
DESCR_BYTEORDER = HEAD + 10
DESCR_TYPE_NUM = HEAD + 12

NPY_C_CONTIGUOUS = 0x1
NPY_F_CONTIGUOUS = 0x2
NPY_ALIGNED = 0x100
NPY_WRITEABLE = 0x400

C_LONG = ir.IntType(ctypes.sizeof(ctypes.c_long) * 8)

# The bit of a vectorcall's `nargsf` that is not the argument count.
VECTORCALL_OFFSET_MASK = (1 << 63) - 1


def type_nums(dtype) -> list:
    """Every NumPy type number whose dtype equals `dtype` (int64 is both 'l' and 'q')."""
    dtype = np.dtype(dtype)
    return sorted({np.dtype(c).num for c in np.typecodes["All"]
                   if c not in "OSUVMm" and np.dtype(c) == dtype})


def scalar_classes(dtype) -> list:
    """NumPy scalar classes whose instances have this dtype."""
    dtype = np.dtype(dtype)
    return [cls for cls in {np.dtype(c).type for c in np.typecodes["All"] if c not in "OSUVMm"}
            if np.dtype(cls) == dtype]


class PyAPI:
    """Emits C API calls and raw field reads into one function."""

    def __init__(self, context, builder):
        self.context = context
        self.builder = builder

    def fn(self, name, restype, argtypes, var_arg=False):
        return self.context.declare_external(name, restype, argtypes, var_arg)

    def call(self, name, restype, args, var_arg=False, argtypes=None):
        # pointers declared as the opaque `ptr`: a global string is an [N x i8]* to
        # llvmlite, and a function declared at its first call must take the next string too
        argtypes = argtypes or [ll.ptr if isinstance(a.type, ir.PointerType) else a.type
                                for a in args]
        return self.builder.call(self.fn(name, restype, argtypes, var_arg), args)

    def global_object(self, name):
        """Address of a C-level global such as `_Py_NoneStruct` or `PyFloat_Type`."""
        gv = self.context.module.globals.get(name)
        if gv is None:
            gv = ir.GlobalVariable(self.context.module, ll.i8, name=name)
            gv.linkage = "external"
        return gv

    def constant_object(self, obj, name=None):
        """The address of a Python object such as a NumPy type (see ModuleState.object_cell)."""
        return self.builder.load(self.context.state.object_cell(obj, name), typ=ll.ptr)

    def read(self, obj, offset, lltype):
        address = self.builder.gep(obj, [ir.Constant(ll.i64, offset)], source_etype=ll.i8)
        return self.builder.load(address, typ=lltype)

    def type_of(self, obj):
        return self.read(obj, OB_TYPE, ll.ptr)

    def is_type(self, obj, type_ptr):
        return self.builder.icmp_unsigned("==", self.type_of(obj), type_ptr)

    def incref(self, obj):
        self.call("Py_IncRef", ir.VoidType(), [obj])

    def decref(self, obj):
        self.call("Py_DecRef", ir.VoidType(), [obj])

    def new_reference(self, name):
        obj = self.global_object(name)
        self.incref(obj)
        return obj


def capsule_pointer(capsule) -> int:
    """The pointer a PyCapsule holds (such as a Cython module's `__pyx_capi__` entries)."""
    import ctypes
    name_of = ctypes.pythonapi.PyCapsule_GetName
    name_of.restype, name_of.argtypes = ctypes.c_char_p, [ctypes.py_object]
    pointer_of = ctypes.pythonapi.PyCapsule_GetPointer
    pointer_of.restype, pointer_of.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return pointer_of(capsule, name_of(capsule))

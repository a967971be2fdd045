"""The kernel ABI: how each argument of a compiled kernel travels as PTX parameters, both
sides of it — the LLVM types of the parameters and the code that rebuilds kiln's values from
them (used by ptx.py's kernel entry), and the packed parameter buffer a launch hands the
driver (`Layout`, computed once per signature).

One parameter per scalar, in order: an integer or float is one of its width (a
datetime64 its int64), a bool one byte, a complex one aggregate of its two floats, a tuple its items' parameters, and an
array of ndim N its struct's fields: meminfo and parent (0 on the device), nitems,
itemsize, the data pointer (global memory), shape[N] and strides[N] in bytes. In the buffer
each parameter sits at its natural alignment, as in a C struct, and `Layout.offsets` says
where (the driver back-end hands `cuLaunchKernel` one pointer per parameter into it)."""
from __future__ import annotations

import ctypes
import struct

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from .devicearray import DeviceNDArray

GLOBAL = 1   # NVPTX's global address space

_FORMATS = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i",
            "uint32": "I", "int64": "q", "uint64": "Q", "float16": "e", "float32": "f",
            "float64": "d", "complex64": "ff", "complex128": "dd", "bool": "?"}


def parameter_types(ty) -> list:
    """The LLVM types of the PTX parameters that carry one argument of kiln type `ty`."""
    if isinstance(ty, t.Array):
        return [dm.ptr, dm.ptr, dm.i64, dm.i64, ir.PointerType(addrspace=GLOBAL)] + \
            [dm.i64] * (2 * ty.ndim)
    if isinstance(ty, t.BaseTuple):
        return [p for item in ty.types for p in parameter_types(item)]
    if isinstance(ty, t.Boolean):
        return [dm.i8]
    if isinstance(ty, t.Number):
        return [dm.value_type(ty)]
    raise TypingError(f"a kernel cannot take an argument of type {ty}")


def unpack(builder, ty, params):
    """The value of kiln type `ty`, rebuilt from the parameters (consumed from the iterator
    `params`)."""
    if isinstance(ty, t.Array):
        value = dm.null_value(ty)
        for field in range(dm.ARRAY_SHAPE):
            part = next(params)
            if field == dm.ARRAY_DATA:
                part = builder.addrspacecast(part, dm.ptr)
            value = builder.insert_value(value, part, field)
        for field in (dm.ARRAY_SHAPE, dm.ARRAY_STRIDES):
            for axis in range(ty.ndim):
                value = builder.insert_value(value, next(params), [field, axis])
        return value
    if isinstance(ty, t.BaseTuple):
        value = dm.null_value(ty)
        for i, item in enumerate(ty.types):
            value = builder.insert_value(value, unpack(builder, item, params), i)
        return value
    if isinstance(ty, t.Boolean):
        return builder.icmp_unsigned("!=", next(params), ir.Constant(dm.i8, 0))
    return next(params)


def _units(ty) -> list:
    """The struct format of each PTX parameter of one argument."""
    if isinstance(ty, t.Array):
        return list("QQqqQ" + "q" * (2 * ty.ndim))
    if isinstance(ty, t.BaseTuple):
        return [unit for item in ty.types for unit in _units(item)]
    if isinstance(ty, (t.NPDatetime, t.NPTimedelta)):   # its int64
        return ["q"]
    if isinstance(ty, (t.Number, t.Boolean)):   # a complex is one aggregate of two floats
        return [_FORMATS[str(ty)]]
    raise TypingError(f"a kernel cannot take an argument of type {ty}")


def _values(ty, value) -> list:
    if isinstance(ty, t.Array):
        if isinstance(value, DeviceNDArray):
            return value._launch_values
        return [0, 0, value.size, value.dtype.itemsize, value.device_ctypes_pointer.value or 0,
                *value.shape, *value.strides]
    if isinstance(ty, t.BaseTuple):
        return [v for item, part in zip(ty.types, value) for v in _values(item, part)]
    if isinstance(ty, t.Complex):
        return [value.real, value.imag]
    if isinstance(ty, (t.NPDatetime, t.NPTimedelta)):
        return [int(value.astype(ty.np_dtype).view("i8"))]
    return [value]


class Layout:
    """The parameter buffer of one kernel signature: `pack(args)` gives its bytes from
    device arrays (anything with `size`, `dtype`, `shape`, `strides` and
    `device_ctypes_pointer`), scalars and tuples already matched to the signature."""

    def __init__(self, argtypes):
        self.argtypes = tuple(argtypes)
        units = [unit for ty in self.argtypes for unit in _units(ty)]
        self._struct = struct.Struct("@" + "".join(units))
        self.size = self._struct.size
        # Where each parameter starts (cuLaunchKernel's kernelParams point there): past the
        # ones before it, aligned as its first field.
        self.offsets, before = [], ""
        for unit in units:
            self.offsets.append(struct.calcsize("@" + before + unit[0]) -
                                struct.calcsize("@" + unit[0]))
            before += unit
        # the ctypes type of the array of pointers into the buffer a launch passes
        self.pointer_array = ctypes.c_void_p * max(len(self.offsets), 1)

    def pack(self, args) -> bytes:
        return self._struct.pack(*self.values(args))

    def values(self, args) -> list:
        """The parameters' values, in order, from the arguments."""
        return [v for ty, value in zip(self.argtypes, args) for v in _values(ty, value)]

    def pack_into(self, buffer, values):
        """Write the parameters' `values` into `buffer`."""
        self._struct.pack_into(buffer, 0, *values)

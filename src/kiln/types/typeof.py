"""typeof(value): the kiln type of a Python value passed to, or frozen into, compiled code."""
from __future__ import annotations

import array
import ctypes
import enum
import types as pytypes

import numpy as np

from . import core
from .buffers import typeof_buffer
from .containers import Array, bytes_type, slice2_type, slice3_type, tuple_of, unicode_type
from .enums import EnumClass, enum_member_type, is_enum_class
from .named_tuples import NamedTupleClass, is_named_tuple_class, named_tuple_of
from .charseq import FixedWidth
from .records import Record


def array_layout(arr: np.ndarray) -> str:
    flags = arr.flags
    if flags.c_contiguous:
        return "C"
    if flags.f_contiguous:
        return "F"
    return "A"


def typeof(value):
    """Return the kiln type of `value`, or raise TypeError naming what is unsupported."""
    if isinstance(value, np.ndarray) and type(value) not in (np.ndarray, np.recarray):
        # a subclass changes what indexing and arithmetic mean (np.matrix, masked arrays):
        # compiled code would silently treat it as a plain array. A recarray only adds
        # attribute access to fields, which compiled code spells the same on its records.
        raise TypeError(f"kiln cannot pass an ndarray subclass ({type(value).__name__!r}) "
                        "to compiled code; pass np.asarray(value) for a plain array")
    t = _typeof(value)
    if t is None and type(value) is list:
        raise TypeError("kiln does not take a Python list: pass kiln.typed.List(the_list) "
                        "(a typed copy that compiled code shares without copying again), or "
                        "a NumPy array or a tuple")
    if t is None and type(value) is dict:
        raise TypeError("kiln does not take a Python dict: pass kiln.typed.Dict(the_dict) "
                        "(a typed copy that compiled code shares without copying again)")
    if t is None and type(value) in (set, frozenset):
        raise TypeError(f"kiln does not take a Python {type(value).__name__}: pass its items "
                        "as a NumPy array, a tuple or kiln.typed.List(the_set), and make the "
                        "set in compiled code with set(items)")
    if t is None and isinstance(value, np.ndarray):
        swapped = value.dtype.byteorder not in "=|" and value.dtype.isnative is False
        raise TypeError(f"kiln cannot pass an ndarray of dtype {value.dtype.str} to compiled "
                        f"code (Unsupported array dtype: {value.dtype})" +
                        ("; it is byte-swapped: pass a.astype(a.dtype.newbyteorder('='))"
                         if swapped else ""))
    if t is None:
        raise TypeError(f"kiln cannot pass a value of type {type(value).__name__!r} "
                        f"({value!r:.60}) to compiled code")
    return t


def _typeof(value):
    cls = type(value)
    hook = getattr(cls, "_kiln_typeof_", None)  # objects that know their kiln type
    if hook is not None:
        return hook(value)
    if cls is bool or cls is np.bool_:
        return core.boolean
    if cls is int:
        if -2**63 <= value < 2**63:
            return core.int64
        if 0 <= value < 2**64:
            return core.uint64
        return None
    if cls is float:
        return core.float64
    if cls is str:
        return unicode_type
    if cls is bytes:
        return bytes_type
    if cls in (bytearray, memoryview, array.array):
        return typeof_buffer(value)
    if cls is complex:
        return core.complex128
    if value is None:
        return core.none
    if value is Ellipsis:
        return core.ellipsis
    if isinstance(value, enum.Enum):
        return enum_member_type(cls)
    if cls is slice:     # bounds of None or int64 (the int64 minimum marks an absent one)
        bounds = (value.start, value.stop, value.step)
        if all(b is None or type(b) is int and -2**63 < b < 2**63 for b in bounds):
            return slice2_type if value.step in (None, 1) else slice3_type
        if all(b is None or type(b) is int for b in bounds):
            raise ValueError(f"Int value is too large: {value!r} (the bounds of a slice "
                             "passed to compiled code must fit in int64)")
        return None
    if isinstance(value, np.generic):
        if value.dtype.names is not None:   # a record scalar (np.void, np.record): a Record
            try:
                return core.from_dtype(value.dtype)
            except TypeError:
                return None
        if (value.dtype.isnative or value.dtype.itemsize == 1) and value.dtype.kind not in "SU":
            try:   # (np.str_ and np.bytes_ are str and bytes, not fixed-width items)
                return core.from_dtype(value.dtype)
            except TypeError:
                return None
        return None
    if isinstance(value, np.ndarray):
        if not value.dtype.isnative and value.dtype.itemsize > 1:
            return None
        try:
            dtype = core.from_dtype(value.dtype)
        except TypeError:
            return None
        return Array(dtype, value.ndim, array_layout(value), readonly=not value.flags.writeable)
    if cls is tuple or is_named_tuple_class(cls):
        items = [_typeof(v) for v in value]
        if any(t is None for t in items):
            return None
        return tuple_of(items) if cls is tuple else named_tuple_of(items, cls)
    if is_enum_class(value):   # an argument compiled for exactly this class
        enum_member_type(value)   # (the error that says why its members cannot be typed)
        return EnumClass(value)
    if isinstance(value, type) and issubclass(value, (np.number, np.bool_)):
        return _type_object(value, value, core.NumberClass)   # a dtype= argument
    if isinstance(value, np.dtype):
        return _type_object(value.type, value, core.DType)
    if isinstance(value, ctypes._CFuncPtr):  # a ctypes foreign function
        from .foreign import ctypes_function_type
        return ctypes_function_type(value)
    said = getattr(value, "_numba_type_", None)   # Numba's protocol: an object saying its type
    if isinstance(said, core.Type):
        return said
    from .cffi_types import cffi_function, cffi_function_type
    function = cffi_function(value)
    return None if function is None else cffi_function_type(function)


def _type_object(cls, value, kind):
    """`kind` of the kiln type of `cls` when `value` is the one object compiled code takes
    for it (codegen/boxing.py checks identity): `np.float32`, `np.dtype(np.float32)`; not
    an alias class such as np.longlong, nor a byte-swapped or other dtype that equals one."""
    try:
        ty = core.from_dtype(np.dtype(cls))
    except TypeError:
        return None
    if not isinstance(ty, (core.Number, core.Boolean)) or ty.np_dtype.type is not cls or \
            (kind is core.DType and value is not np.dtype(cls)):
        return None
    return kind(ty)


def typeof_global(value):
    """The type of a global or closure variable seen by compiled code (constants are frozen)."""
    if isinstance(value, pytypes.ModuleType):
        return core.Module(value)
    if isinstance(value, type) and issubclass(value, BaseException):
        return core.ExceptionClass(value)
    if is_named_tuple_class(value):
        return NamedTupleClass(value)
    if is_enum_class(value):
        return EnumClass(value)
    if isinstance(value, (core.Number, Record, FixedWidth)):   # a library function's dtype=
        return core.NumberClass(value)
    if isinstance(value, type) and issubclass(value, np.generic) and \
            not issubclass(value, (str, bytes)):
        try:
            return core.NumberClass(core.from_dtype(value))
        except TypeError:
            return None
    if isinstance(value, np.dtype):
        try:
            return core.DType(core.from_dtype(value))
        except TypeError:
            return None
    if isinstance(value, str):
        return core.StringLiteral(value)
    if getattr(type(value), "_kiln_frozen_", True) is False:  # mutable: pass it as an argument
        return None
    from .cffi_types import global_cffi_type
    return global_cffi_type(value) or _typeof(value)



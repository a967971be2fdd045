"""Objects with the buffer protocol other than NumPy arrays and bytes (`bytearray`,
`memoryview`, `array.array`), as Numba types them: a view of the exporter's memory whose
PEP 3118 format gives the item type (library/buffers.py)."""
from __future__ import annotations

import array
import struct
import sys

from . import core
from .containers import Array

# the exporters compiled code takes, by the name a Buffer type keeps
KINDS = {"bytearray": bytearray, "memoryview": memoryview, "array.array": array.array}

_INTEGERS = "bBhHiIlLqQnN"
_SIZED = {("i", 1): core.int8, ("i", 2): core.int16, ("i", 4): core.int32,
          ("i", 8): core.int64, ("u", 1): core.uint8, ("u", 2): core.uint16,
          ("u", 4): core.uint32, ("u", 8): core.uint64, ("f", 2): core.float16,
          ("f", 4): core.float32, ("f", 8): core.float64, ("c", 8): core.complex64,
          ("c", 16): core.complex128, ("b", 1): core.boolean}
# struct's byte-order marks that mean this machine's order ('@': native sizes too)
_NATIVE_ORDER = ("", "@", "=", "<" if sys.byteorder == "little" else ">")


def format_dtype(fmt: str):
    """The item type of a buffer of PEP 3118 format `fmt` (one native-order number: 'l',
    '<q', 'Zd', '?'), or None."""
    order = fmt[0] if fmt and fmt[0] in "@=<>!" else ""
    code = fmt[len(order):]
    if order not in _NATIVE_ORDER:
        return None
    complex_ = code.startswith("Z")
    code = code[1:] if complex_ else code
    if len(code) != 1 or code not in _INTEGERS + "efd?":
        return None
    try:
        size = struct.calcsize((order or "@") + code)
    except struct.error:   # 'n' and 'N' exist only with native sizes
        return None
    kind = "b" if code == "?" else "f" if code in "efd" else "i" if code.islower() else "u"
    if complex_:
        kind, size = ("c", 2 * size) if kind == "f" else (None, 0)
    return _SIZED.get((kind, size))


def formats_of(dtype) -> tuple:
    """Every format `format_dtype` reads as `dtype`: what the entry point accepts."""
    codes = list(_INTEGERS + "efd?") + ["Zf", "Zd"]
    return tuple(order + code for order in _NATIVE_ORDER for code in codes
                 if format_dtype(order + code) == dtype)


class Buffer(core.Type):
    """A `bytearray`, `memoryview` or `array.array` (`kind`, a key of KINDS): laid out as
    the array `as_array` of its items, borrowing the exporter's memory. Slicing a bytearray
    or an array.array would copy in Python, so compiled code refuses it; a memoryview's
    slice is a memoryview of the same memory."""

    def __init__(self, kind: str, dtype, ndim: int, layout: str, readonly: bool = False):
        self.kind = kind
        self.as_array = Array(dtype, ndim, layout, readonly)
        self.dtype, self.ndim, self.readonly = dtype, ndim, readonly
        self.layout = self.as_array.layout
        self.mutable = not readonly
        ro = "readonly " if readonly else ""
        self.name = f"{ro}{kind}({dtype}, {ndim}d, {self.layout})"

    @property
    def key(self):
        return (self.kind,) + self.as_array.key

    @property
    def pyclass(self):
        return KINDS[self.kind]


def typeof_buffer(value):
    """The Buffer type of an exporter of one of KINDS (None for a format kiln cannot read)."""
    kind = next((k for k, cls in KINDS.items() if type(value) is cls), None)
    if kind is None:
        return None
    view = memoryview(value)
    dtype = format_dtype(view.format)
    if dtype is None or dtype.np_dtype.itemsize != view.itemsize:
        return None
    layout = "C" if view.c_contiguous else "F" if view.f_contiguous else "A"
    return Buffer(kind, dtype, view.ndim, layout, view.readonly)

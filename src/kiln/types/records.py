"""Record types: the items of NumPy structured arrays (`np.dtype([("x", "f8"), ("n", "i4")])`).

A record in compiled code is a reference into its array's memory, as a NumPy record
(`np.void`) taken from an array is: `a[i].x = 1` and `r = a[i]; r["x"] = 1` write the
array. The value carries the array's meminfo, so it keeps memory that compiled code
allocated alive (codegen/ownership.py). Fields are scalars of kiln's number types or
sub-arrays of them (`("pos", "f8", (3,))`: the field is a C-contiguous array inside the
record); nested records are not supported.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .containers import Array
from .core import Number, Type


class Record(Type):
    """A structured dtype: its fields' names, kiln types and byte offsets, and its size."""

    mutable = True

    def __init__(self, dtype: np.dtype, members: tuple):
        self.np_dtype = dtype
        self.members = members          # ((name, type, offset), ...) in dtype order
        self.size = dtype.itemsize
        self.name = f"Record({', '.join(f'{n}: {ty}' for n, ty, _ in members)}; " \
                    f"{self.size} bytes)"

    @property
    def key(self):
        return (self.members, self.size)

    def member(self, name):
        """(type, offset) of field `name`, or None."""
        for member, ty, offset in self.members:
            if member == name:
                return ty, offset
        return None

    def aligned(self, name) -> bool:
        """Whether field `name` sits at a multiple of its own size in every item (loads of
        it may then assume natural alignment)."""
        ty, offset = self.member(name)
        size = (ty.dtype if isinstance(ty, Array) else ty).np_dtype.itemsize
        return offset % size == 0 and self.size % size == 0

    def subarray_shape(self, name) -> tuple:
        """The shape of sub-array field `name`."""
        return self.np_dtype.fields[name][0].subdtype[1]


_listeners = []   # called with each new Record: library/records.py types its fields' names
_made = []


def on_new_record(listener):
    """Call `listener(record)` for every Record made so far and every later one."""
    _listeners.append(listener)
    for record in _made:
        listener(record)


@lru_cache(maxsize=None)
def record_from_dtype(dtype: np.dtype, scalar_of) -> Record:
    """The Record for a structured dtype whose fields `scalar_of` maps to kiln numbers."""
    members = []
    for name in dtype.names:
        field_dtype, offset = dtype.fields[name][:2]
        item_dtype, shape = field_dtype.subdtype or (field_dtype, ())
        if item_dtype.names is not None:
            raise TypeError(f"kiln does not support the nested field {name!r} "
                            f"({field_dtype}) of {dtype}")
        if not item_dtype.isnative and item_dtype.itemsize > 1:
            raise TypeError(f"kiln does not support the non-native byte order of field "
                            f"{name!r} of {dtype}")
        ty = scalar_of(item_dtype)
        if not isinstance(ty, Number):
            raise TypeError(f"kiln does not support field {name!r} ({field_dtype}) of {dtype}")
        members.append((name, Array(ty, len(shape), "C") if shape else ty, offset))
    record = Record(dtype, tuple(members))
    _made.append(record)
    for listener in _listeners:
        listener(record)
    return record

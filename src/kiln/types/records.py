"""Record types: the items of NumPy structured arrays (`np.dtype([("x", "f8"), ("n", "i4")])`).

A record in compiled code is a reference into its array's memory, as a NumPy record
(`np.void`) taken from an array is: `a[i].x = 1` and `r = a[i]; r["x"] = 1` write the
array. The value carries the array's meminfo, so it keeps memory that compiled code
allocated alive (codegen/ownership.py). Fields are scalars of kiln's number types,
fixed-width strings (`("name", "U5")`, types/charseq.py), records (a nested record is a
reference into its parent's bytes) or sub-arrays of them (`("pos", "f8", (3,))`: the
field is a C-contiguous array inside the record); a field's title (`(("title", "x"),
"f8")`) names it too.
"""
from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

import numpy as np

from .charseq import FixedWidth
from .containers import Array
from .core import Number, Type

# Numba's description of one field (`Record.fields[name]`)
RecordField = namedtuple("RecordField", "type offset alignment title")


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
        """(type, offset) of field `name` (or of the field with that title), or None."""
        field = self.np_dtype.fields.get(name) if isinstance(name, str) else None
        if field is None:
            return None
        name = next(n for n in self.np_dtype.names if self.np_dtype.fields[n] == field)
        for member, ty, offset in self.members:
            if member == name:
                return ty, offset
        return None

    # Numba's Record API: `typeof`, `offset`, `fields`, `is_title`, `dtype`, `len()`
    def typeof(self, name):
        return self.member(name)[0]

    def offset(self, name):
        return self.member(name)[1]

    @property
    def fields(self):
        """{name or title: RecordField}, as NumPy's `dtype.fields` has them."""
        return {key: RecordField(self.typeof(key), field[1], None,
                                 field[2] if len(field) > 2 else None)
                for key, field in self.np_dtype.fields.items()}

    def is_title(self, name) -> bool:
        field = self.np_dtype.fields.get(name)
        return field is not None and len(field) > 2 and field[2] == name

    @property
    def dtype(self):
        return self.np_dtype

    def __len__(self):
        return len(self.members)

    @classmethod
    def make_c_struct(cls, fields):
        """The record of C struct `fields` ((name, kiln type), ...), laid out as a C
        compiler lays it out (NumPy's aligned dtype)."""
        from .core import as_dtype, from_dtype
        return from_dtype(np.dtype([(name, as_dtype(ty)) for name, ty in fields],
                                   align=True))

    def extends(self, other) -> bool:
        """Whether this record starts with `other`'s fields (names, types and offsets):
        code compiled for `other` reads such a record correctly (Numba's width subtyping
        of records, which lets a compiled function take it without compiling again)."""
        return len(self.members) >= len(other.members) and \
            self.members[:len(other.members)] == other.members and self.size >= other.size

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
    """The Record for a structured dtype whose fields `scalar_of` maps to kiln numbers,
    fixed-width strings or records."""
    members = []
    for name in dtype.names:
        field_dtype, offset = dtype.fields[name][:2]
        item_dtype, shape = field_dtype.subdtype or (field_dtype, ())
        if not item_dtype.isnative and item_dtype.itemsize > 1:
            raise TypeError(f"kiln does not support the non-native byte order of field "
                            f"{name!r} of {dtype}")
        ty = scalar_of(item_dtype)
        if not isinstance(ty, (Number, FixedWidth, Record)):
            raise TypeError(f"kiln does not support field {name!r} ({field_dtype}) of {dtype}")
        members.append((name, Array(ty, len(shape), "C") if shape else ty, offset))
    record = Record(dtype, tuple(members))
    _made.append(record)
    for listener in _listeners:
        listener(record)
    return record

"""Enum classes and their members (`enum.Enum`, `enum.IntEnum`), as Numba types them.

A member is its value at run time; its type names its class, so `Color.red == Shape.circle`
is False even when the values agree, and boxing gives back the member. An IntEnum member
is an integer (arithmetic, comparisons, indexing) of a type that still knows its class.
The members of one class must have values of one type (numbers, tuples of them, ...)."""
from __future__ import annotations

import enum

from .core import Integer, Module, Type


class EnumClass(Module):
    """The class itself, in compiled code (a global, or an argument compiled for exactly
    this class): its members are frozen constants. Numba's `EnumClass(cls, dtype)` and
    `IntEnumClass(cls, dtype)`: the dtype, its members' value type, is the class's own."""
    kind = "enum class"

    def __init__(self, cls, dtype=None):
        self.module = cls
        self.label = cls.__name__
        self.name = f"EnumClass({cls.__name__})"

    @property
    def key(self):
        return (self.module,)


class EnumMember(Type):
    """A member of an `enum.Enum` class whose values have one type (`dtype`)."""

    def __init__(self, cls, dtype):
        self.instance_class = cls
        self.dtype = dtype
        self.fields = (dtype,)     # laid out as a struct of its value (codegen/datamodel.py)
        self.name = f"Enum({cls.__name__})"

    @property
    def key(self):
        return (self.instance_class, self.dtype)


class IntEnumMember(Integer):
    """A member of an `enum.IntEnum` class: an int64 that remembers its class (Numba's
    `IntEnumMember(cls, dtype)`, whose dtype is int64 here)."""

    def __init__(self, cls, dtype=None):
        if dtype is not None and dtype.name != "int64":
            raise TypeError(f"kiln holds the members of the IntEnum {cls.__name__} as int64, "
                            f"not {dtype}")
        super().__init__(f"IntEnum({cls.__name__})", "int64")
        self.instance_class = cls
        self.dtype = self

    @property
    def key(self):
        return (self.instance_class,)


def is_enum_class(value) -> bool:
    return isinstance(value, type) and issubclass(value, enum.Enum) and len(value) > 0


def enum_member_type(cls):
    """The type of `cls`'s members; TypeError when kiln cannot hold them."""
    from .typeof import _typeof
    if issubclass(cls, enum.IntEnum):
        return IntEnumMember(cls)
    types = {_typeof(member.value) for member in cls}
    if None in types:
        raise TypeError(f"kiln takes the members of an enum whose values have one type it "
                        f"can pass; {cls.__name__}'s values are "
                        f"{', '.join(sorted({type(m.value).__name__ for m in cls}))}")
    if len(types) != 1:
        raise HeterogeneousEnumError("Cannot type heterogeneous enum: got value types "
                                     f"{', '.join(sorted(map(str, types)))}")
    return EnumMember(cls, types.pop())


class HeterogeneousEnumError(TypeError, ValueError):
    """An enum whose members' values have different types: Numba's ValueError, and the
    TypeError by which kiln's typing says that a value cannot be typed."""

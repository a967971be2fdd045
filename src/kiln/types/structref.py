"""Structrefs (Numba's `types.StructRef`, kiln.experimental.structref): user-defined type
classes whose instances are mutable structs of typed fields, reference-counted and shared
by every name bound to them, as jitclass instances are (types/classes.py's MutableStruct).

    @structref.register
    class PointType(types.StructRef):
        pass

    point_type = PointType([("x", types.float64), ("y", types.float64)])

Each subclass is one family of struct types; an instance of it is one struct type, equal to
another of the same class with the same fields. A subclass may override
`preprocess_fields(fields)` to rewrite the fields before they are checked (to drop literal
types, or to give a field a type that refers to the struct type itself).
"""
from __future__ import annotations

from .classes import MutableStruct
from .core import Opaque, Type

_listeners = []   # called with each new StructRef: library/structs.py types its field names
_made = []


def on_new_struct_ref(listener):
    """Call `listener(struct_ref)` for every StructRef made so far and every later one."""
    _listeners.append(listener)
    for ty in _made:
        listener(ty)


class StructRef(MutableStruct):
    """A struct type of the fields `fields`, (name, type) pairs in memory order."""

    def __init__(self, fields):
        fields = tuple(self.preprocess_fields(tuple(fields)))
        for name, ty in fields:
            if not isinstance(name, str):
                raise ValueError(f"expecting a str for field name, not {name!r}")
            if not isinstance(ty, Type):
                raise ValueError(f"expecting a Numba Type for field type (a kiln type such "
                                 f"as kiln.int64), not {ty!r}")
        self._fields = fields
        self._typename = type(self).__qualname__
        self.label = self._typename
        # The name is the key. A field may refer to this very type (an optional parent):
        # preprocess_fields then named it first, and the name the field types spell is
        # replaced by the class's, so that two such types of the same fields are equal.
        name = f"{self._typename}{fields}"
        first = self.__dict__.get("name")
        self.name = name.replace(first, self._typename) if first else name
        _made.append(self)
        for listener in _listeners:
            listener(self)

    def preprocess_fields(self, fields):
        """The fields as given, by default; a subclass may rewrite them."""
        return fields

    @property
    def field_dict(self):
        return dict(self._fields)

    @property
    def field_types(self):
        return tuple(ty for _, ty in self._fields)

    def _kiln_typeof_(self):
        """A struct type named in compiled code (`structref.new(point_type)`) is a value
        standing for the type."""
        return TypeRef(self)

    def __setstate__(self, state):
        # unpickled (a cached function's types): typing must know its fields' names too
        self.__dict__.update(state)
        _made.append(self)
        for listener in _listeners:
            listener(self)


class TypeRef(Opaque):
    """A type used as a value in compiled code (Numba's `types.TypeRef`): `instance_type`
    is the type it stands for."""

    def __init__(self, instance_type: Type):
        self.instance_type = instance_type
        self.name = f"typeref[{instance_type}]"

    @property
    def key(self):
        return (self.instance_type,)

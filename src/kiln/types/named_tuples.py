"""Named tuples (`collections.namedtuple`, `typing.NamedTuple`): tuples whose type also
names their class, so compiled code reads `p.x` and gives back instances of the class.
They are laid out, indexed, unpacked and iterated as the tuples they are."""
from __future__ import annotations

from .containers import Tuple, UniTuple
from .core import Opaque


def is_named_tuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and \
        isinstance(getattr(cls, "_fields", None), tuple) and hasattr(cls, "_make")


class NamedUniTuple(UniTuple):
    """A named tuple whose fields share one type."""

    def __init__(self, dtype, count, cls):
        super().__init__(dtype, count)
        self.cls = cls
        self.name = f"{cls.__name__}({dtype} x {count})"

    @property
    def key(self):
        return (self.dtype, self.count, self.cls)

    @property
    def fields(self):
        return self.cls._fields


class NamedTuple(Tuple):
    """A named tuple of fields of mixed types."""

    def __init__(self, types, cls):
        super().__init__(types)
        self.cls = cls
        self.name = f"{cls.__name__}({', '.join(map(str, self.types))})"

    @property
    def key(self):
        return (self.types, self.cls)

    @property
    def fields(self):
        return self.cls._fields


_classes = []     # every named tuple class a type was made for
_listeners = []


def on_new_named_tuple_class(listener):
    """Call `listener(cls)` for every named tuple class seen so far and every later one
    (the library registers the fields' attributes)."""
    _listeners.append(listener)
    for cls in list(_classes):
        listener(cls)


def _seen(cls):
    if cls not in _classes:
        _classes.append(cls)
        for listener in _listeners:
            listener(cls)


def named_tuple_of(types, cls):
    """The named tuple type of `cls` with items of these types."""
    _seen(cls)
    types = tuple(types)
    if types and all(ty == types[0] for ty in types):
        return NamedUniTuple(types[0], len(types), cls)
    return NamedTuple(types, cls)


class NamedTupleClass(Opaque):
    """A named tuple class used as a value: calling it makes an instance."""

    def __init__(self, cls):
        _seen(cls)
        self.cls = cls
        self.name = f"class({cls.__name__})"

    @property
    def key(self):
        return (self.cls,)

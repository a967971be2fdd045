"""The types of jitclasses (kiln.experimental.jitclass): the class itself and its instances.

A `MutableStruct` is a struct of typed fields in an NRT meminfo, mutated in place and
shared by every name bound to it: jitclass instances and structrefs (types/structref.py)
are its two kinds, laid out, counted and boxed by the same code (library/structs.py).
A `ClassType` describes one decorated class (its fields and their types in order, its
methods, properties and static methods as compiled functions); each is a distinct type, equal
only to itself. A `ClassInstanceType` is the type of its instances: a pointer to an NRT
meminfo holding the fields (library/classes.py), so every name bound to an instance sees
the same fields, as in Python.
"""
from __future__ import annotations

import itertools

from .core import Type

_counter = itertools.count(1)
_by_uid = {}   # uid -> ClassType, so an instance type pickles within the process


class MutableStruct(Type):
    """A pointer to a meminfo holding the fields of `field_dict` (names to types, in memory
    order); `label` names it in messages."""

    mutable = True

    @property
    def field_dict(self) -> dict:
        raise NotImplementedError


class ClassType(Type):
    """One jitclass: `fields` maps each field name to its kiln type (in spec order);
    `methods`, `staticmethods` and `properties` map names to compiled functions (a property
    to its (getter, setter) pair, setter None when read-only)."""

    def __init__(self, class_name, fields, methods, staticmethods, properties, init):
        self.uid = next(_counter)
        self.class_name = class_name
        self.fields = dict(fields)
        self.methods, self.staticmethods = methods, staticmethods
        self.properties, self.init = properties, init
        self.name = f"jitclass.{class_name}#{self.uid}"
        self.instance_type = ClassInstanceType(self)
        _by_uid[self.uid] = self

    @property
    def key(self):
        return (self.uid,)

    @property
    def struct(self):
        """The fields' names and types (Numba's name)."""
        return dict(self.fields)

    def __reduce__(self):
        return _class_type, (self.uid,)


class ClassInstanceType(MutableStruct):
    """An instance of a jitclass (Numba's `types.ClassInstanceType`)."""

    def __init__(self, class_type: ClassType):
        self.class_type = class_type
        self.label = class_type.class_name
        self.name = f"instance.jitclass.{class_type.class_name}#{class_type.uid}"

    @property
    def key(self):
        return (self.class_type.uid,)

    @property
    def field_dict(self):
        self.require_defined()
        return dict(self.class_type.fields)

    struct = field_dict   # Numba's name

    def require_defined(self):
        """A TypingError if a field's type is a deferred type not defined yet."""
        for name, ty in self.class_type.fields.items():
            pending = undefined_in(ty)
            if pending is not None:
                from ..errors import TypingError
                raise TypingError(f"jitclass {self.class_type.class_name}: field {name!r} has "
                                  f"the type {pending}, not defined yet: call its define() "
                                  "with the class's instance type before using the class")

    def __reduce__(self):
        return _instance_type, (self.class_type.uid,)


def _class_type(uid):
    return _by_uid[uid]


def _instance_type(uid):
    return _by_uid[uid].instance_type


class DeferredType(Type):
    """A type named before it exists (Numba's `deferred_type()`): a jitclass field such as
    `optional(node_type)` refers to its own class, which exists only once decorated.
    `define(ty)` fixes it, and every jitclass field that held it holds `ty` from then on."""

    def __init__(self):
        self.uid = next(_counter)
        self.type = None
        self.name = f"deferred#{self.uid}"

    @property
    def key(self):
        return (self.uid,)

    def define(self, ty: Type):
        if self.type is not None:
            raise TypeError(f"{self.name} is already defined as {self.type}")
        if not isinstance(ty, Type):
            raise TypeError(f"define() takes a kiln type, not {ty!r}")
        self.type = ty
        for class_type in list(_by_uid.values()):
            class_type.fields = {name: resolved(field) for name, field in
                                 class_type.fields.items()}

    def get(self):
        return self.type


def deferred_type() -> DeferredType:
    return DeferredType()


def resolved(ty: Type) -> Type:
    """`ty` with each defined DeferredType in it replaced by its type."""
    from .containers import BaseTuple, ListType, Optional, tuple_of
    if isinstance(ty, DeferredType):
        return ty if ty.type is None else ty.type
    if isinstance(ty, Optional):
        return Optional(resolved(ty.type))
    if isinstance(ty, ListType) and not ty.is_undefined:
        return ty.of(resolved(ty.item_type))
    if isinstance(ty, BaseTuple):
        return tuple_of([resolved(x) for x in ty.types])
    return ty


def undefined_in(ty: Type):
    """The first DeferredType in `ty` not defined yet, or None."""
    from .containers import BaseTuple, ListType, Optional
    if isinstance(ty, DeferredType):
        return ty if ty.type is None else undefined_in(ty.type)
    parts = [ty.type] if isinstance(ty, Optional) else \
        [ty.item_type] if isinstance(ty, ListType) else \
        list(ty.types) if isinstance(ty, BaseTuple) else []
    return next((found for found in map(undefined_in, parts) if found is not None), None)

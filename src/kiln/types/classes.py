"""The types of jitclasses (kiln.experimental.jitclass): the class itself and its instances.

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

    def __reduce__(self):
        return _class_type, (self.uid,)


class ClassInstanceType(Type):
    """An instance of a jitclass (Numba's `types.ClassInstanceType`)."""

    mutable = True

    def __init__(self, class_type: ClassType):
        self.class_type = class_type
        self.name = f"instance.jitclass.{class_type.class_name}#{class_type.uid}"

    @property
    def key(self):
        return (self.class_type.uid,)

    @property
    def struct(self):
        """The fields' (name, type) pairs in memory order."""
        return tuple(self.class_type.fields.items())

    def __reduce__(self):
        return _instance_type, (self.class_type.uid,)


def _class_type(uid):
    return _by_uid[uid]


def _instance_type(uid):
    return _by_uid[uid].instance_type

"""Which values own runtime memory, and the one place that counts their references.

An array made in compiled code points to an NRT meminfo, a list, a dict, a string or a
jitclass instance is one; tuples, Optionals and library
structs (`zip`, `enumerate`) own whatever their items own. Code generation calls `incref`
and `decref` with a value's kiln type and they walk it; types that own nothing generate
no code at all, so scalar code is unchanged."""
from __future__ import annotations

from functools import lru_cache

from .. import types as t
from ..runtime import nrt
from . import datamodel as dm


@lru_cache(maxsize=None)
def _owned_parts(ty) -> tuple:
    """Paths (tuples of struct indices) to the meminfo fields inside a value of `ty`."""
    if isinstance(ty, (t.Array, t.Record)):   # both hold their meminfo first
        return ((dm.ARRAY_MEMINFO,),)
    if isinstance(ty, (t.ListType, t.DictType, t.SetType, t.ClassInstanceType,
                       t.GeneratorType, t.UnicodeType)):
        return ((),)   # the value is the meminfo
    if isinstance(ty, t.BaseTuple):
        items = ty.types
    elif isinstance(ty, t.Optional):
        items = (ty.type,)   # an absent value is all zeros: a NULL meminfo
    elif hasattr(ty, "fields"):
        items = ty.fields
    else:
        return ()
    return tuple((i,) + path for i, item in enumerate(items) for path in _owned_parts(item))


def has_refs(ty) -> bool:
    return bool(_owned_parts(ty))


def _each_meminfo(builder, ty, value):
    for path in _owned_parts(ty):
        yield builder.extract_value(value, list(path)) if path else value


def incref(builder, ty, value):
    for meminfo in _each_meminfo(builder, ty, value):
        nrt.emit_incref(builder, meminfo)


def decref(builder, ty, value):
    for meminfo in _each_meminfo(builder, ty, value):
        nrt.emit_decref(builder, meminfo)

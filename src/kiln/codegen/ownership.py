"""Which values own runtime memory, and the one place that counts their references.

An array made in compiled code points to an NRT meminfo; tuples, Optionals and library
structs (`zip`, `enumerate`) own whatever their items own. A family whose value is its
meminfo (a list, a dict, a set, a string, a generator, a jitclass instance) says so in the
module that owns its layout (`meminfo_family`), and a family with another walk registers
it (`register_parts`), so this module names none of them. Code generation calls `incref`
and `decref` with a value's kiln type and they walk it; types that own nothing generate
no code at all, so scalar code is unchanged. An array that NumPy owns is given a meminfo
holding its NumPy array where a container or a generator keeps it (`kept_alive`)."""
from __future__ import annotations

from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..runtime import nrt
from . import datamodel as dm

_PARTS = {}   # type class -> parts(ty): the paths to the meminfos in its values


def register_parts(type_class, parts):
    """`parts(ty)`: the paths (tuples of struct indices) to the meminfo fields inside a
    value of `type_class` (and of its subclasses); () for a value that is its meminfo."""
    _PARTS[type_class] = parts
    _owned_parts.cache_clear()


def meminfo_family(type_class):
    """Values of `type_class` are a pointer to their NRT meminfo, which owns what they
    hold: laid out as a pointer, counted as one reference."""
    dm.register_model(type_class, lambda ty: dm.ptr)
    register_parts(type_class, lambda ty: ((),))


@lru_cache(maxsize=None)
def _owned_parts(ty) -> tuple:
    """Paths (tuples of struct indices) to the meminfo fields inside a value of `ty`."""
    for cls in type(ty).__mro__:
        if cls in _PARTS:
            return tuple(_PARTS[cls](ty))
    if isinstance(ty, (t.Array, t.Record)):   # both hold their meminfo first
        return ((dm.ARRAY_MEMINFO,),)
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


def kept_alive(context, b, ty, value):
    """`value` with each array in it that NumPy owns (no meminfo: an argument or a view of
    one) given a meminfo that holds its NumPy array, so a list can keep it past the call."""
    if isinstance(ty, t.BaseTuple):
        for i, item_ty in enumerate(ty.types):
            if holds_arrays(item_ty):
                value = b.insert_value(value, kept_alive(context, b, item_ty,
                                                          b.extract_value(value, i)), i)
        return value
    if not isinstance(ty, t.Array):
        return value
    null = ir.Constant(dm.ptr, None)
    slot = context.alloca(b, dm.value_type(ty))
    b.store(value, slot)
    borrowed = b.and_(b.icmp_unsigned("==", b.extract_value(value, dm.ARRAY_MEMINFO), null),
                      b.icmp_unsigned("!=", b.extract_value(value, dm.ARRAY_PARENT), null))
    with b.if_then(borrowed, likely=False):
        owner = nrt.emit_python_owner(b, b.extract_value(value, dm.ARRAY_PARENT))
        context.guard(b, b.icmp_unsigned("==", owner, null), MemoryError,
                      "cannot allocate a list item")
        b.store(b.insert_value(value, owner, dm.ARRAY_MEMINFO), slot)
    return b.load(slot, typ=dm.value_type(ty))


def holds_arrays(ty):
    return isinstance(ty, t.Array) or (isinstance(ty, t.BaseTuple) and
                                       any(map(holds_arrays, ty.types)))

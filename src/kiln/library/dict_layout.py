"""The layout of `DictType` in LLVM IR and the primitives that touch it; the hash table
and every dict operation are Python on top of them (library/dicts.py), and sets reuse them.

A dict is a pointer to an NRT meminfo whose data is the header
`{ptr keys, ptr values, ptr hashes, ptr index, i64 used, i64 tag}`. As CPython's compact
dict, the entries are kept in insertion order in arrays (here three lists of
library/list_layout.py: keys, values and each key's hash) and found through `index`, a list
of int32 (at most 2**31 - 1 entries) whose length is a power of two: a slot holds an
entry's position, EMPTY or DUMMY (a deleted entry's slot, which probing steps over). A
deleted entry keeps its place with the hash DELETED (CPython's hash is never -1) and its
key and value released. `used` counts the live entries; `tag` identifies the type of a dict
that has been to Python (typed/typeddict.py), as a list's does. The dict's destructor
releases the four lists.
"""
from __future__ import annotations

from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.ownership import decref, has_refs, meminfo_family
from ..runtime import nrt
from ..typing.unify import can_convert
from . import list_layout
from .list_layout import _new_reference
from ..typing.registry import intrinsic

HEADER = ir.LiteralStructType([dm.ptr, dm.ptr, dm.ptr, dm.ptr, dm.i64, dm.i64])
KEYS, VALUES, HASHES, INDEX, USED, TAG = range(6)
INDEX_ITEM = t.int32       # an entry's position: half the memory (and cache) of int64
MAX_ENTRIES = 2 ** 31 - 1  # so a table holds fewer entries (deleted ones included)
EMPTY, DUMMY = -1, -2      # index slots that hold no entry
DELETED = -1               # the hash of a deleted entry
MIN_SIZE = 8

meminfo_family(t.DictType)   # a dict value is its meminfo
meminfo_family(t.SetType)    # so is a set's: the same table (library/sets.py)


# ---- the layout in LLVM IR -------------------------------------------------------------------

def _field(b, d, index):
    return b.gep(nrt.meminfo_data(b, d), [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, index)],
                 source_etype=HEADER)


def _parts(dict_ty):
    """The list types of the keys, values, hashes and index."""
    return (t.ListType(dict_ty.key_type), t.ListType(dict_ty.value_type),
            t.ListType(t.int64), t.ListType(INDEX_ITEM))


def used_of(b, d):
    return b.load(_field(b, d, USED), typ=dm.i64)


def set_tag(b, d, dict_ty):
    b.store(ir.Constant(dm.i64, dm.type_tag(dict_ty)), _field(b, d, TAG))


def has_tag(b, d, dict_ty):
    return b.icmp_signed("==", b.load(_field(b, d, TAG), typ=dm.i64),
                         ir.Constant(dm.i64, dm.type_tag(dict_ty)))


def _destructor(module):
    """`void destroy(meminfo)`: release the four lists (one function for every dict type)."""
    def body(fn, b):
        for part in (KEYS, VALUES, HASHES, INDEX):
            nrt.emit_decref(b, b.load(_field(b, fn.args[0], part), typ=dm.ptr))
        b.ret_void()
    return list_layout._module_function(module, "kiln.dict.destroy", nrt.DESTRUCTOR, body)


def new_dict(context, b, dict_ty):
    """A new, empty dict (one reference)."""
    d = nrt.emit_allocate(b, ir.Constant(dm.i64, HEADER.get_abi_size(
        list_layout._target_data())))
    context.guard(b, b.icmp_unsigned("==", d, ir.Constant(dm.ptr, None)), MemoryError,
                  "cannot allocate a dict")
    b.store(ir.Constant(HEADER, None), nrt.meminfo_data(b, d))
    nrt.set_destructor(b, d, _destructor(context.module))
    slot = context.hold_until_done(b, d, dict_ty)  # released if a list cannot be made
    for part, list_ty in zip((KEYS, VALUES, HASHES, INDEX), _parts(dict_ty)):
        b.store(list_layout.new_list(context, b, list_ty, ir.Constant(dm.i64, 0)),
                _field(b, d, part))
    context.done_holding(b, slot)
    return d


# ---- primitives --------------------------------------------------------------------------

def _defined(d):
    return isinstance(d, t.DictType) and not d.is_undefined


def is_table(d):
    """Whether `d` is laid out as a dict: a dict, or a set (library/sets.py), whose values
    are unused booleans. The primitives below and the table code take both."""
    return isinstance(d, (t.DictType, t.SetType))


def _part_getter(part, name):
    def typer(tctx, d):
        if not is_table(d):
            return None
        list_ty = _parts(d)[part]
        return list_ty(d), lambda context, b, sig, args: \
            b.load(_field(b, args[0], part), typ=dm.ptr)
    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


# each borrowed from the dict
_dict_keys = _part_getter(KEYS, "_dict_keys")
_dict_values = _part_getter(VALUES, "_dict_values")
_dict_hashes = _part_getter(HASHES, "_dict_hashes")
_dict_index = _part_getter(INDEX, "_dict_index")


def _item_getter(part, name):
    """An intrinsic `get(d, i)`: item i of one of the dict's lists, read through the header
    (no list value is made, so the probe loop counts no references)."""
    def typer(tctx, d, i):
        if not is_table(d) or d.is_undefined or not isinstance(i, t.Integer):
            return None
        item = _parts(d)[part].item_type

        def codegen(context, b, sig, args):
            lst = b.load(_field(b, args[0], part), typ=dm.ptr)
            return dm.load_item(b, item, list_layout._item_address(b, lst, item, args[1]))
        return item(d, t.int64), codegen
    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


# each borrowed from the dict
_key_at = _item_getter(KEYS, "_key_at")
_value_at = _item_getter(VALUES, "_value_at")
_hash_at = _item_getter(HASHES, "_hash_at")
_slot_at = _item_getter(INDEX, "_slot_at")


def _length_getter(part, name):
    def typer(tctx, d):
        if not is_table(d):
            return None
        return t.int64(d), lambda context, b, sig, args: \
            list_layout.size_of(b, b.load(_field(b, args[0], part), typ=dm.ptr))
    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


_entries_count = _length_getter(HASHES, "_entries_count")   # live and deleted
_index_size = _length_getter(INDEX, "_index_size")


@intrinsic
def _dict_used(tctx, d):
    if not is_table(d):
        return None
    return t.int64(d), lambda context, b, sig, args: used_of(b, args[0])


@intrinsic
def _dict_set_used(tctx, d, n):
    if not is_table(d):
        return None

    def codegen(context, b, sig, args):
        b.store(args[1], _field(b, args[0], USED))
        return dm.null_value(t.none)
    return t.none(d, t.int64), codegen


@intrinsic
def _list_vacate(tctx, lst, i):
    """Release the item at i and zero its slot (a deleted entry holds nothing)."""
    if not isinstance(lst, t.ListType) or lst.is_undefined:
        return None
    item = lst.item_type

    def codegen(context, b, sig, args):
        if has_refs(item):
            address = list_layout._item_address(b, args[0], item, args[1])
            decref(b, item, dm.load_item(b, item, address))
            b.store(ir.Constant(dm.memory_type(item), None), address)
        return dm.null_value(t.none)
    return t.none(lst, t.int64), codegen


@intrinsic
def _append_entry(tctx, d, key, value, h):
    """Append the entry (key, value, h) to the three lists, each taking its reference,
    through the header (no list value is made, so no references are counted on the way)."""
    if not is_table(d) or d.is_undefined:
        return None
    parts = _parts(d)

    def codegen(context, b, sig, args):
        for part, value in zip((KEYS, VALUES, HASHES), args[1:]):
            list_ty = parts[part]
            lst = b.load(_field(b, args[0], part), typ=dm.ptr)
            n = list_layout.size_of(b, lst)
            grown = b.add(n, ir.Constant(dm.i64, 1))
            list_layout.reserve(context, b, list_ty, lst, grown)
            list_layout._store_new(context, b, list_ty.item_type, value,
                             list_layout._item_address(b, lst, list_ty.item_type, n))
            b.store(grown, list_layout._field(b, lst, list_layout.SIZE))
        return dm.null_value(t.none)
    return t.none(d, d.key_type, d.value_type, t.int64), codegen


def _item_setter(part, name):
    """An intrinsic `set(d, i, x)`: replace item i of one of the dict's lists, through the
    header (as `_item_getter` reads)."""
    def typer(tctx, d, i, value):
        if not is_table(d) or d.is_undefined or not isinstance(i, t.Integer):
            return None
        item = _parts(d)[part].item_type

        def codegen(context, b, sig, args):
            lst = b.load(_field(b, args[0], part), typ=dm.ptr)
            list_layout.replace_item(context, b, item, args[2],
                               list_layout._item_address(b, lst, item, args[1]))
            return dm.null_value(t.none)
        return t.none(d, t.int64, item), codegen
    typer.__name__ = typer.__qualname__ = name
    return intrinsic(typer)


_set_value_at = _item_setter(VALUES, "_set_value_at")
_set_slot_at = _item_setter(INDEX, "_set_slot_at")


@lru_cache(maxsize=None)
def converter(ty):
    """An intrinsic `convert(x)` giving x as a value of `ty` (a key is stored, and hashed,
    as the dict's key type)."""
    def convert(tctx, value):
        if not can_convert(value, ty):
            return None
        return ty(value), lambda context, b, sig, args: context.cast(b, args[0], value, ty)
    convert.__name__ = convert.__qualname__ = f"convert_to_{ty}"
    return intrinsic(convert)


@lru_cache(maxsize=None)
def dict_maker(key_ty, value_ty):
    """An intrinsic `make()` giving a new empty dict of these key and value types."""
    dict_ty = t.DictType(key_ty, value_ty)

    def make(tctx):
        return dict_ty(), _new_reference(
            lambda context, b, sig, args: new_dict(context, b, dict_ty))
    make.__name__ = make.__qualname__ = f"make_dict_of_{key_ty}_{value_ty}"
    return intrinsic(make)


@intrinsic
def _dict_new_like(tctx, d):
    if not is_table(d):
        return None
    return d(d), _new_reference(lambda context, b, sig, args: new_dict(context, b, d))

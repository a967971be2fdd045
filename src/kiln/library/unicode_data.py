"""The Unicode tables of compiled code's `str` methods (runtime/unicode_tables.py: the
running CPython's classes and case mappings of every code point), read by compiled code:
a character's flags and its mappings, written into a new string.
"""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..runtime import pyapi as P
from ..runtime import unicode_tables as tables
from ..runtime.unicode_tables import (  # noqa: F401 - the flags, for string_methods & co.
    ALPHA, CASE_IGNORABLE, CASED, COLUMNS, DECIMAL, DIGIT, LOWER, NUMERIC, PRINTABLE, SHIFT,
    TITLE, UPPER, XID_CONTINUE, XID_START)
from ..typing.registry import intrinsic, register_jitable
from .strings import _str_set

# mappings
TO_UPPER, TO_LOWER, TO_TITLE, TO_FOLD = range(4)


def _unchanging(b, address, typ):
    """A load LLVM may move and merge (the tables never change): lookups of one character
    share their loads, and a loop's lookups read the cells once."""
    loaded = b.load(address, typ=typ)
    loaded.set_metadata("invariant.load", b.module.add_metadata([]))
    return loaded


def _reader(field):
    """An intrinsic `read(i)`: item i of the table `field`, as an int64."""
    @intrinsic
    def read(tctx, i):
        if not isinstance(i, t.Integer):
            return None

        def codegen(context, b, sig, args):
            offset = tables.TABLES.offsets[field]
            cell = context.state.object_cell(tables.TABLE, name=f"{tables.__name__}:TABLE")
            data = _unchanging(b, b.gep(_unchanging(b, cell, dm.ptr),
                                        [ir.Constant(dm.i64, P.ARRAY_DATA)], source_etype=dm.i8),
                               dm.ptr)
            index = b.add(context.cast(b, args[0], i, t.int64), ir.Constant(dm.i64, offset))
            item = b.gep(data, [index], source_etype=dm.i32)
            return b.sext(_unchanging(b, item, dm.i32), dm.i64)
        return t.int64(i), codegen
    read.__name__ = f"read_{field}"
    return read


_index1, _index2, _records, _seqs = map(_reader, tables.FIELDS)


@register_jitable
def _record(c):
    return _index2((_index1(c >> SHIFT) << SHIFT) + (c & ((1 << SHIFT) - 1))) * COLUMNS


@register_jitable
def char_flags(c):
    """The flags of code point c (ALPHA, ...)."""
    return _records(_record(c))


@register_jitable
def has(c, flag):
    return (char_flags(c) & flag) != 0


@register_jitable
def ascii_mapping(c, mapping):
    """`mapping` of an ASCII character (one ASCII character), without the tables."""
    if mapping == TO_UPPER or mapping == TO_TITLE:
        return c - 32 if 97 <= c <= 122 else c
    return c + 32 if 65 <= c <= 90 else c


@register_jitable
def mapping_length(c, mapping):
    """How many code points `mapping` (TO_UPPER, ...) of c has."""
    if c < 128:
        return 1
    at = _records(_record(c) + 2 + 2 * mapping)
    return 1 if at == 0 else _seqs(at)


@register_jitable
def write_mapping(c, mapping, out, k):
    """Write `mapping` of c into the new string `out` at k; the position after it."""
    if c < 128:
        _str_set(out, k, ascii_mapping(c, mapping))
        return k + 1
    row = _record(c) + 1 + 2 * mapping
    at = _records(row + 1)
    if at == 0:
        _str_set(out, k, c + _records(row))
        return k + 1
    n = _seqs(at)
    for j in range(n):
        _str_set(out, k + j, _seqs(at + 1 + j))
    return k + n

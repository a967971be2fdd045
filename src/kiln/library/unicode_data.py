"""The Unicode character database of compiled code's `str` methods: read off the running
CPython's own `str` methods (so compiled code classifies and maps every code point as that
interpreter does, its Unicode version included), once per process, on the first compile
that needs it.

Each code point has a record (two-level table: `index1[c >> SHIFT]` picks a block of
`index2`): its flags and, per mapping (upper, lower, title, fold), either the distance to
the one code point it maps to or where its longer mapping ('ß' -> 'SS') starts in `seqs`
(`[length, code points...]`). Compiled code reads the four, one after the other in this
module's `TABLE`, through a `kiln.obj.*` cell that names it, so code using them is cached
like any other (and an ahead-of-time module carries TABLE: `embedded_source`).
"""
from __future__ import annotations

import base64
import hashlib
import io
import itertools
import sys
import types
import unicodedata

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..runtime import pyapi as P
from ..runtime.cache import internal_cache
from ..typing.registry import intrinsic, register_jitable
from .strings import _str_set

SHIFT = 7
# flags
ALPHA, DECIMAL, DIGIT, NUMERIC, LOWER, UPPER, TITLE, PRINTABLE, XID_START, XID_CONTINUE, \
    CASE_IGNORABLE = (1 << k for k in range(11))
CASED = LOWER | UPPER | TITLE
# mappings
TO_UPPER, TO_LOWER, TO_TITLE, TO_FOLD = range(4)
# Above this only planes 14 (tags, variation selectors) and the private use planes
# 15 and 16 are assigned: each private use code point maps to itself and has no flag.
_SCANNED = np.r_[1:0x40000, 0xE0000:0xE1000]   # and '\0', which joins the others below


def _joined(chars, method):
    """`method` of each character, through one call on them all ('\0' apart: it maps to
    itself and is neither cased nor case-ignorable)."""
    return method("\0".join(chars)).split("\0")


def _flags(chars):
    tests = (str.isalpha, str.isdecimal, str.isdigit, str.isnumeric, str.islower, str.isupper,
             lambda c: c.istitle() and not c.isupper(), str.isprintable, str.isidentifier,
             lambda c: ("a" + c).isidentifier())
    flags = np.zeros(len(chars), np.int64)
    for bit, test in enumerate(tests):
        flags |= np.fromiter(map(test, chars), bool, len(chars)).astype(np.int64) << bit
    return flags | _case_ignorable(chars, (flags & CASED) != 0) * CASE_IGNORABLE


def _case_ignorable(chars, cased):
    """CPython's Case_Ignorable, as its lower() sees it: a Σ after 'A' and c ends a word
    when c is ignorable or cased; after '1' and a cased c, only when c is not ignorable."""
    def final(before, which):
        return np.array([s.endswith("ς") for s in _joined(
            [before + chars[k] + "Σ" for k in which], str.lower)], bool)
    found = final("A", range(len(chars))) & ~cased
    both = np.flatnonzero(cased)
    found[both] = ~final("1", both)
    return found


def _utf32(text):
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32).astype(np.int64)


def _distinct_rows(table):
    """(the distinct rows of the 2-d `table`, the row number of each row among them), the
    first row (all zeros) being row 0."""
    order = np.lexsort(table.T[::-1])
    ordered = table[order]
    new = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    which = np.empty(len(table), np.int64)
    which[order] = np.cumsum(new) - 1
    rows = ordered[new]
    zero = which[0]   # swap the all-zero row with row 0
    rows[[0, zero]] = rows[[zero, 0]]
    which = np.where(which == zero, 0, np.where(which == 0, zero, which))
    return rows, which


def _build():
    chars = list(map(chr, _SCANNED.tolist()))
    columns = [_flags(chars)]
    seqs, starts = [0], {}
    for method in (str.upper, str.lower, str.title, str.casefold):
        mapped = _joined(chars, method)
        lengths = np.fromiter(map(len, mapped), np.int64, len(mapped))
        one = lengths == 1
        delta = np.zeros(len(chars), np.int64)
        delta[one] = _utf32("".join(itertools.compress(mapped, one))) - _SCANNED[one]
        long = np.zeros(len(chars), np.int64)
        for k in np.flatnonzero(~one).tolist():
            m = mapped[k]
            if m not in starts:
                starts[m] = len(seqs)
                seqs += [len(m)] + [ord(x) for x in m]
            long[k] = starts[m]
        columns += [delta, long]
    # record 0: no flag, maps to itself ('\0' and every code point not scanned)
    rows, which = _distinct_rows(np.r_[np.zeros((1, len(columns)), np.int64),
                                       np.stack(columns, axis=1)])
    record = np.zeros(0x110000, np.int64)
    record[_SCANNED] = which[1:]
    blocks, index1 = _distinct_rows(np.r_[np.zeros((1, 1 << SHIFT), np.int64),
                                          record.reshape(-1, 1 << SHIFT)])
    as32 = lambda a: np.ascontiguousarray(a, dtype=np.int32)   # noqa: E731
    return dict(index1=as32(index1[1:]), index2=as32(blocks.ravel()), records=as32(rows),
                seqs=as32(seqs))


def _tables():
    """The tables, from kiln's internal cache when this interpreter (its Unicode version)
    and this module made them before: reading CPython's methods takes about a second."""
    with open(__file__, "rb") as f:
        key = hashlib.sha256(f"{sys.version}|{unicodedata.unidata_version}|".encode() +
                             f.read()).hexdigest()
    store = internal_cache("unicode")
    data = store.load(key)
    if data is not None:
        try:
            with np.load(io.BytesIO(data)) as saved:
                return types.SimpleNamespace(**{k: saved[k] for k in saved.files})
        except (OSError, ValueError):
            pass
    tables = _build()
    out = io.BytesIO()
    np.savez(out, **tables)
    store.save(key, out.getvalue())
    return types.SimpleNamespace(**tables)


_FIELDS = ("index1", "index2", "records", "seqs")


def __getattr__(name):
    """TABLES (the four tables, each a view of TABLE, and each one's `offsets` there) and
    TABLE (all four: compiled code's one `kiln.obj.*` cell, imported by name), made on
    first use."""
    if name not in ("TABLES", "TABLE"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    tables = _tables()
    table = np.concatenate([getattr(tables, f).ravel() for f in _FIELDS])
    starts = np.cumsum([0] + [getattr(tables, f).size for f in _FIELDS])
    offsets = dict(zip(_FIELDS, starts.tolist()))
    globals()["TABLE"] = table
    globals()["TABLES"] = types.SimpleNamespace(
        offsets=offsets, **{f: table[offsets[f]:offsets[f] + getattr(tables, f).size]
                            for f in _FIELDS})
    return globals()[name]


def embedded_source():
    """Python source defining TABLE, for an ahead-of-time module (aot/build.py), which
    carries it instead of importing kiln."""
    return ("import base64\nimport numpy as np\nTABLE = np.frombuffer(base64.b64decode(" +
            repr(base64.b64encode(__getattr__("TABLE").tobytes())) + "), np.int32)\n")


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
            offset = __getattr__("TABLES").offsets[field]
            cell = context.state.object_cell(__getattr__("TABLE"), name=f"{__name__}:TABLE")
            data = _unchanging(b, b.gep(_unchanging(b, cell, dm.ptr),
                                        [ir.Constant(dm.i64, P.ARRAY_DATA)], source_etype=dm.i8),
                               dm.ptr)
            index = b.add(context.cast(b, args[0], i, t.int64), ir.Constant(dm.i64, offset))
            item = b.gep(data, [index], source_etype=dm.i32)
            return b.sext(_unchanging(b, item, dm.i32), dm.i64)
        return t.int64(i), codegen
    read.__name__ = f"read_{field}"
    return read


_index1, _index2, _records, _seqs = map(_reader, _FIELDS)
_COLUMNS = 9   # flags, then (distance, long mapping) per mapping


@register_jitable
def _record(c):
    return _index2((_index1(c >> SHIFT) << SHIFT) + (c & ((1 << SHIFT) - 1))) * _COLUMNS


@register_jitable
def char_flags(c):
    """The flags of code point c (ALPHA, ...)."""
    return _records(_record(c))


@register_jitable
def has(c, flag):
    return (char_flags(c) & flag) != 0


@register_jitable
def _ascii_mapping(c, mapping):
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
        _str_set(out, k, _ascii_mapping(c, mapping))
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

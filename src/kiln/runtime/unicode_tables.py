"""The Unicode character database of compiled code's `str` methods, as data: read off the
running CPython's own `str` methods (so compiled code classifies and maps every code point
as that interpreter does, its Unicode version included), once per interpreter (then kept
in kiln's internal cache), on the first use. library/unicode_data.py reads it from
compiled code; a cached hit imports this module alone to bind it (NumPy, no code generator).

Each code point has a record (two-level table: `index1[c >> SHIFT]` picks a block of
`index2`): its flags and, per mapping (upper, lower, title, fold), either the distance to
the one code point it maps to or where its longer mapping ('ß' -> 'SS') starts in `seqs`
(`[length, code points...]`). The four lie one after the other in `TABLE`, compiled
code's one `kiln.obj.*` cell (an ahead-of-time module carries it: `embedded_source`).
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

from .cache import internal_cache

SHIFT = 7
# flags
ALPHA, DECIMAL, DIGIT, NUMERIC, LOWER, UPPER, TITLE, PRINTABLE, XID_START, XID_CONTINUE, \
    CASE_IGNORABLE = (1 << k for k in range(11))
CASED = LOWER | UPPER | TITLE
COLUMNS = 9   # of a record: flags, then (distance, long mapping) per mapping
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


FIELDS = ("index1", "index2", "records", "seqs")


def __getattr__(name):
    """TABLES (the four tables, each a view of TABLE, and each one's `offsets` there) and
    TABLE (all four: compiled code's one `kiln.obj.*` cell, imported by name), made on
    first use."""
    if name not in ("TABLES", "TABLE"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    tables = _tables()
    table = np.concatenate([getattr(tables, f).ravel() for f in FIELDS])
    starts = np.cumsum([0] + [getattr(tables, f).size for f in FIELDS])
    offsets = dict(zip(FIELDS, starts.tolist()))
    globals()["TABLE"] = table
    globals()["TABLES"] = types.SimpleNamespace(
        offsets=offsets, **{f: table[offsets[f]:offsets[f] + getattr(tables, f).size]
                            for f in FIELDS})
    return globals()[name]


def embedded_source():
    """Python source defining TABLE, for an ahead-of-time module (aot/build.py), which
    carries it instead of importing kiln."""
    return ("import base64\nimport numpy as np\nTABLE = np.frombuffer(base64.b64decode(" +
            repr(base64.b64encode(__getattr__("TABLE").tobytes())) + "), np.int32)\n")



"""`repr(x)` in compiled code, CPython's text: of a number, a bool or None it is `str(x)`
(a number is Python's, as for isinstance), of a string CPython's `unicode_repr`: quoted
with ' unless the text holds ' and no ", the quote and backslash escaped, \\t \\n \\r, other
control characters as \\xhh, and every code point the running CPython does not print
(`str.isprintable`: its own Unicode tables, read once when a repr of a string is first
compiled) as \\xhh, \\uhhhh or \\Uhhhhhhhh."""
from __future__ import annotations

import functools

import numpy as np

from .. import types as t
from ..typing.registry import overload, register_jitable
from .string_conversions import _str_of
from .strings import _str_get, _str_len, _str_new, _str_set, is_string

_BACKSLASH, _QUOTE, _DOUBLE_QUOTE = 92, 39, 34


@functools.cache
def _printable_starts():
    """The code points where `str.isprintable` changes its answer, the first from True
    (code point 0 is not printable): c is printable when an even number of them are <= c."""
    starts, printable = [], True
    for c in range(0x110000):
        if chr(c).isprintable() != printable:
            starts.append(c)
            printable = not printable
    return np.array(starts, np.int64)


@register_jitable
def _printable(c, starts):
    return np.searchsorted(starts, c, side="right") % 2 == 0


@register_jitable
def _escaped_width(c, quote, starts):
    if c == quote or c == _BACKSLASH or c == 9 or c == 10 or c == 13:
        return 2
    if c < 32 or c == 127:
        return 4
    if c < 127 or _printable(c, starts):
        return 1
    return 4 if c <= 0xFF else 6 if c <= 0xFFFF else 10


@register_jitable
def _put_hex(out, k, c, digits):
    for j in range(digits):
        d = (c >> (4 * (digits - 1 - j))) & 15
        _str_set(out, k + j, 48 + d if d < 10 else 87 + d)


@register_jitable
def _string_repr(s, starts):
    n = _str_len(s)
    has_quote = False
    has_double = False
    for i in range(n):
        c = _str_get(s, i)
        has_quote = has_quote or c == _QUOTE
        has_double = has_double or c == _DOUBLE_QUOTE
    quote = _DOUBLE_QUOTE if has_quote and not has_double else _QUOTE
    width = 2
    for i in range(n):
        width += _escaped_width(_str_get(s, i), quote, starts)
    out = _str_new(width)
    _str_set(out, 0, quote)
    k = 1
    for i in range(n):
        c = _str_get(s, i)
        w = _escaped_width(c, quote, starts)
        if w == 1:
            _str_set(out, k, c)
        else:
            _str_set(out, k, _BACKSLASH)
            if c == quote or c == _BACKSLASH:
                _str_set(out, k + 1, c)
            elif c == 9 or c == 10 or c == 13:
                _str_set(out, k + 1, 116 if c == 9 else 110 if c == 10 else 114)
            else:
                _str_set(out, k + 1, 120 if w == 4 else 117 if w == 6 else 85)   # x u U
                _put_hex(out, k + 2, c, w - 2)
        k += w
    _str_set(out, k, quote)
    return out


@overload(repr)
def _repr(obj):
    if is_string(obj):
        starts = _printable_starts()
        return lambda obj: _string_repr(obj, starts)
    if isinstance(obj, t.NoneType):
        return lambda obj: "None"
    to_text = _str_of(obj) if isinstance(obj, (t.Boolean, t.Integer, t.Float)) else None
    if to_text is None:
        return None
    convert = register_jitable(to_text)
    return lambda obj: convert(obj)

"""Fixed-width strings: NumPy's `S<n>` (bytes) and `U<n>` (UCS-4 text) items, as record
fields hold them (`np.dtype([("name", "U5")])`).

A value is the item's own bytes, `n` chars, NUL-padded (library/charseq.py lays it out and
converts it): reading gives the text without its trailing NULs (a `str` or `bytes` in
Python), writing truncates to `n` chars and pads with NULs, as NumPy does. Numba's names:
`types.CharSeq(n)`, `types.UnicodeCharSeq(n)`.
"""
from __future__ import annotations

import numpy as np

from .core import Type


class FixedWidth(Type):
    """`count` chars of `char_bytes` bytes each."""

    kind = ""
    char_bytes = 0

    def __init__(self, count: int):
        if not isinstance(count, int) or count < 0:
            raise TypeError(f"a fixed-width string's width is a natural number, not {count!r}")
        self.count = count
        self.np_dtype = np.dtype(f"{self.kind}{count}")

    @property
    def key(self):
        return (self.count,)

    def takes(self, src) -> bool:
        """Whether a `src` value may be stored into this item: text of its kind (str into
        U, bytes into S), cut or padded to the width."""
        from .core import StringLiteral
        from .containers import Bytes, UnicodeType
        text = (UnicodeType, StringLiteral, UnicodeCharSeq) if self.kind == "U" \
            else (Bytes, CharSeq)
        return isinstance(src, text)


class CharSeq(FixedWidth):
    """NumPy's `S<n>`: n bytes, read as `bytes`."""

    kind = "S"
    char_bytes = 1

    @property
    def name(self):
        return f"[char x {self.count}]"


class UnicodeCharSeq(FixedWidth):
    """NumPy's `U<n>`: n UCS-4 code points, read as `str`."""

    kind = "U"
    char_bytes = 4

    @property
    def name(self):
        return f"[unichr x {self.count}]"


def fixed_width_of(dtype: np.dtype):
    """The fixed-width string type of an `S` or `U` dtype (native order), else None."""
    if dtype.kind == "S":
        return CharSeq(dtype.itemsize)
    if dtype.kind == "U" and dtype.isnative:
        return UnicodeCharSeq(dtype.itemsize // 4)
    return None

"""NumPy's datetime64 and timedelta64 scalars (`NPDatetime(unit)`, `NPTimedelta(unit)`,
Numba's names), and NumPy's rules for their units.

A value is its int64 count of units since 1970-01-01 (a datetime) or of units (a
timedelta); the int64 minimum is NaT. The unit is part of the type, as NumPy's is part of
the dtype: `M8[D]` and `M8[s]` are two types. Two units combine into the finer one; years
and months ('Y', 'M') are calendar units, which a timedelta cannot mix with the others
(NumPy raises: "incompatible nonlinear base time units"), while a datetime converts by the
calendar (2014 is 2014-01-01). A unit with a multiplier (`M8[10Y]`) is not supported.
"""
from __future__ import annotations

import numpy as np

from .core import Number

# Units, coarsest first, as NumPy names them ('' is the generic unit of `np.timedelta64(3)`).
UNITS = ("Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "")
CALENDAR = ("Y", "M")
# How many of each unit the next finer one makes (Y->M, then W->D->h->...->as).
_STEPS = {"Y": 12, "W": 7, "D": 24, "h": 60, "m": 60, "s": 1000, "ms": 1000, "us": 1000,
          "ns": 1000, "ps": 1000, "fs": 1000}
# NumPy's number of each unit (NPY_DATETIMEUNIT), read from a scalar or a dtype at run time.
NUMPY_CODES = {"Y": 0, "M": 1, "W": 2, "D": 4, "h": 5, "m": 6, "s": 7, "ms": 8, "us": 9,
               "ns": 10, "ps": 11, "fs": 12, "as": 13, "": 14}
NAT = -(1 << 63)


class _NPDatetimeBase(Number):
    """A datetime64 or timedelta64 of one unit: an int64 at run time. A Number as far as
    arrays go (an array's item, stored and filled like one); its operations are its own
    (library/datetimes.py), never an integer's."""

    kind_letter = ""   # 'M' or 'm'

    def __init__(self, unit):
        if unit not in UNITS:
            raise ValueError(f"{unit!r} is not a NumPy datetime unit (one of "
                             f"{', '.join(u for u in UNITS if u)})")
        self.unit = unit
        self.np_dtype = np.dtype(f"{self.kind_letter}8[{unit}]" if unit else
                                 f"{self.kind_letter}8")
        self.name = f"{self.type_name}[{unit}]" if unit else self.type_name

    @property
    def key(self):
        return (self.unit,)


class NPDatetime(_NPDatetimeBase):
    kind_letter, type_name = "M", "datetime64"


class NPTimedelta(_NPDatetimeBase):
    kind_letter, type_name = "m", "timedelta64"


def from_np_dtype(dtype):
    """The type of an M8/m8 dtype; TypeError for one with a multiplier (`M8[10Y]`)."""
    unit, count = np.datetime_data(dtype)
    if count != 1:
        raise TypeError(f"kiln does not support dtype {dtype!r} (a unit with a multiplier)")
    unit = "" if unit == "generic" else unit
    return (NPDatetime if dtype.kind == "M" else NPTimedelta)(unit)


def factor(src, dst):
    """How many `dst` units one `src` unit is, when it is a whole number that does not
    depend on the calendar (never between 'Y'/'M' and the other units); else None."""
    if src == dst or src == "":
        return 1
    if dst == "" or (src in CALENDAR) != (dst in CALENDAR):
        return None
    i, j = UNITS.index(src), UNITS.index(dst)
    if i > j:
        return None
    result = 1
    for unit in UNITS[i:j]:
        result *= _STEPS[unit]
    return result


def common_unit(a, b, strict_a=True, strict_b=True):
    """The unit NumPy computes values of units `a` and `b` in (the finer one), or None when
    they do not mix. A strict side (a timedelta's) refuses to mix 'Y'/'M' with other units;
    a datetime side converts by the calendar (NumPy's datetime metadata divisor)."""
    if a == "" or b == "" or a == b:
        return a or b
    if a in CALENDAR and b in CALENDAR:
        return "M"
    if a in CALENDAR:
        return None if strict_a else b
    if b in CALENDAR:
        return None if strict_b else a
    return a if UNITS.index(a) > UNITS.index(b) else b


def promote(a, b):
    """The type holding values of datetime types `a` and `b` (two datetimes or two
    timedeltas, in the finer unit), or None."""
    if type(a) is not type(b):
        return None
    unit = common_unit(a.unit, b.unit, isinstance(a, NPTimedelta), isinstance(b, NPTimedelta))
    return None if unit is None else type(a)(unit)

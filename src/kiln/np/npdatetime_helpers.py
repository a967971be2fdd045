"""Numba's `numba.np.npdatetime_helpers`: NumPy's rules for datetime64/timedelta64 units,
answered from kiln's own (types/datetimes.py)."""
from __future__ import annotations

from ..types.datetimes import CALENDAR, common_unit, factor

# Days in 400 Gregorian years, and the Y and M units in them: a year or a month of a
# datetime as a mean number of days (Numba's scaling for datetime + timedelta).
_DAYS_PER_400_YEARS = 97 + 400 * 365
_DATE = ("Y", "M", "W", "D")


def can_cast_timedelta_units(src, dest):
    """Whether a timedelta in `src` converts exactly into `dest` (never from a finer unit,
    nor between 'Y'/'M' and the others; the generic unit converts into any)."""
    return factor(src, dest) is not None


def get_timedelta_conversion_factor(src_unit, dest_unit):
    """How many `dest_unit` one `src_unit` is, or None where it is not a whole number."""
    return factor(src_unit, dest_unit)


def get_datetime_timedelta_conversion(datetime_unit, timedelta_unit):
    """(unit, datetime factor, timedelta factor) of datetime + timedelta: the unit computed
    in and what each side is multiplied by (divided by the other's, for a calendar unit of
    a datetime against a finer timedelta); RuntimeError where NumPy refuses."""
    dt, td = datetime_unit, timedelta_unit
    if dt == "" or td == "":
        return dt, 1, 1
    unit = common_unit(dt, td, False, True)
    if unit is None:
        raise RuntimeError(f"cannot combine datetime64[{dt}] and timedelta64[{td}]")
    if dt in CALENDAR and unit not in CALENDAR:
        per_unit = factor("D", unit) * _DAYS_PER_400_YEARS if unit != "W" \
            else _DAYS_PER_400_YEARS
        return unit, per_unit, (400 if dt == "Y" else 400 * 12) * (7 if unit == "W" else 1)
    return unit, factor(dt, unit), factor(td, unit)


def combine_datetime_timedelta_units(datetime_unit, timedelta_unit):
    """The unit of datetime + timedelta, or None where NumPy refuses."""
    return common_unit(datetime_unit, timedelta_unit, False, True)


def same_kind(src, dest):
    """Whether two units are both date units (Y, M, W, D) or both time units."""
    return (src in _DATE) == (dest in _DATE)


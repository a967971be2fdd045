"""Case in compiled code: `upper lower title capitalize swapcase casefold` and `isupper
islower istitle`, on the case tables of string_methods.py (ASCII, Latin-1, the basic Greek
letters, Cyrillic).

A case change maps one code point to one, as those tables do (ß stays ß in `upper`, where
CPython gives 'SS'), except `casefold`, which folds ß to 'ss' as CPython does. A capital
sigma lowers to ς at the end of a word and to σ elsewhere, by CPython's Final_Sigma rule.
"""
from __future__ import annotations

from ..typing.registry import overload_method, register_jitable
from .string_methods import _STR, _is_cased, _is_lower, _is_upper, _lower_of, _upper_of
from .strings import _str_get, _str_len, _str_new, _str_set

SIGMA, SMALL_SIGMA, FINAL_SIGMA = 0x3A3, 0x3C3, 0x3C2
SHARP_S, MICRO = 0xDF, 0xB5


@register_jitable
def _is_case_ignorable(c):
    """Characters a word's case looks through (CPython's Case_Ignorable) among those near
    the scripts kiln knows: ' . : ^ ` ¨ soft hyphen ¯ ´ · ¸, combining marks, Greek tonos
    and the like, Cyrillic combining marks."""
    return (c == 0x27 or c == 0x2E or c == 0x3A or c == 0x5E or c == 0x60 or c == 0xA8 or
            c == 0xAD or c == 0xAF or c == 0xB4 or c == 0xB7 or c == 0xB8 or
            0x300 <= c <= 0x36F or c == 0x374 or c == 0x375 or c == 0x37A or
            c == 0x384 or c == 0x385 or c == 0x387 or 0x483 <= c <= 0x489)


@register_jitable
def _final_sigma(s, i):
    """Whether the Σ at i ends a word: a cased character before it and none after it,
    looking through case-ignorable ones."""
    j = i - 1
    while j >= 0 and _is_case_ignorable(_str_get(s, j)):
        j -= 1
    if j < 0 or not _is_cased(_str_get(s, j)):
        return False
    n, j = _str_len(s), i + 1
    while j < n and _is_case_ignorable(_str_get(s, j)):
        j += 1
    return j == n or not _is_cased(_str_get(s, j))


@register_jitable
def _lower_at(s, i):
    """The lower case of s[i] where it stands."""
    c = _str_get(s, i)
    if c == SIGMA:
        return FINAL_SIGMA if _final_sigma(s, i) else SMALL_SIGMA
    return _lower_of(c)


def _mapping(point):
    """A method that maps each code point by `point(s, k, previous_is_cased)`."""
    @register_jitable
    def mapped(s):
        n = _str_len(s)
        result = _str_new(n)
        previous = False
        for k in range(n):
            _str_set(result, k, point(s, k, previous))
            previous = _is_cased(_str_get(s, k))
        return result

    def ov(s):
        return lambda s: mapped(s)
    return ov


@register_jitable
def _upper_point(s, k, previous):
    return _upper_of(_str_get(s, k))


@register_jitable
def _lower_point(s, k, previous):
    return _lower_at(s, k)


@register_jitable
def _title_point(s, k, previous):
    """Upper case after an uncased character, lower case after a cased one (title case is
    upper case for every letter the tables know)."""
    return _lower_at(s, k) if previous else _upper_of(_str_get(s, k))


@register_jitable
def _capitalize_point(s, k, previous):
    return _upper_of(_str_get(s, k)) if k == 0 else _lower_at(s, k)


@register_jitable
def _swapcase_point(s, k, previous):
    c = _str_get(s, k)
    return _lower_at(s, k) if _is_upper(c) else _upper_of(c)


for _name, _point in (("upper", _upper_point), ("lower", _lower_point),
                      ("title", _title_point), ("capitalize", _capitalize_point),
                      ("swapcase", _swapcase_point)):
    overload_method(_STR, _name)(_mapping(_point))


@register_jitable
def _folded(c):
    """The case fold of c other than ß (lower case, and µ, ς fold to μ, σ)."""
    if c == MICRO:
        return 0x3BC
    if c == FINAL_SIGMA:
        return SMALL_SIGMA
    return _lower_of(c)


@overload_method(_STR, "casefold")
def _casefold(s):
    def impl(s):
        n = _str_len(s)
        sharp = 0
        for k in range(n):
            if _str_get(s, k) == SHARP_S:
                sharp += 1
        result = _str_new(n + sharp)
        at = 0
        for k in range(n):
            c = _str_get(s, k)
            if c == SHARP_S:   # ß folds to ss
                _str_set(result, at, 115)
                at += 1
                _str_set(result, at, 115)
            else:
                _str_set(result, at, _folded(c))
            at += 1
        return result
    return impl


def _cased(upper):
    """isupper/islower: some cased character, and none of the other case."""
    @register_jitable
    def test(s):
        cased = False
        for k in range(_str_len(s)):
            c = _str_get(s, k)
            if _is_cased(c):
                if _is_upper(c) != upper:
                    return False
                cased = True
        return cased

    def ov(s):
        return lambda s: test(s)
    return ov


overload_method(_STR, "isupper")(_cased(True))
overload_method(_STR, "islower")(_cased(False))


@overload_method(_STR, "istitle")
def _istitle(s):
    """Every upper-case letter after an uncased character, every lower-case one after a
    cased one, and at least one cased character."""
    def impl(s):
        cased, previous = False, False
        for k in range(_str_len(s)):
            c = _str_get(s, k)
            if _is_upper(c):
                if previous:
                    return False
                previous, cased = True, True
            elif _is_lower(c):
                if not previous:
                    return False
                previous, cased = True, True
            else:
                previous = False
        return cased
    return impl

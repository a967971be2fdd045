"""Case in compiled code: `upper lower title capitalize swapcase casefold` and `isupper
islower istitle`, as CPython's (Objects/unicodeobject.c) on its own Unicode tables
(unicode_data.py): full mappings, so a character may become several ('ß'.upper() is 'SS',
'İ'.lower() is 'i̇'), and a capital sigma lowers to ς at the end of a word and to σ
elsewhere, by the Final_Sigma rule.
"""
from __future__ import annotations

from ..typing.registry import overload_method, register_jitable
from .string_methods import _STR, is_ascii
from .strings import _str_get, _str_len, _str_new, _str_set
from .unicode_data import (CASE_IGNORABLE, CASED, LOWER, TITLE, TO_FOLD, TO_LOWER, TO_TITLE,
                           TO_UPPER, UPPER, ascii_mapping, char_flags, has, mapping_length,
                           write_mapping)

SIGMA, SMALL_SIGMA, FINAL_SIGMA = 0x3A3, 0x3C3, 0x3C2
KEEP = -1   # a character a method leaves as it is


@register_jitable
def _final_sigma(s, i):
    """Whether the Σ at i ends a word: a cased character before it and none after it,
    looking through case-ignorable ones."""
    j = i - 1
    while j >= 0 and has(_str_get(s, j), CASE_IGNORABLE):
        j -= 1
    if j < 0 or not has(_str_get(s, j), CASED):
        return False
    n, j = _str_len(s), i + 1
    while j < n and has(_str_get(s, j), CASE_IGNORABLE):
        j += 1
    return j == n or not has(_str_get(s, j), CASED)


@register_jitable
def _length(s, k, mapping):
    c = _str_get(s, k)
    if mapping == KEEP or mapping == TO_LOWER and c == SIGMA:
        return 1
    return mapping_length(c, mapping)


@register_jitable
def _write(s, k, mapping, out, at):
    c = _str_get(s, k)
    if mapping == KEEP:
        _str_set(out, at, c)
        return at + 1
    if mapping == TO_LOWER and c == SIGMA:
        _str_set(out, at, FINAL_SIGMA if _final_sigma(s, k) else SMALL_SIGMA)
        return at + 1
    return write_mapping(c, mapping, out, at)


@register_jitable
def _is_cased(c):
    if c < 128:
        return 0 <= (c | 32) - 97 < 26   # a letter, either case (no branch)
    return has(c, CASED)


def _mapping(choose):
    """A method that maps each character by the mapping `choose(s, k, previous_is_cased)`
    names: the result's length first, then its characters. ASCII text (the common case)
    maps character for character, without the tables: several times faster."""
    @register_jitable
    def mapped(s):
        n = _str_len(s)
        previous = False
        if is_ascii(s):
            result = _str_new(n)
            for k in range(n):
                c = _str_get(s, k)
                mapping = choose(s, k, previous)
                _str_set(result, k, c if mapping == KEEP else ascii_mapping(c, mapping))
                previous = _is_cased(c)
            return result
        total = 0
        for k in range(n):
            total += _length(s, k, choose(s, k, previous))
            previous = _is_cased(_str_get(s, k))
        result = _str_new(total)
        at, previous = 0, False
        for k in range(n):
            at = _write(s, k, choose(s, k, previous), result, at)
            previous = _is_cased(_str_get(s, k))
        return result

    def ov(s):
        return lambda s: mapped(s)
    return ov


@register_jitable
def _upper(s, k, previous):
    return TO_UPPER


@register_jitable
def _lower(s, k, previous):
    return TO_LOWER


@register_jitable
def _title(s, k, previous):
    """Lower case after a cased character, title case after any other."""
    return TO_LOWER if previous else TO_TITLE


@register_jitable
def _capitalize(s, k, previous):
    return TO_TITLE if k == 0 else TO_LOWER


@register_jitable
def _swapcase(s, k, previous):
    c = _str_get(s, k)
    if c < 128:
        return TO_LOWER if 65 <= c <= 90 else TO_UPPER if 97 <= c <= 122 else KEEP
    flags = char_flags(c)
    if flags & UPPER:
        return TO_LOWER
    return TO_UPPER if flags & LOWER else KEEP


@register_jitable
def _casefold(s, k, previous):
    return TO_FOLD


for _name, _choose in (("upper", _upper), ("lower", _lower), ("title", _title),
                       ("capitalize", _capitalize), ("swapcase", _swapcase),
                       ("casefold", _casefold)):
    overload_method(_STR, _name)(_mapping(_choose))


def _cased(case, other):
    """isupper/islower: some character of `case`, none of `other` nor title case."""
    @register_jitable
    def test(s):
        cased = False
        for k in range(_str_len(s)):
            flags = char_flags(_str_get(s, k))
            if flags & (other | TITLE):
                return False
            if flags & case:
                cased = True
        return cased

    def ov(s):
        return lambda s: test(s)
    return ov


overload_method(_STR, "isupper")(_cased(UPPER, LOWER))
overload_method(_STR, "islower")(_cased(LOWER, UPPER))


@overload_method(_STR, "istitle")
def _istitle(s):
    """Every upper- or title-case character after an uncased one, every lower-case one
    after a cased one, and at least one cased character."""
    def impl(s):
        cased, previous = False, False
        for k in range(_str_len(s)):
            flags = char_flags(_str_get(s, k))
            if flags & (UPPER | TITLE):
                if previous:
                    return False
                previous, cased = True, True
            elif flags & LOWER:
                if not previous:
                    return False
                previous, cased = True, True
            else:
                previous = False
        return cased
    return impl

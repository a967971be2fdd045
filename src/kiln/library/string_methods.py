"""`str` methods, `ord` and `chr` in compiled code, written in Python on the string
primitives of library/strings.py (case conversions are in string_case.py).

Character classes are the running CPython's, every code point's (unicode_data.py); `isspace`
and the line breaks of `splitlines` are CPython's exact lists.
"""
from __future__ import annotations

from .. import types as t
from ..errors import TypingError
from ..typing.unroll import literal_unroll
from ..typing.registry import omitted, overload, overload_method, register_jitable
from .unicode_data import (ALPHA, DECIMAL, DIGIT, NUMERIC, PRINTABLE, XID_CONTINUE,
                           XID_START, char_flags, has)
from .strings import (_find, _matches_at, _str_copy, _str_get, _str_len, _str_new, _str_set,
                      _substring, is_string)

_INTLIKE = (t.Integer, t.Boolean)
_STR = (t.UnicodeType, t.StringLiteral)   # a method of a run-time string or of a constant


def _require_string(ty, method, what="argument"):
    if not is_string(ty):
        raise TypingError(f"str.{method}'s {what} must be a str, not {ty}")


# ---- characters --------------------------------------------------------------------------

@register_jitable
def _is_space(c):
    return (9 <= c <= 13 or 28 <= c <= 32 or c == 0x85 or c == 0xA0 or c == 0x1680 or
            0x2000 <= c <= 0x200A or c == 0x2028 or c == 0x2029 or c == 0x202F or
            c == 0x205F or c == 0x3000)


def _predicate(flags):
    """`s.isdigit()` & co.: a non-empty string each of whose characters has one of `flags`
    (unicode_data.py)."""
    @register_jitable
    def all_pass(s):
        n = _str_len(s)
        if n == 0:
            return False
        for k in range(n):
            if char_flags(_str_get(s, k)) & flags == 0:
                return False
        return True

    def ov(s):
        return lambda s: all_pass(s)
    return ov


for _name, _flags in (("isdigit", DIGIT), ("isdecimal", DECIMAL), ("isnumeric", NUMERIC),
                      ("isalpha", ALPHA), ("isalnum", ALPHA | DECIMAL | DIGIT | NUMERIC)):
    overload_method(_STR, _name)(_predicate(_flags))


@overload_method(_STR, "isspace")
def _isspace(s):
    def impl(s):
        n = _str_len(s)
        for k in range(n):
            if not _is_space(_str_get(s, k)):
                return False
        return n > 0
    return impl


@overload_method(_STR, "isprintable")
def _isprintable(s):
    """Every character printable (an empty string too, as CPython's)."""
    def impl(s):
        for k in range(_str_len(s)):
            if not has(_str_get(s, k), PRINTABLE):
                return False
        return True
    return impl


@register_jitable
def is_ascii(s):
    """Every character below 128 (an empty string too, as CPython's): the characters OR-ed
    together, a loop LLVM vectorizes (an exit at the first wide one would stop that)."""
    widest = 0
    for k in range(_str_len(s)):
        widest |= _str_get(s, k)
    return widest < 128


@overload_method(_STR, "isascii")
def _isascii(s):
    return lambda s: is_ascii(s)


@overload_method(_STR, "isidentifier")
def _isidentifier(s):
    def impl(s):
        n = _str_len(s)
        if n == 0 or not has(_str_get(s, 0), XID_START):   # (an '_' too)
            return False
        for k in range(1, n):
            if not has(_str_get(s, k), XID_CONTINUE):
                return False
        return True
    return impl


@overload(ord)
def _ord(c):
    if not is_string(c):
        return None

    def impl(c):
        if _str_len(c) != 1:
            raise TypeError("ord() expected a character")
        return _str_get(c, 0)
    return impl


@overload(chr)
def _chr(i):
    if not isinstance(i, _INTLIKE):
        return None

    def impl(i):
        if i < 0 or i > 0x10FFFF:
            raise ValueError("chr() arg not in range(0x110000)")
        result = _str_new(1)
        _str_set(result, 0, i)
        return result
    return impl


# ---- searching ---------------------------------------------------------------------------

@register_jitable
def _bounds(n, start, end):
    """[start, end) of s[start:end] as CPython's find & co. clip them."""
    if end > n:
        end = n
    elif end < 0:
        end = max(end + n, 0)
    if start < 0:
        start = max(start + n, 0)
    return start, end


@register_jitable
def _rfind(s, sub, start, end):
    for i in range(end - _str_len(sub), start - 1, -1):
        if _matches_at(s, sub, i):
            return i
    return -1


def _searching(method, search, missing):
    """find/rfind (-1 when absent) and index/rindex (ValueError)."""
    def ov(s, sub, start=None, end=None):
        _require_string(sub, method)
        _require_bounds(method, start, end)

        def impl(s, sub, start=None, end=None):
            n = _str_len(s)
            a, b = _bounds(n, 0 if start is None else start, n if end is None else end)
            found = -1 if a > n else search(s, sub, a, b)
            if found < 0 and missing:
                raise ValueError("substring not found")
            return found
        return impl
    return ov


overload_method(_STR, "find")(_searching("find", _find, False))
overload_method(_STR, "rfind")(_searching("rfind", _rfind, False))
overload_method(_STR, "index")(_searching("index", _find, True))
overload_method(_STR, "rindex")(_searching("rindex", _rfind, True))


@register_jitable
def _count_in(s, sub, start, end):
    m = _str_len(sub)
    if m == 0:
        return end - start + 1 if start <= end else 0
    count, i = 0, start
    while True:
        i = _find(s, sub, i, end)
        if i < 0:
            return count
        count += 1
        i += m


@overload_method(_STR, "count")
def _count(s, sub, start=None, end=None):
    _require_string(sub, "count")
    _require_bounds("count", start, end)

    def impl(s, sub, start=None, end=None):
        n = _str_len(s)
        a, b = _bounds(n, 0 if start is None else start, n if end is None else end)
        return 0 if a > n else _count_in(s, sub, a, b)
    return impl


def _require_bounds(method, start, end):
    """The start and end of find & co.: ints or None, or Optional ints (the message has
    Numba's words too)."""
    accepted = (t.Integer, t.NoneType)
    for what, ty in (("start", start), ("end", end)):
        held = ty.type if isinstance(ty, t.Optional) else ty
        if not (ty is None or isinstance(held, _INTLIKE + (t.NoneType,))):
            raise TypingError(f'The slice indices must be an Integer or None: str.{method}\'s '
                              f'"{what}" must be {accepted}, not {ty}')


def _require_index(ty, method, what, none=True):
    """An int argument such as maxsplit, start or end (None too where CPython takes it)."""
    if not (ty is None or isinstance(ty, _INTLIKE) or none and isinstance(ty, t.NoneType)):
        raise TypingError(f"str.{method}'s {what} must be an int, not {ty}")


def _affix_test(method, at_end):
    """startswith/endswith: the prefix (suffix) of s[start:end], or any of a tuple's."""
    @register_jitable
    def matches(s, affix, start, end):
        n = _str_len(s)
        a, b = _bounds(n, 0 if start is None else start, n if end is None else end)
        m = _str_len(affix)
        if b - m < a:   # also when start is past the end
            return False
        return _matches_at(s, affix, b - m if at_end else a)

    def ov(s, affix, start=None, end=None):
        _require_bounds(method, start, end)
        if isinstance(affix, t.BaseTuple) and all(map(is_string, affix.types)):
            if len(affix) == 0:
                return lambda s, affix, start=None, end=None: False

            def impl_tuple(s, affix, start=None, end=None):
                for one in literal_unroll(affix):
                    if matches(s, one, start, end):
                        return True
                return False
            return impl_tuple
        if not is_string(affix):
            raise TypingError(f"str.{method}'s argument must be a str or a tuple of str, "
                              f"not {affix}")
        return lambda s, affix, start=None, end=None: matches(s, affix, start, end)
    return ov


overload_method(_STR, "startswith")(_affix_test("startswith", False))
overload_method(_STR, "endswith")(_affix_test("endswith", True))


def _removing(method, at_end):
    """removeprefix/removesuffix: s without the affix when it has it, else s."""
    def ov(s, affix):
        _require_string(affix, method)

        def impl(s, affix):
            n, m = _str_len(s), _str_len(affix)
            if m == 0 or not _matches_at(s, affix, n - m if at_end else 0):
                return s
            return _substring(s, 0 if at_end else m, n - m)
        return impl
    return ov


overload_method(_STR, "removeprefix")(_removing("removeprefix", False))
overload_method(_STR, "removesuffix")(_removing("removesuffix", True))


def _partitioning(method, search, from_right):
    """partition/rpartition: (before, sep, after) around the first (last) sep; without
    one, s and two empty strings (s last for rpartition)."""
    def ov(s, sep):
        _require_string(sep, method, "separator")

        def impl(s, sep):
            n, m = _str_len(s), _str_len(sep)
            if m == 0:
                raise ValueError("empty separator")
            i = search(s, sep, 0, n)
            if i < 0:
                if from_right:
                    return _str_new(0), _str_new(0), s
                return s, _str_new(0), _str_new(0)
            return _substring(s, 0, i), sep, _substring(s, i + m, n - i - m)
        return impl
    return ov


overload_method(_STR, "partition")(_partitioning("partition", _find, False))
overload_method(_STR, "rpartition")(_partitioning("rpartition", _rfind, True))


# ---- building ----------------------------------------------------------------------------

@register_jitable
def _joined(parts, sep):
    """sep.join(parts) of a list of strings."""
    n, m = len(parts), _str_len(sep)
    total = 0
    for k in range(n):
        total += _str_len(parts[k])
    result = _str_new(total + m * max(n - 1, 0))
    at = 0
    for k in range(n):
        if k > 0:
            _str_copy(result, at, sep, 0, m)
            at += m
        part = parts[k]
        _str_copy(result, at, part, 0, _str_len(part))
        at += _str_len(part)
    return result


@overload_method(_STR, "join")
def _join(sep, parts):
    """sep.join of a list of str, a tuple of str (of one type) or a str (its characters)."""
    if isinstance(parts, t.ListType) and is_string(parts.item_type):
        return lambda sep, parts: _joined(parts, sep)
    if isinstance(parts, t.UniTuple) and is_string(parts.dtype):
        return lambda sep, parts: _joined(list(parts), sep)
    if is_string(parts):
        return lambda sep, parts: _joined([c for c in parts], sep)
    raise TypingError(f"str.join takes a list or tuple of str, or a str, in compiled code, "
                      f"not {parts}")


@overload_method(_STR, "replace")
def _replace(s, old, new, count=None):
    _require_string(old, "replace")
    _require_string(new, "replace")
    if not omitted(count):
        _require_index(count, "replace", "count", none=False)

    def impl(s, old, new, count=None):
        limit = -1 if count is None else count
        parts = []
        n, m = _str_len(s), _str_len(old)
        if m == 0:   # CPython inserts `new` before each character and at the end
            if limit == 0:
                return _substring(s, 0, n)
            parts.append(_str_new(0))
            k = 0
            while k < n and (limit < 0 or len(parts) < limit):
                parts.append(_substring(s, k, 1))
                k += 1
            parts.append(_substring(s, k, n - k))
            return _joined(parts, new)
        return _joined(_split_on(s, old, limit), new)   # the pieces between matches
    return impl


@register_jitable
def _in_chars(c, chars):
    for k in range(_str_len(chars)):
        if _str_get(chars, k) == c:
            return True
    return False


@register_jitable
def _strip_at(c, chars, whitespace):
    return _is_space(c) if whitespace else _in_chars(c, chars)


def _stripping(method, left, right):
    def ov(s, chars=None):
        held = chars.type if isinstance(chars, t.Optional) else chars
        if not omitted(chars) and not is_string(held):
            raise TypingError(f"The arg must be a UnicodeType or None: str.{method}'s chars "
                              f"is {chars}")

        def impl(s, chars=None):
            whitespace = chars is None
            pattern = _str_new(0) if chars is None else chars
            i, j = 0, _str_len(s)
            if left:
                while i < j and _strip_at(_str_get(s, i), pattern, whitespace):
                    i += 1
            if right:
                while j > i and _strip_at(_str_get(s, j - 1), pattern, whitespace):
                    j -= 1
            return _substring(s, i, j - i)
        return impl
    return ov


overload_method(_STR, "strip")(_stripping("strip", True, True))
overload_method(_STR, "lstrip")(_stripping("lstrip", True, False))
overload_method(_STR, "rstrip")(_stripping("rstrip", False, True))


@register_jitable
def _split_whitespace(s, limit):
    parts = []
    n, i = _str_len(s), 0
    while True:
        while i < n and _is_space(_str_get(s, i)):
            i += 1
        if i == n:
            return parts
        if limit == 0:   # the rest, as it is, is the last part
            parts.append(_substring(s, i, n - i))
            return parts
        j = i
        while j < n and not _is_space(_str_get(s, j)):
            j += 1
        parts.append(_substring(s, i, j - i))
        limit -= 1
        i = j


@register_jitable
def _split_on(s, sep, limit):
    m = _str_len(sep)
    if m == 0:
        raise ValueError("empty separator")
    parts = []
    n, i = _str_len(s), 0
    while limit != 0:
        j = _find(s, sep, i, n)
        if j < 0:
            break
        parts.append(_substring(s, i, j - i))
        i = j + m
        limit -= 1
    parts.append(_substring(s, i, n - i))
    return parts


@register_jitable
def _rsplit_whitespace(s, limit):
    """The words from the right, so that what maxsplit leaves is the start of s."""
    parts = []
    j = _str_len(s)
    while True:
        while j > 0 and _is_space(_str_get(s, j - 1)):
            j -= 1
        if j == 0:
            break
        if limit == 0:
            parts.append(_substring(s, 0, j))
            break
        i = j
        while i > 0 and not _is_space(_str_get(s, i - 1)):
            i -= 1
        parts.append(_substring(s, i, j - i))
        limit -= 1
        j = i
    parts.reverse()
    return parts


@register_jitable
def _rsplit_on(s, sep, limit):
    m = _str_len(sep)
    if m == 0:
        raise ValueError("empty separator")
    parts = []
    j = _str_len(s)
    while limit != 0:
        i = _rfind(s, sep, 0, j)
        if i < 0:
            break
        parts.append(_substring(s, i + m, j - i - m))
        j = i
        limit -= 1
    parts.append(_substring(s, 0, j))
    parts.reverse()
    return parts


@register_jitable
def _limit(maxsplit):
    """maxsplit as a count of splits left (negative: no limit)."""
    return -1 if maxsplit is None else maxsplit + 0


def _splitting(method, on_whitespace, on_separator):
    """split/rsplit: at runs of whitespace without sep (no empty parts), else at each sep."""
    def ov(s, sep=None, maxsplit=None):
        _require_index(maxsplit, method, "maxsplit", none=False)
        if omitted(sep):
            return lambda s, sep=None, maxsplit=None: on_whitespace(s, _limit(maxsplit))
        _require_string(sep, method, "separator")
        return lambda s, sep=None, maxsplit=None: on_separator(s, sep, _limit(maxsplit))
    return ov


overload_method(_STR, "split")(_splitting("split", _split_whitespace, _split_on))
overload_method(_STR, "rsplit")(_splitting("rsplit", _rsplit_whitespace, _rsplit_on))


@register_jitable
def _is_line_break(c):
    """\\n \\v \\f \\r, the separators \\x1c-\\x1e, NEL, U+2028 and U+2029."""
    return 10 <= c <= 13 or 28 <= c <= 30 or c == 0x85 or c == 0x2028 or c == 0x2029


@overload_method(_STR, "splitlines")
def _splitlines(s, keepends=None):
    _require_index(keepends, "splitlines", "keepends", none=False)

    def impl(s, keepends=None):
        keep = False if keepends is None else keepends
        parts = []
        n, i = _str_len(s), 0
        while i < n:
            j = i
            while j < n and not _is_line_break(_str_get(s, j)):
                j += 1
            end = j
            if j < n:   # \r\n is one line break
                j += 2 if _str_get(s, j) == 13 and j + 1 < n and _str_get(s, j + 1) == 10 else 1
                if keep:
                    end = j
            parts.append(_substring(s, i, end - i))
            i = j
        return parts
    return impl


@register_jitable
def _expand_tabs(s, size, result, write):
    """The length of s with each tab widened to the next multiple of `size` columns (a
    line break starts a column count anew), and with `write` the text into result."""
    at, column = 0, 0
    for k in range(_str_len(s)):
        c = _str_get(s, k)
        if c == 9:
            if size > 0:
                step = size - column % size
                if step > 9223372036854775807 - at:
                    raise OverflowError("new string is too long")
                if write:
                    for j in range(at, at + step):
                        _str_set(result, j, 32)
                at += step
                column += step
        else:
            if write:
                _str_set(result, at, c)
            at += 1
            column = 0 if c == 10 or c == 13 else column + 1
    return at


@overload_method(_STR, "expandtabs")
def _expandtabs(s, tabsize=None):
    _require_index(tabsize, "expandtabs", "tabsize", none=False)

    def impl(s, tabsize=None):
        size = 8 if tabsize is None else tabsize + 0
        if size < -2147483648 or size > 2147483647:   # a C int in CPython
            raise OverflowError("Python int too large to convert to C int")
        result = _str_new(_expand_tabs(s, size, _str_new(0), False))
        _expand_tabs(s, size, result, True)
        return result
    return impl


LEFT, RIGHT, CENTER = 0, 1, 2   # where s goes in its field


@register_jitable
def _padded(s, width, fill, align):
    """s in a field of `width` characters, padded with the code point `fill`."""
    n = _str_len(s)
    if width <= n:
        return _substring(s, 0, n)
    pad = width - n
    if align == LEFT:
        before = 0
    elif align == RIGHT:
        before = pad
    else:   # as CPython: the odd one goes left when both pad and width are odd
        before = pad // 2 + (pad & width & 1)
    result = _str_new(width)
    for k in range(before):
        _str_set(result, k, fill)
    _str_copy(result, before, s, 0, n)
    for k in range(before + n, width):
        _str_set(result, k, fill)
    return result


@register_jitable
def _fill_char(fillchar):
    if _str_len(fillchar) != 1:
        raise TypeError("The fill character must be exactly one character long")
    return _str_get(fillchar, 0)


def _require_width(ty, method, phrase="The width"):
    """(the message has Numba's words too: its zfill's differ)"""
    if not isinstance(ty, _INTLIKE):
        raise TypingError(f"{phrase} must be an Integer: str.{method}'s width is {ty}")


def _justifying(method, align):
    def ov(s, width, fillchar=None):
        _require_width(width, method)
        if not omitted(fillchar):
            _require_string(fillchar, method, "fill character")

        def impl(s, width, fillchar=None):
            fill = 32 if fillchar is None else _fill_char(fillchar)
            return _padded(s, width, fill, align)
        return impl
    return ov


overload_method(_STR, "ljust")(_justifying("ljust", LEFT))
overload_method(_STR, "rjust")(_justifying("rjust", RIGHT))
overload_method(_STR, "center")(_justifying("center", CENTER))


@overload_method(_STR, "zfill")
def _zfill(s, width):
    _require_width(width, "zfill", "<width>")

    def impl(s, width):
        result = _padded(s, width, 48, RIGHT)
        n = _str_len(s)
        if width > n and n > 0:
            c = _str_get(s, 0)
            if c == 43 or c == 45:   # the sign moves to the front
                _str_set(result, 0, c)
                _str_set(result, width - n, 48)
        return result
    return impl

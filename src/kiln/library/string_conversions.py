"""Strings from numbers and numbers from strings: `str(x)`, `int(s)`, `float(s)`, the
`format(x, spec)` that f-strings call for each `{x:spec}` field, and `str.format` and `%`
of a constant format string (each field a `format` call with its spec as a constant).

Floats are formatted by CPython's own `PyOS_double_to_string` (shortest round-trip for
`str`/`repr`, the same digits as CPython for 'f', 'e' and 'g'), called with the GIL held;
`float(s)` parses with C's `strtod` after checking what CPython's grammar refuses and C
accepts (hexadecimal, `nan(...)`). Integers are written and parsed here. Differences from
CPython: `int(s)`/`float(s)` take ASCII digits only, `float(s)` takes no underscores, and
an integer past int64 is an OverflowError rather than a big int.
"""
from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..runtime import nrt
from .charseq import as_text
from .fusion import counted_loop
from ..typing.registry import intrinsic, omitted, overload, overload_method, register_jitable
from .string_methods import _is_space
from .strings import (_str_get, _str_len, _str_new, _str_set, _substring, code_points,
                      fill_header, is_string)

_ADD_DOT_0 = 2   # Py_DTSF_ADD_DOT_0: repr(1.0) is '1.0'


@intrinsic
def _double_to_string(tctx, x, code, precision):
    """CPython's PyOS_double_to_string(x, code, precision) as a new string; `code` is the
    ord of 'r', 'f', 'e' or 'g'."""
    if not isinstance(x, t.Float):
        return None

    def codegen(context, b, sig, args):
        value, code, precision = args
        flags = b.select(b.icmp_signed("==", code, ir.Constant(dm.i64, ord("r"))),
                         ir.Constant(dm.i32, _ADD_DOT_0), ir.Constant(dm.i32, 0))
        convert = context.declare_external("PyOS_double_to_string", dm.ptr,
                                           [ir.DoubleType(), dm.i8, dm.i32, dm.i32, dm.ptr])
        release = context.declare_external("PyMem_Free", ir.VoidType(), [dm.ptr])
        text_slot = context.alloca(b, dm.ptr)
        nrt._with_gil(b, lambda: b.store(b.call(convert, [
            context.cast(b, value, x, t.float64), b.trunc(code, dm.i8),
            b.trunc(precision, dm.i32), flags, ir.Constant(dm.ptr, None)]), text_slot))
        text = b.load(text_slot, typ=dm.ptr)
        context.guard(b, b.icmp_unsigned("==", text, ir.Constant(dm.ptr, None)), MemoryError,
                      "cannot format a float")
        n = b.call(context.declare_external("strlen", dm.i64, [dm.ptr]), [text])
        s = nrt.emit_allocate(b, b.add(b.mul(n, ir.Constant(dm.i64, 4)),
                                       ir.Constant(dm.i64, 16)))
        made = b.icmp_unsigned("!=", s, ir.Constant(dm.ptr, None))
        with b.if_then(made):
            fill_header(b, s, n)
            points = code_points(b, s)
            counted_loop(b, n, lambda i: b.store(
                b.zext(b.load(b.gep(text, [i], source_etype=dm.i8), typ=dm.i8), dm.i32),
                b.gep(points, [i], source_etype=dm.i32)))
        nrt._with_gil(b, lambda: b.call(release, [text]))
        context.guard(b, b.not_(made), MemoryError, "cannot format a float")
        return s
    codegen.new_reference = True
    return t.unicode_type(x, t.int64, t.int64), codegen


@intrinsic
def _strtod(tctx, text):
    """C's strtod over a NUL-terminated uint8 array: (value, bytes consumed)."""
    if not (isinstance(text, t.Array) and text.dtype == t.uint8):
        return None
    rt = t.Tuple((t.float64, t.int64))

    def codegen(context, b, sig, args):
        data = b.extract_value(args[0], dm.ARRAY_DATA)
        end = context.alloca(b, dm.ptr)
        strtod = context.declare_external("strtod", ir.DoubleType(), [dm.ptr, dm.ptr])
        value = b.call(strtod, [data, end])
        consumed = b.sub(b.ptrtoint(b.load(end, typ=dm.ptr), dm.i64), b.ptrtoint(data, dm.i64))
        return context.make_tuple(b, rt, [value, consumed])
    return rt(text), codegen


@register_jitable
def _int_to_str(x, base, digits):
    """The text of the int64 x: `digits` is at least the count of its digits."""
    negative = x < 0
    buffer = np.empty(digits + 1, np.int64)
    k = digits + 1
    if x == 0:
        k -= 1
        buffer[k] = 48
    while x != 0:
        d = x % base if x > 0 else -(x % -base)   # the digit without negating int64's min
        k -= 1
        buffer[k] = 48 + d
        x = (x - d) // base if x > 0 else (x + d) // base
    if negative:
        k -= 1
        buffer[k] = 45
    result = _str_new(digits + 1 - k)
    for j in range(k, digits + 1):
        _str_set(result, j - k, buffer[j])
    return result


@register_jitable
def _uint_to_str(x):
    ten = np.uint64(10)
    buffer = np.empty(20, np.int64)
    k = 20
    if x == 0:
        k -= 1
        buffer[k] = 48
    while x != 0:
        k -= 1
        buffer[k] = 48 + np.int64(x % ten)   # uint64 with uint64: int64 would make floats
        x = x // ten
    result = _str_new(20 - k)
    for j in range(k, 20):
        _str_set(result, j - k, buffer[j])
    return result


def _str_of(x):
    """The implementation of str(x) for a value of type x, or None."""
    if isinstance(x, t.Boolean):
        return lambda x: "True" if x else "False"
    if isinstance(x, t.Integer):
        if x.signed or x.bitwidth < 64:
            return lambda x: _int_to_str(np.int64(x), 10, 19)
        return lambda x: _uint_to_str(x)
    if isinstance(x, t.Float):
        return lambda x: _double_to_string(x, 114, 0)   # 'r'
    if is_string(x):
        return lambda x: _substring(x, 0, _str_len(x))
    if isinstance(x, t.UnicodeCharSeq):   # a U<n> record field: its text
        return lambda x: as_text(x)
    return None


@overload(str)
def _str(object=None):   # Python's name: str(object=x)
    if object is None:
        return lambda object=None: _str_new(0)
    if isinstance(object, t.NoneType):
        return lambda object=None: "None"
    to_text = _str_of(object)
    if to_text is None:
        return None
    convert = register_jitable(to_text)
    return lambda object=None: convert(object)


# ---- parsing ------------------------------------------------------------------------------

@register_jitable
def _stripped_bounds(s):
    i, j = 0, _str_len(s)
    while i < j and _is_space(_str_get(s, i)):
        i += 1
    while j > i and _is_space(_str_get(s, j - 1)):
        j -= 1
    return i, j


@register_jitable
def _parse_int(s):
    i, j = _stripped_bounds(s)
    negative = False
    if i < j and (_str_get(s, i) == 43 or _str_get(s, i) == 45):
        negative = _str_get(s, i) == 45
        i += 1
    if i == j:
        raise ValueError("invalid literal for int() with base 10")
    value = 0   # accumulated as a negative number, so int64's min parses
    previous_digit = False
    for k in range(i, j):
        c = _str_get(s, k)
        if c == 95 and previous_digit and k + 1 < j:   # one '_' between digits
            previous_digit = False
            continue
        if not 48 <= c <= 57:
            raise ValueError("invalid literal for int() with base 10")
        d = c - 48
        if value < (-9223372036854775807 - 1 + d) // 10:
            raise OverflowError("int too large for int64 in compiled code")
        value = value * 10 - d
        previous_digit = True
    if not previous_digit:
        raise ValueError("invalid literal for int() with base 10")
    if not negative:
        if value == -9223372036854775807 - 1:
            raise OverflowError("int too large for int64 in compiled code")
        return -value
    return value


@register_jitable
def _parse_float(s):
    i, j = _stripped_bounds(s)
    n = j - i
    text = np.empty(n + 1, np.uint8)
    for k in range(n):
        c = _str_get(s, i + k)
        # C also reads hexadecimal floats and nan(...), which CPython's grammar refuses
        if c > 127 or c == 120 or c == 88 or c == 40 or c == 95:
            raise ValueError("could not convert string to float")
        text[k] = c
    text[n] = 0
    value, consumed = _strtod(text)
    if n == 0 or consumed != n:
        raise ValueError("could not convert string to float")
    return value


@overload(int)
def _int(s):
    if is_string(s):
        return lambda s: _parse_int(s)
    return None


@overload(float)
def _float(s):
    if is_string(s):
        return lambda s: _parse_float(s)
    return None


# ---- format(x, spec): the fields of f-strings -----------------------------------------------

def _spec_parts(spec):
    """(fill, align, width, precision, kind) of the format specs kiln supports: an
    optional [[fill]align][width][.precision][type] with type in 'dsfeg%' or none."""
    import re
    m = re.fullmatch(r"(?:(.)?([<>^]))?(0)?(\d+)?(?:\.(\d+))?([dsfeg]?)", spec)
    if m is None:
        return None
    fill, align, zero, width, precision, kind = m.groups()
    if zero and not align:
        fill, align = "0", "="
    return (fill or " ", align, int(width or 0), None if precision is None else int(precision),
            kind)


@overload(format)
def _format(value, spec=None):
    text = "" if spec is None or isinstance(spec, t.NoneType) else getattr(spec, "value", None)
    if text is None:
        raise TypingError("format()'s spec must be a constant string in compiled code")
    if isinstance(value, t.UnicodeCharSeq):   # a U<n> record field: formatted as its text
        return lambda value, spec=None: format(as_text(value), text)
    parts = _spec_parts(text)
    if parts is None:
        raise TypingError(f"kiln does not support the format spec {text!r} (it supports "
                          "[[fill]align][0][width][.precision] and the types d s f e g)")
    fill, align, width, precision, kind = parts
    numeric = isinstance(value, (t.Integer, t.Float, t.Boolean))
    if kind == "d" and not isinstance(value, (t.Integer, t.Boolean)) or \
            kind in "feg" and kind and not numeric or kind == "s" and not is_string(value):
        raise TypingError(f"format spec {text!r} does not apply to a {value}")
    if kind in ("f", "e", "g") or precision is not None and isinstance(value, t.Float):
        code, digits = ord(kind or "g"), 6 if precision is None else precision

        @register_jitable
        def convert(value):
            return _double_to_string(np.float64(value), code, digits)
    elif is_string(value) and precision is not None:
        @register_jitable
        def convert(value):
            return _substring(value, 0, min(precision, _str_len(value)))
    else:   # format(True, "d") is "1"
        to_text = _str_of(t.int64 if kind == "d" and isinstance(value, t.Boolean) else value)
        if to_text is None:
            raise TypingError(f"kiln cannot format a {value} as text")
        convert = register_jitable(to_text)
    # where the text goes: 0 left, 1 right, 2 centre, 3 right after its sign
    place = {"<": 0, ">": 1, "^": 2, "=": 3, None: 1 if numeric else 0}[align]
    fill_point = ord(fill)

    def impl(value, spec=None):
        body = convert(value)
        n = _str_len(body)
        if n >= width:
            return body
        result = _str_new(width)
        pad = width - n
        before = pad if place == 1 or place == 3 else (pad // 2 if place == 2 else 0)
        start = 0
        if place == 3 and n > 0 and (_str_get(body, 0) == 45 or _str_get(body, 0) == 43):
            _str_set(result, 0, _str_get(body, 0))   # zero padding goes after the sign
            start = 1
        for k in range(start, start + before):
            _str_set(result, k, fill_point)
        for k in range(start, n):
            _str_set(result, before + k, _str_get(body, k))
        for k in range(before + n, width):
            _str_set(result, k, fill_point)
        return result
    return impl


# ---- str.format and % of a constant format string ---------------------------------------------

MAX_ARGUMENTS = 6   # of str.format (a `%` takes a tuple of any length)


def _filler(pieces, specs):
    """A compiled `fill(values)`: pieces[0] + format(values[0], specs[0]) + pieces[1] + ...,
    one function per field, each adding its field to the one before (the texts are
    constants of the closures, so each `format` sees its spec)."""
    head = pieces[0]

    @register_jitable
    def fill(v):
        return _substring(head, 0, len(head))
    for k, (spec, piece) in enumerate(zip(specs, pieces[1:])):
        fill = _field_step(fill, k, spec, piece)
    return fill


def _field_step(before, k, spec, piece):
    @register_jitable
    def fill(v):
        return before(v) + format(v[k], spec) + piece
    return fill


def _format_fields(text):
    """(pieces, specs) of a str.format string with automatic fields `{}`/`{:spec}` (or
    `{0}`, `{1}`... in order), or a TypingError."""
    import string
    pieces, specs = [""], []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as e:
        raise TypingError(f"bad format string {text!r}: {e}") from None
    for literal, field, spec, conversion in parsed:
        pieces[-1] += literal
        if field is None:
            continue
        if field not in ("", str(len(specs))) or conversion not in (None, "s") or "{" in spec:
            raise TypingError(f"kiln supports str.format fields {{}} and {{:spec}} (in "
                              f"order, no !r or nested fields), not {{{field}}} in {text!r}")
        specs.append(spec)
        pieces.append("")
    return pieces, specs


def _percent_fields(text):
    """(pieces, specs) of a `%` format string: %d %i %s %f %e %g with flags '-' and '0', a
    width and a precision, and %%; the specs as format() specs."""
    import re
    pieces, specs, at = [""], [], 0
    for m in re.finditer(r"%([-0]?)(\d*)(?:\.(\d+))?([diseEfgG%])?", text):
        pieces[-1] += text[at:m.start()]
        at = m.end()
        flag, width, precision, kind = m.groups()
        if kind == "%" and not (flag or width or precision):
            pieces[-1] += "%"
            continue
        if kind is None or kind == "%" or kind in "EG":
            raise TypingError(f"kiln does not support the % format {m.group()!r} in {text!r}")
        spec = {"-": "<", "0": "0", "": ""}[flag] + width + \
            ("" if precision is None else "." + precision) + {"i": "d", "s": ""}.get(kind, kind)
        specs.append(spec)
        pieces.append("")
    pieces[-1] += text[at:]
    return pieces, specs


@overload_method(t.StringLiteral, "format")
def _str_format(fmt, a=None, b=None, c=None, d=None, e=None, f=None):
    pieces, specs = _format_fields(fmt.value)
    given = [x for x in (a, b, c, d, e, f) if not omitted(x)]
    if len(given) != len(specs):
        raise TypingError(f"str.format of {fmt.value!r} takes {len(specs)} arguments (at most "
                          f"{MAX_ARGUMENTS} in compiled code), not {len(given)}")
    fill = _filler(pieces, specs)

    def impl(fmt, a=None, b=None, c=None, d=None, e=None, f=None):
        return fill((a, b, c, d, e, f))
    return impl


@overload(operator.mod)
def _percent(fmt, values):
    if not isinstance(fmt, t.StringLiteral):
        return None
    pieces, specs = _percent_fields(fmt.value)
    count = len(values) if isinstance(values, t.BaseTuple) else 1
    if count != len(specs):
        raise TypingError(f"{fmt.value!r} % ... takes {len(specs)} values, not {count}")
    fill = _filler(pieces, specs)
    if isinstance(values, t.BaseTuple):
        return lambda fmt, values: fill(values)
    return lambda fmt, values: fill((values,))

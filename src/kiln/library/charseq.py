"""Fixed-width strings (types/charseq.py: NumPy's `S<n>` and `U<n>` items, as record fields
and field views hold them) in compiled code.

A value is the item's chars by value (`[n x i8]`, `[n x i32]` of UCS-4 code points), as
NumPy stores them: NUL-padded, no terminator. Reading one as text stops at its trailing
NULs (NumPy's rule: NULs inside stay), so it boxes to the `bytes` or `str` NumPy gives;
storing text into one truncates it to n chars and pads it with NULs, as NumPy's assignment
does. Every other operation (`==`, `len`, `in`, methods, ...) is the `bytes`/`str` one
on the text: an operation no template takes for a fixed-width argument is resolved again
for its text (`_decayed`, asked by typing), each such argument converted to a new string
for the call and released after it; `==` and `!=` compare the chars where they are.
"""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..codegen.context import register_cast
from ..codegen.ownership import decref, has_refs, incref
from ..runtime import nrt
from ..types.charseq import FixedWidth
from ..typing import families
from ..typing.registry import Resolution, intrinsic, template
from . import bytes_values, strings
from .array_boxing import register_dtype_check

_TEXT = {t.CharSeq: t.bytes_type, t.UnicodeCharSeq: t.unicode_type}


def text_type(ty):
    """The `bytes` or `str` type that a fixed-width string reads as."""
    return _TEXT[type(ty)]


def _char(ty):
    return ir.IntType(8 * ty.char_bytes)


dm.register_model(FixedWidth, lambda ty: ir.ArrayType(_char(ty), ty.count))


# ---- memory --------------------------------------------------------------------------------

def _memcpy(b, dst, src, nbytes):
    b.call(b.module.declare_intrinsic("llvm.memcpy", [dm.ptr, dm.ptr, dm.i64]),
           [dst, src, nbytes, ir.Constant(dm.i1, 0)])


def _memset(b, dst, nbytes):
    b.call(b.module.declare_intrinsic("llvm.memset", [dm.ptr, dm.i64]),
           [dst, ir.Constant(dm.i8, 0), nbytes, ir.Constant(dm.i1, 0)])


def _spilled(context, b, ty, value):
    """The address of a stack copy of the fixed-width `value`."""
    slot = context.alloca(b, dm.value_type(ty))
    b.store(value, slot)
    return slot


def text_length(b, ty, address):
    """The number of chars at `address` before its trailing NULs."""
    start = b.block
    cond = b.append_basic_block("text.cond")
    check = b.append_basic_block("text.check")
    step = b.append_basic_block("text.step")
    done = b.append_basic_block("text.done")
    b.branch(cond)
    b.position_at_end(cond)
    n = b.phi(dm.i64)
    n.add_incoming(ir.Constant(dm.i64, ty.count), start)
    b.cbranch(b.icmp_signed(">", n, ir.Constant(dm.i64, 0)), check, done)
    b.position_at_end(check)
    last = b.sub(n, ir.Constant(dm.i64, 1))
    char = b.load(b.gep(address, [last], source_etype=_char(ty)), typ=_char(ty))
    b.cbranch(b.icmp_unsigned("==", char, ir.Constant(_char(ty), 0)), step, done)
    b.position_at_end(step)
    n.add_incoming(last, step)
    b.branch(cond)
    b.position_at_end(done)
    length = b.phi(dm.i64)
    length.add_incoming(n, cond)
    length.add_incoming(n, check)
    return length


def _chars_of(context, b, ty, value):
    """(address of the chars, their count) of a str, bytes or fixed-width `value`."""
    if isinstance(ty, t.StringLiteral):
        ty, value = t.unicode_type, context.get_constant(b, t.unicode_type, ty.value)
    if isinstance(ty, t.UnicodeType):
        return strings.code_points(b, value), strings.length_of(b, value)
    if isinstance(ty, t.Bytes):
        return bytes_values.data_of(b, value), bytes_values.length_of(b, value)
    return _spilled(context, b, ty, value), ir.Constant(dm.i64, ty.count)


def store_text(context, b, dst_ty, address, src_ty, value):
    """Write the text `value` into the fixed-width chars at `address`: its first
    `dst_ty.count` chars, NUL-padded (NumPy's assignment)."""
    chars, n = _chars_of(context, b, src_ty, value)
    count = ir.Constant(dm.i64, dst_ty.count)
    n = b.select(b.icmp_signed("<", n, count), n, count)
    size = ir.Constant(dm.i64, dst_ty.char_bytes)
    _memset(b, address, ir.Constant(dm.i64, dst_ty.count * dst_ty.char_bytes))
    _memcpy(b, address, chars, b.mul(n, size))


def _to_fixed(context, b, value, src, dst):
    slot = context.alloca(b, dm.value_type(dst))
    store_text(context, b, dst, slot, src, value)
    return b.load(slot, typ=dm.value_type(dst))


def to_text(context, b, ty, value):
    """A new `str` or `bytes` (one reference) of the fixed-width `value`'s text."""
    address, n = _text_at(context, b, ty, value)
    if isinstance(ty, t.UnicodeCharSeq):
        text = strings.new_string(context, b, n)
        _memcpy(b, strings.code_points(b, text), address, b.mul(n, ir.Constant(dm.i64, 4)))
        return text
    text = nrt.emit_allocate(b, b.add(n, ir.Constant(dm.i64, bytes_values.HEADER_BYTES)))
    context.guard(b, b.icmp_unsigned("==", text, ir.Constant(dm.ptr, None)), MemoryError,
                  "cannot allocate a bytes value")
    b.store(n, nrt.meminfo_data(b, text))
    _memcpy(b, bytes_values.data_of(b, text), address, n)
    return text


@intrinsic
def as_text(tctx, value):
    """The text of a fixed-width string: a new `str` or `bytes` (for `str(x)`, f-strings)."""
    if not isinstance(value, FixedWidth):
        return None

    def codegen(context, b, sig, args):
        return to_text(context, b, value, args[0])
    codegen.new_reference = True
    return text_type(value)(value), codegen


for _src in (t.UnicodeType, t.StringLiteral, t.UnicodeCharSeq):   # text of each item's kind
    register_cast(_src, t.UnicodeCharSeq, _to_fixed)
for _src in (t.Bytes, t.CharSeq):
    register_cast(_src, t.CharSeq, _to_fixed)


# ---- equality without making the text (a record field compared in a loop) ------------------

def _kind(ty):
    """"U" or "S" for text a fixed-width item of that kind may equal, else None."""
    if isinstance(ty, (t.UnicodeType, t.StringLiteral, t.UnicodeCharSeq)):
        return "U"
    return "S" if isinstance(ty, (t.Bytes, t.CharSeq)) else None


def _text_at(context, b, ty, value):
    """(address, length) of the text of a str, bytes or fixed-width `value`."""
    if isinstance(ty, FixedWidth):
        address = _spilled(context, b, ty, value)
        return address, text_length(b, ty, address)
    return _chars_of(context, b, ty, value)


def _equality(left, right, negated):
    if not (isinstance(left, FixedWidth) or isinstance(right, FixedWidth)) or \
            _kind(left) is None or _kind(left) != _kind(right):
        return None   # (other kinds: unequal, as the text's own == says)
    char_bytes = 4 if _kind(left) == "U" else 1

    def codegen(context, b, sig, args):
        (la, ln), (ra, rn) = (_text_at(context, b, ty, v)
                              for ty, v in zip((left, right), args))
        memcmp = context.declare_external("memcmp", dm.i32, [dm.ptr, dm.ptr, dm.i64])
        equal = context.alloca(b, dm.i1)
        b.store(b.icmp_signed("==", ln, rn), equal)
        with b.if_then(b.load(equal, typ=dm.i1)):
            same = b.call(memcmp, [la, ra, b.mul(ln, ir.Constant(dm.i64, char_bytes))])
            b.store(b.icmp_signed("==", same, ir.Constant(dm.i32, 0)), equal)
        result = b.load(equal, typ=dm.i1)
        return b.not_(result) if negated else result
    return t.boolean(left, right), codegen


@template(operator.eq, target="cpu")
def _eq(tctx, left, right):
    return _equality(left, right, False)


@template(operator.ne, target="cpu")
def _ne(tctx, left, right):
    return _equality(left, right, True)


# ---- everything else is an operation on the text ---------------------------------------------

@families.answers("decayed")
def _decayed(tctx, key, args, kws):
    """The Resolution of `key` for `args` with each fixed-width argument taken as its text,
    or None: its code converts those arguments to new strings and releases them after."""
    if not any(isinstance(a, FixedWidth) for a in args):
        return None
    texts = tuple(text_type(a) if isinstance(a, FixedWidth) else a for a in args)
    inner = tctx.resolve(key, texts, kws)
    if inner is None:
        return None
    n = len(args)
    signature = inner.signature.return_type(*(a if isinstance(a, FixedWidth) else s
                                              for a, s in zip(args, inner.signature.args[:n])),
                                            *inner.signature.args[n:])
    result_ty = inner.signature.return_type

    def lower(context, b, sig, values):
        made = [to_text(context, b, a, v) if isinstance(a, FixedWidth) else None
                for a, v in zip(args, values)]
        inner_args = [context.cast(b, m, text_type(a), s) if m is not None else v
                      for m, a, s, v in zip(made, args, inner.signature.args, values)]
        result = inner.lower(context, b, inner.signature, inner_args + list(values[n:]))
        if has_refs(result_ty) and not inner.new_reference:
            incref(b, result_ty, result)    # it may be (part of) a text released below
        for m, a in zip(made, args):
            if m is not None:
                decref(b, text_type(a), m)
        return result
    return Resolution(signature, lower, inner.kw_order, has_refs(result_ty))


# ---- crossing into Python ------------------------------------------------------------------

@boxing.boxer(FixedWidth)
def _box(api, ty, value, fail):
    """The text as NumPy reads the item: a `str` or `bytes` without the trailing NULs."""
    b = api.builder
    address, n = _text_at(api.context, b, ty, value)
    if isinstance(ty, t.UnicodeCharSeq):
        result = api.call("PyUnicode_FromKindAndData", dm.ptr,
                          [ir.Constant(dm.i32, 4), address, n])
    else:
        result = api.call("PyBytes_FromStringAndSize", dm.ptr, [address, n])
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    return result


@boxing.unboxer(FixedWidth)
def _unbox(unboxer, ty, obj):
    """From a `str` (a `U` item) or `bytes` (an `S` item; a str of ASCII text too, as
    Numba takes one): its first n chars, NUL-padded."""
    b, api = unboxer.b, unboxer.api
    slot = api.context.alloca(b, dm.value_type(ty))
    is_str = api.call("PyObject_IsInstance", dm.i32,
                      [obj, api.global_object("PyUnicode_Type")])
    is_str = b.icmp_signed("==", is_str, ir.Constant(dm.i32, 1))
    if isinstance(ty, t.UnicodeCharSeq):
        unboxer.require(is_str)
        n = api.call("PyUnicode_GetLength", dm.i64, [obj])
        count = ir.Constant(dm.i64, ty.count)
        n = b.select(b.icmp_signed("<", n, count), n, count)
        head = api.call("PyUnicode_Substring", dm.ptr, [obj, ir.Constant(dm.i64, 0), n])
        unboxer.require(b.icmp_unsigned("!=", head, ir.Constant(dm.ptr, None)))
        b.store(ir.Constant(dm.value_type(ty), None), slot)
        api.call("PyUnicode_AsUCS4", dm.ptr, [head, slot, count, ir.Constant(dm.i32, 0)])
        api.decref(head)
        return b.load(slot, typ=dm.value_type(ty))
    with b.if_else(is_str) as (text, raw):
        with text:
            encoded = api.call("PyUnicode_AsASCIIString", dm.ptr, [obj])
            from_text = b.block
        with raw:
            is_bytes = api.call("PyObject_IsInstance", dm.i32,
                                [obj, api.global_object("PyBytes_Type")])
            own = b.select(b.icmp_signed("==", is_bytes, ir.Constant(dm.i32, 1)), obj,
                           ir.Constant(dm.ptr, None))
            api.incref(own)   # (Py_IncRef takes NULL)
            from_raw = b.block
    data = b.phi(dm.ptr)
    data.add_incoming(encoded, from_text)
    data.add_incoming(own, from_raw)
    failed = b.icmp_unsigned("==", data, ir.Constant(dm.ptr, None))
    with b.if_then(failed, likely=False):   # not bytes, or not ASCII text: no match
        api.call("PyErr_Clear", ir.VoidType(), [])
    unboxer.require(b.not_(failed))
    n = api.call("PyBytes_Size", dm.i64, [data])
    count = ir.Constant(dm.i64, ty.count)
    n = b.select(b.icmp_signed("<", n, count), n, count)
    b.store(ir.Constant(dm.value_type(ty), None), slot)
    _memcpy(b, slot, api.call("PyBytes_AsString", dm.ptr, [data]), n)
    api.decref(data)
    return b.load(slot, typ=dm.value_type(ty))


def _same_dtype(b, api, dtype, descr):
    """An array's items are this fixed-width string: NumPy's dtype equality (kind and
    width; the type number alone says only S or U)."""
    equal = api.call("PyObject_RichCompareBool", dm.i32,
                     [descr, api.constant_object(dtype.np_dtype), ir.Constant(dm.i32, 2)])
    return b.icmp_signed("==", equal, ir.Constant(dm.i32, 1))   # (an error, -1: no match)


register_dtype_check(FixedWidth, _same_dtype)

"""How types combine: arithmetic promotion (Numba's rules) and unification of a variable's
types across assignments and of a function's return types."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..types.datetimes import promote as promote_datetimes

_DATETIMES = (t.NPDatetime, t.NPTimedelta)


def promote_numbers(a: t.Number, b: t.Number) -> t.Number:
    """The common type of two scalars, as NumPy promotes them (bool with int → int)."""
    if a == b:
        return a
    if isinstance(a, _DATETIMES) or isinstance(b, _DATETIMES):
        return promote_datetimes(a, b)   # None where they do not mix (dt and td)
    if isinstance(a, t.Boolean):
        return b
    if isinstance(b, t.Boolean):
        return a
    return t.from_dtype(np.promote_types(a.np_dtype, b.np_dtype))


def arithmetic_result(a: t.Number, b: t.Number) -> t.Number:
    """Result type of `a op b` for + - * // % **: integers widen to at least 64 bits and are
    signed when either operand is (Numba's integer typing); floats and complex promote."""
    if isinstance(a, (t.Integer, t.Boolean)) and isinstance(b, (t.Integer, t.Boolean)):
        ints = [x for x in (a, b) if isinstance(x, t.Integer)] or [t.int64]
        width = max(64, *(x.bitwidth for x in ints))
        signed = any(x.signed for x in ints) or any(isinstance(x, t.Boolean) for x in (a, b))
        return t.integer_of(width, signed)
    return promote_numbers(a, b)  # NumPy's rule: int16 with float32 is float32


def held(ty: t.Type) -> t.Type:
    """The type a variable, a container or a return holds a value of `ty` as: a string
    constant (also inside a tuple) becomes a run-time string, a bool known when compiling
    (`x == None`) a run-time bool."""
    if isinstance(ty, t.StringLiteral):
        return t.unicode_type
    if isinstance(ty, t.BooleanLiteral):
        return t.boolean
    if isinstance(ty, t.BaseTuple) and any(isinstance(x, (t.StringLiteral, t.BooleanLiteral,
                                                          t.BaseTuple)) for x in ty.types):
        return _tuple_like(ty, map(held, ty.types))
    return ty


def _tuple_like(ty, items):
    """The tuple type of `items` that is a named tuple of `ty`'s class if `ty` is one."""
    cls = getattr(ty, "cls", None)
    return t.tuple_of(items) if cls is None else t.named_tuple_of(items, cls)


def unify(a: t.Type, b: t.Type):
    """The narrowest type that holds values of both `a` and `b`, or None."""
    a, b = held(a), held(b)
    if a == b:
        return a
    if isinstance(a, t.NoneType) or isinstance(b, t.NoneType):  # T or None: Optional(T)
        other = b if isinstance(a, t.NoneType) else a
        return other if isinstance(other, t.Optional) else t.Optional(other)
    if isinstance(a, t.Optional) or isinstance(b, t.Optional):
        inner = unify(a.type if isinstance(a, t.Optional) else a,
                      b.type if isinstance(b, t.Optional) else b)
        return None if inner is None else t.Optional(inner)
    if isinstance(a, t.Number) and isinstance(b, t.Number):
        return promote_numbers(a, b)
    if isinstance(a, t.BoundMethod) and isinstance(b, t.BoundMethod) and \
            a.method == b.method:   # `m = lst.append` read before lst's items were known
        receiver = unify(a.receiver, b.receiver)
        return None if receiver is None else t.BoundMethod(receiver, a.method)
    if isinstance(a, t.Array) and isinstance(b, t.Array):
        if a.dtype == b.dtype and a.ndim == b.ndim:
            return a.copy(layout=a.layout if a.layout == b.layout else "A",
                          readonly=a.readonly or b.readonly)
        return None
    if isinstance(a, t.BaseTuple) and isinstance(b, t.BaseTuple) and len(a) == len(b):
        items = [unify(x, y) for x, y in zip(a, b)]
        if any(i is None for i in items):
            return None
        if getattr(a, "cls", None) is getattr(b, "cls", None):
            return _tuple_like(a, items)
        return t.tuple_of(items)
    if isinstance(a, t.LiteralList) and isinstance(b, t.LiteralList) and len(a) == len(b):
        items = [unify(x, y) for x, y in zip(a, b)]
        return None if None in items else t.LiteralList(items)
    if isinstance(a, _FUNCTIONS) and isinstance(b, _FUNCTIONS):
        return _common_function_type(a, b)
    if isinstance(a, t.ListType) and isinstance(b, t.ListType):  # `[]` takes the other's items
        if a.is_undefined or b.is_undefined:
            return b if a.is_undefined else a
        # a Python-side list and a typed one of one item type: the typed one (one layout)
        return a.as_typed if a.item_type == b.item_type else None
    if isinstance(a, (t.DictType, t.SetType)) and type(a) is type(b):  # `{}` takes the other's
        return b if a.is_undefined else a if b.is_undefined else None
    return None


_FUNCTIONS = (t.Dispatcher, t.FunctionType)


def _only_signature(fn):
    """A function value's one signature: a FunctionType's, or a compiled function's only
    explicit or compiled signature (None while it has none or several)."""
    if isinstance(fn, t.FunctionType):
        return fn.signature
    found = fn.dispatcher.explicit_signatures or fn.dispatcher.nopython_signatures
    return found[0] if len(found) == 1 else None


def _common_function_type(a, b):
    """Two different functions in one list, tuple loop or variable are values of a
    FunctionType (Numba's first-class functions): of the signature that one of them has,
    the other compiled for it where it has none yet."""
    signatures = {s for s in map(_only_signature, (a, b)) if s is not None}
    if len(signatures) != 1:
        return None
    try:
        return t.FunctionType(signatures.pop())
    except TypeError:    # not a C signature (an array argument, say)
        return None


def item_wise(src, dst) -> bool:
    """Whether a `src` value converts to `dst` item by item: two tuples, or two literal
    lists, of one length."""
    return len(src) == len(dst) if isinstance(src, t.BaseTuple) and \
        isinstance(dst, t.BaseTuple) or isinstance(src, t.LiteralList) and \
        isinstance(dst, t.LiteralList) else False


def why_not_unified(a, b) -> str:
    """What to add to a "no common type" error about `a` and `b`."""
    if isinstance(a, _FUNCTIONS) and isinstance(b, _FUNCTIONS):
        return ("; different functions are one type when they have one signature: give "
                "them the same explicit signature, e.g. @njit('float64(float64)')")
    if isinstance(a, t.LiteralList) and isinstance(b, t.LiteralList):
        return ("; Cannot unify LiteralList: lists of items of mixed types are one type "
                "only with as many items, each pair of one common type")
    return ""


def can_convert(src: t.Type, dst: t.Type) -> bool:
    """Whether a value of `src` may be passed where `dst` is declared (explicit signatures)."""
    src = held(src)
    if src == dst:
        return True
    if isinstance(dst, t.Optional):
        if isinstance(src, t.Optional):     # optional(intp) returned as optional(float64)
            return can_convert(src.type, dst.type)
        return isinstance(src, t.NoneType) or can_convert(src, dst.type)
    if isinstance(src, t.Number) and isinstance(dst, t.Number):
        if isinstance(dst, t.Complex):
            return True
        if isinstance(dst, t.Float):
            return not isinstance(src, t.Complex)
        if isinstance(dst, t.Integer):
            return isinstance(src, (t.Integer, t.Boolean))
        return True     # to bool: its truth, as Numba converts (`table[i] & mask` as b1)
    if isinstance(src, t.Array) and isinstance(dst, t.Array):
        return (src.dtype == dst.dtype and src.ndim == dst.ndim
                and dst.layout in (src.layout, "A") and (dst.readonly or not src.readonly))
    if item_wise(src, dst):
        return all(can_convert(x, y) for x, y in zip(src, dst))
    if isinstance(src, t.ListType) and isinstance(dst, t.ListType):
        return src.is_undefined or src.item_type == dst.item_type   # (one layout)
    if isinstance(src, (t.DictType, t.SetType)) and type(src) is type(dst):
        return src.is_undefined
    if isinstance(src, t.Record) and isinstance(dst, t.Record):
        return src.extends(dst)
    if isinstance(dst, t.UnicodeCharSeq):   # text, truncated or padded (types/charseq.py)
        return isinstance(src, (t.UnicodeType, t.UnicodeCharSeq))
    if isinstance(dst, t.CharSeq):
        return isinstance(src, (t.Bytes, t.CharSeq))
    # a compiled function where a FunctionType is declared (types/functions.py)
    return isinstance(src, t.Dispatcher) and isinstance(dst, t.FunctionType)

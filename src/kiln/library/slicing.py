"""Slices in compiled code: `{start, stop, step}` with absent bounds marked (the layout is
codegen/datamodel.py's `build_slice`), resolved against an axis length exactly as Python's
`slice.indices` does; a slice's start, stop, step and indices()."""
from __future__ import annotations

from .. import types as t
from ..errors import TypingError
from ..codegen.datamodel import SLICE_ABSENT as ABSENT, build_slice
from ..typing.registry import (intrinsic, overload_attribute, overload_method, register_jitable,
                               template)


@register_jitable
def _clamp(bound, length, lower, upper):
    """A given slice bound: negative counts from the end; the result lies in [lower, upper]."""
    if bound < 0:
        return max(bound + length, lower)
    return min(bound, upper)


@register_jitable
def resolved_bounds(start, stop, step, length):
    """(start, stop, step) of the slice on an axis of `length` items, as Python's
    `slice.indices(length)` gives them."""
    if step == ABSENT:
        step = 1
    if step == 0:
        raise ValueError("slice step cannot be zero")
    lower = -1 if step < 0 else 0
    upper = length - 1 if step < 0 else length
    if start == ABSENT:
        start = upper if step < 0 else lower
    else:
        start = _clamp(start, length, lower, upper)
    if stop == ABSENT:
        stop = lower if step < 0 else upper
    else:
        stop = _clamp(stop, length, lower, upper)
    return start, stop, step


def slice_indices(start, stop, step, length):
    """(start, step, count) of the slice on an axis of `length` items; compiled by kiln."""
    start, stop, step = resolved_bounds(start, stop, step, length)
    if step < 0:
        count = (start - stop - 1) // -step + 1 if stop < start else 0
    else:
        count = (stop - start - 1) // step + 1 if start < stop else 0
    return start, step, count


@intrinsic
def _raw_bounds(typingctx, s):
    """The three stored bounds, ABSENT where the slice left one out."""
    if not isinstance(s, t.SliceType):
        return None
    rt = t.UniTuple(t.int64, 3)

    def codegen(context, builder, sig, args):
        return context.make_tuple(builder, rt, [builder.extract_value(args[0], i)
                                                for i in range(3)])
    return rt(s), codegen


_MAX = 2 ** 63 - 1


@overload_attribute(t.SliceType, "start")
def _start(s):
    """A bound left out reads as Numba gives it: start 0 (the last item, `sys.maxsize`,
    for a negative step), stop `sys.maxsize` (-`sys.maxsize` - 1 for a negative step),
    step 1; Python gives None (docs/differences.md)."""
    def start(s):
        lo, _, step = _raw_bounds(s)
        if lo != ABSENT:
            return lo
        return _MAX if step != ABSENT and step < 0 else 0
    return start


@overload_attribute(t.SliceType, "stop")
def _stop(s):
    def stop(s):
        _, hi, step = _raw_bounds(s)
        if hi != ABSENT:
            return hi
        return ABSENT if step != ABSENT and step < 0 else _MAX
    return stop


@overload_attribute(t.SliceType, "step")
def _step(s):
    def step(s):
        _, _, by = _raw_bounds(s)
        return 1 if by == ABSENT else by
    return step


@overload_method(t.SliceType, "indices")
def _indices(s, *args):
    """s.indices(length), as Python's (ValueError for a negative length or a zero step)."""
    if len(args) != 1:
        raise TypingError(f"indices() takes exactly one argument ({len(args)} given)")
    length = args[0]
    if not isinstance(length, (t.Integer, t.Boolean)):
        raise TypingError(f"'{length}' object cannot be interpreted as an integer")

    def indices(s, length):
        if length < 0:
            raise ValueError("length should not be negative")
        lo, hi, step = _raw_bounds(s)
        return resolved_bounds(lo, hi, step, length)
    return indices


@template(slice)
def _slice(tctx, *bounds):
    """slice(stop), slice(start, stop[, step]) in compiled code: the value `a:b:c` makes,
    None bounds absent (filled in when it indexes an array)."""
    if not 1 <= len(bounds) <= 3 or \
            not all(isinstance(b, (t.Integer, t.Boolean, t.NoneType)) for b in bounds):
        return None
    kinds = ((t.none,) + bounds if len(bounds) == 1 else bounds) + (t.none,) * 3
    rt = t.SliceType(has_step=not isinstance(kinds[2], t.NoneType))

    def codegen(context, builder, sig, args):
        values = ((None,) + tuple(args) if len(args) == 1 else tuple(args)) + (None,) * 3
        return build_slice(builder, *[
            None if isinstance(ty, t.NoneType) else context.cast(builder, v, ty, t.int64)
            for v, ty in zip(values[:3], kinds[:3])])
    return rt(*bounds), codegen

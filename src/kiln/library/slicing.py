"""Slices in compiled code: `{start, stop, step}` with absent bounds marked (the layout is
codegen/datamodel.py's `build_slice`), resolved against an axis length exactly as Python's
`slice.indices` does."""
from __future__ import annotations

from .. import types as t
from ..codegen.datamodel import SLICE_ABSENT as ABSENT, build_slice
from .registry import register_jitable, template


@register_jitable
def _clamp(bound, length, lower, upper):
    """A given slice bound: negative counts from the end; the result lies in [lower, upper]."""
    if bound < 0:
        return max(bound + length, lower)
    return min(bound, upper)


def slice_indices(start, stop, step, length):
    """(start, step, count) of the slice on an axis of `length` items; compiled by kiln."""
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
    if step < 0:
        count = (start - stop - 1) // -step + 1 if stop < start else 0
    else:
        count = (stop - start - 1) // step + 1 if start < stop else 0
    return start, step, count


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

"""`for` loops: every iterable is walked by an int64 counter; this says where the counter
starts, when to stop, how to step and what item each position gives."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm


@dataclass
class Iteration:
    start: ir.Value
    more: Callable      # (builder, index) -> i1
    item: Callable      # (builder, index) -> item value
    advance: Callable   # (builder, index) -> next index
    item_type: t.Type


def _step_by_one(builder, index):
    return builder.add(index, ir.Constant(dm.i64, 1))


def iteration_for(context, builder, value, ty) -> Iteration:
    if isinstance(ty, t.RangeType):
        start, stop, step = (builder.extract_value(value, i) for i in range(3))

        def more(b, index):
            up = b.icmp_signed(">", step, ir.Constant(dm.i64, 0))
            return b.select(up, b.icmp_signed("<", index, stop), b.icmp_signed(">", index, stop))
        return Iteration(start, more, lambda b, index: index,
                         lambda b, index: b.add(index, step), t.int64)
    if isinstance(ty, t.Array):
        from .arrays import ArrayValue
        arr = ArrayValue(context, builder, value, ty)
        length = arr.shape(0)
        item_type = t.int64  # placeholder, replaced below
        if ty.ndim == 1:
            item_type = ty.dtype
            item = lambda b, index: arr.with_builder(b).load_element([index])  # noqa: E731
        else:
            item_type = ty.copy(ndim=ty.ndim - 1, layout="C" if ty.layout == "C" else "A")
            item = lambda b, index: arr.with_builder(b).subarray(index, item_type)  # noqa: E731
        return Iteration(ir.Constant(dm.i64, 0),
                         lambda b, index: b.icmp_signed("<", index, length),
                         item, _step_by_one, item_type)
    if isinstance(ty, t.UniTuple):
        slot = context.alloca(builder, dm.value_type(ty))
        builder.store(value, slot)
        item_lt = dm.value_type(ty.dtype)

        def item(b, index):
            address = b.gep(slot, [ir.Constant(dm.i64, 0), index], source_etype=slot.allocated_type)
            return b.load(address, typ=item_lt)
        return Iteration(ir.Constant(dm.i64, 0),
                         lambda b, index: b.icmp_signed("<", index, ir.Constant(dm.i64, ty.count)),
                         item, _step_by_one, ty.dtype)
    raise TypeError(f"kiln cannot iterate over {ty}")

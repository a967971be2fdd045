"""`np.nditer` in compiled code: `for x in np.nditer(a)` and `for x, y in np.nditer((a, b))`.

Each item is a 0-d view of the operands' current elements (read with `x[()]` or
`x.item()`, written with `x[...] = v`), and the operands are broadcast together, as in
NumPy. The order is NumPy's default, order='K': the axes sorted by the operands' strides
(memory order; C order where they disagree), and an axis every operand walks backwards is
walked forwards in memory. `np.nditer(...)` computes that plan once (`_k_order`, NumPy's
insertion sort over the axes) and the loop walks the planned shape as nested loops.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.ownership import incref
from ..errors import TypingError
from .arrays import ArrayValue, make_array
from ..typing.registry import register_jitable, template

_PLAN = (t.Array(t.int64, 1, "C"), t.Array(t.int64, 2, "C"), t.Array(t.int64, 1, "C"))


class NDIterType(t.Type):
    """The value of `np.nditer(op)`: the operands, then the plan (shape, strides and
    start offsets, outer axis first)."""

    def __init__(self, operands, single):
        self.operands = tuple(operands)
        self.single = single          # np.nditer(a): items are views, not tuples of them
        self.fields = self.operands + _PLAN
        self.name = f"nditer({', '.join(map(str, self.operands))})"

    @property
    def key(self):
        return (self.operands, self.single)

    @property
    def views(self):
        return tuple(a.copy(ndim=0, layout="A") for a in self.operands)

    @property
    def item_type(self):
        return self.views[0] if self.single else t.Tuple(self.views)


@register_jitable
def _k_order(shape, strides):
    """NumPy's order='K' plan for operands of broadcast `shape` with byte `strides`
    (nop x ndim, 0 along broadcast axes)."""
    nop, ndim = strides.shape
    if nop and ndim:
        total = 1
        for d in range(ndim):
            total *= shape[d]
        if total == 0:
            raise ValueError("Iteration of zero-sized operands is not enabled")
    start = np.zeros(nop, np.int64)
    walk = strides.copy()
    for d in range(ndim):          # an axis no operand walks forwards is walked backwards
        negative = False
        positive = False
        for k in range(nop):
            negative = negative or walk[k, d] < 0
            positive = positive or walk[k, d] > 0
        if negative and not positive:
            for k in range(nop):
                start[k] += (shape[d] - 1) * walk[k, d]
                walk[k, d] = -walk[k, d]
    perm = np.empty(ndim, np.int64)   # innermost first, sorted by stride, C order on ties
    for i in range(ndim):
        perm[i] = ndim - 1 - i
    for i0 in range(1, ndim):
        j0 = perm[i0]
        position = i0
        for i1 in range(i0 - 1, -1, -1):
            j1 = perm[i1]
            ambiguous = True
            swap = False
            for k in range(nop):
                if walk[k, j0] != 0 and walk[k, j1] != 0:
                    if abs(walk[k, j1]) <= abs(walk[k, j0]):
                        swap = False
                    elif ambiguous:
                        swap = True
                    ambiguous = False
            if not ambiguous:
                if swap:
                    position = i1
                else:
                    break
        for i in range(i0, position, -1):
            perm[i] = perm[i - 1]
        perm[position] = j0
    planned_shape = np.empty(ndim, np.int64)
    planned_strides = np.empty((nop, ndim), np.int64)
    for d in range(ndim):
        axis = perm[ndim - 1 - d]
        planned_shape[d] = shape[axis]
        for k in range(nop):
            planned_strides[k, d] = walk[k, axis]
    return planned_shape, planned_strides, start


def _zero_d(x):
    return np.asarray(x)


@template(np.nditer)
def _nditer(tctx, op):
    """np.nditer(a), np.nditer((a, b, ...)): of arrays, or of scalars, which NumPy takes as
    0-d arrays."""
    single = isinstance(op, (t.Array, t.Number))
    given = (op,) if single else getattr(op, "types", None)
    if given is None:
        return None
    if not all(isinstance(o, (t.Array, t.Number)) for o in given):
        raise TypingError("np.nditer() in compiled code takes an array, a scalar or a tuple "
                          f"of them (not {op})")
    operands = tuple(o if isinstance(o, t.Array) else t.Array(o, 0, "C") for o in given)
    if len(operands) == 1:
        single = True
    result = NDIterType(operands, single)

    def codegen(context, builder, sig, args):
        from .fusion import broadcast_shape, leaf_strides
        values = [args[0]] if isinstance(op, (t.Array, t.Number)) else \
            [builder.extract_value(args[0], i) for i in range(len(operands))]
        for i, ty in enumerate(given):   # a scalar: a new 0-d array, the iterator's own
            if not isinstance(ty, t.Array):
                values[i] = context.call_python(builder, _zero_d, operands[i](ty), [values[i]])
        arrays = [ArrayValue(context, builder, v, ty) for v, ty in zip(values, operands)]
        ndim = max(a.ndim for a in operands)
        shape = broadcast_shape(context, builder, arrays, ndim)
        strides = leaf_strides(builder, arrays, shape)
        shape_ty = t.UniTuple(t.int64, ndim)
        strides_ty = t.UniTuple(shape_ty, len(operands))
        shape_value = context.make_tuple(builder, shape_ty, shape)
        strides_value = context.make_tuple(builder, strides_ty, [
            context.make_tuple(builder, shape_ty, s) for s in strides])
        plan = context.call_python(builder, _plan, t.Tuple(_PLAN)(shape_ty, strides_ty),
                                   [shape_value, strides_value])
        for value, ty in zip(values, given):  # the iterator holds the arrays given too
            if isinstance(ty, t.Array):
                incref(builder, ty, value)
        return context.make_tuple(builder, result, values + [
            builder.extract_value(plan, i) for i in range(len(_PLAN))])
    codegen.new_reference = True
    return result(op), codegen


def _plan(shape, strides):
    nop, ndim = len(strides), len(shape)
    matrix = np.zeros((nop, ndim), np.int64)
    for k in range(nop):
        for d in range(ndim):
            matrix[k, d] = strides[k][d]
    dims = np.empty(ndim, np.int64)
    for d in range(ndim):
        dims[d] = shape[d]
    return _k_order(dims, matrix)


def nditer_iteration(context, builder, value, ty):
    """The `for` loop's iteration over an nditer value: nested loops over the plan's shape
    (OdometerIteration), each operand's offset from the digits and its planned strides."""
    from .iteration import OdometerIteration
    b = builder
    nop = len(ty.operands)
    operands = [ArrayValue(context, b, b.extract_value(value, k), a)
                for k, a in enumerate(ty.operands)]
    plan = [ArrayValue(context, b, b.extract_value(value, nop + i), p)
            for i, p in enumerate(_PLAN)]
    ndim = max(a.ndim for a in ty.operands)
    shape = [plan[0].load_element([ir.Constant(dm.i64, d)]) for d in range(ndim)]
    walk = [[plan[1].load_element([ir.Constant(dm.i64, k), ir.Constant(dm.i64, d)])
             for d in range(ndim)] for k in range(nop)]
    starts = [plan[2].load_element([ir.Constant(dm.i64, k)]) for k in range(nop)]
    def item(b, digits):
        views = []
        for k, (arr, view_ty) in enumerate(zip(operands, ty.views)):
            offset = starts[k]
            for digit, step in zip(digits, walk[k]):
                offset = b.add(offset, b.mul(digit, step))
            arr = arr.with_builder(b)
            data = b.gep(arr.field(dm.ARRAY_DATA), [offset], source_etype=dm.i8)
            views.append(make_array(context, b, view_ty, data, [], [],
                                    meminfo=arr.field(dm.ARRAY_MEMINFO),
                                    parent=arr.field(dm.ARRAY_PARENT)))
        return views[0] if ty.single else context.make_tuple(b, ty.item_type, views)
    return OdometerIteration(context, b, shape, item, ty.item_type)

"""Array expressions: a tree of elementwise operations computed in one loop.

`np.sqrt(a*a + b*b)` is one tree, not three temporaries: the lowerer hands every operation
that can take array expressions (a `Consumer`: an elementwise ufunc or operator, an in-place
operator, a slice assignment, a reduction) the trees of its operands instead of arrays. An
elementwise operand is folded into the tree; anything else (a local, a call, a slice of an
array) becomes a leaf, evaluated once, in Python's order, before the loop. The loop loads
each leaf's element and computes the whole tree on it; every operation still rounds to its
own NumPy result dtype, so the numbers are those of the unfused expression. The trees
themselves (`Tree`, `Elementwise`, `Consumer`) are codegen/array_expressions.py's, which
asks this module to compute one (`evaluate`).

The loop: same-shape C-contiguous leaves make one flat loop that LLVM vectorizes; otherwise
a loop nest walks each leaf by its strides (0 along a broadcast axis). A tree written into
an array it reads other than element for element is computed into a temporary first.
"""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import families
from ..codegen.array_expressions import Tree, dtype_of
from ..runtime import nrt
from .allocation import allocate
from .arrays import ArrayValue


# ---- evaluation --------------------------------------------------------------------------------

def leaf_arrays(context, builder, tree):
    """An ArrayValue per array leaf, None per scalar leaf."""
    return [ArrayValue(context, builder, v, ty) if isinstance(ty, t.Array) else None
            for v, ty in tree.leaves]


@families.answers("evaluate")
def evaluate(context, builder, tree, out=None, out_ty=None):
    """The tree's values: into a new C-contiguous array of its broadcast shape (a new
    reference), or into the array `out` (broadcast to it, converted to its dtype)."""
    arrays = leaf_arrays(context, builder, tree)
    present = [a for a in arrays if a is not None]
    if out is None:
        out_ty = tree.ty
        shape = broadcast_shape(context, builder, present, out_ty.ndim)
        out = ArrayValue(context, builder, allocate(context, builder, out_ty, shape), out_ty)
        hold = context.hold_until_done(builder, out.value, out_ty)  # an element may raise
        _fill_loops(context, builder, out, tree, arrays, shape)
        context.done_holding(builder, hold)
        return out.value
    out = ArrayValue(context, builder, out, out_ty)
    shape = broadcast_shape(context, builder, present + [out], out_ty.ndim)
    for d, size in enumerate(shape):
        context.guard(builder, builder.icmp_unsigned("!=", size, out.shape(d)), ValueError,
                      "non-broadcastable output operand")
    clash = ir.Constant(dm.i1, 0)
    for a in present:
        clash = builder.or_(clash, _overlaps_elsewhere(builder, a, out))
    with builder.if_else(clash, likely=False) as (through_temporary, direct):
        with through_temporary:
            temp_ty = tree.ty.copy(ndim=out_ty.ndim, layout="C", readonly=False)
            temp = evaluate(context, builder, Tree(temp_ty, tree.leaves, tree.compute))
            _fill_loops(context, builder, out, Tree.leaf(temp, temp_ty),
                        [ArrayValue(context, builder, temp, temp_ty)], shape)
            nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
        with direct:
            _fill_loops(context, builder, out, tree, arrays, shape)
    return out.value


def broadcast_shape(context, builder, operands, ndim):
    """The broadcast shape, raising ValueError with NumPy's words when there is none."""
    one = ir.Constant(dm.i64, 1)
    shape = []
    for d in range(ndim):
        size = one
        for arr in operands:
            if arr.ty.ndim + d - ndim >= 0:
                dim = arr.shape(arr.ty.ndim + d - ndim)
                size = builder.select(builder.icmp_unsigned("==", size, one), dim, size)
        for arr in operands:
            if arr.ty.ndim + d - ndim >= 0:
                dim = arr.shape(arr.ty.ndim + d - ndim)
                bad = builder.and_(builder.icmp_unsigned("!=", dim, size),
                                   builder.icmp_unsigned("!=", dim, one))
                context.guard(builder, bad, ValueError,
                              "operands could not be broadcast together")
        shape.append(size)
    return shape


def counted_loop(builder, count, body, start=None, step=1):
    """`for i in range(start, count, step): body(i)` in IR (start defaults to 0)."""
    i64 = dm.i64
    pre = builder.block
    header = builder.append_basic_block("loop.header")
    block = builder.append_basic_block("loop.body")
    end = builder.append_basic_block("loop.end")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(i64)
    index.add_incoming(ir.Constant(i64, 0) if start is None else start, pre)
    builder.cbranch(builder.icmp_signed("<", index, count), block, end)
    builder.position_at_end(block)
    body(index)
    index.add_incoming(builder.add(index, ir.Constant(i64, step)), builder.block)
    builder.branch(header)
    builder.position_at_end(end)


def _extent(builder, a):
    """[first byte, last byte] an array's elements span (an empty array spans nothing)."""
    start = builder.ptrtoint(a.field(dm.ARRAY_DATA), dm.i64)
    low, high = start, start
    for d in range(a.ty.ndim):
        reach = builder.mul(builder.sub(a.shape(d), ir.Constant(dm.i64, 1)), a.stride(d))
        negative = builder.icmp_signed("<", reach, ir.Constant(dm.i64, 0))
        low = builder.add(low, builder.select(negative, reach, ir.Constant(dm.i64, 0)))
        high = builder.add(high, builder.select(negative, ir.Constant(dm.i64, 0), reach))
    return low, builder.add(high, ir.Constant(dm.i64, a.ty.dtype.np_dtype.itemsize - 1))


def _overlaps_elsewhere(builder, a, out):
    """Whether `a` shares memory with `out` without being exactly `out`'s elements."""
    (a_low, a_high), (o_low, o_high) = _extent(builder, a), _extent(builder, out)
    overlap = builder.and_(builder.icmp_signed("<=", a_low, o_high),
                           builder.icmp_signed("<=", o_low, a_high))
    same = builder.icmp_unsigned("==", a.field(dm.ARRAY_DATA), out.field(dm.ARRAY_DATA))
    for d in range(min(a.ty.ndim, out.ty.ndim)):
        same = builder.and_(same, builder.icmp_signed(
            "==", a.stride(a.ty.ndim - 1 - d), out.stride(out.ty.ndim - 1 - d)))
    same = builder.and_(same, ir.Constant(dm.i1, int(a.ty.ndim == out.ty.ndim)))
    empty = builder.icmp_signed("==", a.field(dm.ARRAY_NITEMS), ir.Constant(dm.i64, 0))
    return builder.and_(builder.and_(overlap, builder.not_(same)), builder.not_(empty))


def flat_condition(builder, tree, arrays, count):
    """An i1 that is true when every array leaf is C-contiguous with `count` elements, so
    flat position i is element i of each (one loop LLVM vectorizes); None when their types
    already rule that out."""
    present = [a for a in arrays if a is not None]
    if not all(a.ty.layout == "C" and a.ty.ndim == tree.ty.ndim for a in present):
        return None
    same = ir.Constant(dm.i1, 1)
    for a in present:
        same = builder.and_(same, builder.icmp_unsigned("==", a.field(dm.ARRAY_NITEMS), count))
    return same


def leaf_elements(builder, tree, arrays, i):
    """The leaves' values at flat position i of same-shape C-contiguous leaves."""
    return [value if a is None else dm.load_item(
        builder, a.ty.dtype, builder.gep(a.field(dm.ARRAY_DATA), [i],
                                         source_etype=dm.memory_type(a.ty.dtype)))
        for a, (value, _) in zip(arrays, tree.leaves)]


def _fill_loops(context, builder, out, tree, arrays, shape):
    def compute(values):
        value = tree.compute(context, builder, values)
        return context.cast(builder, value, dtype_of(tree.ty), out.ty.dtype)

    def flat_body(i, values):
        target = builder.gep(out.field(dm.ARRAY_DATA), [i],
                             source_etype=dm.memory_type(out.ty.dtype))
        dm.store_item(builder, out.ty.dtype, compute(values), target)

    def general():
        _strided(builder, out, tree, arrays, shape, compute)
    count = out.field(dm.ARRAY_NITEMS)
    flat = flat_condition(builder, tree, arrays, count) \
        if out.ty.layout == "C" and out.ty.ndim == tree.ty.ndim else None
    if flat is None:
        general()
        return
    def serial():
        counted_loop(builder, count,
                     lambda i: flat_body(i, leaf_elements(builder, tree, arrays, i)))
    with builder.if_else(flat) as (fast, slow):
        with fast:
            if context.options.parallel:
                _split_flat_loop(context, builder, out, tree, arrays, count, serial)
            else:
                serial()
        with slow:
            general()


def _split_flat_loop(context, builder, out, tree, arrays, count, serial):
    """In a parallel=True function, a long flat loop runs in chunks across the threads."""
    from ..parallel.launch import split_loop
    from ..runtime.threads import MIN_PARALLEL_ITEMS
    values = [out.field(dm.ARRAY_DATA)] + [value if a is None else a.field(dm.ARRAY_DATA)
                                           for a, (value, _) in zip(arrays, tree.leaves)]

    def emit(ctx, b, lo, hi, passed):
        out_data, *leaves = passed

        def body(i):
            elements = [v if a is None else dm.load_item(b, a.ty.dtype, b.gep(
                v, [i], source_etype=dm.memory_type(a.ty.dtype))) for a, v in zip(arrays, leaves)]
            value = ctx.cast(b, tree.compute(ctx, b, elements), dtype_of(tree.ty), out.ty.dtype)
            dm.store_item(b, out.ty.dtype, value, b.gep(
                out_data, [i], source_etype=dm.memory_type(out.ty.dtype)))
        counted_loop(b, hi, body, start=lo)
    long = builder.icmp_signed(">=", count, ir.Constant(dm.i64, MIN_PARALLEL_ITEMS))
    with builder.if_else(long) as (split, short):
        with split:
            split_loop(context, builder, count, values, emit)
        with short:
            serial()


def leaf_strides(builder, arrays, shape):
    """Each array's byte stride along each axis of the broadcast `shape` (0 along an axis
    it is broadcast over); None for scalar leaves."""
    ndim = len(shape)
    zero = ir.Constant(dm.i64, 0)

    def strides_of(a):
        result = []
        for d in range(ndim):
            k = a.ty.ndim + d - ndim
            if k < 0:
                result.append(zero)
            else:
                result.append(builder.select(builder.icmp_unsigned("==", a.shape(k), shape[d]),
                                             a.stride(k), zero))
        return result
    return [None if a is None else strides_of(a) for a in arrays]


def nest(builder, arrays, shape, depth, visit, strides=None):
    """Loops over the first `depth` axes of `shape`: `visit(offsets)` runs at each position
    with every array's byte offset there (None for scalars)."""
    strides = strides or leaf_strides(builder, arrays, shape)
    zero = ir.Constant(dm.i64, 0)

    def level(d, offsets):
        if d == depth:
            visit(offsets)
            return

        def body(i):
            level(d + 1, [None if st is None else builder.add(off, builder.mul(i, st[d]))
                          for off, st in zip(offsets, strides)])
        counted_loop(builder, shape[d], body)
    level(0, [None if a is None else zero for a in arrays])
    return strides


def elements_at(builder, tree, arrays, offsets):
    """The leaves' values at these byte offsets (scalar leaves as they are)."""
    values = []
    for a, (value, _), off in zip(arrays, tree.leaves, offsets):
        if a is None:
            values.append(value)
        else:
            ptr = builder.gep(a.field(dm.ARRAY_DATA), [off], source_etype=dm.i8)
            values.append(dm.load_item(builder, a.ty.dtype, ptr))
    return values


def _strided(builder, out, tree, arrays, shape, compute):
    """The loop nest over the output's axes; each leaf advances by its own stride (0 along
    an axis it is broadcast over)."""
    def store(offsets):
        ptr = builder.gep(out.field(dm.ARRAY_DATA), [offsets[-1]], source_etype=dm.i8)
        dm.store_item(builder, out.ty.dtype,
                      compute(elements_at(builder, tree, arrays, offsets[:-1])), ptr)
    nest(builder, arrays + [out], shape, len(shape), store)

"""Whole-array reductions split across the threads of a `parallel=True` function, with the
result NumPy's (and the serial code's) bit for bit, whatever the thread count.

A reduction of a 1-d array `x` is given in compiled Python as
    serial(x, seed) -> R          all of x on one thread (short arrays, serial functions)
    piece(x, k, seed) -> R        the k-th of PIECES pieces of x
    join(left, right) -> R        two neighbouring results, the left one first
The array is cut into a fixed number of pieces (not one per thread), computed on the
threads into their own slots and joined as a balanced binary tree in array order, so the
order of the operations does not depend on how many threads ran them.

Which reductions are split, and how:
- the float `sum`/`mean` (pairwise.py): the pieces are the subtrees of NumPy's pairwise
  recursion and `join` is its `+`, so the tree is NumPy's own.
- exact reductions (`by_ranges`): integer and bool sums and integer products (wrapping
  arithmetic is associative), min/max and nanmin/nanmax (the first NaN, or the first of
  equal values, wins in the pieces and in `join` alike), argmin/argmax (first index wins
  ties), any/all and count_nonzero; the pieces are equal ranges.
- not split: the float `prod` (NumPy multiplies the items in order, so another grouping
  would round differently), complex sums (NumPy pairs real and imaginary parts in its own
  way) and reductions along an axis. Reductions of an array expression (computed where
  they are folded) are split by fused_reductions.py `_split_fused` on the same plan: the
  float sum and mean along the pairwise subtrees, min/max/any/all in equal ranges. A
  non-contiguous array's float sum follows the calls NumPy's iterator makes of its items
  (reduction_order.py): a sum NumPy takes in one call is split as above, one of several
  calls is not.
"""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.registry import intrinsic, register_jitable

PIECES = 64                    # pieces of a split reduction, joined as a tree of depth 6
SPLIT_ITEMS = 1 << 16          # reductions of fewer items stay on one thread


def split_reduction(name, serial, piece, join, splittable=lambda x, seed: True):
    """An intrinsic `reduce(x, seed)` of the 1-d array x: `serial(x, seed)` unless the
    function is parallel, `splittable(x type, seed type)` and x has SPLIT_ITEMS items or
    more; then the pieces on the thread pool, joined. R must hold no references. `name`
    is what parallel_diagnostics lists."""
    @intrinsic
    def reduce(typingctx, x, seed):
        if not (isinstance(x, t.Array) and x.ndim == 1):
            return None
        result = typingctx.type_function(serial, (x, seed)).return_type
        sig = result(x, seed)

        def codegen(context, builder, sig, args):
            if not (context.options.parallel and splittable(x, seed)):
                return context.call_python(builder, serial, sig, args)
            return split_pieces(
                context, builder, name, dm.value_type(result),
                builder.extract_value(args[0], [dm.ARRAY_SHAPE, 0]), list(args),
                lambda ctx, b, k, passed: ctx.call_python(b, piece, result(x, t.int64, seed),
                                                          [passed[0], k, passed[1]]),
                lambda b, left, right: context.call_python(b, join, result(result, result),
                                                           [left, right]),
                lambda b: context.call_python(b, serial, sig, args))
        return sig, codegen
    return reduce


def split_pieces(context, builder, name, item, count, values, piece, join, serial):
    """A reduction of `count` items in PIECES pieces on the threads when count >=
    SPLIT_ITEMS: `piece(ctx, b, k, values)` computes piece k (in a chunk function, from the
    caller's LLVM `values`), the results are joined in order as a balanced tree by
    `join(b, left, right)`; a shorter one is `serial(b)` on this thread. `name` is what
    parallel_diagnostics lists."""
    from ..parallel.launch import split_loop
    from ..runtime.threads import struct_field
    from .fusion import counted_loop
    if name not in context.state.split_reductions:
        context.state.split_reductions.append(name)
    slots = ir.ArrayType(item, PIECES)
    partials = context.alloca(builder, slots)
    total = context.alloca(builder, item)
    long = builder.icmp_signed(">=", count, ir.Constant(dm.i64, SPLIT_ITEMS))
    with builder.if_else(long) as (split, short):
        with split:
            def emit(ctx, b, lo, hi, passed):
                *given, out = passed
                counted_loop(b, hi, lambda k: b.store(piece(ctx, b, k, given),
                                                      struct_field(b, out, slots, k)), start=lo)
            split_loop(context, builder, ir.Constant(dm.i64, PIECES), values + [partials],
                       emit)
            level = [builder.load(struct_field(builder, partials, slots, k), typ=item)
                     for k in range(PIECES)]
            while len(level) > 1:
                level = [join(builder, level[k], level[k + 1]) for k in range(0, len(level), 2)]
            builder.store(level[0], total)
        with short:
            builder.store(serial(builder), total)
    return builder.load(total, typ=item)


@register_jitable
def add(left, right):
    return left + right


@register_jitable
def multiply(left, right):
    return left * right


def by_ranges(name, over, join):
    """`split_reduction` of a reduction `over(x, lo, hi, seed)` of x[lo:hi] (never empty
    when split) whose `join` makes the grouping irrelevant: the pieces are equal ranges."""
    def serial(x, seed):
        return over(x, 0, x.shape[0], seed)

    def piece(x, k, seed):
        n = x.shape[0]
        return over(x, n * k // PIECES, n * (k + 1) // PIECES, seed)
    return split_reduction(name, register_jitable(serial), register_jitable(piece), join)

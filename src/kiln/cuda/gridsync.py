"""`cuda.cg.this_grid().sync()` compiled: a barrier for every thread of a cooperative launch.

The barrier lives in the module: `kiln_grid_barrier`, two 32-bit words in global memory
(arrivals, generation), zero when the module loads and zero again after every barrier, so
one launch after another reuses it. A barrier is the block's own barrier, then thread 0 of
each block reads the generation, publishes its block's writes (membar.gl) and counts its
block in; the last block in resets the count and moves the generation on, which releases
the others spinning on it; then the block's barrier again. It needs every block resident
at once, which is what a cooperative launch guarantees (the driver back-end launches a
kernel whose PTX holds the barrier with cuLaunchCooperativeKernel). Two cooperative
launches of one kernel running at once on one device would share the barrier: launch them
one after the other."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.registry import template
from . import intrinsics as cu
from .nvvm import _call_intrinsic, _sreg

BARRIER = "kiln_grid_barrier"


class GridGroup(t.Opaque):
    """The value of `cuda.cg.this_grid()` in compiled code: nothing at run time."""

    name = "GridGroup"


@template(cu.cg.this_grid, target="cuda")
def _this_grid(tctx):
    def codegen(context, builder, sig, args):
        return dm.null_value(GridGroup())
    return t.Signature(GridGroup(), ()), codegen


@template(("method", "sync"), target="cuda")
def _sync(tctx, group):
    if not isinstance(group, GridGroup):
        return None

    def codegen(context, builder, sig, args):
        grid_barrier(builder)
        return dm.null_value(t.none)
    return t.Signature(t.none, (group,)), codegen


def _barrier_words(module):
    words = module.globals.get(BARRIER)
    if words is None:
        array = ir.ArrayType(dm.i32, 2)
        words = ir.GlobalVariable(module, array, name=BARRIER, addrspace=1)
        words.linkage = "internal"
        words.initializer = ir.Constant(array, None)
        words.align = 8
    return words


def grid_barrier(builder):
    """Emit the barrier (see the module docstring) where `builder` stands."""
    module = builder.module
    words = _barrier_words(module)
    zero, one = ir.Constant(dm.i32, 0), ir.Constant(dm.i32, 1)
    count = builder.gep(words, [zero, zero], inbounds=True)
    generation = builder.gep(words, [zero, one], inbounds=True)
    _call_intrinsic(builder, "llvm.nvvm.barrier0", ir.VoidType(), [])
    first = builder.and_(builder.icmp_unsigned("==", _sreg(builder, "tid", "x"), zero),
                         builder.and_(
                             builder.icmp_unsigned("==", _sreg(builder, "tid", "y"), zero),
                             builder.icmp_unsigned("==", _sreg(builder, "tid", "z"), zero)))
    with builder.if_then(first):
        blocks = builder.mul(builder.mul(_sreg(builder, "nctaid", "x"),
                                         _sreg(builder, "nctaid", "y")),
                             _sreg(builder, "nctaid", "z"))
        seen = builder.load_atomic(generation, "monotonic", 4)
        _call_intrinsic(builder, "llvm.nvvm.membar.gl", ir.VoidType(), [])
        arrived = builder.atomic_rmw("add", count, one, "monotonic")
        last = builder.icmp_unsigned("==", arrived, builder.sub(blocks, one))
        with builder.if_else(last) as (release, wait):
            with release:
                builder.store_atomic(zero, count, "monotonic", 4)
                _call_intrinsic(builder, "llvm.nvvm.membar.gl", ir.VoidType(), [])
                builder.atomic_rmw("add", generation, one, "monotonic")
            with wait:
                spin = builder.append_basic_block("grid_sync.spin")
                done = builder.append_basic_block("grid_sync.released")
                builder.branch(spin)
                builder.position_at_end(spin)
                now = builder.load_atomic(generation, "monotonic", 4)
                builder.cbranch(builder.icmp_unsigned("==", now, seen), spin, done)
                builder.position_at_end(done)
        _call_intrinsic(builder, "llvm.nvvm.membar.gl", ir.VoidType(), [])
    _call_intrinsic(builder, "llvm.nvvm.barrier0", ir.VoidType(), [])


def is_cooperative(ptx: str) -> bool:
    """Whether a kernel's PTX holds the grid barrier (so needs a cooperative launch)."""
    return BARRIER in ptx

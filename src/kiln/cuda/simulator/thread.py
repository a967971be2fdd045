"""The context of one simulated CUDA thread: what `cuda.threadIdx`, `cuda.syncthreads()`,
`cuda.shared.array()`... mean while it runs (see kiln.cuda.kernelcontext)."""
from __future__ import annotations

import operator

import numpy as np

from ..dtypes import as_numpy_dtype
from . import atomics
from .block import Dim3

_WARP_NAMES = {"sync": "syncwarp", "all": "all_sync", "any": "any_sync", "eq": "eq_sync",
               "ballot": "ballot_sync", "shfl": "shfl_sync", "shfl_up": "shfl_up_sync",
               "shfl_down": "shfl_down_sync", "shfl_xor": "shfl_xor_sync",
               "match_any": "match_any_sync", "match_all": "match_all_sync"}


def _shape(shape, what) -> tuple:
    try:
        dims = tuple(operator.index(n) for n in shape) if isinstance(shape, tuple) else \
            (operator.index(shape),)
    except TypeError:
        raise TypeError(f"{what}: the shape must be an int or a tuple of ints known when the "
                        f"kernel is compiled, not {shape!r}") from None
    if any(n < 0 for n in dims):
        raise ValueError(f"{what}: negative dimension in shape {shape!r}")
    return dims


class ThreadContext:
    __slots__ = ("block", "tid", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid")

    def __init__(self, block, tid):
        grid = block.grid
        self.block = block
        self.tid = tid
        self.threadIdx = Dim3(*grid.thread_index(tid))
        self.blockIdx = block.idx
        self.blockDim = grid.blockDim
        self.gridDim = grid.gridDim
        self.laneid = tid % 32

    # -- geometry ----------------------------------------------------------------------
    def grid(self, ndim):
        t, b, d = self.threadIdx, self.blockIdx, self.blockDim
        if ndim == 1:
            return b.x * d.x + t.x
        if ndim == 2:
            return (b.x * d.x + t.x, b.y * d.y + t.y)
        if ndim == 3:
            return (b.x * d.x + t.x, b.y * d.y + t.y, b.z * d.z + t.z)
        raise ValueError(f"cuda.grid(ndim) takes ndim 1, 2 or 3, not {ndim!r}")

    def gridsize(self, ndim):
        g, d = self.gridDim, self.blockDim
        if ndim == 1:
            return g.x * d.x
        if ndim == 2:
            return (g.x * d.x, g.y * d.y)
        if ndim == 3:
            return (g.x * d.x, g.y * d.y, g.z * d.z)
        raise ValueError(f"cuda.gridsize(ndim) takes ndim 1, 2 or 3, not {ndim!r}")

    def call(self, func, args, kwargs):
        """A device function's Python, as this launch runs it (simulator/pyfuncs.py)."""
        return self.block.grid.function(func)(*args, **kwargs)

    # -- barriers and fences -----------------------------------------------------------
    def syncthreads(self):
        self.block.syncthreads(self.tid, True)

    def syncthreads_count(self, predicate):
        return self.block.syncthreads(self.tid, predicate)

    def syncthreads_and(self, predicate):
        return int(self.block.syncthreads(self.tid, predicate) == self.block.nthreads)

    def syncthreads_or(self, predicate):
        return int(self.block.syncthreads(self.tid, predicate) > 0)

    def grid_sync(self):
        barrier = self.block.grid.barrier
        if barrier is None:   # (checks.uses_grid_sync did not see the call)
            raise RuntimeError("cuda.cg.this_grid().sync() needs a cooperative launch: call "
                               "cuda.cg.this_grid() in the kernel or in a device function "
                               "it names")
        barrier.sync(self.block, self.tid)

    def threadfence(self):
        """Simulated threads share one coherent memory: nothing to order."""

    threadfence_block = threadfence_system = threadfence

    # -- memory ------------------------------------------------------------------------
    def shared_array(self, shape, dtype, site):
        return self.block.shared_array(_shape(shape, "cuda.shared.array"),
                                       as_numpy_dtype(dtype), site)

    def local_array(self, shape, dtype):
        return np.empty(_shape(shape, "cuda.local.array"), as_numpy_dtype(dtype))

    def const_array_like(self, ary):
        const = np.array(ary)
        const.flags.writeable = False
        return const

    def atomic(self, op, ary, idx, *operands):
        return atomics.apply(op, ary, idx, operands)

    # -- warps -------------------------------------------------------------------------
    def activemask(self):
        return self.block.active_lanes(self.tid // 32)

    def lanemask_lt(self):
        return (1 << self.laneid) - 1

    def warp(self, op, mask, *operands):
        label = f"{_WARP_NAMES[op]}(mask={int(mask):#x})"
        values = self.block.warp_exchange(self.tid, label, int(mask), operands)
        lane = self.laneid
        if op == "sync":
            return None
        if op in ("all", "any", "eq", "ballot"):
            votes = [bool(v[0]) for v in values.values()]
            if op == "ballot":
                return sum(1 << other for other, v in values.items() if v[0])
            if op == "all":
                return int(all(votes))
            if op == "any":
                return int(any(votes))
            return int(all(votes) or not any(votes))
        value = operands[0]
        if op == "match_any":
            return sum(1 << other for other, v in values.items() if v[0] == value)
        if op == "match_all":
            agree = all(v[0] == value for v in values.values())
            return (sum(1 << other for other in values), True) if agree else (0, False)
        arg = int(operands[1])
        source = {"shfl": arg % 32, "shfl_up": lane - arg, "shfl_down": lane + arg,
                  "shfl_xor": lane ^ arg}[op]
        return values[source][0] if source in values else value

"""One simulated thread block: the state its threads share (the barrier, warp exchanges,
shared memory) and the bookkeeping that reports a barrier not all threads can reach as a
DeadlockError naming them, instead of hanging.

Every wait goes through one condition variable per block. `running` counts the threads
that are neither waiting nor finished; when it drops to zero while some thread waits, no
one is left to release it: that is a deadlock.
"""
from __future__ import annotations

import threading
from collections import namedtuple

import numpy as np

from ..errors import DeadlockError
from . import pyfuncs

Dim3 = namedtuple("Dim3", "x y z")
EXITED = "exited"
GRID_SYNC = "cg.this_grid().sync()"


class Aborted(BaseException):
    """Unwinds a simulated thread after another thread of its block failed (a
    BaseException, so that nothing in the kernel catches it)."""


class Grid:
    """What all blocks of one launch share (and, for a cooperative launch, its barrier)."""

    def __init__(self, kernel, config, args, shared_limit, cooperative=False):
        self.name = kernel.__name__
        self.py_func = kernel.py_func
        self.args = args
        # NumPy's floating-point errors: ignored (integers wrap, x/0 is inf, 0/0 NaN, as on
        # a GPU), except that a debug kernel's zero divisor raises (FloatingPointError)
        self.errors = {"all": "ignore", "divide": "raise"} if kernel.options.get("debug") \
            else {"all": "ignore"}
        self.gridDim = Dim3(*config.griddim)
        self.blockDim = Dim3(*config.blockdim)
        self.nthreads = config.threads_per_block
        self.sharedmem = config.sharedmem
        self.shared_limit = shared_limit
        blocks = config.griddim[0] * config.griddim[1] * config.griddim[2]
        self.barrier = GridBarrier(blocks * self.nthreads) if cooperative else None
        self._functions = {}

    def function(self, func):
        """`func` as this launch runs it (simulator/pyfuncs.py), made once per launch."""
        found = self._functions.get(func)
        if found is None:
            found = self._functions[func] = pyfuncs.simulated(func)
        return found

    def thread_index(self, tid) -> tuple:
        bx, by, _ = self.blockDim
        return (tid % bx, tid // bx % by, tid // (bx * by))


class GridBarrier:
    """`cg.this_grid().sync()` for the blocks of a cooperative launch, which all run at
    once. A thread waiting here counts as waiting in its block too (so the block's own
    deadlock check sees it), and the thread that completes a barrier counts every waiter
    back in before any of them runs on. When every thread left is waiting here but some
    have exited, the barrier can never complete: a DeadlockError, as in a block.
    Lock order: the barrier's, then a block's."""

    def __init__(self, total):
        self.cv = threading.Condition(threading.Lock())
        self.blocks = []
        self.total = total
        self.arrived = self.exited = self.generation = 0
        self.failure = None

    def sync(self, block, tid):
        block.enter_grid_wait(tid)
        with self.cv:
            if self.failure is not None:
                raise Aborted
            self.arrived += 1
            if self.arrived == self.total:
                self.arrived = 0
                self.generation += 1
                for each in self.blocks:
                    each.leave_grid_wait()
                self.cv.notify_all()
                return
            failure = self._stuck(block)
            generation = self.generation
            while failure is None and self.generation == generation:
                # a block's own deadlock check fails it under its lock, which must not take
                # this one: look at the blocks' failures too, now and then
                if self.failure is not None or any(b.failure is not None for b in self.blocks):
                    raise Aborted
                self.cv.wait(0.05)
        if failure is not None:
            self.fail(failure)
            raise Aborted

    def thread_exited(self, block):
        with self.cv:
            self.exited += 1
            failure = self._stuck(block)
        if failure is not None:
            self.fail(failure)

    def _stuck(self, block):
        """The DeadlockError when the threads left all wait here (holding cv), else None."""
        if not (self.exited and self.arrived and self.arrived + self.exited == self.total):
            return None
        return DeadlockError(
            f"deadlock in kernel '{block.grid.name}': {self.arrived} threads wait in "
            f"{GRID_SYNC} and {self.exited} have exited without reaching it; every thread "
            "of the grid must reach a grid sync")

    def fail(self, exc):
        """Abort every block (an error anywhere ends a cooperative kernel)."""
        with self.cv:
            if self.failure is not None:
                return
            self.failure = exc
            self.cv.notify_all()
        for each in self.blocks:
            each.fail(exc)


class _WarpRound:
    __slots__ = ("values", "result", "generation")

    def __init__(self):
        self.values, self.result, self.generation = {}, None, 0


def _describe(grid, tids, limit=8):
    shown = ", ".join(str(grid.thread_index(t)) for t in tids[:limit])
    return shown + (f" ... ({len(tids)} threads)" if len(tids) > limit else "")


class Block:
    def __init__(self, grid, index):
        self.grid = grid
        if grid.barrier is not None:
            grid.barrier.blocks.append(self)
        self.idx = index
        self.nthreads = n = grid.nthreads
        self.cv = threading.Condition(threading.Lock())
        self.done = threading.Event()
        self.failure = None
        self.running = n
        self.finished = 0
        self.waiting_on = [None] * n  # per thread: what it waits in, EXITED, or None
        self._arrived = self._count = self._result = self._generation = 0
        self._warp_rounds = {}
        self._shared = {}
        self._shared_bytes = grid.sharedmem
        self._dynamic = np.empty(grid.sharedmem, np.uint8)

    # -- lifecycle ---------------------------------------------------------------------
    def fail(self, exc):
        """Record the block's first error and wake every waiting thread to abort."""
        with self.cv:
            if self.failure is None:
                self.failure = exc
            self.cv.notify_all()
        if self.grid.barrier is not None:
            self.grid.barrier.fail(exc)

    def finish(self, tid):
        with self.cv:
            self.waiting_on[tid] = EXITED
            self.finished += 1
            self.running -= 1
            if self.running == 0 and self.finished < self.nthreads and self.failure is None \
                    and self._held_here():
                self._deadlock()
            if self.finished == self.nthreads:
                self.done.set()
        if self.grid.barrier is not None:
            self.grid.barrier.thread_exited(self)

    def _held_here(self) -> bool:
        """Whether a waiting thread waits for this block's threads (not the grid's)."""
        return any(label not in (None, EXITED, GRID_SYNC) for label in self.waiting_on)

    def enter_grid_wait(self, tid):
        with self.cv:
            self._check_failure()
            self.waiting_on[tid] = GRID_SYNC
            self.running -= 1
            if self.running == 0 and self._held_here():
                self._deadlock()
                raise Aborted

    def leave_grid_wait(self):
        """A grid sync completed: its waiters here run again."""
        with self.cv:
            for tid, label in enumerate(self.waiting_on):
                if label == GRID_SYNC:
                    self.waiting_on[tid] = None
                    self.running += 1

    def _wait(self, tid, label, released):
        """Wait (holding cv) until `released()`; the caller has counted itself in."""
        self.waiting_on[tid] = label
        self.running -= 1
        if self.running == 0:   # with this thread waiting here, the block holds it
            self._deadlock()
        while not released():
            if self.failure is not None:
                raise Aborted
            self.cv.wait()
        self.waiting_on[tid] = None

    def _deadlock(self):
        groups = {}
        for tid, label in enumerate(self.waiting_on):
            groups.setdefault(label, []).append(tid)
        exited = groups.pop(EXITED, [])
        groups.pop(None, None)
        waits = "; ".join(f"threads {_describe(self.grid, tids)} wait in {label}"
                          for label, tids in groups.items())
        reason = f"threads {_describe(self.grid, exited)} have exited without reaching it" \
            if exited else "they wait for each other"
        self.failure = DeadlockError(
            f"deadlock in kernel '{self.grid.name}', block {tuple(self.idx)}: {waits}; "
            f"{reason}")
        self.cv.notify_all()

    def _check_failure(self):
        if self.failure is not None:
            raise Aborted

    # -- barrier -----------------------------------------------------------------------
    def syncthreads(self, tid, predicate) -> int:
        """Wait for all threads; returns how many passed a true predicate."""
        with self.cv:
            self._check_failure()
            self._arrived += 1
            if predicate:
                self._count += 1
            if self._arrived == self.nthreads:
                self._result = self._count
                self._arrived = self._count = 0
                self._generation += 1
                self.running += self.nthreads - 1
                self.cv.notify_all()
                return self._result
            generation = self._generation
            self._wait(tid, "syncthreads()", lambda: self._generation != generation)
            return self._result

    # -- warps -------------------------------------------------------------------------
    def warp_lanes(self, warp) -> int:
        """The mask of the lanes that exist in warp `warp` (the last may be partial)."""
        return (1 << min(32, self.nthreads - 32 * warp)) - 1

    def warp_exchange(self, tid, label, mask, payload) -> dict:
        """Wait for the lanes of `mask` (in this thread's warp); returns lane -> payload."""
        warp, lane = divmod(tid, 32)
        members = mask & self.warp_lanes(warp)
        if not members >> lane & 1:
            raise ValueError(f"{label} called from lane {lane}, which its mask excludes")
        key = (warp, members)
        size = bin(members).count("1")
        with self.cv:
            self._check_failure()
            current = self._warp_rounds.get(key)
            if current is None:
                current = self._warp_rounds[key] = _WarpRound()
            current.values[lane] = payload
            if len(current.values) == size:
                current.result, current.values = current.values, {}
                current.generation += 1
                self.running += size - 1
                self.cv.notify_all()
                return current.result
            generation = current.generation
            self._wait(tid, label, lambda: current.generation != generation)
            return current.result

    def active_lanes(self, warp) -> int:
        base = 32 * warp
        mask = 0
        for lane in range(min(32, self.nthreads - base)):
            if self.waiting_on[base + lane] is not EXITED:
                mask |= 1 << lane
        return mask

    # -- shared memory -----------------------------------------------------------------
    def shared_array(self, shape, dtype, site) -> np.ndarray:
        """The block's array for this call site; shape (0,) is the dynamic shared memory."""
        ary = self._shared.get(site)
        if ary is not None:
            return ary
        with self.cv:
            ary = self._shared.get(site)
            if ary is None:
                ary = self._shared[site] = self._allocate(shape, dtype)
        return ary

    def _allocate(self, shape, dtype):
        if shape == (0,):
            usable = len(self._dynamic) - len(self._dynamic) % dtype.itemsize
            return self._dynamic[:usable].view(dtype)
        ary = np.empty(shape, dtype)
        self._shared_bytes += ary.nbytes
        if self._shared_bytes > self.grid.shared_limit:
            raise MemoryError(f"kernel '{self.grid.name}' uses {self._shared_bytes} bytes of "
                              "shared memory per block, more than the device's "
                              f"{self.grid.shared_limit}")
        return ary

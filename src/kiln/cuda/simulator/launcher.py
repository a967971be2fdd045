"""Running a grid: blocks one after another, each block's threads concurrently on a pool
of Python threads (reused across blocks and launches), so that `syncthreads` is a real
barrier. Errors come back to the launching thread naming the kernel, block and thread;
each thread's printed lines come out whole (output.py).
NumPy's floating-point warnings are off in kernels: its integer scalars wrap and 0.0/0.0
is NaN without a word, as on a GPU (in a debug kernel a zero divisor raises)."""
from __future__ import annotations

import queue
import sys
import threading

import numpy as np

from .. import kernelcontext
from ..devicearray import DeviceNDArray
from ..errors import KernelError
from . import memory, output
from .block import Aborted, Block, Dim3, Grid
from .thread import ThreadContext


class _Pool:
    """Daemon workers taking (block, thread id) tasks. There are at least as many workers
    as the largest block has threads, so all of a block's threads can wait at once."""

    def __init__(self):
        self.tasks = queue.SimpleQueue()
        self.size = 0

    def ensure(self, nthreads):
        while self.size < nthreads:
            threading.Thread(target=self._work, name=f"kiln-cudasim-{self.size}",
                             daemon=True).start()
            self.size += 1

    def _work(self):
        while True:
            block, tid = self.tasks.get()
            _run_thread(block, tid)

    def run(self, blocks):
        """Run the blocks' threads at once and wait for them all."""
        for block in blocks:
            for tid in range(block.nthreads):
                self.tasks.put((block, tid))
        try:
            for block in blocks:
                block.done.wait()
        except BaseException:  # an interrupted launch releases the blocks' waiting threads
            for block in blocks:
                block.fail(KernelError(f"launch of kernel '{block.grid.name}' interrupted"))
            raise


_pool = _Pool()
_launch_lock = threading.Lock()


def _located(exc, block, ctx):
    """`exc` again, its message naming the kernel, block and thread."""
    where = (f"in kernel '{block.grid.name}' at blockIdx={tuple(block.idx)}, "
             f"threadIdx={tuple(ctx.threadIdx)}")
    message = str(exc)
    if isinstance(exc, ValueError) and "read-only" in message:
        message = ("the kernel writes to a read-only array (a cuda.const array or a read-only "
                   f"argument): {message}")
    try:
        located = type(exc)(f"{message} [{where}]")
    except Exception:
        located = KernelError(f"{type(exc).__name__}: {message} [{where}]")
    return located.with_traceback(exc.__traceback__)


def _run_thread(block, tid):
    ctx = ThreadContext(block, tid)
    kernelcontext.enter(ctx)
    try:
        if block.failure is None:
            with np.errstate(**block.grid.errors):
                result = block.grid.function(block.grid.py_func)(*block.grid.args)
            if result is not None:
                raise TypeError(f"kernel '{block.grid.name}' returned {result!r}; CUDA kernels "
                                "return nothing: write results into an array argument")
    except Aborted:
        pass
    except Exception as exc:
        block.fail(_located(exc, block, ctx))
    finally:
        if isinstance(sys.stdout, output.LineStdout):
            sys.stdout.flush_thread()
        kernelcontext.leave()
        block.finish(tid)


def _kernel_arg(arg):
    if isinstance(arg, DeviceNDArray):
        ary = memory.view(arg)
        # records: `p = a[i]; p.x += 1` writes the array, as in compiled code
        return ary.view(np.recarray) if ary.dtype.names is not None else ary
    if isinstance(arg, tuple):
        items = [_kernel_arg(a) for a in arg]
        return type(arg)(*items) if hasattr(arg, "_fields") else tuple(items)  # namedtuples
    return arg


def launch(kernel, config, args, shared_limit, cooperative=False):
    """Run the grid: block after block, or, for a cooperative launch (a kernel that syncs
    its grid), every block at once."""
    grid = Grid(kernel, config, tuple(_kernel_arg(a) for a in args), shared_limit,
                cooperative)
    gx, gy, gz = config.griddim
    indices = [Dim3(x, y, z) for z in range(gz) for y in range(gy) for x in range(gx)]
    with _launch_lock, output.whole_lines():
        if cooperative:
            blocks = [Block(grid, index) for index in indices]
            _pool.ensure(grid.nthreads * len(blocks))
            _pool.run(blocks)
            for block in blocks:
                if block.failure is not None:
                    raise block.failure
            return
        _pool.ensure(grid.nthreads)
        for index in indices:
            block = Block(grid, index)
            _pool.run([block])
            if block.failure is not None:
                raise block.failure

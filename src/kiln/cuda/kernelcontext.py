"""Which kernel thread the current Python thread is executing, if any.

The in-kernel API (`cuda.threadIdx`, `cuda.syncthreads()`, `cuda.atomic.add`...) is a set
of stubs. The compiled back-end recognizes them by identity and never calls them; when a
kernel runs as Python (the simulator), each stub forwards to the *thread context* that the
back-end installed for the running thread. The context provides, by name:

    threadIdx, blockIdx, blockDim, gridDim, laneid    (Dim3 values / int)
    grid(ndim), gridsize(ndim)
    syncthreads(), syncthreads_count(p), syncthreads_and(p), syncthreads_or(p)
    threadfence(), threadfence_block(), threadfence_system()
    shared_array(shape, dtype, site), local_array(shape, dtype), const_array_like(ary)
    atomic(op, ary, idx, *operands)
    warp(op, mask, *operands), activemask(), lanemask_lt()
    call(func, args, kwargs)                          (a device function's Python)
"""
from __future__ import annotations

import threading

_tls = threading.local()


def current(what: str):
    """The running kernel thread's context; `what` names the API for the error outside one."""
    try:
        return _tls.context
    except AttributeError:
        raise RuntimeError(f"{what} can only be used inside a CUDA kernel or device "
                           "function") from None


def in_kernel() -> bool:
    return hasattr(_tls, "context")


def enter(context) -> None:
    _tls.context = context


def leave() -> None:
    del _tls.context

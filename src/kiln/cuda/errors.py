"""The errors kiln.cuda raises, with Numba's names where Numba has one."""
from __future__ import annotations


class CudaSupportError(RuntimeError):
    """No CUDA device or back-end is available to run kernels.

    Numba raises this name too; the message says how to get the simulator instead.
    """


class CudaAPIError(RuntimeError):
    """A device operation the back-end refused (bad device id, a closed context...)."""


class KernelError(RuntimeError):
    """An error raised inside a kernel that is not a plain Python exception type we can
    re-raise (the message names the kernel, the block and the thread)."""


class DeadlockError(RuntimeError):
    """Threads of a block wait at a barrier or warp operation that others will never reach."""


NO_DEVICE_HINT = (
    "kiln.cuda found no CUDA GPU it can use. Set KILN_ENABLE_CUDASIM=1 (or "
    "NUMBA_ENABLE_CUDASIM=1) before importing kiln to run kernels in the CUDA simulator.")

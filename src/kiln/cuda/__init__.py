"""kiln.cuda: Numba's CUDA programming model (`@cuda.jit` kernels, thread indexing, shared
memory, atomics, device arrays, streams, events) on kiln.

Set KILN_ENABLE_CUDASIM=1 (or NUMBA_ENABLE_CUDASIM=1) before importing to run kernels in
the simulator, on any machine. The back-end is chosen when this module is first imported
(see backend.py); without a GPU or the simulator, `is_available()` is False and launching
a kernel raises CudaSupportError saying how to enable the simulator.
"""
# ruff: noqa: F401  (this module is the public namespace: its imports are its exports)
from . import fp16, libdevice, random
from .bitmath import brev, cbrt, clz, ffs, fma, popc
from .vectors import ALIASES as _VECTOR_ALIASES
from .vectors import KINDS as _VECTOR_KINDS
from .args import In, InOut, Out
from .devicearray import DeviceNDArray
from .dlpack import from_dlpack
from .devices import (close, cuda_error, current_context, default_stream, defer_cleanup,
                      detect, event, event_elapsed_time, external_stream, get_current_device,
                      gpus, is_available, is_supported_version, legacy_default_stream,
                      list_devices, per_thread_default_stream, profile_start, profile_stop,
                      profiling, select_device, stream, synchronize)
from .dtypes import (b1, bool_, boolean, byte, c8, c16, complex64, complex128, f2, f4, f8,
                     float16, float32, float64, i1, i2, i4, i8, int8, int16, int32, int64, intp,
                     u1, u2, u4, u8, uint8, uint16, uint32, uint64, uintp, void, none)
from .errors import CudaAPIError, CudaSupportError, DeadlockError, KernelError
from .external import declare_device
from .fp16 import is_float16_supported
from .host import (MappedNDArray, as_cuda_array, device_array, device_array_like,
                   from_cuda_array_interface, is_cuda_array, managed_array, mapped,
                   mapped_array, mapped_array_like, pinned, pinned_array, pinned_array_like,
                   to_device)
from .intrinsics import (activemask, all_sync, any_sync, atomic, ballot_sync, blockDim, cg,
                         blockIdx, const, eq_sync, grid, gridDim, gridsize, lanemask_lt, local,
                         match_all_sync, match_any_sync, nanosleep, selp, shared,
                         shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, syncthreads,
                         syncthreads_and, syncthreads_count, syncthreads_or, syncwarp,
                         threadfence, threadfence_block, threadfence_system, threadIdx,
                         warpsize)
from .ipc import IpcArrayHandle, open_ipc_array
from .kernel import ConfiguredKernel, DeviceFunction, Kernel, jit
from .nvrtc import CUSource
from .reduction import Reduce, reduce

globals().update(_VECTOR_KINDS)     # cuda.float32x4 & co.
globals().update(_VECTOR_ALIASES)   # and C's names: cuda.float4, cuda.uint2, ...

# Attributes whose value differs per thread: compiled code reads them through the cuda
# target's ("attr", name) template on this module (cuda/nvvm.py), not as frozen constants.
_kiln_per_thread_ = frozenset({"laneid"})


def __getattr__(name):
    # The compiler loads on first use, so that importing kiln.cuda stays cheap.
    if name in ("compile_ptx", "compile_ptx_for_current_device"):
        from . import ptx
        return getattr(ptx, name)
    # `cuda.laneid` differs per thread, so it cannot be a plain module attribute.
    if name == "laneid":
        from .kernelcontext import current
        return current("cuda.laneid").laneid
    raise AttributeError(f"module 'kiln.cuda' has no attribute {name!r}")

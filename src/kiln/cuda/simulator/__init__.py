"""The CUDA simulator: kiln.cuda's back-end when KILN_ENABLE_CUDASIM=1 (or
NUMBA_ENABLE_CUDASIM=1). Kernels run as Python, one Python thread per CUDA thread, on one
simulated device whose memory is host memory."""
from __future__ import annotations

from ..backend import Backend
from ..errors import CudaAPIError, CudaSupportError
from . import launcher, memory
from .device import SimContext, SimDevice
from .streams import SimEvent, SimStream


class SimulatorBackend(Backend):
    name = "simulator"
    simulated = True

    def __init__(self):
        self._device = SimDevice()
        self._context = None
        self._default = SimStream(0, "default stream")
        self._per_thread = SimStream(2, "per-thread default stream")

    def is_available(self):
        return True

    def devices(self):
        return [self._device]

    def context(self):
        if self._context is None:
            self._context = SimContext(self._device)
        return self._context

    def select_device(self, device_id):
        if device_id != 0:
            raise CudaAPIError(f"the simulator has one device, 0; there is no device "
                               f"{device_id}")
        return self.context().device

    def close(self):
        self._context = None

    def synchronize(self):
        """Simulated work is finished when its call returns."""

    allocate = staticmethod(memory.allocate)
    wrap_pointer = staticmethod(memory.wrap_pointer)

    def ipc_handle(self, *args):
        raise CudaSupportError("CUDA IPC handles need a GPU (the driver back-end): the "
                               "simulator's device memory is this process's own")

    open_ipc = ipc_handle
    copy_htod = staticmethod(memory.copy_htod)
    copy_dtoh = staticmethod(memory.copy_dtoh)
    copy_dtod = staticmethod(memory.copy_dtod)
    host_empty = staticmethod(memory.host_empty)
    mapped_empty = staticmethod(memory.mapped_empty)

    def stream(self):
        return SimStream()

    def default_stream(self):
        return self._default

    legacy_default_stream = default_stream

    def per_thread_default_stream(self):
        return self._per_thread

    def external_stream(self, ptr):
        return SimStream(ptr, "external stream")

    def event(self, timing=True):
        return SimEvent(timing)

    def is_stream(self, obj):
        return isinstance(obj, SimStream)

    def kernel_resources(self, kernel, argtypes):
        """What the kernel compiled for the simulated device (sm_80) uses, by ptxas's
        report: the simulator itself runs Python and has no registers."""
        from .. import toolkit
        from ..ptx import compile_ptx
        from kiln.types import Signature, void
        device = self.context().device
        ptx, _ = compile_ptx(kernel, Signature(void, tuple(argtypes)),
                             cc=device.compute_capability, **kernel.compile_options())
        usage = toolkit.ptxas_usage(toolkit.check_ptx(ptx, device.compute_capability))
        return usage | {"max_threads_per_block": device.MAX_THREADS_PER_BLOCK}

    def launch(self, kernel, config, args):
        device = self.context().device
        cooperative = kernel.cooperative
        if cooperative:
            blocks = config.griddim[0] * config.griddim[1] * config.griddim[2]
            limit = self.max_cooperative_blocks(kernel, (), config.threads_per_block,
                                                config.sharedmem)
            if blocks > limit:
                raise CudaAPIError(
                    f"kernel '{kernel.__name__}' syncs its grid (cuda.cg), so all its blocks "
                    f"must be resident at once: at most {limit} blocks of "
                    f"{config.threads_per_block} threads, not {blocks} "
                    "(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)")
        launcher.launch(kernel, config, args, device.MAX_SHARED_MEMORY_PER_BLOCK, cooperative)

    def max_cooperative_blocks(self, kernel, argtypes, threads, dynamic_shared):
        """The simulated device's: as many blocks as its SMs hold by thread count."""
        device = self.context().device
        return device.MULTIPROCESSOR_COUNT * (device.MAX_THREADS_PER_MULTIPROCESSOR // threads)

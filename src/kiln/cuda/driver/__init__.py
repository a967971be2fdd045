"""The hardware back-end: kiln.cuda's API on NVIDIA GPUs through the CUDA driver
(`cuda-bindings`). backend.py makes it active when `load()` finds the bindings, the driver
and a GPU; otherwise the reason is what `cuda.is_available()`'s CudaSupportError says.

    api.py         the driver calls, checked        device.py    devices, primary contexts
    ptxversion.py  which PTX the driver loads       memory.py    allocations and copies
    modules.py     compile, load, cache per device  streams.py   streams and events
    jitlink.py     PTX to cubin for old drivers     launcher.py  parameters, cuLaunchKernel
    ipc.py         memory shared between processes

NONE OF THIS HAS RUN ON A GPU YET (see docs/gpu.md): it is unit-tested against a recording
double of the driver (tests/cuda/test_driver_logic.py)."""
from __future__ import annotations

import threading

from ..backend import Backend
from ..errors import CudaAPIError
from . import api, ipc, launcher, memory, streams
from .device import Context, Device
from .modules import ModuleCache


class _Selected(threading.local):
    """The device each host thread selected (0 until it selects one)."""

    device_id = 0


class DriverBackend(Backend):
    name = "driver"
    simulated = False

    def __init__(self, driver: api.Driver):
        self.driver = driver
        self.driver_version = driver.call("cuDriverGetVersion")
        self._devices = [Device(driver, i) for i in range(driver.call("cuDeviceGetCount"))]
        self._contexts = {}
        self._current = _Selected()
        self.modules = ModuleCache(driver, self.driver_version)

    def is_available(self):
        return True

    def devices(self):
        return list(self._devices)

    # -- contexts: one primary context per device, the current one per host thread --------
    def context(self):
        device_id = self._current.device_id
        context = self._contexts.get(device_id)
        if context is None:
            context = self._contexts[device_id] = Context(self._devices[device_id])
        return context

    def select_device(self, device_id):
        if not 0 <= device_id < len(self._devices):
            raise CudaAPIError(f"there is no CUDA device {device_id}; this machine has "
                               f"{len(self._devices)} (0 to {len(self._devices) - 1})")
        self._current.device_id = device_id
        self.context().make_current()
        return self._devices[device_id]

    def close(self):
        device_id = self._current.device_id
        context = self._contexts.pop(device_id, None)
        if context is not None:
            context.release()
            self.modules.forget(device_id)

    def synchronize(self):
        self.context().synchronize()

    # -- memory ---------------------------------------------------------------------------
    def allocate(self, nbytes):
        return memory.allocate(self.context(), nbytes)

    def wrap_pointer(self, pointer, nbytes, readonly, owner):
        return memory.wrap_pointer(self.context(), pointer, nbytes, readonly, owner)

    def copy_htod(self, dst, src, stream):
        memory.copy_htod(self.context(), dst, src, stream)

    def copy_dtoh(self, dst, src, stream):
        memory.copy_dtoh(self.context(), dst, src, stream)

    def copy_dtod(self, dst, src, stream):
        memory.copy_dtod(self.context(), dst, src, stream)

    def ipc_handle(self, memory):
        return ipc.handle_of(self.context(), memory)

    def open_ipc(self, handle, nbytes):
        return ipc.open_handle(self.context(), handle, nbytes)

    def host_empty(self, shape, dtype, strides):
        return memory.host_empty(self.context(), shape, dtype, strides)

    def mapped_empty(self, shape, dtype, strides):
        return memory.mapped_empty(self.context(), shape, dtype, strides)

    # -- streams and events ---------------------------------------------------------------
    def stream(self):
        return streams.create_stream(self.context())

    def default_stream(self):
        return streams.Stream(self.context(), 0, "default stream")

    def legacy_default_stream(self):
        return streams.Stream(self.context(), streams.LEGACY_DEFAULT, "legacy default stream")

    def per_thread_default_stream(self):
        return streams.Stream(self.context(), streams.PER_THREAD_DEFAULT,
                              "per-thread default stream")

    def external_stream(self, ptr):
        return streams.Stream(self.context(), ptr, "external stream")

    def event(self, timing=True):
        return streams.Event(self.context(), timing)

    def is_stream(self, obj):
        return isinstance(obj, streams.Stream)

    def launch(self, kernel, config, args):
        launcher.launch(self.modules, self.context(), kernel, config, args)

    def bind_launch(self, configured):
        from . import entry   # (its code generation loads at the first launch, not import)
        entry.bind(configured, self.driver, self.context())

    def launch_known(self, kernel, config, args):
        return launcher.launch_known(self.modules, self.context(), kernel, config, args)

    def max_cooperative_blocks(self, kernel, argtypes, threads, dynamic_shared):
        return launcher.max_cooperative_blocks(self.modules, self.context(), kernel,
                                               argtypes, threads, dynamic_shared)

    def compiled_argtypes(self, kernel) -> list:
        return self.modules.compiled_argtypes(kernel)

    def kernel_resources(self, kernel, argtypes):
        """The driver's attributes of the kernel loaded on the current device."""
        context = self.context()
        function = self.modules.get(kernel, tuple(argtypes), context).function
        context.make_current()
        return {name: self.driver.call("cuFuncGetAttribute",
                                       self.driver.enum("CUfunction_attribute",
                                                        f"CU_FUNC_ATTRIBUTE_{attribute}"),
                                       function)
                for name, attribute in _FUNCTION_ATTRIBUTES.items()}


_FUNCTION_ATTRIBUTES = {"regs_per_thread": "NUM_REGS",
                        "shared_mem_per_block": "SHARED_SIZE_BYTES",
                        "local_mem_per_thread": "LOCAL_SIZE_BYTES",
                        "const_mem_size": "CONST_SIZE_BYTES",
                        "max_threads_per_block": "MAX_THREADS_PER_BLOCK"}


def load():
    """(DriverBackend, None) when a GPU can be used, else (None, the reason)."""
    driver, why = api.load()
    if driver is None:
        return None, why
    return DriverBackend(driver), None

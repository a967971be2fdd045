"""The back-end behind kiln.cuda's API, chosen once: the simulator when kiln.cuda is first
imported with it requested, else the hardware's at the first use of a device.

`KILN_ENABLE_CUDASIM=1` (or Numba's `NUMBA_ENABLE_CUDASIM=1`) selects the simulator.
Otherwise the hardware back-end (driver/, through NVIDIA's cuda-bindings) is used when the
bindings, the driver and a GPU are there; when one is missing kiln.cuda gets `NoDevice`,
whose every device operation raises a `CudaSupportError` saying what was missing, what to
install and how to get the simulator. The API never simulates silently.

`Backend` is the interface a back-end implements; the API layer (kernel.py, devices.py,
devicearray.py, host.py) reaches devices only through `active`.
"""
from __future__ import annotations

import os

from .errors import NO_DEVICE_HINT, CudaSupportError

SIMULATOR_VARIABLES = ("KILN_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM")


def simulator_requested(environ=os.environ) -> bool:
    return any(environ.get(name, "").strip() not in ("", "0") for name in SIMULATOR_VARIABLES)


class Backend:
    """What the API needs from a back-end. The base methods say that no device is there."""

    name = "none"
    simulated = False
    reason = ""   # why no device can be used (for NoDevice)

    def is_available(self) -> bool:
        return False

    def devices(self) -> list:
        return []

    def _no_device(self, *args, **kwargs):
        raise CudaSupportError(f"{self.reason}. {NO_DEVICE_HINT}" if self.reason
                               else NO_DEVICE_HINT)

    # Devices and contexts: context() returns the current context, creating it on first use.
    context = select_device = close = synchronize = _no_device
    # Memory: allocate(nbytes) and wrap_pointer(ptr, nbytes, readonly, owner) return objects
    # with `device_pointer` and `nbytes`; copies take DeviceNDArrays and NumPy arrays of
    # equal dtype and (squeezed) shape; host_empty/mapped_empty return NumPy arrays (the
    # latter with the device address of its memory as a second result).
    allocate = wrap_pointer = copy_htod = copy_dtoh = copy_dtod = _no_device
    # IPC: ipc_handle(memory) -> the allocation's 64-byte handle; open_ipc(handle, nbytes)
    # -> memory mapped from another process (closed when no array uses it).
    ipc_handle = open_ipc = _no_device
    host_empty = mapped_empty = _no_device
    # Streams and events.
    stream = default_stream = legacy_default_stream = per_thread_default_stream = _no_device
    external_stream = event = is_stream = _no_device
    # launch(kernel, LaunchConfig, args): args are DeviceNDArrays, scalars and tuples.
    # kernel_resources(kernel, argtypes): the compiled kernel's use of the device, a dict of
    # RESOURCES (what `kernel.get_regs_per_thread()` & co. report).
    # max_cooperative_blocks(kernel, argtypes, threads, dynamic_shared): the largest grid
    # of a cooperative launch (one whose blocks are all resident at once).
    launch = kernel_resources = max_cooperative_blocks = _no_device

    def compiled_argtypes(self, kernel) -> list:
        """The argument types the kernel was compiled for by its launches (where the
        back-end compiles: the simulator runs Python)."""
        return []

    def bind_launch(self, configured):
        """Give a ConfiguredKernel a faster call, if the back-end has one (the driver's:
        compiled launch entries)."""

    def launch_known(self, kernel, config, args) -> bool:
        """Launch by a short path kept for arguments of these kinds, if the back-end has one
        (False: it launched nothing; the API converts the arguments and calls `launch`)."""
        return False


RESOURCES = ("regs_per_thread", "shared_mem_per_block", "local_mem_per_thread",
             "const_mem_size", "max_threads_per_block")


class NoDevice(Backend):
    """No GPU and no simulator: kernels can be defined (and compiled to PTX), not run."""

    def __init__(self, reason=""):
        self.reason = reason


def _load_driver() -> Backend:
    from .driver import load
    hardware, reason = load()
    return hardware if hardware is not None else NoDevice(reason)


def __getattr__(name):
    """`active` is the hardware back-end, loaded at its first use (the driver's bindings
    and its back-end were a third of `import kiln.cuda`'s time); whether it is the
    simulator was decided at import, from the environment then, as Numba does."""
    global active
    if name == "active":
        active = _load_driver()
        return active
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if simulator_requested():
    from .simulator import SimulatorBackend
    active: Backend = SimulatorBackend()

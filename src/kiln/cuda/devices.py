"""Devices, contexts, streams and events: Numba's `cuda.*` management functions, each a thin
call into the active back-end."""
from __future__ import annotations

import contextlib

from . import backend


def is_available() -> bool:
    """True when kernels can run: a usable GPU, or the simulator."""
    return backend.active.is_available()


def cuda_error() -> str | None:
    """Why kiln.cuda cannot use a GPU (what is missing, what to install), or None when it
    can (or runs the simulator)."""
    return backend.active.reason or None


def detect() -> bool:
    """Print the devices kiln.cuda can use; True if there is at least one."""
    devices = backend.active.devices()
    if not devices:
        print(f"kiln.cuda found no CUDA devices: {backend.active.reason or 'none reported'} "
              "(set KILN_ENABLE_CUDASIM=1 for the simulator)")
        return False
    print(f"Found {len(devices)} CUDA devices")
    for dev in devices:
        major, minor = dev.compute_capability
        print(f"id {dev.id:<4} {dev.name:<40} [SUPPORTED]")
        print(f"{'Compute Capability':>40}: {major}.{minor}")
        print(f"{'UUID':>40}: {dev.uuid}")
    print(f"Summary:\n\t{len(devices)}/{len(devices)} devices are supported")
    return True


def is_supported_version() -> bool:
    """Whether the CUDA present is one kiln.cuda supports: the simulator, or a driver whose
    JIT loads PTX (CUDA 10.0 or newer: driver/ptxversion.py)."""
    active = backend.active
    if active.simulated:
        return True
    version = getattr(active, "driver_version", None)
    if version is None:
        return False
    from .driver.ptxversion import max_ptx_isa
    return max_ptx_isa(version) > 0


def list_devices():
    return list(backend.active.devices())


class _DeviceList:
    """`cuda.gpus`: the devices, indexable and iterable, with the current one as `.current`."""

    def __len__(self):
        return len(backend.active.devices())

    def __getitem__(self, index):
        return backend.active.devices()[index]

    def __iter__(self):
        return iter(backend.active.devices())

    @property
    def current(self):
        return backend.active.context().device

    def __repr__(self):
        return f"<Managed device list: {backend.active.devices()}>"


gpus = _DeviceList()


def current_context():
    """The current context (created on first use), with `memory_manager.deallocations`."""
    return backend.active.context()


def get_current_device():
    return backend.active.context().device


def select_device(device_id):
    """Make device `device_id` current and return it."""
    return backend.active.select_device(device_id)


def close():
    """Destroy the current context; the next use creates a fresh one."""
    backend.active.close()


def synchronize():
    """Wait for all work on the current device."""
    backend.active.synchronize()


def stream():
    """A new stream."""
    return backend.active.stream()


def default_stream():
    return backend.active.default_stream()


def legacy_default_stream():
    return backend.active.legacy_default_stream()


def per_thread_default_stream():
    return backend.active.per_thread_default_stream()


def external_stream(ptr):
    """A stream object for a stream created elsewhere (e.g. by CuPy), from its handle."""
    return backend.active.external_stream(ptr)


def event(timing=True):
    """A new event; `record()` it on a stream, then `elapsed_time` between two."""
    return backend.active.event(timing)


def event_elapsed_time(evtstart, evtend) -> float:
    """Milliseconds between two recorded events."""
    return evtstart.elapsed_time(evtend)


def defer_cleanup():
    """A context manager that holds device deallocations until it exits."""
    return backend.active.context().memory_manager.deallocations.disable()


@contextlib.contextmanager
def profiling():
    yield


def profile_start():
    """Start the CUDA profiler (no effect without a GPU)."""


def profile_stop():
    """Stop the CUDA profiler (no effect without a GPU)."""

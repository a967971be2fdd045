"""GPUs as the driver reports them, and their primary contexts.

kiln uses each device's primary context (the one the CUDA runtime, CuPy and PyTorch share),
so pointers and streams pass between them and kiln without translation. Frees are queued
(`PendingDeallocations`) while `cuda.defer_cleanup()` holds them, as in Numba."""
from __future__ import annotations

import contextlib
import uuid as uuidlib
from collections import namedtuple

MemoryInfo = namedtuple("MemoryInfo", "free total")


class Device:
    """One GPU; attributes read as `device.MULTIPROCESSOR_COUNT` (the driver's
    CU_DEVICE_ATTRIBUTE_* names, queried once each)."""

    def __init__(self, driver, ordinal):
        self.driver = driver
        self.id = ordinal
        self.handle = driver.call("cuDeviceGet", ordinal)
        name = driver.call("cuDeviceGetName", 256, self.handle)
        self.name = (name.split(b"\0", 1)[0].decode() if isinstance(name, bytes)
                     else str(name))
        self.compute_capability = (self.COMPUTE_CAPABILITY_MAJOR,
                                   self.COMPUTE_CAPABILITY_MINOR)

    def __getattr__(self, attr):
        if attr.startswith("_") or not attr.isupper():
            raise AttributeError(attr)
        try:
            which = self.driver.enum("CUdevice_attribute", f"CU_DEVICE_ATTRIBUTE_{attr}")
        except AttributeError:
            raise AttributeError(f"CUDA devices have no attribute {attr!r}") from None
        value = self.driver.call("cuDeviceGetAttribute", which, self.handle)
        setattr(self, attr, value)   # attributes do not change while the process runs
        return value

    @property
    def uuid(self) -> str:
        raw = self.driver.call("cuDeviceGetUuid", self.handle)
        return f"GPU-{uuidlib.UUID(bytes=bytes(getattr(raw, 'bytes', raw))[:16])}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def reset(self):
        """Destroy the primary context's state (all allocations and modules)."""
        self.driver.call("cuDevicePrimaryCtxReset", self.handle)

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"


class PendingDeallocations:
    """Frees held back while `cuda.defer_cleanup()` is active, done when it exits."""

    def __init__(self):
        self._pending = []
        self._disabled = 0

    def add(self, free):
        if self._disabled:
            self._pending.append(free)
        else:
            free()

    def clear(self):
        pending, self._pending = self._pending, []
        for free in pending:
            free()

    def __len__(self):
        return len(self._pending)

    @contextlib.contextmanager
    def disable(self):
        self._disabled += 1
        try:
            yield
        finally:
            self._disabled -= 1
            if not self._disabled:
                self.clear()


class MemoryManager:
    def __init__(self, driver):
        self.driver = driver
        self.deallocations = PendingDeallocations()

    def get_memory_info(self) -> MemoryInfo:
        return MemoryInfo(*self.driver.call("cuMemGetInfo"))


class Context:
    """A device's primary context, made current on the calling thread when created."""

    def __init__(self, device):
        self.device = device
        self.driver = device.driver
        self.handle = self.driver.call("cuDevicePrimaryCtxRetain", device.handle)
        self.driver.call("cuCtxSetCurrent", self.handle)
        self.memory_manager = MemoryManager(self.driver)
        self.deallocations = self.memory_manager.deallocations
        self.released = False

    id = property(lambda self: self.device.id)
    compute_capability = property(lambda self: self.device.compute_capability)

    def get_memory_info(self) -> MemoryInfo:
        return self.memory_manager.get_memory_info()

    def make_current(self):
        self.driver.call("cuCtxSetCurrent", self.handle)

    def synchronize(self):
        self.make_current()
        self.driver.call("cuCtxSynchronize")

    def release(self):
        """Free what is pending and let go of the primary context."""
        if not self.released:
            self.deallocations.clear()
            self.driver.call("cuDevicePrimaryCtxRelease", self.device.handle)
            self.released = True

    def reset(self):
        self.device.reset()

    def __repr__(self):
        return f"<CUDA context for {self.device!r}>"

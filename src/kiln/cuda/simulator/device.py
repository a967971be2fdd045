"""The simulated device and its context: plausible properties (those of a compute
capability 8.0 GPU with as many SMs as the host has cores) and host memory as device
memory."""
from __future__ import annotations

import contextlib
import os
from collections import namedtuple

MemoryInfo = namedtuple("MemoryInfo", "free total")

_ATTRIBUTES = {
    "MAX_THREADS_PER_BLOCK": 1024,
    "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024, "MAX_BLOCK_DIM_Z": 64,
    "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535,
    "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024,
    "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 163 * 1024,
    "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 164 * 1024,
    "TOTAL_CONSTANT_MEMORY": 64 * 1024,
    "WARP_SIZE": 32,
    "MAX_REGISTERS_PER_BLOCK": 65536,
    "MAX_THREADS_PER_MULTIPROCESSOR": 2048,
    "MULTIPROCESSOR_COUNT": os.cpu_count() or 1,
    "CLOCK_RATE": 1410000,
    "MEMORY_CLOCK_RATE": 1215000,
    "GLOBAL_MEMORY_BUS_WIDTH": 5120,
    "L2_CACHE_SIZE": 40 * 1024 * 1024,
    "COMPUTE_CAPABILITY_MAJOR": 8, "COMPUTE_CAPABILITY_MINOR": 0,
    "ASYNC_ENGINE_COUNT": 0, "CONCURRENT_KERNELS": 0, "UNIFIED_ADDRESSING": 1,
    "CAN_MAP_HOST_MEMORY": 1, "MANAGED_MEMORY": 1, "INTEGRATED": 0, "ECC_ENABLED": 0,
    "PCI_BUS_ID": 0, "PCI_DEVICE_ID": 0, "PCI_DOMAIN_ID": 0,
    "KERNEL_EXEC_TIMEOUT": 0, "COMPUTE_MODE": 0,
}


def host_memory_info() -> MemoryInfo:
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        total = os.sysconf("SC_PHYS_PAGES") * page
        return MemoryInfo(os.sysconf("SC_AVPHYS_PAGES") * page, total)
    except (ValueError, OSError, AttributeError):
        return MemoryInfo(float("inf"), float("inf"))


class SimDevice:
    """The one simulated GPU; device attributes read as `device.MULTIPROCESSOR_COUNT`."""

    id = 0
    name = "kiln CUDA simulator"
    uuid = "GPU-00000000-0000-0000-0000-000000000000"
    compute_capability = (8, 0)

    def __getattr__(self, attr):
        try:
            return _ATTRIBUTES[attr]
        except KeyError:
            raise AttributeError(f"the simulated device has no attribute {attr!r}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def reset(self):
        """Nothing to reset: the simulator keeps no device state between launches."""

    def __repr__(self):
        return f"<CUDA device {self.id} '{self.name}'>"


class PendingDeallocations:
    """Numba's deferred-free list. Simulated memory is freed by Python's reference
    counting, so nothing is ever pending; it exists so GPU code (`.clear()`) runs."""

    def clear(self):
        pass

    def __len__(self):
        return 0

    @contextlib.contextmanager
    def disable(self):
        yield


class MemoryManager:
    def __init__(self):
        self.deallocations = PendingDeallocations()

    def get_memory_info(self) -> MemoryInfo:
        return host_memory_info()


class SimContext:
    """The context of the simulated device (Numba's `cuda.current_context()`)."""

    def __init__(self, device):
        self.device = device
        self.memory_manager = MemoryManager()
        self.deallocations = self.memory_manager.deallocations

    id = property(lambda self: self.device.id)
    compute_capability = property(lambda self: self.device.compute_capability)

    def get_memory_info(self) -> MemoryInfo:
        return self.memory_manager.get_memory_info()

    def synchronize(self):
        """Simulated work is finished when its call returns."""

    def reset(self):
        """Nothing to reset: see SimDevice.reset."""

    def __repr__(self):
        return f"<CUDA context for {self.device!r}>"

"""CUDA IPC through the driver: a handle of a device allocation (cuIpcGetMemHandle) that
another process on the same machine opens (cuIpcOpenMemHandle) to map the same memory;
the mapping is closed (cuIpcCloseMemHandle) when the last array over it goes. The API side
(handles of arrays, pickling, `open_ipc_array`) is cuda/ipc.py."""
from __future__ import annotations

import weakref

from ..errors import CudaAPIError
from .memory import DeviceMemory

HANDLE_BYTES = 64   # sizeof(CUipcMemHandle)


def handle_of(context, memory) -> bytes:
    """The IPC handle of the allocation `memory` (one kiln made, not a view of foreign
    memory: the driver gives handles of whole allocations)."""
    context.make_current()
    handle = context.driver.call("cuIpcGetMemHandle", memory.device_pointer)
    return bytes(handle.reserved)[:HANDLE_BYTES]


def open_handle(context, data: bytes, nbytes) -> DeviceMemory:
    """The memory another process's handle names, mapped here until no array uses it."""
    driver = context.driver
    handle = driver.module.CUipcMemHandle()
    handle.reserved = bytes(data)
    context.make_current()
    try:
        pointer = int(driver.call("cuIpcOpenMemHandle", handle, driver.enum(
            "CUipcMem_flags", "CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS")))
    except CudaAPIError as exc:
        raise CudaAPIError(f"{exc}: an IPC handle opens in another process on the same "
                           "machine (not in the one that made it), on a device that can "
                           "reach the memory") from None
    memory = DeviceMemory(pointer, nbytes, context.device.id)
    weakref.finalize(memory, context.deallocations.add,
                     lambda: None if context.released
                     else driver.call("cuIpcCloseMemHandle", pointer))
    return memory

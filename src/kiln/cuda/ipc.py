"""Device arrays shared between processes on one machine (Numba's IPC API):
`array.get_ipc_handle()` gives an `IpcArrayHandle` that pickles; another process opens it
(`handle.open()`, or `with handle as array:`) to get a DeviceNDArray over the same memory,
without a copy. `open_ipc_array(handle, shape, dtype)` does the same for a raw 64-byte
`cudaIpcMemHandle_t` from another library (CuPy's `ipcGetMemHandle`). The driver back-end
maps the memory (driver/ipc.py); the simulator has no memory another process can map."""
from __future__ import annotations

import contextlib

import numpy as np

from . import backend
from .devicearray import DeviceNDArray, c_strides


class IpcArrayHandle:
    """A device array's IPC handle: the allocation's driver handle and the array's place in
    it (shape, strides, dtype, byte offset). Pickles; `open()` in another process."""

    def __init__(self, handle: bytes, nbytes, shape, strides, dtype, offset):
        self.handle = bytes(handle)
        self.nbytes = nbytes
        self.shape, self.strides = tuple(shape), tuple(strides)
        self.dtype = np.dtype(dtype)
        self.offset = offset
        self._opened = None

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_opened"}

    def __setstate__(self, state):
        self.__dict__.update(state, _opened=None)

    def open(self) -> DeviceNDArray:
        """The array, mapped in this process (its memory stays mapped while it is used)."""
        if self._opened is None:
            memory = backend.active.open_ipc(self.handle, self.nbytes)
            self._opened = DeviceNDArray(self.shape, self.strides, self.dtype,
                                         gpu_data=memory, offset=self.offset)
        return self._opened

    def close(self):
        """Drop this handle's array; the mapping closes when no view of it is left."""
        self._opened = None

    def __enter__(self):
        return self.open()

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<IpcArrayHandle {self.dtype} {self.shape}>"


def handle_of(array: DeviceNDArray) -> IpcArrayHandle:
    memory = array.gpu_data
    return IpcArrayHandle(backend.active.ipc_handle(memory), memory.nbytes, array.shape,
                          array.strides, array.dtype, array._offset)


@contextlib.contextmanager
def open_ipc_array(handle, shape, dtype, strides=None, offset=0):
    """A DeviceNDArray over the memory of a raw IPC handle (64 bytes) from another process,
    for the duration of the block."""
    dtype = np.dtype(dtype)
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    strides = c_strides(shape, dtype.itemsize) if strides is None else tuple(strides)
    extent = offset + (sum((n - 1) * s for n, s in zip(shape, strides)) + dtype.itemsize
                       if all(shape) else 0)
    ipc = IpcArrayHandle(bytes(handle), extent, shape, strides, dtype, offset)
    with ipc as array:
        yield array

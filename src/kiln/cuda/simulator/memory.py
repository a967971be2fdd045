"""Simulated device memory: host bytes (a NumPy uint8 buffer per allocation), so a device
array's kernel-side value is a NumPy view and copies are NumPy assignments."""
from __future__ import annotations

import numpy as np


class SimMemory:
    """One allocation; `device_pointer` is its host address (used by the CUDA Array
    Interface, which the simulator reads back as host memory)."""

    __slots__ = ("buffer", "device_pointer", "nbytes")

    def __init__(self, buffer):
        self.buffer = buffer
        self.nbytes = buffer.nbytes
        self.device_pointer = buffer.__array_interface__["data"][0]


class _AddressRange:
    """Exposes an address range to NumPy without copying, keeping its owner alive."""

    def __init__(self, pointer, nbytes, readonly, owner):
        self.__array_interface__ = {"data": (pointer, readonly), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}
        self.owner = owner


def allocate(nbytes) -> SimMemory:
    return SimMemory(np.empty(nbytes, np.uint8))


def wrap_pointer(pointer, nbytes, readonly, owner) -> SimMemory:
    if nbytes == 0:
        return allocate(0)
    return SimMemory(np.asarray(_AddressRange(pointer, nbytes, readonly, owner)))


def view(devary) -> np.ndarray:
    """The NumPy array a kernel sees for a DeviceNDArray (read-only if it is)."""
    ary = np.ndarray(devary.shape, devary.dtype, buffer=devary.gpu_data.buffer,
                     offset=devary._offset, strides=devary.strides)
    if devary.readonly:
        ary.flags.writeable = False
    return ary


def _assign(dst, src):
    dst[...] = src.reshape(dst.shape)


def copy_htod(dst, src, stream):
    _assign(view(dst), src)


def copy_dtoh(dst, src, stream):
    _assign(dst, view(src))


def copy_dtod(dst, src, stream):
    _assign(view(dst), view(src))


def host_empty(shape, dtype, strides) -> np.ndarray:
    extent = sum((n - 1) * s for n, s in zip(shape, strides)) + dtype.itemsize \
        if all(shape) else 0
    return np.ndarray(shape, dtype, buffer=np.empty(extent, np.uint8), strides=strides)


def mapped_empty(shape, dtype, strides):
    host = host_empty(shape, dtype, strides)
    return host, host.__array_interface__["data"][0]

"""Device memory through the driver: allocations freed when their last array goes (through
the context's deferred-free list), foreign pointers wrapped without copying, page-locked and
mapped host memory, and copies between host and device for any strides.

A copy of a contiguous device array moves its bytes in one cuMemcpy; a strided device view
is copied by a kernel (cuda/stridedcopy.py), through a C-contiguous device array when the
other side is on the host. A copy on stream 0 is synchronous (the host may read the result
at once, as in Numba); on another stream it is queued and the caller synchronizes."""
from __future__ import annotations

import weakref

import numpy as np

_ALLOC_HINT = ("cuda.current_context().get_memory_info() says what is free; "
               "cuda.current_context().deallocations.clear() frees what is deferred")


class DeviceMemory:
    """One device allocation (`device_pointer` is its CUdeviceptr as an int) on the device
    numbered `device_id` (what DLPack exports say)."""

    __slots__ = ("device_pointer", "nbytes", "device_id", "owner", "__weakref__")

    def __init__(self, device_pointer, nbytes, device_id, owner=None):
        self.device_pointer = device_pointer
        self.nbytes = nbytes
        self.device_id = device_id
        self.owner = owner   # what keeps foreign memory alive (a CuPy array, a tensor)


def allocate(context, nbytes) -> DeviceMemory:
    if nbytes == 0:
        return DeviceMemory(0, 0, context.device.id)
    context.make_current()
    driver = context.driver
    try:
        pointer = int(driver.call("cuMemAlloc", nbytes))
    except Exception as exc:
        raise type(exc)(f"{exc} allocating {nbytes} bytes: {_ALLOC_HINT}") from None
    memory = DeviceMemory(pointer, nbytes, context.device.id)
    weakref.finalize(memory, context.deallocations.add,
                     lambda: None if context.released else driver.call("cuMemFree", pointer))
    return memory


def wrap_pointer(context, pointer, nbytes, readonly, owner) -> DeviceMemory:
    """Memory allocated elsewhere (for the current device), kept alive by `owner`, never
    freed by kiln."""
    return DeviceMemory(int(pointer), nbytes, context.device.id, owner)


def span(devary) -> tuple:
    """(device address of the lowest byte, number of bytes) of the device array."""
    low, high = devary._byte_range()
    return low, high - low


def _contiguous_like(devary, host) -> bool:
    """Whether the device array and the host array hold the same bytes in the same order."""
    if devary.is_c_contiguous() and host.flags.c_contiguous:
        return True
    return devary.is_f_contiguous() and host.flags.f_contiguous and \
        not devary.is_c_contiguous()


def _host_address(ary) -> int:
    return ary.__array_interface__["data"][0]


def _stream_handle(stream) -> int:
    return int(stream) if stream else 0


def copy_htod(context, dst, src, stream):
    pointer, nbytes = span(dst)
    if not nbytes:
        return
    context.make_current()
    src = src.reshape(dst.shape)
    repeats = [s == 0 and n > 1 for n, s in zip(src.shape, src.strides)]
    if (dst.is_c_contiguous() or dst.is_f_contiguous()) and not any(repeats):
        order = "C" if dst.is_c_contiguous() else "F"
        _to_device(context, pointer, np.asarray(src, order=order), nbytes, stream)
        return
    from .. import stridedcopy
    from ..devicearray import broadcast_to
    once = src[tuple(slice(0, 1) if r else slice(None) for r in repeats)]   # each value once
    staged = stridedcopy.staging(once.shape, dst)
    copy_htod(context, staged, once, stream)
    stridedcopy.copy(dst, broadcast_to(staged, dst.shape), stream)
    _synchronize_default(context, stream)


def copy_dtoh(context, dst, src, stream):
    pointer, nbytes = span(src)
    if not nbytes:
        return
    context.make_current()
    if _contiguous_like(src, dst):
        _to_host(context, dst, pointer, nbytes, stream)
        return
    if src.is_c_contiguous() or src.is_f_contiguous():   # into a host array of other strides
        staging = np.empty(src.shape, src.dtype, order="C" if src.is_c_contiguous() else "F")
        _to_host(context, staging, pointer, nbytes, stream)
        if _stream_handle(stream):
            context.driver.call("cuStreamSynchronize", _stream_handle(stream))
        dst[...] = staging
        return
    from .. import stridedcopy
    staged = stridedcopy.staging(src.shape, src)
    stridedcopy.copy(staged, src, stream)
    copy_dtoh(context, dst, staged, stream)


def copy_dtod(context, dst, src, stream):
    dst_pointer, nbytes = span(dst)
    if not nbytes:
        return
    context.make_current()
    if dst.is_c_contiguous() and src.is_c_contiguous() or \
            dst.is_f_contiguous() and src.is_f_contiguous():
        src_pointer = span(src)[0]
        handle = _stream_handle(stream)
        context.driver.call("cuMemcpyDtoDAsync", dst_pointer, src_pointer, nbytes, handle)
        _synchronize_default(context, stream)
        return
    from .. import stridedcopy
    stridedcopy.copy(dst, src, stream)
    _synchronize_default(context, stream)


def _synchronize_default(context, stream):
    """A copy on stream 0 is done when it returns."""
    if not _stream_handle(stream):
        context.driver.call("cuStreamSynchronize", 0)


def _to_device(context, pointer, host, nbytes, stream):
    context.driver.call("cuMemcpyHtoDAsync", pointer, _host_address(host), nbytes,
                        _stream_handle(stream))
    _synchronize_default(context, stream)


def _to_host(context, host, pointer, nbytes, stream):
    context.driver.call("cuMemcpyDtoHAsync", _host_address(host), pointer, nbytes,
                        _stream_handle(stream))
    _synchronize_default(context, stream)


# -- page-locked and mapped host memory -----------------------------------------------------
class _HostBuffer:
    """Page-locked host bytes seen by NumPy; freed with cuMemFreeHost when NumPy lets go."""

    def __init__(self, context, nbytes, flags):
        context.make_current()
        driver = context.driver
        self.pointer = int(driver.call("cuMemHostAlloc", max(nbytes, 1), flags))
        self.__array_interface__ = {"data": (self.pointer, False), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}
        weakref.finalize(self, context.deallocations.add,
                         lambda p=self.pointer: None if context.released
                         else driver.call("cuMemFreeHost", p))


def _extent(shape, dtype, strides) -> int:
    return sum((n - 1) * s for n, s in zip(shape, strides)) + dtype.itemsize \
        if all(shape) else 0


def host_empty(context, shape, dtype, strides, flags=0) -> np.ndarray:
    buffer = np.asarray(_HostBuffer(context, _extent(shape, dtype, strides), flags))
    return np.ndarray(shape, dtype, buffer=buffer, strides=strides)


def mapped_empty(context, shape, dtype, strides):
    flags = getattr(context.driver.module, "CU_MEMHOSTALLOC_DEVICEMAP", 0x02)
    host = host_empty(context, shape, dtype, strides, flags)
    base = _host_address(host.base if host.base is not None else host)
    device = int(context.driver.call("cuMemHostGetDevicePointer", base, 0))
    return host, device + _host_address(host) - base


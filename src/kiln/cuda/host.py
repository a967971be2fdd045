"""Host-side memory API: transfers, device/pinned/mapped allocation, and the CUDA Array
Interface (`__cuda_array_interface__`), with Numba's names and signatures; views of
foreign memory (the interface's and DLPack's)."""
from __future__ import annotations

import contextlib

import numpy as np

from . import backend
from .devicearray import DeviceNDArray, c_strides, f_strides, normalize_shape
from .dtypes import as_numpy_dtype


def _strides(shape, dtype, strides, order):
    if strides is not None:
        return normalize_shape(strides)
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    return (c_strides if order == "C" else f_strides)(shape, dtype.itemsize)


def _order_like(ary):
    return "F" if ary.ndim > 1 and ary.flags["F_CONTIGUOUS"] and \
        not ary.flags["C_CONTIGUOUS"] else "C"


def _strides_like(ary):
    """Strides of a new contiguous array laid out as `ary` (None where C or F order does):
    the axes keep the order of `ary`'s strides, as NumPy's `empty_like` (Numba's
    `_contiguous_strides_like_array`)."""
    if ary.flags["C_CONTIGUOUS"] or ary.flags["F_CONTIGUOUS"] or ary.ndim <= 1:
        return None
    strides, step = [0] * ary.ndim, ary.dtype.itemsize
    for axis, _ in sorted(enumerate(ary.strides), key=lambda pair: pair[1]):
        strides[axis] = step
        step *= ary.shape[axis]
    return tuple(strides)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """An uninitialized array on the device."""
    shape, dtype = normalize_shape(shape), as_numpy_dtype(dtype)
    return DeviceNDArray(shape, _strides(shape, dtype, strides, order), dtype, stream)


def device_array_like(ary, stream=0):
    """An uninitialized device array with `ary`'s shape, dtype and layout (contiguous, its
    axes in the order of `ary`'s strides)."""
    return device_array(ary.shape, ary.dtype, strides=_strides_like(ary),
                        order=_order_like(ary), stream=stream)


def to_device(obj, stream=0, copy=True, to=None):
    """Copy a host array (or anything np.asarray accepts) to the device; a device array is
    returned as it is. `to` is an existing device array to copy into."""
    if to is not None:
        to.copy_to_device(obj, stream=stream)
        return to
    if isinstance(obj, DeviceNDArray):
        return obj
    ary = np.asarray(obj)
    dev = device_array(ary.shape, ary.dtype, order=_order_like(ary), stream=stream)
    if copy:
        dev.copy_to_device(ary, stream=stream)
    return dev


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """A host array in page-locked memory (a plain NumPy array)."""
    shape, dtype = normalize_shape(shape), as_numpy_dtype(dtype)
    return backend.active.host_empty(shape, dtype, _strides(shape, dtype, strides, order))


def pinned_array_like(ary):
    return pinned_array(ary.shape, ary.dtype, strides=_strides_like(ary),
                        order=_order_like(ary))


class MappedNDArray(np.ndarray):
    """A host array that kernels read and write in place (mapped or managed memory): a
    NumPy array with a `__cuda_array_interface__`."""

    def __array_finalize__(self, obj):
        self._host_base = getattr(obj, "_host_base", None)
        self._device_base = getattr(obj, "_device_base", None)

    @property
    def __cuda_array_interface__(self):
        if self._device_base is None:
            raise AttributeError("this array is not in mapped memory")
        address = self.__array_interface__["data"][0]
        return {"shape": self.shape,
                "strides": None if self.flags.c_contiguous else self.strides,
                "data": (self._device_base + address - self._host_base, False),
                "typestr": self.dtype.str, "descr": self.dtype.descr,
                "stream": None, "version": 3}


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False,
                 wc=False):
    """A host array the device can access directly."""
    shape, dtype = normalize_shape(shape), as_numpy_dtype(dtype)
    host, device_pointer = backend.active.mapped_empty(shape, dtype,
                                                       _strides(shape, dtype, strides, order))
    mapped = host.view(MappedNDArray)
    mapped._host_base = host.__array_interface__["data"][0]
    mapped._device_base = device_pointer
    return mapped


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    return mapped_array(ary.shape, ary.dtype, strides=_strides_like(ary),
                        order=_order_like(ary), stream=stream)


def managed_array(shape, dtype=np.float64, strides=None, order="C", stream=0,
                  attach_global=True):
    """Unified memory, visible to host and device (mapped memory in kiln)."""
    return mapped_array(shape, dtype, strides, order, stream)


@contextlib.contextmanager
def pinned(*arylist):
    """Page-lock host arrays for the duration of the block (a no-op where not needed)."""
    yield


@contextlib.contextmanager
def mapped(*arylist, stream=0, portable=False, wc=False):
    """Device arrays for host arrays for the duration of the block, copied back after."""
    devs = [to_device(ary, stream=stream) for ary in arylist]
    yield devs[0] if len(devs) == 1 else devs
    for ary, dev in zip(arylist, devs):
        dev.copy_to_host(ary, stream=stream)


def is_cuda_array(obj) -> bool:
    """True for objects with a `__cuda_array_interface__` (device arrays, CuPy, PyTorch...)."""
    return hasattr(obj, "__cuda_array_interface__")


def as_cuda_array(obj, sync=True) -> DeviceNDArray:
    """A DeviceNDArray view (no copy) of any object with a `__cuda_array_interface__`, or
    else with DLPack (`__dlpack__`). NumPy arrays are host arrays: `to_device` copies them."""
    if isinstance(obj, DeviceNDArray):
        return obj
    if is_cuda_array(obj):
        return from_cuda_array_interface(obj.__cuda_array_interface__, owner=obj, sync=sync)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, np.ndarray):
        from .dlpack import from_dlpack
        return from_dlpack(obj)
    raise TypeError(f"{type(obj).__name__} object does not implement the CUDA Array "
                    "Interface (__cuda_array_interface__) or DLPack (__dlpack__)")


def from_cuda_array_interface(desc, owner=None, sync=True, consumer=None) -> DeviceNDArray:
    """A DeviceNDArray over the memory a CUDA Array Interface dictionary describes; with
    `sync`, after the producer's work on the stream it names (interface version 3) is
    ordered before work on `consumer` (see `wait_for_producer`)."""
    if desc.get("mask") is not None:
        raise NotImplementedError("masked CUDA arrays are not supported")
    shape = normalize_shape(desc["shape"])
    descr = desc.get("descr")
    dtype = np.dtype(descr) if descr and len(descr) > 1 else np.dtype(desc["typestr"])
    strides = desc.get("strides")
    strides = c_strides(shape, dtype.itemsize) if strides is None else normalize_shape(strides)
    pointer, readonly = desc["data"]
    if sync:
        wait_for_producer(desc, consumer)
    return wrap_foreign(pointer, shape, strides, dtype, readonly, owner)


def wait_for_producer(desc, consumer=None):
    """Order the work a CUDA Array Interface's producer queued on its `stream` before work
    kiln queues on `consumer` (0 or a stream; None: not known yet). Nothing to do without a
    producer stream, nor for the legacy default stream (1, CuPy's and PyTorch's default)
    when the consumer is a blocking stream, which waits for it; otherwise the host waits
    for the producer's stream."""
    producer = desc.get("stream")
    if not producer:
        return
    if producer == 1 and consumer is not None and waits_for_legacy_stream(consumer):
        return
    backend.active.external_stream(producer).synchronize()


def waits_for_legacy_stream(consumer) -> bool:
    """Whether work queued on `consumer` (0 or a stream) waits for the legacy default
    stream's: the default stream itself and blocking streams do."""
    return getattr(consumer, "blocking", not consumer)


def wrap_foreign(pointer, shape, strides, dtype, readonly, owner) -> DeviceNDArray:
    """A DeviceNDArray over memory kiln did not allocate (element 0 at `pointer`, strides
    in bytes), which `owner` keeps alive for as long as any view of it lives."""
    size = int(np.prod(shape, dtype=np.int64))
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0) if size else 0
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0) + dtype.itemsize \
        if size else 0
    memory = backend.active.wrap_pointer(pointer + low, high - low, bool(readonly), owner)
    return DeviceNDArray(shape, strides, dtype, gpu_data=memory, offset=-low,
                         readonly=bool(readonly))

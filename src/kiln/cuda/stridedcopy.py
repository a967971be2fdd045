"""Copies to, from and between strided device views, done by a kernel on the device (the
driver back-end's; the simulator's NumPy copies need none).

Only the view's elements move, never the bytes between them: the other way, a host staging
buffer spanning the view, moved the whole span both ways for a column of a large matrix and
wrote back the bytes between the elements, racing with any other stream writing them. A
host array goes to or comes from a C-contiguous device array of the view's shape first; a
host array that repeats values along some axes (zero strides: `d[:] = 0`, a broadcast row)
goes to the device once, and the kernel repeats it. The elements move as unsigned integers
of the widest size (8, 4, 2 or 1 bytes) that divides the item size, every stride and both
addresses, an item of several such units along an extra axis, so a few kernels serve every
dtype (records and complex numbers included)."""
from __future__ import annotations

import numpy as np

from .devicearray import DeviceNDArray
from .elementwise import LoopKernels

_KERNELS = LoopKernels("copy", "strided", None, ["dst", "src"], "dst[{i}] = src[{i}]")


def copy(dst, src, stream=0):
    """Copy the device array `src` into the device array `dst` of the same dtype and shape
    (or one that differs only in axes of length one), queued on `stream`."""
    if src.shape != dst.shape:   # seen with dst's axes of one (their strides never used)
        strides = iter(s for n, s in zip(src.shape, src.strides) if n != 1)
        src = src._view(dst.shape, [0 if n == 1 else next(strides) for n in dst.shape])
    unit = _unit(dst, src)
    dst_units, src_units = _as_units(dst, unit), _as_units(src, unit)
    _KERNELS.launch([dst_units, src_units], dst_units.ndim, stream)


def staging(shape, like) -> DeviceNDArray:
    """A new C-contiguous device array of `shape` and the dtype of the device array `like`."""
    return DeviceNDArray(shape, None, like.dtype, like.stream)


def _unit(*arrays) -> int:
    sizes = [a.itemsize for a in arrays] + [s for a in arrays for s in a.strides] + \
        [a._pointer() for a in arrays]
    return next(u for u in (8, 4, 2, 1) if all(n % u == 0 for n in sizes))


def _as_units(devary, unit):
    dtype = np.dtype(f"u{unit}")
    if devary.itemsize == unit:
        return devary._view(devary.shape, devary.strides, dtype=dtype)
    return devary._view((*devary.shape, devary.itemsize // unit), (*devary.strides, unit),
                        dtype=dtype)

"""`DeviceNDArray`: an array in device memory, with Numba's host-side interface.

The class only knows geometry (shape, strides, dtype, byte offset into an allocation);
moving bytes is the back-end's job (`backend.active.copy_*`), so the same class serves the
simulator and the compiled GPU back-end. Views (slicing, reshape, transpose) share the
allocation and never copy.
"""
from __future__ import annotations

import ctypes
import functools
import math
import operator

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import backend
from .dtypes import as_numpy_dtype


def c_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def f_strides(shape, itemsize):
    strides, step = [], itemsize
    for extent in shape:
        strides.append(step)
        step *= max(extent, 1)
    return tuple(strides)


def normalize_shape(shape) -> tuple:
    """A shape as a tuple of ints: from an int, or a tuple, list or 1-d array of ints."""
    if isinstance(shape, (tuple, list)) or getattr(shape, "ndim", 0) == 1:
        return tuple(operator.index(n) for n in shape)
    return (operator.index(shape),)


def _basic_index(key) -> tuple:
    """The index as a tuple, refusing what would make NumPy copy (arrays, lists, bools)."""
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            continue
        if isinstance(k, (bool, np.bool_)) or not hasattr(k, "__index__"):
            raise TypeError(f"device arrays support only integer and slice indexing, not {k!r}")
    return key


def _broadcasts(shape, to) -> bool:
    try:
        return np.broadcast_shapes(shape, to) == tuple(to)
    except ValueError:
        return False


def broadcast_to(array, shape):
    """`array` seen with `shape` by NumPy's broadcasting rules (the caller checked that its
    shape broadcasts to it): a view whose strides are 0 along the axes it repeats."""
    shape = tuple(shape)
    if array.shape == shape:
        return array
    missing = len(shape) - array.ndim
    strides = [0] * missing + [0 if n == 1 and m != 1 else s for n, m, s in
                               zip(array.shape, shape[missing:], array.strides)]
    return array._view(shape, strides)


def _host_broadcast(value, dtype, shape) -> np.ndarray:
    """`value` as a host array of `dtype` broadcast to `shape`; what does not broadcast is
    refused as NumPy refuses the same assignment, in its words."""
    value = np.asarray(value, dtype)
    try:
        return np.broadcast_to(value, shape)
    except ValueError:
        stand_in = np.lib.stride_tricks.as_strided(np.empty(1, dtype), shape, (0,) * len(shape))
        stand_in[...] = value   # raises NumPy's "could not broadcast input array from ..."
        raise


class Flags(dict):
    """A device array's flags, read as NumPy's are: `flags["C_CONTIGUOUS"]` or
    `flags.c_contiguous`."""

    def __getattr__(self, name):
        try:
            return self[name.upper()]
        except KeyError:
            raise AttributeError(name) from None


def is_cuda_ndarray(obj) -> bool:
    """Whether `obj` is a device array (Numba's test)."""
    return getattr(obj, "__cuda_ndarray__", False)


def verify_cuda_ndarray_interface(obj):
    """Check that `obj` is a device array with Numba's attributes of one (Numba's)."""
    if not is_cuda_ndarray(obj):
        raise ValueError("require a cuda ndarray object")
    for attr, kind in (("shape", tuple), ("strides", tuple), ("dtype", np.dtype),
                       ("size", int)):
        if not hasattr(obj, attr):
            raise AttributeError(attr)
        if not isinstance(getattr(obj, attr), kind):
            raise AttributeError(f"{attr} must be of type {kind}")


def array_core(ary):
    """The part of `ary` its broadcast (0-stride) axes repeat (Numba's)."""
    if not ary.strides or not ary.size:
        return ary
    return ary[tuple(0 if stride == 0 else slice(None) for stride in ary.strides)]


def is_contiguous(ary) -> bool:
    """Whether `ary` is C-contiguous, leaving out its broadcast and length-1 axes (Numba's)."""
    size = ary.dtype.itemsize
    for extent, stride in zip(reversed(ary.shape), reversed(ary.strides)):
        if extent > 1 and stride != 0:
            if size != stride:
                return False
            size *= extent
    return True


errmsg_contiguous_buffer = ("Array contains non-contiguous buffer and cannot be transferred "
                            "as a single memory region. Please ensure contiguous buffer with "
                            "numpy .ascontiguousarray()")


def sentry_contiguous(ary):
    """Refuse an array that is neither C- nor F-contiguous (Numba's check before a copy
    to the device)."""
    flags = ary.flags
    if not flags["C_CONTIGUOUS"] and not flags["F_CONTIGUOUS"]:
        if ary.strides[0] == 0:   # a broadcast axis: the rest must be contiguous
            return sentry_contiguous(ary[0])
        raise ValueError("array is not contiguous: copy it first (np.ascontiguousarray)")


def auto_device(obj, stream=0, copy=True, user_explicit=False):
    """(a device array holding `obj`, whether it was copied there): `obj` itself if it is
    one already, else a copy of it (NumPy arrays must be contiguous; scalars and
    sequences become arrays). Numba's `devicearray.auto_device`."""
    if isinstance(obj, DeviceNDArray):
        return obj, False
    if hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, np.ndarray):
        from .host import as_cuda_array
        return as_cuda_array(obj), False
    if isinstance(obj, np.ndarray):
        sentry_contiguous(obj)
    else:
        obj = np.asarray(obj)
    from .host import to_device
    return to_device(obj, stream=stream, copy=copy), True


_AxisError = np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError  # <1.25
_ARRAY_TYPES = {}   # kiln array type -> its one object (DeviceNDArray.intern_type)


class DeviceNDArray:
    """An n-dimensional array on the device (Numba's `DeviceNDArray`)."""

    __array_priority__ = 1
    __cuda_ndarray__ = True

    def __init__(self, shape, strides, dtype, stream=0, gpu_data=None, *, offset=0,
                 readonly=False):
        self.shape = normalize_shape(shape)
        self.dtype = as_numpy_dtype(dtype)
        self.strides = c_strides(self.shape, self.dtype.itemsize) if strides is None \
            else normalize_shape(strides)
        if len(self.strides) != len(self.shape):
            raise ValueError(f"strides {self.strides} do not match shape {self.shape}")
        self.size = math.prod(self.shape)
        if gpu_data is None:
            gpu_data = backend.active.allocate(self._extent())
        self.gpu_data = gpu_data
        self.stream = stream
        self._offset = offset
        self.readonly = readonly

    def _extent(self):
        if self.size == 0:
            return 0
        return sum((n - 1) * abs(s) for n, s in zip(self.shape, self.strides)) + \
            self.dtype.itemsize

    def _byte_range(self) -> tuple:
        """(the address of its lowest byte, the address past its highest): where its
        elements lie, whatever the signs of its strides."""
        if self.size == 0:
            return 0, 0
        low = self._pointer() + sum((n - 1) * s for n, s in zip(self.shape, self.strides)
                                    if s < 0)
        return low, low + self._extent()

    def _view(self, shape, strides, offset=0, dtype=None):
        return DeviceNDArray(shape, strides, self.dtype if dtype is None else dtype,
                             self.stream, self.gpu_data, offset=self._offset + offset,
                             readonly=self.readonly)

    # -- attributes -------------------------------------------------------------------
    ndim = property(lambda self: len(self.shape))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)
    alloc_size = property(lambda self: self.gpu_data.nbytes)
    device_ctypes_pointer = property(lambda self: ctypes.c_void_p(self._pointer()))

    def _pointer(self):
        return self.gpu_data.device_pointer + self._offset if self.size else 0

    # A device array's dtype, shape, strides and memory never change: what every launch
    # needs of it is worked out once and kept on it.
    @functools.cached_property
    def _kiln_type(self):
        """The kiln type kernels see it as (one object per type: compiled launches compare
        identities, cuda/driver/entry.py)."""
        from kiln import types
        layout = "C" if self.is_c_contiguous() else "F" if self.is_f_contiguous() else "A"
        return self.intern_type(types.Array(types.from_dtype(self.dtype), self.ndim, layout,
                                            readonly=self.readonly))

    @staticmethod
    def intern_type(ty):
        """The one object of the array type `ty` that device arrays keep."""
        return _ARRAY_TYPES.setdefault(ty, ty)

    @functools.cached_property
    def _launch_values(self) -> tuple:
        """Its kernel parameters (cuda/abi.py): meminfo, parent, nitems, itemsize, data,
        shape, strides."""
        return (0, 0, self.size, self.dtype.itemsize, self._pointer(), *self.shape,
                *self.strides)

    def is_c_contiguous(self):
        return self._contiguous[0]

    def is_f_contiguous(self):
        return self._contiguous[1]

    @functools.cached_property
    def _contiguous(self) -> tuple:
        """(C-contiguous, F-contiguous)."""
        if self.size == 0:
            return True, True
        strides = self._squeezed(self.strides)
        return (strides == self._squeezed(c_strides(self.shape, self.itemsize)),
                strides == self._squeezed(f_strides(self.shape, self.itemsize)))

    def _squeezed(self, strides):
        return tuple(s for n, s in zip(self.shape, strides) if n != 1)

    @property
    def flags(self):
        return Flags(C_CONTIGUOUS=self.is_c_contiguous(), F_CONTIGUOUS=self.is_f_contiguous(),
                     WRITEABLE=not self.readonly)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape,
                "strides": None if self.is_c_contiguous() else self.strides,
                "data": (self._pointer(), self.readonly),
                "typestr": self.dtype.str,
                "descr": self.dtype.descr,
                "stream": (int(self.stream) if self.stream else 0) or None,
                "version": 3}

    def get_ipc_handle(self):
        """A handle another process on this machine opens to use this array's memory
        without a copy (cuda/ipc.py; it pickles)."""
        from .ipc import handle_of
        return handle_of(self)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this array (no copy unless asked for): see cuda/dlpack.py."""
        from .dlpack import export
        return export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from .dlpack import device_of
        return device_of(self)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self):
        return f"<DeviceNDArray shape={self.shape} dtype={self.dtype}>"

    def bind(self, stream=0):
        """The same array, with `stream` as its default for copies."""
        return DeviceNDArray(self.shape, self.strides, self.dtype, stream, self.gpu_data,
                             offset=self._offset, readonly=self.readonly)

    # -- copies -----------------------------------------------------------------------
    def _check_compatible(self, other):
        if other.dtype != self.dtype:
            raise TypeError(f"incompatible dtype: {self.dtype} vs. {other.dtype}")
        if tuple(n for n in self.shape if n != 1) != tuple(n for n in other.shape if n != 1):
            raise ValueError(f"incompatible shape: {self.shape} vs. {other.shape}")

    def copy_to_host(self, ary=None, stream=0):
        """Copy to `ary` (a NumPy array of the same dtype and shape), or to a new array."""
        if ary is None:
            order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
            ary = np.empty(self.shape, self.dtype, order=order)
        elif not isinstance(ary, np.ndarray):
            raise TypeError(f"copy_to_host copies into a NumPy array, not {type(ary).__name__}")
        self._check_compatible(ary)
        backend.active.copy_dtoh(ary, self, stream or self.stream)
        return ary

    def copy_to_device(self, ary, stream=0):
        """Copy from a host array or another device array of the same dtype and shape."""
        if self.readonly:
            raise ValueError("cannot copy into a read-only device array")
        if hasattr(ary, "__cuda_array_interface__") and not isinstance(ary, np.ndarray):
            from .host import as_cuda_array
            src = ary if isinstance(ary, DeviceNDArray) else as_cuda_array(ary)
            self._check_compatible(src)
            backend.active.copy_dtod(self, src, stream or self.stream)
            return
        ary = np.asarray(ary)
        self._check_compatible(ary)
        backend.active.copy_htod(self, ary, stream or self.stream)

    def __array__(self, dtype=None, copy=None):
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype)

    # -- views ------------------------------------------------------------------------
    def _layout(self):
        """A NumPy array with this geometry over a one-element buffer (never read): lets
        NumPy do the index arithmetic."""
        return as_strided(np.zeros(1, self.dtype), self.shape, self.strides, writeable=False)

    def _index_view(self, key):
        """(the view `key` selects, whether it is a single element)."""
        key = _basic_index(key)
        element = Ellipsis not in key
        layout = self._layout()
        view = layout[key + (Ellipsis,) if element else key]
        offset = view.__array_interface__["data"][0] - layout.__array_interface__["data"][0]
        return self._view(view.shape, view.strides, offset), element and view.ndim == 0

    def __getitem__(self, key):
        view, element = self._index_view(key)
        return view.copy_to_host()[()] if element else view

    def __setitem__(self, key, value):
        view, _ = self._index_view(key)
        if isinstance(value, DeviceNDArray):
            if value.shape != view.shape and _broadcasts(value.shape, view.shape):
                value = broadcast_to(value, view.shape)   # repeated on the device, as NumPy
            view.copy_to_device(value)
        else:   # each repeated value is sent once (a 0-stride view; the copy repeats it)
            view.copy_to_device(_host_broadcast(value, self.dtype, view.shape))

    def reshape(self, *newshape, order="C"):
        """A view with a new shape; the array must be contiguous in `order`."""
        if len(newshape) == 1 and isinstance(newshape[0], (tuple, list)):
            newshape = newshape[0]
        newshape = list(normalize_shape(newshape))
        if newshape.count(-1) > 1:
            raise ValueError("can only specify one unknown dimension")
        if -1 in newshape:
            known = math.prod(n for n in newshape if n != -1)
            newshape[newshape.index(-1)] = self.size // known if known else 0
        if math.prod(newshape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape "
                             f"{tuple(newshape)}")
        if order not in ("C", "F"):
            raise ValueError("order must be 'C' or 'F'")
        if tuple(newshape) == self.shape:   # (whatever its strides, as NumPy)
            return self
        contiguous = self.is_c_contiguous() if order == "C" else self.is_f_contiguous()
        if not contiguous:
            raise NotImplementedError(f"reshape of a non-{order}-contiguous device array would "
                                      "need a copy")
        strides = (c_strides if order == "C" else f_strides)(newshape, self.itemsize)
        return self._view(newshape, strides)

    def ravel(self, order="C", stream=0):
        """A new 1-d view (order 'A': F where the array is F- and not C-contiguous)."""
        if order not in ("C", "F", "A"):
            raise ValueError(f"order must be 'C', 'F' or 'A', not {order!r}")
        if order == "A":
            order = "F" if self.is_f_contiguous() and not self.is_c_contiguous() else "C"
        flat = self.reshape(self.size, order=order)
        return self._view(flat.shape, flat.strides) if flat is self else flat

    def transpose(self, axes=None):
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"invalid axes list {axes}")   # (Numba's words)
        return self._view([self.shape[a] for a in axes], [self.strides[a] for a in axes])

    T = property(transpose)

    def squeeze(self, axis=None, stream=0):
        """A view without the axes of length one (those in `axis`, an int or a tuple, when
        given), as NumPy's."""
        if axis is None:
            axes = {k for k, n in enumerate(self.shape) if n == 1}
        else:
            axes = {operator.index(a) for a in (axis if isinstance(axis, tuple) else (axis,))}
            axes = {a + self.ndim if a < 0 else a for a in axes}
            for a in axes:
                if not 0 <= a < self.ndim:
                    raise _AxisError(a, self.ndim)
                if self.shape[a] != 1:
                    raise ValueError("cannot select an axis to squeeze out which has size "
                                     "not equal to one")
        kept = [k for k in range(self.ndim) if k not in axes]
        return self._view([self.shape[k] for k in kept], [self.strides[k] for k in kept])

    def view(self, dtype):
        """Reinterpret the bytes as another dtype (the last axis must be contiguous)."""
        dtype = as_numpy_dtype(dtype)
        if dtype.itemsize == self.itemsize:   # any geometry: the elements stay where they are
            return self._view(self.shape, self.strides, dtype=dtype)
        if not self.ndim or self.strides[-1] != self.itemsize:
            raise ValueError("To change to a dtype of a different size, the last axis must "
                             "be contiguous: view() needs an array whose last axis is "
                             "contiguous")
        if (self.shape[-1] * self.itemsize) % dtype.itemsize:
            raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                             "the total size in bytes of the last axis of the array.")
        shape = self.shape[:-1] + (self.shape[-1] * self.itemsize // dtype.itemsize,)
        return self._view(shape, self.strides[:-1] + (dtype.itemsize,), dtype=dtype)

    def split(self, section, stream=0):
        """Split a 1-d contiguous array into views of at most `section` elements."""
        if self.ndim != 1 or not self.is_c_contiguous():
            raise ValueError("split() needs a 1-d contiguous array")
        return [self[start:start + section] for start in range(0, self.shape[0], section)]

    def _readonly_view(self):
        return DeviceNDArray(self.shape, self.strides, self.dtype, self.stream, self.gpu_data,
                             offset=self._offset, readonly=True)

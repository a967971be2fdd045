"""`@vectorize([...], target='cuda')`: an elementwise function applied by a CUDA kernel, one
per signature (Numba's CUDA ufuncs).

    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

    rel_diff(a, b)                 # host arrays in, a host array out
    rel_diff(d_a, d_b)             # device arrays in, a device array out (no copy back)

The loop is the first signature every input converts to safely (NumPy's casting; a Python
scalar only by kind, as NumPy 2 treats it). Host inputs are broadcast and converted on the
host, then copied to the device; device inputs must already have the result's shape, the
loop's dtype and C order (broadcasting them would need a copy the caller did not ask for).
The kernel is written with kiln.cuda's own API, so it runs on every back-end, the
simulator included.
"""
from __future__ import annotations

import numpy as np

from ..frontend.source import define_generated
from ..types import parse_signature
from .devicearray import DeviceNDArray
from .host import device_array, to_device
from .intrinsics import grid, gridsize
from .kernel import jit

_THREADS = 128
_MAX_BLOCKS = 1024


class CUDAUFunc:
    """The result of `vectorize(signatures, target='cuda')`: callable like a ufunc on host
    and device arrays and scalars."""

    def __init__(self, pyfunc, signatures):
        if not signatures:
            raise TypeError("vectorize(target='cuda') needs its signatures, as in Numba "
                            "(e.g. ['float32(float32, float32)'])")
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self._device_fn = jit(device=True)(pyfunc)
        self.types = []   # (argument dtypes, result dtype) per loop, in the given order
        for sig in signatures:
            parsed = parse_signature(sig)
            if parsed.return_type is None:
                raise TypeError(f"vectorize(target='cuda') signature {sig!r} needs a return "
                                "type ('float32(float32, float32)')")
            self.types.append((tuple(np.dtype(a.np_dtype) for a in parsed.args),
                               np.dtype(parsed.return_type.np_dtype)))
        self.nin = len(self.types[0][0])
        if any(len(args) != self.nin for args, _ in self.types):
            raise TypeError(f"vectorize(target='cuda') {self.__name__}: every signature needs "
                            "the same number of arguments")
        self.nout = 1
        self._kernel = _elementwise_kernel(self._device_fn, self.nin, self.__name__)

    def __repr__(self):
        return f"<kiln CUDA ufunc {self.__name__!r} ({len(self.types)} loops)>"

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments ({len(args)} given)")
        arg_types, result_type = self._loop_for(args)
        shapes = [np.shape(a) for a in args]
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{self.__name__}(): operands could not be broadcast together "
                             f"with shapes {' '.join(map(str, shapes))}") from None
        if out is not None and (out.shape != shape or out.dtype != result_type):
            raise ValueError(f"{self.__name__}(): out must be a C-contiguous {result_type} "
                             f"array of shape {shape}, not {out.dtype} {out.shape}")
        on_device = any(isinstance(a, DeviceNDArray) for a in args) or \
            isinstance(out, DeviceNDArray)
        inputs = [self._on_device(a, dt, shape, stream) for a, dt in zip(args, arg_types)]
        result = out if isinstance(out, DeviceNDArray) else \
            device_array(shape, result_type, stream=stream)
        if not result.is_c_contiguous():   # (its shape and dtype are checked above)
            raise ValueError(f"{self.__name__}(): out must be a C-contiguous {result_type} "
                             f"array of shape {shape}")
        n = int(np.prod(shape))
        if n:
            blocks = min(-(-n // _THREADS), _MAX_BLOCKS)
            self._kernel[blocks, _THREADS, stream](*[x.reshape(-1) for x in inputs],
                                                   result.reshape(-1), n)
        if on_device:
            return result
        host = result.copy_to_host(stream=stream)
        if out is not None:
            out[...] = host
            return out
        return host[()] if shape == () else host

    def _loop_for(self, args):
        weak = not all(map(_is_python_scalar, args))
        for arg_types, result_type in self.types:
            if all(_converts(a, dt, weak) for a, dt in zip(args, arg_types)):
                return arg_types, result_type
        given = ", ".join(str(_dtype_of(a)) for a in args)
        loops = "; ".join(f"({', '.join(map(str, a))}) -> {r}" for a, r in self.types)
        raise TypeError(f"{self.__name__}(): no loop for inputs ({given}); its loops: {loops}")

    def _on_device(self, value, dtype, shape, stream):
        if isinstance(value, DeviceNDArray):
            if value.shape != shape or value.dtype != dtype or not value.is_c_contiguous():
                raise ValueError(f"{self.__name__}(): a device array input must be a "
                                 f"C-contiguous {dtype} array of shape {shape} (the result's), "
                                 f"not {value.dtype} {value.shape}; broadcast or convert it "
                                 "on the host")
            return value
        host = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=dtype), shape))
        return to_device(host, stream=stream)


def _dtype_of(value):
    return value.dtype if hasattr(value, "dtype") else type(value).__name__


_WEAK_KINDS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _is_python_scalar(value):
    return type(value) in _WEAK_KINDS


def _converts(value, dtype, weak):
    """Whether `value` goes to a loop argument of `dtype`: arrays and NumPy scalars by
    NumPy's safe casting; Python scalars beside arrays (`weak`) by kind alone, as NumPy 2
    treats them, and by their default dtype when every input is one."""
    if _is_python_scalar(value):
        if weak:
            return dtype.kind in _WEAK_KINDS[type(value)]
        value = np.asarray(value)
    return np.can_cast(_dtype_of(value), dtype, "safe")


def _elementwise_kernel(device_fn, nin, name):
    """A kernel `k(in0, ..., out, n)` storing device_fn(in0[i], ...) in out[i] for every
    i < n, grid-strided (generated for the number of inputs; its source kept for kiln)."""
    params = [f"in{k}" for k in range(nin)]
    source = (f"def vectorized({', '.join(params + ['out', 'n'])}):\n"
              f"    i = grid(1)\n"
              f"    while i < n:\n"
              f"        out[i] = device_fn({', '.join(p + '[i]' for p in params)})\n"
              f"        i += gridsize(1)\n")
    return jit(define_generated(f"<kiln cuda vectorize {name} {id(device_fn):#x}>", source,
                                {"grid": grid, "gridsize": gridsize, "device_fn": device_fn}))

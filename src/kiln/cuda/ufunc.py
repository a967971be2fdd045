"""`@vectorize([...], target='cuda')`: an elementwise function applied by a CUDA kernel, one
per signature (Numba's CUDA ufuncs).

    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

    rel_diff(a, b)                 # host arrays in, a host array out
    rel_diff(d_a, d_b)             # device arrays in, a device array out (no copy back)
    add.reduce(a)                  # a binary one folds a 1-d array (Numba's `reduce`)

The loop is the first signature every input converts to safely (NumPy's casting; a Python
scalar only by kind, as NumPy 2 treats it: elementwise.py); without signatures, the loop of
the inputs' own types, made at its first use. Host inputs are converted on
the host and copied to the device as they are; device inputs (and other libraries' arrays,
through `__cuda_array_interface__`) are read in place, of any strides. Both are broadcast
with zero strides, not copied, and the kernel converts each element to the loop's type. A
host `out` is filled and returned, whatever the inputs; a device one may be strided.
"""
from __future__ import annotations

import inspect

import numpy as np

from .. import types
from ..types import Signature, parse_signature
from ..types.ufunc_operands import input_type
from .devicearray import DeviceNDArray
from .elementwise import (LoopKernels, as_operand, as_output, choose_loop, deliver, on_device,
                          settle, written_for)
from .host import device_array
from .kernel import jit


class CUDAUFunc:
    """The result of `vectorize(signatures, target='cuda')`: callable like a ufunc on host
    and device arrays and scalars. Without signatures it grows: each new combination of
    input types adds the loop of those types (kiln's CPU `@vectorize` does the same; Numba's
    CUDA ufuncs need signatures)."""

    def __init__(self, pyfunc, signatures):
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self._device_fn = jit(device=True)(pyfunc)
        self.types = []   # (argument dtypes, (result dtype,)) per loop, in the given order
        for sig in signatures or ():
            parsed = parse_signature(sig)
            if parsed.return_type is None:
                raise TypeError(f"vectorize(target='cuda') signature {sig!r} needs a return "
                                "type ('float32(float32, float32)')")
            self.types.append((tuple(np.dtype(a.np_dtype) for a in parsed.args),
                               (np.dtype(parsed.return_type.np_dtype),)))
        self._lazy = not self.types
        self.nin = len(inspect.signature(pyfunc).parameters) if self._lazy else \
            len(self.types[0][0])
        if any(len(args) != self.nin for args, _ in self.types):
            raise TypeError(f"vectorize(target='cuda') {self.__name__}: every signature needs "
                            "the same number of arguments")
        self.nout = 1
        ins = [f"in{k}" for k in range(self.nin)]
        casts = ", ".join(f"as{k}({p}[{{i}}])" for k, p in enumerate(ins))
        self._kernels = LoopKernels("vectorized", self.__name__, self._device_fn,
                                    ins + ["out"], f"out[{{i}}] = device_fn({casts})")

    def __repr__(self):
        return f"<kiln CUDA ufunc {self.__name__!r} ({len(self.types)} loops)>"

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments ({len(args)} given)")
        args = [as_operand(a, stream) for a in args]
        arg_types, (result_type,) = self._loop(args)
        shapes = [np.shape(a) for a in args]
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{self.__name__}(): operands could not be broadcast together "
                             f"with shapes {' '.join(map(str, shapes))}") from None
        result = None if out is None else as_output(self.__name__, "out", out, stream)
        if result is not None and (result.shape != shape or result.dtype != result_type):
            raise ValueError(f"{self.__name__}(): out must be a {result_type} array of shape "
                             f"{shape}, not {result.dtype} {result.shape}")
        device_result = any(isinstance(a, DeviceNDArray) for a in args)
        inputs = [on_device(self.__name__, a, dt, shape, stream, converts=True)
                  for a, dt in zip(args, arg_types)]
        written = written_for(result, inputs, True, shape, result_type, stream)
        casts = {f"as{k}": dt.type for k, dt in enumerate(arg_types)}
        self._kernels.launch(inputs + [written], len(shape), stream, casts)
        settle(result, written, stream)
        return deliver(written, out, device_result, stream)

    def _loop(self, operands):
        """The loop for these operands: of the signatures, as choose_loop picks; without
        them, the loop of the operands' own types (a Python number's default one), made at
        its first use with the result type the function has for them on the GPU."""
        if not self._lazy:
            return choose_loop(self.__name__, self.types, operands)
        from .ptx import type_for_device
        argtypes = tuple(input_type(x) for x in operands)
        dtypes = tuple(np.dtype(ty.np_dtype) for ty in argtypes)
        for loop in self.types:
            if loop[0] == dtypes:
                return loop
        result = type_for_device(self._device_fn.py_func, Signature(None, argtypes),
                                 device=True).return_type
        if not isinstance(result, (types.Number, types.Boolean)):
            raise TypeError(f"{self.__name__}() returns {result} for "
                            f"({', '.join(map(str, argtypes))}); vectorize(target='cuda') "
                            "needs a number")
        self.types.append((dtypes, (np.dtype(result.np_dtype),)))
        return self.types[-1]

    def reduce(self, array, stream=0):
        """The 1-d `array` folded by this binary function, pairwise on the device: the
        second half combined into the first until one element is left (an odd last element
        joins the first). The order is not a left fold, so the function should be
        associative and commutative, as Numba asks. `array` is left as it was (Numba
        overwrites a device array); the result is a NumPy scalar."""
        if self.nin != 2:
            raise TypeError(f"{self.__name__}.reduce() needs a function of two arguments, "
                            f"not {self.nin}")
        array = as_operand(array)
        if np.ndim(array) != 1:
            raise ValueError(f"{self.__name__}.reduce() takes a 1-d array, not one of shape "
                             f"{np.shape(array)}")
        n = len(array)
        if n == 0:
            raise TypeError(f"{self.__name__}.reduce() of an empty array: it has no identity")
        (dtype, other), (result_type,) = self._loop([array, array])
        if not dtype == other == result_type:
            raise TypeError(f"{self.__name__}.reduce() needs a loop whose result has its "
                            f"inputs' type; for {array.dtype} it has ({dtype}, {other}) "
                            f"-> {result_type}")
        work = on_device(self.__name__, array, dtype, (n,), stream)
        while n > 1:
            half = n // 2
            if work is array:   # the first pass: into a new array, the input left as it is
                folded = device_array(half, dtype, stream=stream)
            else:
                folded = work[:half]
            self(work[:half], work[half:2 * half], out=folded, stream=stream)
            if n % 2:
                self(folded[:1], work[n - 1:n], out=folded[:1], stream=stream)
            work, n = folded, half
        return work[:1].copy_to_host(stream=stream)[0]


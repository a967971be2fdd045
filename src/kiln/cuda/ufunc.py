"""`@vectorize([...], target='cuda')`: an elementwise function applied by a CUDA kernel, one
per signature (Numba's CUDA ufuncs).

    @vectorize(["float32(float32, float32)", "float64(float64, float64)"], target="cuda")
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

    rel_diff(a, b)                 # host arrays in, a host array out
    rel_diff(d_a, d_b)             # device arrays in, a device array out (no copy back)
    add.reduce(a)                  # a binary one folds a 1-d array (Numba's `reduce`)

The loop is the first signature every input converts to safely (NumPy's casting; a Python
scalar only by kind, as NumPy 2 treats it: elementwise.py). Host inputs are broadcast and
converted on the host, then copied to the device; device inputs must already have the
result's shape, the loop's dtype and C order (broadcasting them would need a copy the
caller did not ask for). A host `out` is filled and returned, whatever the inputs.
"""
from __future__ import annotations

import numpy as np

from ..types import parse_signature
from .devicearray import DeviceNDArray
from .elementwise import as_operand, choose_loop, deliver, launch, loop_kernel, on_device
from .host import device_array
from .kernel import jit


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
        self.types = []   # (argument dtypes, (result dtype,)) per loop, in the given order
        for sig in signatures:
            parsed = parse_signature(sig)
            if parsed.return_type is None:
                raise TypeError(f"vectorize(target='cuda') signature {sig!r} needs a return "
                                "type ('float32(float32, float32)')")
            self.types.append((tuple(np.dtype(a.np_dtype) for a in parsed.args),
                               (np.dtype(parsed.return_type.np_dtype),)))
        self.nin = len(self.types[0][0])
        if any(len(args) != self.nin for args, _ in self.types):
            raise TypeError(f"vectorize(target='cuda') {self.__name__}: every signature needs "
                            "the same number of arguments")
        self.nout = 1
        ins = [f"in{k}" for k in range(self.nin)]
        self._kernel = loop_kernel("vectorized", self.__name__, self._device_fn, ins + ["out"],
                                   f"out[i] = device_fn({', '.join(p + '[i]' for p in ins)})")

    def __repr__(self):
        return f"<kiln CUDA ufunc {self.__name__!r} ({len(self.types)} loops)>"

    def __call__(self, *args, out=None, stream=0):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments ({len(args)} given)")
        args = [as_operand(a) for a in args]
        arg_types, (result_type,) = choose_loop(self.__name__, self.types, args)
        shapes = [np.shape(a) for a in args]
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"{self.__name__}(): operands could not be broadcast together "
                             f"with shapes {' '.join(map(str, shapes))}") from None
        if out is not None and (out.shape != shape or out.dtype != result_type):
            raise ValueError(f"{self.__name__}(): out must be a C-contiguous {result_type} "
                             f"array of shape {shape}, not {out.dtype} {out.shape}")
        device_result = any(isinstance(a, DeviceNDArray) for a in args)
        inputs = [on_device(self.__name__, a, dt, shape, stream)
                  for a, dt in zip(args, arg_types)]
        result = out if isinstance(out, DeviceNDArray) else \
            device_array(shape, result_type, stream=stream)
        if not result.is_c_contiguous():   # (its shape and dtype are checked above)
            raise ValueError(f"{self.__name__}(): out must be a C-contiguous {result_type} "
                             f"array of shape {shape}")
        launch(self._kernel, int(np.prod(shape)),
               [x.reshape(-1) for x in inputs] + [result.reshape(-1)], stream)
        return deliver(result, out, device_result, stream)

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
        (dtype, other), (result_type,) = choose_loop(self.__name__, self.types,
                                                     [array, array])
        if not dtype == other == result_type:
            raise TypeError(f"{self.__name__}.reduce() needs a loop whose result has its "
                            f"inputs' type; for {array.dtype} it has ({dtype}, {other}) "
                            f"-> {result_type}")
        work = device_array(n, dtype, stream=stream)
        work.copy_to_device(on_device(self.__name__, array, dtype, (n,), stream), stream=stream)
        while n > 1:
            half = n // 2
            self(work[:half], work[half:2 * half], out=work[:half], stream=stream)
            if n % 2:
                self(work[:1], work[n - 1:n], out=work[:1], stream=stream)
            n = half
        return work[:1].copy_to_host(stream=stream)[0]


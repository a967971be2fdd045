"""`cuda.reduce`: a reduction kernel made from a binary function (Numba's `Reduce`).

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    total = sum_reduce(array)          # host or device array; init=0 by default

Written with kiln.cuda's own API, so it runs on every back-end. Each block folds a
grid-strided slice per thread, then combines its threads' values pairwise in shared
memory; a second one-block pass combines the blocks' results. The function should be
associative and commutative.
"""
from __future__ import annotations

from .devicearray import DeviceNDArray
from .host import device_array, to_device
from .intrinsics import blockDim, blockIdx, grid, gridsize, shared, syncthreads, threadIdx
from .kernel import DeviceFunction, jit

_THREADS = 128
_MAX_BLOCKS = 64


def _make_kernel(device_fn, dtype):
    @jit
    def reduce_blocks(values, out, n, init, use_init):
        cache = shared.array(_THREADS, dtype)
        tid = threadIdx.x
        i = grid(1)
        if i < n:
            acc = values[i]
            if use_init and i == 0:
                acc = device_fn(init, acc)
            i += gridsize(1)
            while i < n:
                acc = device_fn(acc, values[i])
                i += gridsize(1)
            cache[tid] = acc
        syncthreads()
        have = min(n - blockIdx.x * blockDim.x, blockDim.x)
        step = 1
        while step < blockDim.x:
            if tid % (2 * step) == 0 and tid + step < have:
                cache[tid] = device_fn(cache[tid], cache[tid + step])
            step *= 2
            syncthreads()
        if tid == 0:
            out[blockIdx.x] = cache[0]
    return reduce_blocks


class Reduce:
    """A reduction of 1-d arrays by a binary function."""

    def __init__(self, functor):
        self._device_fn = functor if isinstance(functor, DeviceFunction) else \
            jit(device=True)(functor)
        self.__name__ = getattr(functor, "__name__", "reduce")
        self._kernels = {}

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """Reduce `arr[:size]`, folding in `init`. With `res` (a device array) the result
        goes to res[0] and None is returned; otherwise the result is returned."""
        if arr.ndim != 1:
            raise TypeError(f"reduce '{self.__name__}' takes a 1-d array, not "
                            f"{arr.ndim}-d")
        if size is not None:
            arr = arr[:size]
        init = arr.dtype.type(init)
        if arr.size == 0:
            return init
        values = arr if isinstance(arr, DeviceNDArray) else to_device(arr, stream)
        kernel = self._kernels.get(values.dtype)
        if kernel is None:
            kernel = self._kernels[values.dtype] = _make_kernel(self._device_fn, values.dtype)
        n = values.size
        blocks = min(-(-n // _THREADS), _MAX_BLOCKS)
        partials = device_array(blocks, values.dtype, stream=stream)
        kernel[blocks, _THREADS, stream](values, partials, n, init, True)
        if blocks > 1:
            kernel[1, _THREADS, stream](partials, partials, blocks, init, False)
        if res is not None:
            res[:1].copy_to_device(partials[:1], stream=stream)
            return None
        return partials[0]


reduce = Reduce

"""`cuda.reduce`: a reduction kernel made from a binary function (Numba's `Reduce`).

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    total = sum_reduce(array)          # host or device array; init=0 by default

Written with kiln.cuda's own API, so it runs on every back-end. Two passes of one kernel:
the first runs as many blocks as the device holds at once (each thread folds a
grid-strided slice, four loads at a time, so the pass is bound by memory bandwidth, as a
copy is), and folds each block to one value; the second folds the blocks' values in one
block. Calls on stream 0 reuse one array of partial values, and the last pass writes the
result straight into mapped host memory (a copy back would cost more than the wait). Inside
a block, warps fold their lanes with shuffles (`shfl_down_sync`, for 32- and 64-bit
numbers) and their leaders' values meet in shared memory; other dtypes fold in shared
memory alone. The function should be associative and commutative: the order of folding is
a tree.
"""
from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from . import backend, signatures
from .devicearray import DeviceNDArray
from .devices import default_stream
from .host import as_cuda_array, device_array, mapped_array, to_device
from .intrinsics import (blockDim, blockIdx, grid, gridsize, shared,
                         shfl_down_sync, syncthreads, threadIdx, warpsize)
from .kernel import DeviceFunction, jit

_THREADS = 256                 # a multiple of the warp size
_WARPS = _THREADS // 32
_FULL_MASK = 0xFFFFFFFF


def _shuffles(dtype):
    """Whether warp shuffles carry `dtype` (shfl moves 32-bit words; kiln pairs two)."""
    return dtype.kind in "iuf" and dtype.itemsize in (4, 8)


def _make_kernel(device_fn, dtype):
    """`fold(values, out, n, init, use_init)`: out[b] = the fold of block b's values
    (with init folded into the first when use_init)."""
    if _shuffles(dtype):
        @jit(device=True)
        def fold_warp(value, count):
            """The fold of the first `count` lanes' values, in lane 0."""
            lane = threadIdx.x % warpsize
            offset = warpsize // 2
            while offset > 0:
                other = shfl_down_sync(_FULL_MASK, value, offset)
                if lane + offset < count:
                    value = device_fn(value, other)
                offset //= 2
            return value

        @jit(device=True)
        def fold_block(value, have):
            """The fold of the first `have` threads' values, in thread 0."""
            cache = shared.array(_WARPS, dtype)
            lane = threadIdx.x % warpsize
            warp = threadIdx.x // warpsize
            in_warp = min(max(have - warp * warpsize, 0), warpsize)
            value = fold_warp(value, in_warp)
            if lane == 0 and in_warp > 0:
                cache[warp] = value
            syncthreads()
            if warp == 0:
                warps = (have + warpsize - 1) // warpsize
                value = fold_warp(cache[lane] if lane < warps else value, warps)
            return value
    else:
        @jit(device=True)
        def fold_block(value, have):
            """The fold of the first `have` threads' values, in thread 0."""
            cache = shared.array(_THREADS, dtype)
            tid = threadIdx.x
            cache[tid] = value
            syncthreads()
            step = _THREADS // 2
            while step > 0:
                if tid < step and tid + step < have:
                    cache[tid] = device_fn(cache[tid], cache[tid + step])
                step //= 2
                syncthreads()
            return cache[0]

    @jit
    def fold(values, out, n, init, use_init):
        # unsigned positions: no negative-index wraparound in each load's address
        i = np.uint64(grid(1))
        stride = np.uint64(gridsize(1))
        end = np.uint64(n)
        acc = init
        if i < end:
            acc = values[i]
            if use_init and i == 0:
                acc = device_fn(init, acc)
            i += stride
            # four independent loads in flight per thread, not one: a thread's loads would
            # otherwise wait on each other's folds, and half of HBM's bandwidth goes unused
            twice = stride + stride
            while i + twice + stride < end:
                a = values[i]
                b = values[i + stride]
                c = values[i + twice]
                d = values[i + twice + stride]
                acc = device_fn(acc, device_fn(device_fn(a, b), device_fn(c, d)))
                i += twice + twice
            while i < end:
                acc = device_fn(acc, values[i])
                i += stride
        have = min(n - blockIdx.x * blockDim.x, blockDim.x)
        acc = fold_block(acc, have)
        if threadIdx.x == 0:
            out[blockIdx.x] = acc
    return fold


class _Plan(NamedTuple):
    """What calls on stream 0 reuse for one array type on one device."""
    blocks: int                # as many as the device holds at once
    partials: DeviceNDArray    # their values
    first: DeviceNDArray       # partials[:1]
    result: np.ndarray         # one element of mapped host memory, which the last pass
    result_view: DeviceNDArray  # writes through this view: no copy to wait for
    stream: object             # stream 0


class Reduce:
    """A reduction of 1-d arrays by a binary function."""

    def __init__(self, functor):
        self._device_fn = functor if isinstance(functor, DeviceFunction) else \
            jit(device=True)(functor)
        self.__name__ = getattr(functor, "__name__", "reduce")
        self._kernels = {}
        self._plans = {}                # (array type, context) -> _Plan
        self._lock = threading.Lock()   # one call at a time uses a plan's arrays

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
        plan = self._plan(kernel, values, init)
        blocks = min(-(-values.size // _THREADS), plan.blocks)   # every block has values
        if stream:   # calls on other streams may overlap: each has its own partials
            partials = device_array(blocks, values.dtype, stream=stream)
            _fold(kernel, values, partials, partials, blocks, init, stream)
            return _deliver(partials[:1], res, stream)
        with self._lock:   # stream 0 runs calls in order: they share the plan's arrays
            if res is not None:
                _fold(kernel, values, plan.partials, plan.first, blocks, init, stream)
                return _deliver(plan.first, res, stream)
            _fold(kernel, values, plan.partials, plan.result_view, blocks, init, stream)
            plan.stream.synchronize()
            return plan.result[0]

    def _plan(self, kernel, values, init):
        """As many blocks as the device holds at once (the first pass's grid: each thread
        strides over the array, so one full wave streams it; a second, part-full wave would
        halve the bandwidth), and the arrays for their values and the result."""
        key = (values._kiln_type, backend.active.context())
        plan = self._plans.get(key)
        if plan is None:
            probe = (values, device_array(1, values.dtype), values.size, init, True)
            argtypes = signatures.argument_types(self.__name__, probe)
            blocks = backend.active.max_cooperative_blocks(kernel, argtypes, _THREADS, 0)
            partials = device_array(blocks, values.dtype)
            result = mapped_array(1, values.dtype)
            plan = self._plans[key] = _Plan(blocks, partials, partials[:1], result,
                                            as_cuda_array(result), default_stream())
        return plan


def _fold(kernel, values, partials, last, blocks, init, stream):
    """The fold of `values` into last[0], through `partials` when it takes two passes."""
    if blocks == 1:
        kernel[1, _THREADS, stream](values, last, values.size, init, True)
        return
    kernel[blocks, _THREADS, stream](values, partials, values.size, init, True)
    kernel[1, _THREADS, stream](partials, last, blocks, init, False)


def _deliver(first, res, stream):
    """first[0] copied into res[0] (-> None), or to the host (-> its value)."""
    if res is not None:
        res[:1].copy_to_device(first, stream=stream)
        return None
    return first.copy_to_host(stream=stream)[0]


reduce = Reduce

"""What kiln.cuda's ufuncs and gufuncs (`vectorize` and `guvectorize` with target='cuda')
share: choosing a loop for the inputs by NumPy's casting rules, operands as device arrays
broadcast without copies, and the kernels over the loop that call the user's device
function per element, grid-strided and written with kiln.cuda's own API (so they run on
every back-end, the simulator included, and compile to PTX)."""
from __future__ import annotations

import math

import numpy as np

from ..frontend.source import define_generated
from .devicearray import DeviceNDArray, broadcast_to
from .host import device_array, from_cuda_array_interface, is_cuda_array, to_device
from .intrinsics import grid, gridsize
from .kernel import jit

_THREADS = 128
_MAX_BLOCKS = 1024
_WEAK_KINDS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def choose_loop(name, loops, args):
    """Of `loops`, tuples starting (input dtypes, output dtypes) in the order declared, the
    first whose input dtypes are the inputs' own (a Python scalar beside arrays matches any
    loop of its kind; scalars alone are of their default dtypes), as Numba prefers, else the
    first every input converts to (see `_converts`); a TypeError listing them if none does."""
    weak = not all(map(_is_python_scalar, args))
    fits = [loop for loop in loops
            if all(_converts(a, dt, weak) for a, dt in zip(args, loop[0]))]
    exact = [loop for loop in fits
             if all((weak or np.asarray(a).dtype == dt) if _is_python_scalar(a)
                    else a.dtype == dt for a, dt in zip(args, loop[0]))]
    if fits:
        return (exact or fits)[0]
    given = ", ".join(str(_dtype_of(a)) for a in args)
    listed = "; ".join(f"({', '.join(map(str, loop[0]))}) -> {', '.join(map(str, loop[1]))}"
                       for loop in loops)
    raise TypeError(f"{name}(): no loop for inputs ({given}); its loops: {listed}")


def as_operand(value, stream=0):
    """An input as choose_loop and on_device take it: a device array or a Python scalar as
    it is, another library's array (`__cuda_array_interface__`: CuPy, PyTorch) as a device
    array over its memory, anything else (lists, NumPy scalars) as a NumPy array."""
    if isinstance(value, DeviceNDArray) or _is_python_scalar(value):
        return value
    if is_cuda_array(value) and not isinstance(value, np.ndarray):
        return from_cuda_array_interface(value.__cuda_array_interface__, owner=value,
                                         consumer=stream)
    return np.asarray(value)


def as_output(name, what, value, stream=0):
    """An output given by the caller, as on_device's operands are (a NumPy array as it is),
    or a TypeError naming the function when it is not an array."""
    if not (isinstance(value, np.ndarray) or is_cuda_array(value)):
        raise TypeError(f"{name}(): {what} must be an array, not {type(value).__name__}")
    return as_operand(value, stream)


def _dtype_of(value):
    return value.dtype if hasattr(value, "dtype") else type(value).__name__


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


def on_device(name, value, dtype, shape, stream, converts=False):
    """An input as the kernel reads it: a device array seen with `shape`, its strides 0
    along the axes broadcasting repeats (nothing is copied to broadcast it). A host value is
    converted to `dtype` and copied as it is; a device array is read in place, and must be
    of `dtype` unless the kernel `converts` its elements."""
    if not isinstance(value, DeviceNDArray):
        value = to_device(np.ascontiguousarray(np.asarray(value, dtype=dtype)), stream=stream)
    elif value.dtype != dtype and not converts:
        raise ValueError(f"{name}(): a device array input must be of the loop's type {dtype}, "
                         f"not {value.dtype}; convert it on the host")
    return broadcast_to(value, shape)


def overlaps(output, inputs, elementwise) -> bool:
    """Whether writing the device array `output` could change an input before a thread reads
    it: their bytes overlap, and (for an `elementwise` kernel, where each thread reads its
    inputs' element before writing its own) the input is not the output itself element for
    element. NumPy computes such calls as if the inputs were copied first."""
    low, high = output._byte_range()
    for x in inputs:
        x_low, x_high = x._byte_range()
        if x_low < high and low < x_high and not (
                elementwise and x._pointer() == output._pointer() and
                x.strides == output.strides and x.shape == output.shape and
                x.dtype.itemsize == output.dtype.itemsize):
            return True
    return False


def written_for(out, inputs, elementwise, shape, dtype, stream):
    """The device array the kernel writes for an output: `out` itself when it is a device
    array no input `overlaps`, else a new one (`settle` copies it into a device `out`)."""
    if isinstance(out, DeviceNDArray) and not overlaps(out, inputs, elementwise):
        return out
    return device_array(shape, dtype, stream=stream)


def settle(out, written, stream):
    """After the kernel: a device `out` computed apart (written_for) gets its values."""
    if isinstance(out, DeviceNDArray) and out is not written:
        out.copy_to_device(written, stream=stream)


def deliver(result, out, to_device, stream):
    """What the caller gets for an output computed in the device array `result`: `out`
    itself when given (a host one filled from `result`), else `result` when an operand was
    on the device, else a host copy (a NumPy scalar for a 0-d result, as NumPy gives)."""
    if isinstance(out, DeviceNDArray) or is_cuda_array(out):
        return out
    if out is not None:
        out[...] = result.copy_to_host(stream=stream)
        return out
    if to_device:
        return result
    host = result.copy_to_host(stream=stream)
    return host[()] if host.shape == () else host


def _coalesced(operands, loop_ndim):
    """The operands with adjacent loop axes merged where every operand steps through them
    as through one (as NumPy's iterator does; an axis of one merges with any), and the
    number of loop axes left: fewer divisions per element to find its index, none for a
    C-contiguous array beside a broadcast scalar."""
    shape = list(operands[0].shape[:loop_ndim])
    strides = [list(x.strides[:loop_ndim]) for x in operands]
    for k in range(loop_ndim - 1, 0, -1):
        outer, inner = shape[k - 1], shape[k]
        if outer == 1 or inner == 1 or all(s[k - 1] == s[k] * inner for s in strides):
            for s in strides:
                s[k - 1:k + 1] = [s[k - 1] if inner == 1 else s[k]]
            shape[k - 1:k + 1] = [outer * inner]
    return [x._view(shape + list(x.shape[loop_ndim:]), s + list(x.strides[loop_ndim:]))
            for x, s in zip(operands, strides)], len(shape)


class LoopKernels:
    """The kernels of one ufunc or gufunc: `k(*params, n)` running the statement `call`
    (which names `device_fn` and indexes the params with `{i}`) for every i < n,
    grid-strided. Operands that are all C-contiguous are flattened (`{i}` is i); others
    are indexed by the loop dimensions (i0, i1, ... unravelled from i), one kernel per
    number of them. Generated because the number of operands varies, the source kept for
    kiln; `names` are the globals the call uses besides `device_fn` (a ufunc's casts)."""

    def __init__(self, what, name, device_fn, params, call):
        self._what, self._name = what, name
        self._kernel_name = f"{what}_{name}" if name.isidentifier() else what
        self._device_fn, self._params, self._call = device_fn, params, call
        self._kernels = {}   # (loop dimensions or None, names' values) -> kernel

    def launch(self, operands, loop_ndim, stream, names=None):
        """Run over the operands, each of shape (*loop shape, *its core shape), whose loop
        has `loop_ndim` dimensions (none: no launch for an empty loop)."""
        loop_shape = operands[0].shape[:loop_ndim]
        n = math.prod(loop_shape)
        if n == 0:
            return
        if all(x.is_c_contiguous() for x in operands):
            operands = [x.reshape(n, *x.shape[loop_ndim:]) for x in operands]
            loop_ndim = None
        elif loop_ndim == 0:   # one loop dimension of one element
            operands = [x[None] for x in operands]
            loop_ndim = 1
        else:
            operands, loop_ndim = _coalesced(operands, loop_ndim)
        blocks = min(-(-n // _THREADS), _MAX_BLOCKS)
        self.kernel(loop_ndim, names)[blocks, _THREADS, stream](*operands, n)

    def kernel(self, loop_ndim, names=None):
        """The kernel for operands flattened (None) or of `loop_ndim` loop dimensions."""
        names = names or {}
        key = (loop_ndim, tuple(names.items()))
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._kernels[key] = self._compile(loop_ndim, names)
        return kernel

    def _compile(self, loop_ndim, names):
        if loop_ndim is None:
            index, unravel = "i", []
        else:
            index = ", ".join(f"i{k}" for k in range(loop_ndim))
            first = self._params[0]
            unravel = ["r = i"]
            for k in range(loop_ndim - 1, 0, -1):
                unravel += [f"i{k} = r % {first}.shape[{k}]", f"r //= {first}.shape[{k}]"]
            unravel.append("i0 = r")
        body = [*unravel, self._call.format(i=index), "i += gridsize(1)"]
        source = (f"def {self._kernel_name}({', '.join([*self._params, 'n'])}):\n"
                  f"    i = grid(1)\n"
                  f"    while i < n:\n" + "".join(f"        {line}\n" for line in body))
        scope = {"grid": grid, "gridsize": gridsize, "device_fn": self._device_fn, **names}
        return jit(define_generated(f"<kiln cuda {self._what} {self._name} "
                                    f"{id(self._device_fn):#x} {loop_ndim}>", source, scope))

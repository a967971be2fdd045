"""What kiln.cuda's ufuncs and gufuncs (`vectorize` and `guvectorize` with target='cuda')
share: choosing a loop for the inputs by NumPy's casting rules, and one kernel over the
flattened loop that calls the user's device function per element, grid-strided and
written with kiln.cuda's own API (so it runs on every back-end, the simulator included,
and compiles to PTX)."""
from __future__ import annotations

import numpy as np

from ..frontend.source import define_generated
from .devicearray import DeviceNDArray
from .host import to_device
from .intrinsics import grid, gridsize
from .kernel import jit

_THREADS = 128
_MAX_BLOCKS = 1024
_WEAK_KINDS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def choose_loop(name, loops, args):
    """Of `loops`, tuples starting (input dtypes, output dtypes) in the order declared, the
    first whose input dtypes are the inputs' own (Python scalars aside), as Numba prefers,
    else the first every input converts to (see `_converts`); a TypeError listing them if
    none does."""
    weak = not all(map(_is_python_scalar, args))
    fits = [loop for loop in loops
            if all(_converts(a, dt, weak) for a, dt in zip(args, loop[0]))]
    exact = [loop for loop in fits
             if all(_is_python_scalar(a) or a.dtype == dt for a, dt in zip(args, loop[0]))]
    if fits:
        return (exact or fits)[0]
    given = ", ".join(str(_dtype_of(a)) for a in args)
    listed = "; ".join(f"({', '.join(map(str, loop[0]))}) -> {', '.join(map(str, loop[1]))}"
                       for loop in loops)
    raise TypeError(f"{name}(): no loop for inputs ({given}); its loops: {listed}")


def as_operand(value):
    """An input as choose_loop and on_device take it: a device array or a Python scalar as
    it is, anything else (lists, NumPy scalars) as a NumPy array."""
    return value if isinstance(value, DeviceNDArray) or _is_python_scalar(value) else \
        np.asarray(value)


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


def on_device(name, value, dtype, shape, stream):
    """An input as the C-contiguous device array of `dtype` and `shape` the kernel reads:
    a host value broadcast, converted and copied; a device array as it is, when it already
    is one (broadcasting or converting it would need a copy the caller did not ask for)."""
    if isinstance(value, DeviceNDArray):
        if value.shape != shape or value.dtype != dtype or not value.is_c_contiguous():
            raise ValueError(f"{name}(): a device array input must be a C-contiguous {dtype} "
                             f"array of shape {shape}, not {value.dtype} {value.shape}; "
                             "broadcast or convert it on the host")
        return value
    host = np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=dtype), shape))
    return to_device(host, stream=stream)


def deliver(result, out, to_device, stream):
    """What the caller gets for an output computed in the device array `result`: `out`
    itself when given (a host one filled from `result`), else `result` when an operand was
    on the device, else a host copy (a NumPy scalar for a 0-d result, as NumPy gives)."""
    if isinstance(out, DeviceNDArray):
        return out
    if out is not None:
        out[...] = result.copy_to_host(stream=stream)
        return out
    if to_device:
        return result
    host = result.copy_to_host(stream=stream)
    return host[()] if host.shape == () else host


def loop_kernel(what, name, device_fn, params, call):
    """A kernel `k(*params, n)` running the statement `call` (which names `device_fn` and
    indexes the params with `i`) for every i < n, grid-strided; generated because the
    number of operands varies, its source kept for kiln. Its name ('gufunc_matvec') is
    what errors in it name."""
    kernel_name = f"{what}_{name}" if name.isidentifier() else what
    source = (f"def {kernel_name}({', '.join([*params, 'n'])}):\n"
              f"    i = grid(1)\n"
              f"    while i < n:\n"
              f"        {call}\n"
              f"        i += gridsize(1)\n")
    return jit(define_generated(f"<kiln cuda {what} {name} {id(device_fn):#x}>", source,
                                {"grid": grid, "gridsize": gridsize, "device_fn": device_fn}))


def launch(kernel, n, operands, stream):
    """Run a `loop_kernel` over n elements (none: no launch)."""
    if n:
        blocks = min(-(-n // _THREADS), _MAX_BLOCKS)
        kernel[blocks, _THREADS, stream](*operands, n)

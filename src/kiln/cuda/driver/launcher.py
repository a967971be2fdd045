"""One launch on the driver: the specialization for the arguments' types (compiled and
loaded once, modules.py), the parameter buffer packed through its layout, and
cuLaunchKernel with one pointer per PTX parameter into that buffer.

Launches whose arguments are device arrays and scalars take a short path (`launch_known`):
the Python types of the arguments (and a device array's kiln type, kept on it) find a
`KnownLaunch` made at the first such launch, which packs the values straight into the
buffer. Anything else (host arrays to copy, foreign arrays, tuples, defaults) goes through
kernel.py's general path, which converts the arguments first."""
from __future__ import annotations

import ctypes
import struct
import threading

import numpy as np

from kiln import types

from .. import signatures
from ..devicearray import DeviceNDArray


def argument_types(kernel, args) -> tuple:
    """What the kernel is compiled for: the signature the arguments matched, or (lazily
    typed kernels) the arguments' own types."""
    if kernel.signatures:
        sig = signatures.select(kernel.signatures, args)
        return tuple(sig.args)   # (kernel.launch matched them already)
    return signatures.argument_types(kernel.__name__, args)


_buffers = threading.local()   # per thread: {layout: (buffer, pointers, their address)}


def launch(cache, context, kernel, config, args):
    loaded = cache.get(kernel, argument_types(kernel, args), context)
    buffer, _, pointers = _buffer(loaded.layout)
    loaded.layout.pack_into(buffer, loaded.layout.values(args))
    context.make_current()
    context.driver.call(_entry(loaded), *_arguments(loaded, config, pointers))


def _buffer(layout):
    """This thread's parameter buffer for the layout, the void* array pointing at each
    parameter in it and that array's address: cuLaunchKernel copies the values before it
    returns, so the next launch on the thread may overwrite them."""
    kept = getattr(_buffers, "kept", None)
    if kept is None:
        kept = _buffers.kept = {}
    found = kept.get(layout)
    if found is None:
        buffer = ctypes.create_string_buffer(max(layout.size, 1))
        base = ctypes.addressof(buffer)
        pointers = layout.pointer_array(*[base + offset for offset in layout.offsets])
        found = kept[layout] = (buffer, pointers, ctypes.addressof(pointers))
    return found


def _entry(loaded) -> str:
    """The driver's launch call: a kernel that syncs its grid is launched cooperatively (all
    its blocks resident at once)."""
    return "cuLaunchCooperativeKernel" if loaded.program.cooperative else "cuLaunchKernel"


def _arguments(loaded, config, pointers) -> tuple:
    """The arguments of the `_entry` call (the cooperative one has no `extra`)."""
    stream = int(config.stream) if config.stream else 0
    arguments = (loaded.function, *config.griddim, *config.blockdim, config.sharedmem,
                 stream, pointers)
    return arguments if loaded.program.cooperative else arguments + (0,)


# -- the short path ---------------------------------------------------------------------------
_ARRAY = object()   # a KnownLaunch step: the device array's kept parameter values
_SCALARS = frozenset({bool, int, float, np.bool_, np.int8, np.int16, np.int32, np.int64,
                      np.uint8, np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                      np.float64})


class KnownLaunch:
    """How to launch one loaded specialization, on one context, for arguments of the Python
    types it was made from: one step per argument (a device array's kept values, a scalar
    as it is, or the signature's conversion of it), and the driver calls bound once."""

    __slots__ = ("loaded", "steps", "_make_current", "_handle", "_start")

    def __init__(self, context, loaded, steps):
        self.loaded = loaded
        self.steps = steps
        self._make_current = context.driver.bound("cuCtxSetCurrent")
        self._handle = context.handle
        self._start = context.driver.bound(_entry(loaded))

    def __call__(self, config, args) -> bool:
        """Launch; False, launching nothing, when a value does not fit its parameter (a
        Python int past int64: the general path types it again)."""
        layout = self.loaded.layout
        buffer, _, pointers = _buffer(layout)
        try:
            values = []
            for step, value in zip(self.steps, args):
                if step is _ARRAY:
                    values += value._launch_values
                elif step is None:
                    values.append(value)
                else:
                    values.append(step(value))
            layout.pack_into(buffer, values)
        except (struct.error, OverflowError, ValueError, TypeError):
            return False
        self._make_current(self._handle)
        self._start(*_arguments(self.loaded, config, pointers))
        return True


def launch_known(cache, context, kernel, config, args) -> bool:
    """Launch through the kernel's KnownLaunch for these arguments' kinds (made here at the
    first launch with them); False, launching nothing, when the general path must run."""
    try:
        key = (context, *[a._kiln_type if type(a) is DeviceNDArray else type(a)
                          for a in args])
    except (TypeError, ValueError):   # a device array of a dtype kiln has no type for
        return False
    table = kernel.known_launches
    known = table.get(key, False)
    if known is False:
        if not kernel.takes_as_given(len(args)):
            return False
        known = table[key] = _known_launch(cache, context, kernel, args)
    return known is not None and known(config, args)


def _known_launch(cache, context, kernel, args):
    """The KnownLaunch for arguments like these, or None when they need the general path:
    a host array, a foreign or tuple argument, no signature that accepts them (whose error
    the general path raises)."""
    if not all(type(a) is DeviceNDArray or type(a) in _SCALARS for a in args):
        return None
    if kernel.signatures:
        sig = signatures.select(kernel.signatures, args)
        if sig is None:
            return None
        argtypes = tuple(sig.args)
    else:
        argtypes = signatures.argument_types(kernel.__name__, args)
    steps = []
    for ty, value in zip(argtypes, args):
        if not isinstance(ty, types.Array if type(value) is DeviceNDArray else types.Number):
            return None   # (a signature's tuple or record: the general path checks it)
        if type(value) is DeviceNDArray:
            steps.append(_ARRAY)
        elif kernel.signatures and type(value) is not ty.np_dtype.type:
            steps.append(ty.np_dtype.type)   # as signatures.match converts it
        elif type(value) is int and str(ty) != "int64":
            return None   # typed by its value (a large int is uint64)
        else:
            steps.append(None)
    return KnownLaunch(context, cache.get(kernel, argtypes, context), tuple(steps))


def max_cooperative_blocks(cache, context, kernel, argtypes, threads, dynamic_shared):
    """How many blocks of `threads` a cooperative launch of the kernel can have: as many as
    fit on the device at once."""
    function = cache.get(kernel, tuple(argtypes), context).function
    context.make_current()
    per_sm = context.driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", function,
                                 threads, dynamic_shared)
    return per_sm * context.device.MULTIPROCESSOR_COUNT

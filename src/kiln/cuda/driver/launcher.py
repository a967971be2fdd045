"""One launch on the driver: the specialization for the arguments' types (compiled and
loaded once, modules.py), the parameter buffer packed through its layout, and
cuLaunchKernel with one pointer per PTX parameter into that buffer."""
from __future__ import annotations

import ctypes
import threading

from .. import signatures


def argument_types(kernel, args) -> tuple:
    """What the kernel is compiled for: the signature the arguments matched, or (lazily
    typed kernels) the arguments' own types."""
    if kernel.signatures:
        sig = signatures.select(kernel.signatures, args)
        return tuple(sig.args)   # (kernel.launch matched them already)
    return signatures.argument_types(kernel.__name__, args)


_buffers = threading.local()   # per thread: {layout: (buffer, pointer array into it)}


def parameters(layout, args):
    """The void* array pointing at each parameter, packed into a buffer of this thread's
    kept for the layout: cuLaunchKernel copies the values before it returns, so the next
    launch on the thread may overwrite them."""
    kept = getattr(_buffers, "kept", None)
    if kept is None:
        kept = _buffers.kept = {}
    found = kept.get(layout)
    if found is None:
        buffer = ctypes.create_string_buffer(max(layout.size, 1))
        base = ctypes.addressof(buffer)
        found = kept[layout] = (buffer, layout.pointer_array(*[base + offset for offset
                                                                in layout.offsets]))
    layout.pack_into(found[0], args)
    return found[1]


def launch(cache, context, kernel, config, args):
    loaded = cache.get(kernel, argument_types(kernel, args), context)
    pointers = parameters(loaded.layout, args)
    context.make_current()
    stream = int(config.stream) if config.stream else 0
    if loaded.program.cooperative:   # all blocks resident at once, for cg grid syncs
        context.driver.call("cuLaunchCooperativeKernel", loaded.function, *config.griddim,
                            *config.blockdim, config.sharedmem, stream,
                            ctypes.addressof(pointers))
    else:
        context.driver.call("cuLaunchKernel", loaded.function, *config.griddim,
                            *config.blockdim, config.sharedmem, stream,
                            ctypes.addressof(pointers), 0)


def max_cooperative_blocks(cache, context, kernel, argtypes, threads, dynamic_shared):
    """How many blocks of `threads` a cooperative launch of the kernel can have: as many as
    fit on the device at once."""
    function = cache.get(kernel, tuple(argtypes), context).function
    context.make_current()
    per_sm = context.driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", function,
                                 threads, dynamic_shared)
    return per_sm * context.device.MULTIPROCESSOR_COUNT

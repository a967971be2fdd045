"""One launch on the driver: the specialization for the arguments' types (compiled and
loaded once, modules.py), the parameter buffer packed through its layout, and
cuLaunchKernel with one pointer per PTX parameter into that buffer.

Launches whose arguments are device arrays, scalars and C-contiguous arrays of other
libraries (`__cuda_array_interface__`) take a short path (`launch_known`): the Python types
of the arguments (and a device array's kiln type, kept on it) find a `KnownLaunch` made at
the first such launch, which packs the values straight into the buffer. Anything else (host
arrays to copy, strided foreign arrays, tuples, defaults) goes through kernel.py's general
path, which converts the arguments first."""
from __future__ import annotations

import ctypes
import math
import struct
import sys
import threading

import numpy as np

from kiln import types

from .. import host, signatures
from ..devicearray import DeviceNDArray, c_strides
from ..errors import CudaAPIError


def argument_types(kernel, args):
    """What the kernel is compiled for: the signature the arguments match (None when none
    does), or (lazily typed kernels) the arguments' own types."""
    if kernel.signatures:
        sig = signatures.select(kernel.signatures, args)
        return None if sig is None else tuple(sig.args)
    return signatures.argument_types(kernel.__name__, args)


_buffers = threading.local()   # per thread: {layout: (buffer, pointers, their address)}


def launch(cache, context, kernel, config, args):
    loaded = cache.get(kernel, argument_types(kernel, args), context)   # (args matched)
    buffer, _, pointers = _buffer(loaded.layout)
    loaded.layout.pack_into(buffer, loaded.layout.values(args))
    context.make_current()
    if config.sharedmem > loaded.shared_allowed.value:
        _allow_dynamic_shared(context, kernel.__name__, loaded, config.sharedmem)
    context.driver.call(_entry(loaded), *_arguments(loaded, config, pointers))
    if loaded.program.exceptions is not None:
        _raise_recorded(context, kernel.__name__, loaded)


def _raise_recorded(context, kernel_name, loaded):
    """After a debug=True kernel: wait for it, and raise the exception it recorded (the
    record zeroed for the next launch)."""
    from .. import debug   # (loaded with the compiler, which made the kernel)
    context.synchronize()
    driver = context.driver
    address, size = driver.call("cuModuleGetGlobal", loaded.module, debug.RECORD.encode())
    record = ctypes.create_string_buffer(size)
    driver.call("cuMemcpyDtoH", ctypes.addressof(record), address, size)
    exception = debug.recorded_exception(kernel_name, loaded.program.exceptions, record.raw)
    if exception is not None:
        zeros = ctypes.create_string_buffer(size)
        driver.call("cuMemcpyHtoD", address, ctypes.addressof(zeros), size)
        raise exception


def _allow_dynamic_shared(context, kernel_name, loaded, nbytes):
    """Opt the function in to `nbytes` of dynamic shared memory: past 48 KiB (less its
    static shared memory) a launch needs it, up to the device's opt-in limit."""
    driver = context.driver
    try:
        driver.call("cuFuncSetAttribute", loaded.function,
                    driver.enum("CUfunction_attribute",
                                "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"), nbytes)
    except CudaAPIError as exc:
        static = driver.call("cuFuncGetAttribute", driver.enum(
            "CUfunction_attribute", "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES"), loaded.function)
        raise CudaAPIError(
            f"kernel '{kernel_name}': {nbytes} bytes of dynamic shared memory and its "
            f"{static} of static shared memory exceed the device's "
            f"{context.device.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN} per block ({exc})") from None
    loaded.shared_allowed.value = nbytes


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


class _Foreign:
    """A KnownLaunch step: a C-contiguous array of another library (CuPy, PyTorch...) read
    through its `__cuda_array_interface__` at every launch (its memory or shape may change).
    For a PyTorch tensor, `tensor` is what a compiled entry reads instead (TorchTensor)."""

    __slots__ = ("kind", "itemsize", "tensor")

    def __init__(self, kind, tensor=None):
        self.kind = kind   # (typestr, ndim)
        self.itemsize = np.dtype(kind[0]).itemsize
        self.tensor = tensor

    def values(self, value, stream):
        """Its parameter values, or None when it is not of this step's kind."""
        desc = value.__cuda_array_interface__
        if _foreign_kind(desc) != self.kind:
            return None
        host.wait_for_producer(desc, stream)
        shape = desc["shape"]
        size = math.prod(shape)
        return (0, 0, size, self.itemsize, desc["data"][0] if size else 0, *shape,
                *c_strides(shape, self.itemsize))


class TorchTensor:
    """How a compiled entry reads a PyTorch tensor (of exactly `torch.Tensor`, one dtype)
    without its `__cuda_array_interface__`, a Python property that builds a dict at every
    read (2 us a tensor, most of a launch): from the tensor's own C attributes and methods,
    after the checks the property makes (no `__torch_function__` override, on the GPU,
    strided, no grad; C-contiguous, as the short path needs). A tensor failing one goes to
    the Python path, which reads the property (and raises its error)."""

    __slots__ = ("has_torch_function_unary", "strided", "size_type", "dtype")

    def __init__(self, torch, dtype):
        self.has_torch_function_unary = torch._C._has_torch_function_unary
        self.strided, self.size_type, self.dtype = torch.strided, torch.Size, dtype

    @classmethod
    def of(cls, value):
        """For a torch.Tensor (PyTorch is then imported), else None."""
        torch = sys.modules.get("torch")
        if torch is None or type(value) is not getattr(torch, "Tensor", None):
            return None
        return cls(torch, value.dtype)


def _foreign_kind(desc):
    """(typestr, ndim) of a CUDA Array Interface the short path takes: C-contiguous (no
    strides), no mask, not a structured dtype; else None."""
    if type(desc) is not dict or desc.get("strides") is not None or \
            desc.get("mask") is not None or desc["typestr"][1] == "V":
        return None
    return desc["typestr"], len(desc["shape"])


class KnownLaunch:
    """How to launch one loaded specialization, on one context, for arguments of the Python
    types it was made from: one step per argument (a device array's kept values, a scalar
    as it is or converted as the signature says, a foreign array's interface), and the
    driver calls bound once."""

    __slots__ = ("loaded", "steps", "kinds", "context", "_name", "_make_current",
                 "_handle", "_start", "uses", "entry_address", "_compiled")

    def __init__(self, context, kernel, loaded, steps, kinds):
        self.loaded = loaded
        self.context = context
        self._name = kernel.__name__
        self.steps = steps
        self.kinds = kinds   # of its arguments: a device array's kiln type, else the class
        self._make_current = context.driver.bound("cuCtxSetCurrent")
        self._handle = context.handle
        self._start = context.driver.bound(_entry(loaded))
        self.uses = 0
        self.entry_address = None   # of its compiled launch entry, made at its second use
        self._compiled = None

    def __call__(self, config, args):
        """Launch (True); else, launching nothing, False when a value does not fit its
        parameter (a Python int past int64: the general path types it again) or None when a
        foreign array is of another kind than this launch's."""
        layout = self.loaded.layout
        buffer, _, pointers = _buffer(layout)
        try:
            values = []
            for step, value in zip(self.steps, args):
                if step is _ARRAY:
                    values += value._launch_values
                elif step is None:
                    values.append(value)
                elif type(step) is _Foreign:
                    found = step.values(value, config.stream)
                    if found is None:
                        return None
                    values += found
                else:
                    values.append(step(value))
            layout.pack_into(buffer, values)
        except (struct.error, OverflowError, ValueError, TypeError):
            return False
        self._make_current(self._handle)
        if config.sharedmem > self.loaded.shared_allowed.value:
            _allow_dynamic_shared(self.context, self._name, self.loaded, config.sharedmem)
        self._start(*_arguments(self.loaded, config, pointers))
        self.uses += 1
        if self.uses == 2:
            self._compile_entry()
        return True

    def _compile_entry(self):
        """The compiled launch entry of this launch (cuda/driver/entry.py), when its steps
        allow one and the driver gives the functions' addresses."""
        functions = self.context.driver.function_addresses()
        if functions is None or self.loaded.program.cooperative:
            return
        from . import entry
        made = entry.compile_entry(self, functions)
        if made is not None:
            self._compiled, self.entry_address = made


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
        known = table[key] = _known_launch(cache, context, kernel, args, key[1:])
    if known is None:
        return False
    done = known(config, args)
    if done is None:   # a foreign array of another dtype or rank: made again for these
        known = table[key] = _known_launch(cache, context, kernel, args, key[1:])
        done = known is not None and known(config, args)
    return done


def _known_launch(cache, context, kernel, args, kinds):
    """The KnownLaunch for arguments like these, or None when they need the general path:
    a host array, a tuple, a strided foreign array, no signature that accepts them (whose
    error the general path raises)."""
    typed = []   # the arguments, foreign arrays as device arrays (for their types)
    for value in args:
        if type(value) is DeviceNDArray or type(value) in _SCALARS:
            typed.append(value)
            continue
        desc = getattr(value, "__cuda_array_interface__", None)
        if isinstance(value, np.ndarray) or _foreign_kind(desc) is None:
            return None
        typed.append(host.from_cuda_array_interface(desc, owner=value, sync=False))
    argtypes = argument_types(kernel, typed)
    if argtypes is None:
        return None
    steps = []
    for ty, value, as_typed in zip(argtypes, args, typed):
        array = type(as_typed) is DeviceNDArray
        if not isinstance(ty, types.Array if array else types.Number):
            return None   # (a signature's tuple or record: the general path checks it)
        if value is not as_typed:
            steps.append(_Foreign(_foreign_kind(value.__cuda_array_interface__),
                                  TorchTensor.of(value)))
        elif array:
            steps.append(_ARRAY)
        elif kernel.signatures and type(value) is not ty.np_dtype.type:
            steps.append(ty.np_dtype.type)   # as signatures.match converts it
        elif type(value) is int and str(ty) != "int64":
            return None   # typed by its value (a large int is uint64)
        else:
            steps.append(None)
    loaded = cache.get(kernel, argtypes, context)
    if loaded.program.exceptions is not None:
        return None   # debug=True: the general path waits and reads the record
    return KnownLaunch(context, kernel, loaded, tuple(steps), kinds)


def max_cooperative_blocks(cache, context, kernel, argtypes, threads, dynamic_shared):
    """How many blocks of `threads` a cooperative launch of the kernel can have: as many as
    fit on the device at once."""
    function = cache.get(kernel, tuple(argtypes), context).function
    context.make_current()
    per_sm = context.driver.call("cuOccupancyMaxActiveBlocksPerMultiprocessor", function,
                                 threads, dynamic_shared)
    return per_sm * context.device.MULTIPROCESSOR_COUNT

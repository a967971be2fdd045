"""Kernel arguments crossing from host to device: NumPy arrays are copied to the device
and back after the launch, device arrays, `__cuda_array_interface__` objects and DLPack
objects pass as they are, `cuda.In/Out/InOut` choose the copies explicitly."""
from __future__ import annotations

import enum
import numbers

import numpy as np

from .devicearray import DeviceNDArray
from .dlpack import from_dlpack
from .host import device_array_like, from_cuda_array_interface, to_device


class In:
    """A host array the kernel only reads: copied to the device, not back."""

    copy_in, copy_out = True, False

    def __init__(self, value):
        self.value = value


class Out(In):
    """A host array the kernel only writes: copied back, not to the device."""

    copy_in, copy_out = False, True


class InOut(In):
    """A host array copied to the device and back (what a bare NumPy array gets)."""

    copy_in, copy_out = True, True


ArgHint = In   # Numba's name of the base class


def wrap_arg(value, default=InOut):
    """`value` as it is if it is an In/Out/InOut already, else `default(value)` (Numba's)."""
    return value if isinstance(value, In) else default(value)


def extended(extensions, args, stream):
    """The arguments after each of a kernel's `extensions` (Numba's: objects whose
    `prepare_args(ty, value, stream=, retr=)` gives back (type, value)) saw them."""
    for extension in extensions:
        args = tuple(extension.prepare_args(None, value, stream=stream, retr=[])[1]
                     for value in args)
    return args


def prepare(kernel_name, args, stream, writebacks):
    """Device-side arguments; appends (host array, device array) pairs to copy back."""
    return tuple(_prepare(kernel_name, i, a, stream, writebacks) for i, a in enumerate(args))


def _prepare(kernel_name, index, arg, stream, writebacks):
    if isinstance(arg, DeviceNDArray):
        return arg
    if isinstance(arg, In):
        host = np.asarray(arg.value)
        dev = to_device(host, stream) if arg.copy_in else device_array_like(host, stream)
        if arg.copy_out:
            writebacks.append((host, dev))
        return dev
    if hasattr(arg, "__cuda_array_interface__"):
        return from_cuda_array_interface(arg.__cuda_array_interface__, owner=arg,
                                         consumer=stream)
    if isinstance(arg, np.ndarray):
        dev = to_device(arg, stream)
        if not arg.flags.writeable:
            return dev._readonly_view()
        writebacks.append((arg, dev))
        return dev
    if hasattr(arg, "__dlpack__"):
        return from_dlpack(arg, stream)
    if isinstance(arg, tuple):
        items = [_prepare(kernel_name, index, a, stream, writebacks) for a in arg]
        return type(arg)(*items) if hasattr(arg, "_fields") else tuple(items)  # namedtuples
    if isinstance(arg, (numbers.Number, np.generic, enum.Enum)):
        return arg
    raise TypeError(f"kernel '{kernel_name}': argument {index + 1} is a "
                    f"{type(arg).__name__}; kernels take scalars, NumPy arrays, device "
                    "arrays (or CUDA Array Interface and DLPack objects) and tuples of them")


def write_back(writebacks, stream):
    for host, dev in writebacks:
        dev.copy_to_host(host, stream)

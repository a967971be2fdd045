"""Kernels compiled and loaded for the devices present: PTX once per (kernel, argument
types, target), a module loaded once per device, the CUfunction and the parameter layout
kept for every later launch of that specialization.

The target comes from ptxversion.choose (driver version and compute capability). When the
driver's JIT is older than the ISA the target needs, the PTX goes to the driver as a cubin
made by nvJitLink instead (jitlink.py)."""
from __future__ import annotations

import ctypes
import re
import weakref
from dataclasses import dataclass, field

from kiln.types import Signature, void

from .. import abi
from ..errors import CudaAPIError
from . import jitlink


@dataclass
class Program:
    """One specialization of a kernel for one target: its PTX, or the cubin nvJitLink made;
    whether it syncs its whole grid (then it is launched cooperatively); for a debug=True
    kernel, the exceptions it may record (cuda/debug.py), else None."""
    ptx: str
    image: bytes
    target: tuple
    cooperative: bool = False
    exceptions: list | None = None


@dataclass
class Loaded:
    """A specialization loaded on one device; `shared_allowed`: the most dynamic shared
    memory its function was opted in to (launcher.py raises it as launches ask; compiled
    launch entries read it where it is), -1 once its context is gone (so no compiled entry
    launches it again)."""
    module: object
    function: object
    layout: abi.Layout
    program: Program
    shared_allowed: ctypes.c_int64 = field(default_factory=ctypes.c_int64)


class ModuleCache:
    def __init__(self, driver, driver_version):
        self.driver = driver
        self.driver_version = driver_version
        # kernel -> {(argument types, cc): Program} and {(argument types, device id): Loaded}
        self._programs = weakref.WeakKeyDictionary()
        self._loaded = weakref.WeakKeyDictionary()

    def get(self, kernel, argtypes, context) -> Loaded:
        loaded = self._loaded.get(kernel)   # (setdefault would make a weakref every time)
        if loaded is None:
            loaded = self._loaded[kernel] = {}
        key = (argtypes, context.device.id)
        entry = loaded.get(key)
        if entry is None:
            program = self.program(kernel, argtypes, context.device.compute_capability)
            entry = loaded[key] = self._load(kernel, program, argtypes, context)
        return entry

    def forget(self, device_id):
        """Drop what was loaded on a device whose context went (its modules went with it)."""
        for loaded in self._loaded.values():
            for key in [key for key in loaded if key[1] == device_id]:
                loaded.pop(key).shared_allowed.value = -1

    def compiled_argtypes(self, kernel) -> list:
        return list(dict.fromkeys(argtypes for argtypes, _ in self._programs.get(kernel, {})))

    def program(self, kernel, argtypes, cc) -> Program:
        programs = self._programs.setdefault(kernel, {})
        key = (argtypes, tuple(cc))
        if key not in programs:
            programs[key] = self._compile(kernel, argtypes, cc)
        return programs[key]

    def _compile(self, kernel, argtypes, cc) -> Program:
        # (the compiler loads at the first kernel, not with `import kiln.cuda`)
        from .. import debug
        from ..external import link_files
        from ..gridsync import is_cooperative
        from ..ptx import compile_ptx
        from ..ptxcache import cached_cubin, cached_kernel_ptx
        from . import ptxversion
        target, isa, too_new = ptxversion.choose(cc, self.driver_version)
        sig = Signature(void, tuple(argtypes))
        if kernel.options.get("cache"):   # cuda.jit(cache=True): PTX kept on disk
            ptx = cached_kernel_ptx(kernel, sig, target, **kernel.compile_options())
        else:
            ptx, _ = compile_ptx(kernel, sig, cc=target, **kernel.compile_options())
        emitted = ptxversion.ptx_isa_of(ptx)
        newest = ptxversion.max_ptx_isa(self.driver_version)
        link = link_files(kernel, ptx)
        why = None
        if too_new or emitted > newest:
            why = (f"the CUDA driver ({ptxversion.driver_version_text(self.driver_version)}) "
                   f"loads PTX up to ISA {newest // 10}.{newest % 10}, and sm_{target[0]}"
                   f"{target[1]} needs {emitted // 10}.{emitted % 10}")
        elif link:
            why = f"it links {', '.join(map(str, link))}"
        if why is None:
            image = ptx.encode() + b"\0"
        elif kernel.options.get("cache"):   # the linked cubin kept on disk too
            image = cached_cubin(kernel, ptx, target, link, lambda: jitlink.ptx_to_cubin(
                ptx, target, kernel.__name__, why, link))
        else:
            image = jitlink.ptx_to_cubin(ptx, target, kernel.__name__, why, link)
        exceptions = debug.table_of(ptx) if kernel.options.get("debug") else None
        return Program(ptx, image, target, is_cooperative(ptx), exceptions)

    def _load(self, kernel, program, argtypes, context) -> Loaded:
        context.make_current()
        try:
            module = self.driver.call("cuModuleLoadData", program.image)
        except CudaAPIError as exc:
            shared, limit = static_shared_bytes(program.ptx), \
                context.device.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            if shared > limit:   # the simulator's words for the same mistake
                raise MemoryError(f"kernel '{kernel.__name__}' uses {shared} bytes of shared "
                                  f"memory per block, more than the device's {limit}") from None
            raise CudaAPIError(f"kernel '{kernel.__name__}': the driver refused its code for "
                               f"sm_{program.target[0]}{program.target[1]}: {exc}") from None
        name = _entry_name(program.ptx, kernel.__name__)
        function = self.driver.call("cuModuleGetFunction", module, name.encode())
        return Loaded(module, function, abi.Layout(argtypes), program)


def static_shared_bytes(ptx) -> int:
    """The bytes of the `.shared` arrays the PTX declares with a size (dynamic shared
    memory is declared without one)."""
    return sum(int(n) for n in re.findall(r"^\s*\.shared\s[^\[;]*\[(\d+)\]", ptx, re.M))


def _entry_name(ptx, name) -> str:
    """The `.entry` ptx.py made for the kernel (`name`, or `name.kernel` when the Python
    name is taken by the function itself, which LLVM writes as `name_kernel`)."""

    entries = re.findall(r"\.entry\s+([\w$.]+)\s*\(", ptx)
    if len(entries) != 1:
        raise CudaAPIError(f"kernel '{name}': expected one .entry in its PTX, found "
                           f"{entries}")
    return entries[0]

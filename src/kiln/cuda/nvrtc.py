"""CUDA C to PTX with NVRTC, NVIDIA's runtime compiler, so that `link=["mul.cu"]` works as in
Numba: a `.cu` file (or a `CUSource`, CUDA C in memory) among the files a kernel links is
compiled here for the link's target and its PTX linked by nvJitLink (driver/jitlink.py).

NVRTC comes from the `nvidia-cuda-nvrtc-cu12` wheel through cuda-bindings (`from
cuda.bindings import nvrtc`), imported on first use; it needs no GPU. Each source is
compiled once per process and target: the cache key is the name (NVRTC finds `#include
"x.h"` next to it), the source's bytes and the options, which hold the target."""
from __future__ import annotations

import contextlib

import os
import threading
import warnings

from ..errors import KilnWarning
from . import toolkit
from .errors import CudaSupportError

INSTALL_HINT = "pip install nvidia-cuda-nvrtc-cu12 (or kiln[cuda])"

_compiled = {}   # (name, source bytes, options) -> PTX bytes, NUL-terminated
_lock = threading.Lock()


class CUSource:
    """CUDA C source in memory, to give `cuda.jit(link=[...])` or `declare_device(link=...)`
    where a `.cu` file would go (Numba's `cuda.CUSource`). `name` names it in NVRTC's
    messages and is where quoted `#include`s are looked for."""

    def __init__(self, code, name="source.cu"):
        self.code = code.encode() if isinstance(code, str) else bytes(memoryview(code))
        self.name = os.fspath(name)

    @classmethod
    def read(cls, path):
        with open(path, "rb") as file:
            return cls(file.read(), os.fspath(path))

    def __eq__(self, other):   # the same code under the same name links once
        return isinstance(other, CUSource) and (self.code, self.name) == (other.code,
                                                                         other.name)

    def __hash__(self):
        return hash((self.code, self.name))

    def __repr__(self):
        return f"<CUSource {self.name}>"

    def __str__(self):
        return self.name

    def ptx(self, cc, kernel_name) -> bytes:
        """The PTX of the source for compute capability `cc`, NUL-terminated (as nvJitLink
        takes PTX); `kernel_name` is the kernel being linked, for the errors."""
        options = [f"-arch=compute_{cc[0]}{cc[1]}", "-rdc=true"]   # rdc: keep the functions
        options += [f"-I{directory}" for directory in toolkit.include_dirs()]
        key = (self.name, self.code, tuple(options))
        with _lock:   # concurrent first launches compile once
            if key not in _compiled:
                _compiled[key] = _compile(self.code, self.name, options, kernel_name)
            return _compiled[key]


def _bindings(kernel_name, name):
    why = f"kernel '{kernel_name}': compiling {name} (CUDA C) needs NVRTC"
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise CudaSupportError(f"{why}, which is not available ({exc}): "
                               f"{INSTALL_HINT}") from None
    try:
        nvrtc.nvrtcVersion()
    except Exception as exc:   # the bindings are there, libnvrtc is not
        raise CudaSupportError(f"{why}, and libnvrtc could not be loaded ({exc}): "
                               f"{INSTALL_HINT}") from None
    return nvrtc


@contextlib.contextmanager
def _stack_limit_kept():
    """NVRTC raises the process's stack size limit (RLIMIT_STACK) to unlimited while it
    compiles some sources, and leaves it so: every process started later would inherit it
    (and kiln's stack guard there would let a recursion grow until memory runs out). The
    limit is put back."""
    try:
        import resource
    except ImportError:   # (not on Windows)
        yield
        return
    before = resource.getrlimit(resource.RLIMIT_STACK)
    try:
        yield
    finally:
        if resource.getrlimit(resource.RLIMIT_STACK) != before:
            resource.setrlimit(resource.RLIMIT_STACK, before)


def _compile(code, name, options, kernel_name) -> bytes:
    nvrtc = _bindings(kernel_name, name)

    def check(result, what):
        if result[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            message = nvrtc.nvrtcGetErrorString(result[0])[1].decode()
            raise CudaSupportError(f"kernel '{kernel_name}': NVRTC failed to {what} {name}: "
                                   f"{message}")
        return result[1:]

    (program,) = check(nvrtc.nvrtcCreateProgram(code, name.encode(), 0, [], []), "read")
    try:
        with _stack_limit_kept():
            compiled = nvrtc.nvrtcCompileProgram(program, len(options),
                                                 [option.encode() for option in options])
        # NVRTC writes into the buffers: a bytearray, never bytes (`b" " * 1` is CPython's
        # shared one-byte object, which an empty log would turn into b"\0" everywhere)
        (size,) = check(nvrtc.nvrtcGetProgramLogSize(program), "log")
        log = bytearray(size)
        check(nvrtc.nvrtcGetProgramLog(program, log), "log")
        log = log.rstrip(b"\0").decode(errors="replace").strip()
        if compiled[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise CudaSupportError(f"kernel '{kernel_name}': NVRTC could not compile {name} "
                                   f"({nvrtc.nvrtcGetErrorString(compiled[0])[1].decode()}):"
                                   f"\n{log}")
        if log:   # warnings: the source compiled, but the author should see them
            warnings.warn(f"kernel '{kernel_name}': NVRTC's messages compiling {name}:\n{log}",
                          KilnWarning)
        (size,) = check(nvrtc.nvrtcGetPTXSize(program), "get the PTX of")
        ptx = bytearray(size)
        check(nvrtc.nvrtcGetPTX(program, ptx), "get the PTX of")
        return bytes(ptx)
    finally:
        nvrtc.nvrtcDestroyProgram(program)

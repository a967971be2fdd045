"""The on-disk cache of kernels' PTX (`cuda.jit(cache=True)`), as runtime/cache.py is for
machine code: an entry is keyed by a hash of the kernel's unoptimized LLVM IR (its code,
the device functions it calls, the constants frozen into it) together with the target, the
options and the LLVM, libdevice and kiln versions, so a changed kernel or callee is a miss,
never stale code. A hit skips LLVM's optimizer and NVPTX back-end; the files live beside
the kernel's source, in __pycache__/kiln, where the CPU's entries are.

The cubin nvJitLink links (for a driver older than the PTX, or with `link=` code) is kept
too, keyed by the PTX, the target, the bytes of every linked file or CUSource and the
nvJitLink and NVRTC versions (a header a `.cu` file includes is not part of the key)."""
from __future__ import annotations

import os

import llvmlite

from ..runtime.cache import cache_key, function_cache
from ..types import Signature
from . import toolkit


def _fingerprint(cc, fastmath, lineinfo) -> str:
    from ..version import __version__
    from .ptx import _llvm, ptx_target
    libdevice = toolkit.libdevice_path()
    found = f"{libdevice.stat().st_size}" if libdevice is not None else "none"
    return (f"{ptx_target(cc)} fastmath={fastmath} lineinfo={lineinfo} "
            f"llvm{_llvm().llvm_version_info} llvmlite{llvmlite.__version__} "
            f"libdevice{found} kiln{__version__}")


def cached_kernel_ptx(kernel, sig: Signature, cc, fastmath=False, lineinfo=False,
                      debug=False) -> str:
    """The PTX of `kernel` (a cuda.jit Kernel) for `sig` and compute capability `cc`, from
    the cache when it holds it, else compiled and stored."""
    from .ptx import compile_llvm, emit_ptx
    llvm_ir, _ = compile_llvm(kernel, sig, False, fastmath, lineinfo, debug)
    store = function_cache(kernel.py_func, kind="ptx")
    key = cache_key(llvm_ir, _fingerprint(cc, fastmath, lineinfo))
    data = store.load(key)
    if data is not None:
        return data.decode()
    ptx = emit_ptx(llvm_ir, kernel.__name__, cc, fastmath)
    store.save(key, ptx.encode())
    return ptx


def cached_cubin(kernel, ptx, cc, link, make) -> bytes:
    """The cubin `make()` links from the kernel's PTX and `link`, from the cache when it
    holds it, else made and stored."""
    store = function_cache(kernel.py_func, kind="cubin")
    key = cache_key(ptx, f"sm_{cc[0]}{cc[1]} {_linkers()} " +
                    " ".join(_fingerprint_of_input(item) for item in link))
    data = store.load(key)
    if data is None:
        data = make()
        store.save(key, data)
    return data


def _fingerprint_of_input(item) -> str:
    import hashlib
    code = item.code if hasattr(item, "code") else open(os.fspath(item), "rb").read()
    return f"{item}:{hashlib.sha256(code).hexdigest()}"


def _linkers() -> str:
    """nvJitLink's and NVRTC's versions, where they load."""
    versions = []
    try:
        from cuda.bindings import nvjitlink
        versions.append(f"nvjitlink{nvjitlink.version()}")
    except Exception:   # (then linking fails with its own error)
        versions.append("nvjitlink?")
    try:
        from cuda.bindings import nvrtc
        versions.append(f"nvrtc{nvrtc.nvrtcVersion()[1:]}")
    except Exception:
        versions.append("nvrtc?")
    return " ".join(versions)

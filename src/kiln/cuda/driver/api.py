"""The one door to NVIDIA's driver: `cuda-bindings` (`from cuda.bindings import driver`),
loaded on first use, with every call's CUresult checked.

kiln does not write its own ctypes layer over libcuda: the bindings are NVIDIA's, follow
each driver release, and return `(CUresult, values...)` tuples. `Driver.call` turns a
failing result into a CudaAPIError naming the function and the error (CUDA_ERROR_...), so
no caller ever looks at a result code. Tests hand `Driver` a small double of the binding
module that records the calls (tests/cuda/test_driver_logic.py)."""
from __future__ import annotations

from ..errors import CudaAPIError

INSTALL_HINT = ("pip install 'kiln[cuda]' (cuda-bindings for CUDA 12, nvidia-nvvm, "
                "nvidia-nvjitlink-cu12, nvidia-cuda-nvcc-cu12, nvidia-cuda-nvrtc-cu12) and an "
                "NVIDIA driver")


class Driver:
    """A checked view of a cuda-bindings `driver` module (or a test double of it)."""

    def __init__(self, module):
        self.module = module

    def call(self, name, *args):
        """`module.name(*args)`, raising CudaAPIError unless it succeeded; returns the
        values after the result code (one value as itself, none as None)."""
        result = getattr(self.module, name)(*args)
        if not isinstance(result, tuple):
            result = (result,)
        code, values = result[0], result[1:]
        if int(code) != 0:
            raise CudaAPIError(f"{name} failed: {self.error_name(code)}")
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def bound(self, name):
        """`module.name`, checked as `call` checks it, for calls made at every launch (the
        function is looked up once; what it returns is dropped)."""
        function = getattr(self.module, name)

        def checked(*args):
            result = function(*args)
            code = result[0] if type(result) is tuple else result
            if code:
                raise CudaAPIError(f"{name} failed: {self.error_name(code)}")
        return checked

    def function_addresses(self):
        """{name: address} of the driver functions compiled launch entries call
        (cuda/driver/entry.py), from cuGetProcAddress; None when it gives none. The legacy
        default stream's variants, as cuda-bindings' own calls use, unless it is told to
        use the per-thread one (CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM)."""
        if not hasattr(self, "_addresses"):
            import os
            flag = "PER_THREAD_DEFAULT_STREAM" if os.environ.get(
                "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "0") != "0" else "LEGACY_STREAM"
            try:
                flags = self.enum("CUdriverProcAddress_flags", f"CU_GET_PROC_ADDRESS_{flag}")
                found = {name: int(self.call("cuGetProcAddress", name.encode(), 12000,
                                             flags)[0])
                         for name in ("cuLaunchKernel", "cuCtxGetCurrent")}
            except (AttributeError, CudaAPIError, TypeError):
                found = {}
            self._addresses = found if found and all(found.values()) else None
        return self._addresses

    def error_name(self, code) -> str:
        try:
            _, name = self.module.cuGetErrorName(code)
            return name.decode() if isinstance(name, bytes) else str(name)
        except Exception:   # the name is a courtesy; the code is what matters
            return f"CUresult {int(code)}"

    def enum(self, type_name, member):
        """A member of one of the binding's enums, e.g. ('CUdevice_attribute', 'CU_...')."""
        return getattr(getattr(self.module, type_name), member)


def load():
    """(Driver, None) with the driver initialized, or (None, why not): cuda-bindings is
    missing, libcuda is missing, or cuInit found no device."""
    try:
        from cuda.bindings import driver as module
    except ImportError as exc:
        return None, f"the cuda-bindings package is not installed ({exc}): {INSTALL_HINT}"
    return initialize(module)


def initialize(module):
    """(Driver, None) once `cuInit(0)` succeeded and a device is present, else (None, why)."""
    driver = Driver(module)
    try:
        driver.call("cuInit", 0)
        count = driver.call("cuDeviceGetCount")
    except CudaAPIError as exc:
        return None, f"the CUDA driver found no usable GPU ({exc})"
    except Exception as exc:   # cuda-bindings raises its own error when libcuda is absent
        return None, (f"the NVIDIA driver library (libcuda.so.1) could not be loaded "
                      f"({type(exc).__name__}: {exc}): install an NVIDIA driver")
    if not count:
        return None, "the CUDA driver reports no GPU"
    return driver, None

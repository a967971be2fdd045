"""nvJitLink, for a driver whose JIT is older than the PTX a device needs: the PTX becomes a
cubin here (nvJitLink carries its own, newer, PTX assembler), and a cubin built by a newer
CUDA 12 toolkit loads on any CUDA 12 driver. Comes from the `nvidia-nvjitlink-cu12` wheel
through cuda-bindings; without it the launch fails saying so. It also links a kernel with
device code from elsewhere (`declare_device`, `cuda.jit(link=...)`: cuda/external.py), CUDA C
sources among it compiled to PTX by NVRTC first (cuda/nvrtc.py)."""
from __future__ import annotations

import os

from ..errors import CudaSupportError
from ..nvrtc import CUSource

INSTALL_HINT = "pip install nvidia-nvjitlink-cu12 (or kiln[cuda])"


# what nvJitLink takes, by file extension (and CUDA C, .cu, once NVRTC made it PTX)
_INPUTS = {".ptx": "PTX", ".cubin": "CUBIN", ".fatbin": "FATBIN", ".o": "OBJECT",
           ".a": "LIBRARY", ".ltoir": "LTOIR"}


def ptx_to_cubin(ptx: str, cc, kernel_name, why, link=()) -> bytes:
    """The cubin of the kernel's PTX linked with the files `link` names and the CUSources it
    holds (`why` says why nvJitLink is needed, for the error without it)."""
    inputs = [_input(item, cc, kernel_name) for item in link]
    try:
        from cuda.bindings import nvjitlink
    except ImportError as exc:
        raise CudaSupportError(f"kernel '{kernel_name}': {why}, and nvJitLink is not "
                               f"available to do it ({exc}): {INSTALL_HINT}") from None
    options = [f"-arch=sm_{cc[0]}{cc[1]}"]
    try:
        handle = nvjitlink.create(len(options), options)
    except Exception as exc:   # the bindings are there, libnvJitLink is not
        raise CudaSupportError(f"kernel '{kernel_name}': {why}, and libnvJitLink could not "
                               f"be loaded ({exc}): {INSTALL_HINT}") from None
    try:
        data = ptx.encode()
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), kernel_name)
        for kind, path, content in inputs:
            nvjitlink.add_data(handle, getattr(nvjitlink.InputType, kind), content,
                               len(content), path)
        try:
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            log = bytearray(nvjitlink.get_error_log_size(handle))
            nvjitlink.get_error_log(handle, log)
            raise CudaSupportError(f"kernel '{kernel_name}': nvJitLink could not link it:\n"
                                   f"{log.decode(errors='replace')}") from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)


def _input(item, cc, kernel_name):
    """(nvJitLink's input type, a name, the bytes) of a file or CUSource to link for `cc`."""
    if isinstance(item, CUSource):
        return "PTX", item.name, item.ptx(cc, kernel_name)
    path = item
    extension = os.path.splitext(path)[1].lower()
    if extension == ".cu":
        return "PTX", path, CUSource.read(path).ptx(cc, kernel_name)
    kind = _INPUTS.get(extension)
    if kind is None:
        raise CudaSupportError(f"kernel '{kernel_name}': cannot link {path}: kiln links "
                               f"{', '.join(sorted([*_INPUTS, '.cu']))} files")
    with open(path, "rb") as file:
        content = file.read()
    if kind == "PTX":
        content += b"\0"
    return kind, path, content

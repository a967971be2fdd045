"""nvJitLink, for a driver whose JIT is older than the PTX a device needs: the PTX becomes a
cubin here (nvJitLink carries its own, newer, PTX assembler), and a cubin built by a newer
CUDA 12 toolkit loads on any CUDA 12 driver. Comes from the `nvidia-nvjitlink-cu12` wheel
through cuda-bindings; without it the launch fails saying so."""
from __future__ import annotations

from ..errors import CudaSupportError

INSTALL_HINT = "pip install nvidia-nvjitlink-cu12 (or kiln[cuda])"


def ptx_to_cubin(ptx: str, cc, kernel_name, why) -> bytes:
    try:
        from cuda.bindings import nvjitlink
    except ImportError as exc:
        raise CudaSupportError(f"kernel '{kernel_name}': {why}, and nvJitLink is not "
                               f"available to assemble it instead ({exc}): "
                               f"{INSTALL_HINT}") from None
    options = [f"-arch=sm_{cc[0]}{cc[1]}"]
    try:
        handle = nvjitlink.create(len(options), options)
    except Exception as exc:   # the bindings are there, libnvJitLink is not
        raise CudaSupportError(f"kernel '{kernel_name}': {why}, and libnvJitLink could not "
                               f"be loaded ({exc}): {INSTALL_HINT}") from None
    try:
        data = ptx.encode()
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), kernel_name)
        try:
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            log = bytearray(nvjitlink.get_error_log_size(handle))
            nvjitlink.get_error_log(handle, log)
            raise CudaSupportError(f"kernel '{kernel_name}': nvJitLink rejected the PTX:\n"
                                   f"{log.decode(errors='replace')}") from None
        cubin = bytearray(nvjitlink.get_linked_cubin_size(handle))
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin)
    finally:
        nvjitlink.destroy(handle)

"""Device code from elsewhere: `cuda.declare_device` and `cuda.jit(link=...)`. The kernel's
PTX declares the function `.extern .func` and calls it in Numba's device ABI; nvJitLink
(from the nvidia-nvjitlink-cu12 wheel, no GPU needed) links it with data/mul.ptx, the PTX
of `extern "C" __device__ int mul(int *r, int x, int y) { *r = x * y; return 0; }`; the
driver back-end (fake driver) loads the linked cubin."""
import pathlib
import re

import numpy as np
import pytest

from kiln import cuda
from kiln.cuda.errors import CudaSupportError

MUL_PTX = pathlib.Path(__file__).parent / "data" / "mul.ptx"
mul = cuda.declare_device("mul", "int32(int32, int32)", link=MUL_PTX)


def nvjitlink_available():
    try:
        from cuda.bindings import nvjitlink
        nvjitlink.destroy(nvjitlink.create(1, ["-arch=sm_90"]))
        return True
    except Exception:
        return False


needs_nvjitlink = pytest.mark.skipif(not nvjitlink_available(),
                                     reason="nvJitLink not installed: pip install "
                                            "nvidia-nvjitlink-cu12 (or kiln[cuda])")


@cuda.jit
def triple(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = mul(a[i], 3)


def test_the_ptx_declares_and_calls_it_in_numbas_abi():
    ptx, _ = cuda.compile_ptx(triple, "void(int32[:], int32[:])")
    declared = re.search(r"\.extern \.func\s+\(\.param \.b32 \w+\) mul\s*\((.*?)\)", ptx, re.S)
    assert declared is not None
    assert declared.group(1).count(".param") == 3   # the result's pointer, x, y
    assert "call.uni (retval0), mul," in ptx


@needs_nvjitlink
def test_nvjitlink_links_it():
    from kiln.cuda.driver import jitlink
    from kiln.cuda.external import link_files
    ptx, _ = cuda.compile_ptx(triple, "void(int32[:], int32[:])")
    assert link_files(triple, ptx) == [str(MUL_PTX)]
    assert jitlink.ptx_to_cubin(ptx, (9, 0), "triple", "a test", [str(MUL_PTX)])[:4] == \
        b"\x7fELF"
    with pytest.raises(CudaSupportError, match="could not link"):   # mul left undefined
        jitlink.ptx_to_cubin(ptx, (9, 0), "triple", "a test", [])


@needs_nvjitlink
def test_driver_loads_the_linked_cubin(monkeypatch):
    from fake_cuda_driver import FakeDriver

    from kiln.cuda import backend
    from kiln.cuda.driver import DriverBackend, api
    fake = FakeDriver()
    monkeypatch.setattr(backend, "active", DriverBackend(api.Driver(fake)))
    a = cuda.to_device(np.arange(4, dtype=np.int32))
    triple[1, 32](a, a)
    image = next(call[1][0] for call in fake.calls if call[0] == "cuModuleLoadData")
    assert image[:4] == b"\x7fELF"
    assert fake.launches[-1][0] == "triple"


def test_what_cannot_be_linked_is_refused():
    from kiln.cuda.driver import jitlink
    with pytest.raises(CudaSupportError, match=r"cannot link notes.txt: kiln links \.a, "
                       r"\.cu, \.cubin"):   # CUDA C is compiled by NVRTC: test_nvrtc.py
        jitlink.ptx_to_cubin("", (9, 0), "k", "a test", ["notes.txt"])
    with pytest.raises(FileNotFoundError, match="missing.cu"):
        jitlink.ptx_to_cubin("", (9, 0), "k", "a test", ["missing.cu"])
    with pytest.raises(TypeError, match="needs a return type"):
        cuda.declare_device("f", "(float32)")


@pytest.mark.cuda
@pytest.mark.cudasim_only
def test_the_simulator_cannot_run_it():
    with pytest.raises(NotImplementedError, match="'mul' is external code"):
        triple[1, 4](np.arange(4, dtype=np.int32), np.zeros(4, np.int32))

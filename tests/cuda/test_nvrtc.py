"""CUDA C in `link=`: a `.cu` file (or a `cuda.CUSource`) is compiled to PTX by NVRTC (the
nvidia-cuda-nvrtc-cu12 wheel, no GPU needed) for the link's target, then linked with the
kernel by nvJitLink into a cubin, which the driver back-end (fake driver) loads. The
functions' results cannot be checked without a GPU: test_hardware.py runs them there. These
tests check that NVRTC compiled the source and that the linked cubin defines the function
(a missing definition fails to link)."""
import importlib
import pathlib
import struct
import sys

import numpy as np
import pytest
from fake_cuda_driver import FakeDriver
from test_external import needs_nvjitlink

from kiln import cuda
from kiln.cuda import backend, nvrtc
from kiln.cuda.driver import DriverBackend, api, jitlink
from kiln.cuda.errors import CudaSupportError
from kiln.cuda.external import link_files
from kiln.errors import KilnWarning

MUL_CU = pathlib.Path(__file__).parent / "data" / "mul.cu"
mul_cu = cuda.declare_device("mul_cu", "int32(int32, int32)", link=MUL_CU)
add_cu = cuda.declare_device("add_cu", "int32(int32, int32)")   # linked by the kernel
neg_cu = cuda.declare_device("neg_cu", "int32(int32)", link=cuda.CUSource(
    'extern "C" __device__ int neg_cu(int *r, int x) { *r = -x; return 0; }', name="neg.cu"))


def nvrtc_available():
    try:
        from cuda.bindings import nvrtc as bindings
        return bindings.nvrtcVersion()[0] == bindings.nvrtcResult.NVRTC_SUCCESS
    except Exception:
        return False


needs_nvrtc = pytest.mark.skipif(not nvrtc_available(),
                                 reason="NVRTC not installed (or libnvrtc not loadable): "
                                        f"{nvrtc.INSTALL_HINT}")


@cuda.jit
def triple_cu(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = mul_cu(a[i], 3)


def plus_one_kernel(link):
    @cuda.jit(link=link)
    def plus_one(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = add_cu(a[i], 1)
    return plus_one


ADD_CU = 'extern "C" __device__ int add_cu(int *r, int x, int y) { *r = x + y; return 0; }\n'


def defined_functions(elf) -> dict:
    """{name: size} of the functions an ELF64 image (a cubin) defines, from its symtab."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
                for i in range(shnum)]
    found = {}
    for _, kind, _, _, offset, size, link, _, _, entsize in sections:
        if kind != 2:   # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, entsize):
            name, info, _, shndx, _, length = struct.unpack_from("<IBBHQQ", elf, at)
            if info & 0xF == 2 and shndx != 0:   # STT_FUNC, defined in a section
                found[elf[strings + name:elf.index(b"\0", strings + name)].decode()] = length
    return found


@pytest.fixture
def fake(monkeypatch):
    driver = FakeDriver()   # CUDA 12.4, sm_90
    monkeypatch.setattr(backend, "active", DriverBackend(api.Driver(driver)))
    return driver


@pytest.fixture
def compiles(monkeypatch):
    """The sources NVRTC compiles during the test (a fresh cache)."""
    names = []
    compile_source = nvrtc._compile

    def counted(code, name, options, kernel_name):
        names.append((name, options[0]))
        return compile_source(code, name, options, kernel_name)
    monkeypatch.setattr(nvrtc, "_compiled", {})
    monkeypatch.setattr(nvrtc, "_compile", counted)
    return names


@needs_nvrtc
def test_nvrtc_compiles_cuda_c_to_ptx_for_the_target(compiles):
    source = nvrtc.CUSource.read(MUL_CU)
    for cc in [(9, 0), (8, 0)]:
        ptx = source.ptx(cc, "k")
        assert ptx.endswith(b"\0") and f".target sm_{cc[0]}{cc[1]}".encode() in ptx
        assert b".visible .func  (.param .b32 func_retval0) mul_cu(" in ptx
    assert compiles == [(str(MUL_CU), "-arch=compute_90"), (str(MUL_CU), "-arch=compute_80")]


@needs_nvrtc
def test_an_empty_log_leaves_pythons_shared_bytes_alone(compiles):
    """NVRTC writes its log into the buffer kiln hands it: an empty log is one NUL byte,
    and a one-byte `bytes` object is CPython's shared one (b" " in every module). Written
    into, every b" " in the process became b"\0" (print's separators were NULs)."""
    nvrtc.CUSource(MUL_CU.read_bytes(), "again.cu").ptx((9, 0), "k")
    assert bytes([32])[0] == 32 and " ".encode()[0] == 32


@needs_nvrtc
@needs_nvjitlink
def test_the_cu_function_is_linked_into_the_cubin(tmp_path):
    ptx, _ = cuda.compile_ptx(triple_cu, "void(int32[:], int32[:])")
    assert link_files(triple_cu, ptx) == [str(MUL_CU)]
    also_linked = cuda.jit(link=[str(MUL_CU), nvrtc.CUSource(ADD_CU), nvrtc.CUSource(ADD_CU)])(
        triple_cu.py_func)   # each once: mul_cu's file is named twice, as str and as Path
    assert link_files(also_linked, ptx) == [str(MUL_CU), nvrtc.CUSource(ADD_CU)]
    cubin = jitlink.ptx_to_cubin(ptx, (9, 0), "triple_cu", "a test", [str(MUL_CU)])
    assert cubin[:4] == b"\x7fELF"
    functions = defined_functions(cubin)
    assert functions["mul_cu"] > 0 and functions["triple_cu"] > 0
    other = tmp_path / "other.cu"   # compiles, but does not define mul_cu
    other.write_text('extern "C" __device__ int other(int *r) { *r = 1; return 0; }\n')
    with pytest.raises(CudaSupportError, match="(?s)could not link.*mul_cu"):
        jitlink.ptx_to_cubin(ptx, (9, 0), "triple_cu", "a test", [str(other)])


@needs_nvrtc
@needs_nvjitlink
def test_the_driver_loads_the_linked_cubin(fake):
    a = cuda.to_device(np.arange(-3, 5, dtype=np.int32))
    triple_cu[1, 32](a, a)
    (image,) = fake.modules.values()
    assert image[:4] == b"\x7fELF" and "mul_cu" in defined_functions(image)
    assert fake.launches[-1][0] == "triple_cu"


@needs_nvrtc
@needs_nvjitlink
def test_declare_device_links_a_cusource(fake):
    @cuda.jit
    def negate(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = neg_cu(a[i])

    negate[1, 4](cuda.to_device(np.zeros(4, np.int32)))
    (image,) = fake.modules.values()
    assert "neg_cu" in defined_functions(image)
    with pytest.raises(TypeError, match="bytes-like object is required, not 'int'"):
        cuda.CUSource(3)


@needs_nvrtc
def test_a_compile_error_names_the_kernel_and_file_with_the_log(fake, tmp_path, compiles):
    bad = tmp_path / "bad.cu"
    bad.write_text('extern "C" __device__ int add_cu(int *r, int x, int y) { *r = x + y }\n')
    with pytest.raises(CudaSupportError) as info:
        plus_one_kernel([bad])[1, 4](cuda.to_device(np.zeros(4, np.int32)))
    message = str(info.value)
    assert message.startswith(f"kernel 'plus_one': NVRTC could not compile {bad} ")
    assert 'error: expected a ";"' in message and "1 error detected" in message


@needs_nvrtc
@needs_nvjitlink
def test_a_source_is_compiled_once_per_target(fake, compiles, tmp_path):
    path = tmp_path / "add.cu"
    path.write_text(ADD_CU)
    first, second = plus_one_kernel([path]), plus_one_kernel([str(path)])
    a = cuda.to_device(np.zeros(4, np.int32))
    first[1, 4](a)
    second[1, 4](a)
    first[1, 4](cuda.to_device(np.zeros(4, np.int64)))   # another specialization
    assert compiles == [(str(path), "-arch=compute_90")]
    assert len(fake.modules) == 3
    assert all("add_cu" in defined_functions(image) for image in fake.modules.values())
    nvrtc.CUSource.read(path).ptx((8, 0), "plus_one")   # another target: compiled again
    assert compiles == [(str(path), "-arch=compute_90"), (str(path), "-arch=compute_80")]


@needs_nvrtc
@needs_nvjitlink
def test_cuda_c_in_memory_and_includes_next_to_the_file(fake, compiles, tmp_path):
    """(This compile is one where NVRTC raises the process's stack limit to unlimited:
    kiln puts it back, or processes started later would inherit it.)"""
    import resource
    limit = resource.getrlimit(resource.RLIMIT_STACK)
    nvrtc.CUSource(MUL_CU.read_bytes(), "first.cu").ptx((9, 0), "k")   # (NVRTC's second
    (tmp_path / "add.h").write_text("__device__ inline int add(int x, int y) { return x + y; }\n")
    source = cuda.CUSource('#include "add.h"\nextern "C" __device__ int add_cu(int *r, int x, '
                           'int y) { *r = add(x, y); return 0; }\n', name=str(tmp_path / "a.cu"))
    plus_one = plus_one_kernel([source])
    plus_one[1, 4](cuda.to_device(np.zeros(4, np.int32)))   # compile raises the limit)
    assert resource.getrlimit(resource.RLIMIT_STACK) == limit
    (image,) = fake.modules.values()
    assert "add_cu" in defined_functions(image) and \
        compiles == [("first.cu", "-arch=compute_90"), (str(source), "-arch=compute_90")]
    elsewhere = cuda.CUSource(source.code, name="a.cu")   # add.h is not next to it
    with pytest.raises(CudaSupportError, match='cannot open source file "add.h"'):
        elsewhere.ptx((9, 0), "plus_one")


@needs_nvrtc
def test_cuda_headers_come_from_the_toolkit(monkeypatch, compiles, tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda_runtime.h").write_text("")   # what marks CUDA's headers
    (tmp_path / "include" / "kiln_half.h").write_text("#define HALF(x) ((x) / 2)\n")
    source = cuda.CUSource('#include <kiln_half.h>\nextern "C" __device__ int half_cu(int *r, '
                           'int x) { *r = HALF(x); return 0; }\n', name="half.cu")
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "elsewhere"))
    with pytest.raises(CudaSupportError, match='could not open source file "kiln_half.h"'):
        source.ptx((9, 0), "k")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert b"half_cu(" in source.ptx((9, 0), "k")


@needs_nvrtc
def test_nvrtcs_warnings_are_shown(compiles):
    source = cuda.CUSource('extern "C" __device__ int f(int *r) { int unused; *r = 0; '
                           'return 0; }\n', name="warn.cu")
    with pytest.warns(KilnWarning, match="(?s)kernel 'k'.*warn.cu.*never referenced"):
        assert b".func" in source.ptx((9, 0), "k")


def test_without_the_bindings_the_error_says_what_to_install(monkeypatch, compiles):
    monkeypatch.setitem(sys.modules, "cuda.bindings.nvrtc", None)
    try:
        monkeypatch.delattr(importlib.import_module("cuda.bindings"), "nvrtc", raising=False)
    except ImportError:   # no cuda-bindings at all: the import fails anyway
        pass
    with pytest.raises(CudaSupportError, match=r"kernel 'k': compiling .*mul.cu \(CUDA C\) "
                       r"needs NVRTC.*pip install nvidia-cuda-nvrtc-cu12"):
        nvrtc.CUSource.read(MUL_CU).ptx((9, 0), "k")


def test_without_libnvrtc_the_error_says_what_to_install(monkeypatch, compiles):
    bindings = pytest.importorskip("cuda.bindings.nvrtc")

    def missing():
        raise RuntimeError("Failed to dlopen libnvrtc.so.12")
    monkeypatch.setattr(bindings, "nvrtcVersion", missing)
    with pytest.raises(CudaSupportError, match=r"libnvrtc could not be loaded \(Failed to "
                       r"dlopen libnvrtc.so.12\): pip install nvidia-cuda-nvrtc-cu12"):
        nvrtc.CUSource("", name="x.cu").ptx((9, 0), "k")

"""The hardware back-end's logic, without a GPU: cuda/driver/ driven through kiln.cuda's
public API against a recording double of cuda-bindings (fake_cuda_driver.py) whose memory
is host bytes. Checked: availability and its message, the PTX target and ISA chosen from
the driver version, nvJitLink for old drivers, the parameter buffer against the layout and
the PTX's own `.param` list, module loads once per device and signature, launch limits,
copies for any strides, frees, streams and events. Kernels do not execute here."""
import gc
import importlib
import importlib.util
import math
import os
import struct
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from dlpack_producer import Producer, managed_tensor
from conftest import HARDWARE
from fake_cuda_driver import FakeDriver
from foreign_array import Foreign

from kiln import cuda, types
from kiln.cuda import backend
from kiln.cuda.driver import DriverBackend, api, ptxversion
from kiln.cuda.errors import CudaAPIError, CudaSupportError

@pytest.fixture
def fake(monkeypatch):
    """kiln.cuda running on the driver back-end over a fresh FakeDriver (CUDA 12.4, sm_90)."""
    return install(monkeypatch, FakeDriver())


def install(monkeypatch, driver):
    monkeypatch.setattr(backend, "active", DriverBackend(api.Driver(driver)))
    return driver


# -- availability ------------------------------------------------------------------------------
@pytest.mark.skipif(HARDWARE, reason="a GPU is present here")
def test_is_available_is_false_here_and_says_what_to_install():
    code = ("import kiln.cuda as c; print(c.is_available()); print(c.cuda_error())")
    env = {k: v for k, v in os.environ.items()
           if k not in ("KILN_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.splitlines()
    assert out[0] == "False"
    if importlib.util.find_spec("cuda") and importlib.util.find_spec("cuda.bindings"):
        assert "libcuda" in out[1] and "install an NVIDIA driver" in out[1]
    else:   # the light install (README's default test command) has no cuda-bindings
        assert "cuda-bindings" in out[1] and "pip install 'kiln[cuda]'" in out[1]


def test_missing_bindings_name_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    driver, why = api.load()
    assert driver is None
    assert "cuda-bindings" in why and "pip install 'kiln[cuda]'" in why


def test_no_device_backend_raises_with_the_reason():
    no_device = backend.NoDevice("the CUDA driver reports no GPU")
    assert not no_device.is_available()
    with pytest.raises(CudaSupportError, match="reports no GPU.*KILN_ENABLE_CUDASIM"):
        no_device.allocate(8)


def test_initialize_reports_driver_failures():
    class NoDevices(FakeDriver):
        def _cuDeviceGetCount(self):
            return 0, 0

    class BrokenInit(FakeDriver):
        def _cuInit(self, flags):
            return (100,)   # CUDA_ERROR_NO_DEVICE

    assert api.initialize(NoDevices()) == (None, "the CUDA driver reports no GPU")
    driver, why = api.initialize(BrokenInit())
    assert driver is None and "cuInit failed: CUDA_ERROR_100" in why
    driver, why = api.initialize(FakeDriver())
    assert why is None and driver.call("cuDriverGetVersion") == 12040


def test_detect_lists_the_fake_devices(monkeypatch, capsys):
    install(monkeypatch, FakeDriver(devices=2))
    assert cuda.is_available() and cuda.cuda_error() is None
    assert cuda.detect()
    out = capsys.readouterr().out
    assert "Found 2 CUDA devices" in out and "Fake GPU 1" in out and "9.0" in out
    assert cuda.gpus[1].uuid == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"


# -- PTX ISA and target from the driver ----------------------------------------------------------
@pytest.mark.parametrize("version, isa", [
    (9020, 0), (10000, 63), (11040, 74), (11080, 78), (12000, 80), (12040, 84), (12050, 85),
    (12060, 85), (12070, 86), (12080, 87), (12090, 88), (13000, 90), (13020, 91)])
def test_newest_ptx_isa_for_each_driver(version, isa):
    assert ptxversion.max_ptx_isa(version) == isa


@pytest.mark.parametrize("cc, version, expected", [
    ((9, 0), 12040, ((9, 0), 78, False)),
    ((8, 0), 11040, ((8, 0), 70, False)),
    ((8, 9), 11040, ((8, 9), 78, True)),     # Ada on a CUDA 11.4 driver: the JIT is too old
    ((12, 0), 12040, ((12, 0), 87, True)),
    ((12, 0), 12080, ((12, 0), 87, False)),
    ((8, 8), 12040, ((8, 7), 74, False)),    # unknown minor: the newest known of its major
    ((11, 0), 13000, ((10, 0), 86, False)),  # unknown major: the newest known below it
])
def test_target_and_isa_from_device_and_driver(cc, version, expected):
    assert ptxversion.choose(cc, version) == expected


def test_too_old_compute_capability_is_refused():
    with pytest.raises(ValueError, match="3.5 is older than any kiln compiles for"):
        ptxversion.target_cc((3, 5))


def test_ptx_version_is_read_from_the_text():
    assert ptxversion.ptx_isa_of("//\n.version 7.8\n.target sm_90\n") == 78
    with pytest.raises(ValueError):
        ptxversion.ptx_isa_of(".target sm_90\n")


# -- parameter packing ---------------------------------------------------------------------------
def test_layout_bytes_and_offsets_follow_c_alignment(fake):
    from kiln import types as t
    from kiln.cuda.abi import Layout
    arr = t.Array(t.float32, 2, "C")
    layout = Layout([t.int8, arr, t.float32, t.complex64, t.boolean, t.float64,
                     t.tuple_of([t.int16, t.int64])])
    # int8 at 0; the array's 5 + 2*2 eight-byte fields from 8; float32 at 80; complex64 (two
    # floats, aligned 4) at 84; bool at 92; float64 at 96; int16 at 104; int64 at 112.
    assert layout.offsets == [0] + [8 + 8 * i for i in range(9)] + [80, 84, 92, 96, 104, 112]
    assert layout.size == 120

    dev = cuda.device_array((3, 4), np.float32)
    packed = layout.pack([-3, dev, 1.5, 2 - 1j, True, math.inf, (7, -(2**40))])
    pointer = dev.device_ctypes_pointer.value
    expected = struct.pack("@b7xQQqqQqqqqfff?3xdh6xq", -3, 0, 0, 12, 4, pointer, 3, 4, 16, 4,
                           1.5, 2.0, -1.0, True, math.inf, 7, -(2**40))
    assert packed == expected


def test_launch_parameters_match_the_ptx_declarations(fake):
    @cuda.jit
    def kern(flag, a, x, z, pair):
        i = cuda.grid(1)
        if i < a.size and flag:
            a[i] = x + z.real + pair[0] + pair[1]

    ary = np.arange(10, dtype=np.float64)
    dev = cuda.to_device(ary)
    kern[2, 8](True, dev, 2.5, np.complex64(1 + 2j), (np.int32(3), 4.0))
    name, grid, block, shared, stream, values = fake.launches[-1]
    assert (name, grid, block, shared, stream) == ("kern", (2, 1, 1), (8, 1, 1), 0, 0)
    # the sizes are the PTX's: u8 flag, the array's 7 u64 fields, f64, {f32,f32}, i32, f64
    assert [len(v) for v in values] == [1] + [8] * 7 + [8, 8, 4, 8]
    assert values[0] == b"\x01"
    fields = [struct.unpack("q", v)[0] for v in values[1:8]]
    assert fields == [0, 0, 10, 8, dev.device_ctypes_pointer.value, 10, 8]
    assert struct.unpack("d", values[8])[0] == 2.5
    assert struct.unpack("ff", values[9]) == (1.0, 2.0)
    assert struct.unpack("i", values[10])[0] == 3 and struct.unpack("d", values[11])[0] == 4.0


def test_explicit_signature_converts_scalars_before_packing(fake, general_path):
    """On the general path (the first launch) and on the short path alike."""
    @cuda.jit("void(f4[:], i4, f4)")
    def scale(a, n, factor):
        i = cuda.grid(1)
        if i < n:
            a[i] *= factor

    dev = cuda.device_array(4, np.float32)
    scale[1, 4](dev, 4, 0.1)
    values = fake.launches[-1][-1]
    assert struct.unpack("i", values[-2])[0] == 4
    assert struct.unpack("f", values[-1])[0] == np.float32(0.1)
    with general_path.refused():
        scale[1, 4](dev, np.int64(3), 1e-46)   # converted: 3 and float32(1e-46) == 0
    values = fake.launches[-1][-1]
    assert struct.unpack("i", values[-2])[0] == 3
    assert struct.unpack("f", values[-1])[0] == 0.0
    scale[1, 4](dev, 2**40 + 5, 0.1)   # wrapped to int32, as Numba converts: 5
    assert struct.unpack("i", fake.launches[-1][-1][-2])[0] == 5
    with pytest.raises(TypeError, match="no signature for arguments"):
        scale[1, 4](dev, 4.5, 0.1)
    assert len(fake.launches) == 3


# -- the launch sequence ----------------------------------------------------------------------
def test_module_loaded_once_per_device_and_signature(monkeypatch):
    fake = install(monkeypatch, FakeDriver(devices=2))

    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    d32 = cuda.device_array(5, np.float32)
    for _ in range(3):
        fill[1, 32](d32, 1.0)
    assert fake.names().count("cuModuleLoadData") == 1
    d64 = cuda.device_array(5, np.float64)
    fill[1, 32](d64, 1.0)
    assert fake.names().count("cuModuleLoadData") == 2
    cuda.select_device(1)
    try:
        fill[1, 32](cuda.device_array(5, np.float32), 2.0)
        fill[1, 32](cuda.device_array(5, np.float32), 3.0)
    finally:
        cuda.select_device(0)
    assert fake.names().count("cuModuleLoadData") == 3
    assert fake.names().count("cuLaunchKernel") == 6
    # the PTX was compiled once per (signature, target): device 1 reused device 0's
    program = backend.active.modules._programs[fill]
    assert len(program) == 2 and all(p.target == (9, 0) for p in program.values())
    load_at = fake.names().index("cuModuleLoadData")
    assert fake.names()[load_at + 1] == "cuModuleGetFunction"
    assert fake.calls[load_at + 1][1][1] == b"fill"


def scaler(factor):
    @cuda.jit(cache=True)
    def scale(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= factor
    return scale


def test_cache_true_keeps_ptx_on_disk(monkeypatch, tmp_path):
    """cuda.jit(cache=True): a later process (here: a fresh back-end and kernel object)
    loads the PTX the first one stored, without LLVM's back-end; a kernel whose IR differs
    (another frozen constant) is compiled, never given stale code."""
    from kiln.cuda import ptx as compiler
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    emitted = []
    real_emit = compiler.emit_ptx
    monkeypatch.setattr(compiler, "emit_ptx",
                        lambda *args, **kws: emitted.append(args[1]) or real_emit(*args, **kws))

    def images(factor):
        fake = install(monkeypatch, FakeDriver())
        scaler(factor)[1, 32](cuda.device_array(5, np.float32))
        return [call[1][0] for call in fake.calls if call[0] == "cuModuleLoadData"]

    first = images(2.0)
    assert emitted == ["scale"] and len(list(tmp_path.rglob("*.ptx-*.kilnobj"))) == 1
    assert images(2.0) == first and emitted == ["scale"]     # from the disk
    other = images(3.0)
    assert other != first and emitted == ["scale", "scale"]  # another constant: compiled
    assert len(list(tmp_path.rglob("*.ptx-*.kilnobj"))) == 2


def test_kernel_resources_are_the_loaded_function_attributes(fake):
    @cuda.jit("void(float32[:])")
    def kern(a):
        a[0] = 1

    name = len("kern")
    assert kern.get_regs_per_thread("void(float32[:])") == 32 + name
    assert kern.get_shared_mem_per_block() == {(types.float32[:],): 1024 + name}
    assert kern.get_local_mem_per_thread((types.float32[:],)) == name
    assert kern.get_const_mem_size((types.float32[:],)) == 64 + name
    assert kern.get_max_threads_per_block((types.float32[:],)) == 1024 + name
    asked = [call[1][0] for call in fake.calls if call[0] == "cuFuncGetAttribute"]
    assert {"NUM_REGS", "SHARED_SIZE_BYTES", "LOCAL_SIZE_BYTES", "CONST_SIZE_BYTES",
            "MAX_THREADS_PER_BLOCK"} <= set(asked)
    assert fake.names().count("cuModuleLoadData") == 1   # loaded once, not launched


def test_resources_of_a_lazy_kernel_are_per_launched_types(fake):
    """Without signatures, as Numba: one entry per argument types launches compiled for."""
    @cuda.jit
    def kern(a):
        a[0] = 1

    assert kern.get_regs_per_thread() == {}
    kern[1, 1](cuda.device_array(2, np.float32))
    kern[1, 1](cuda.device_array((2, 2), np.int64))
    regs = kern.get_regs_per_thread()
    assert set(regs) == {(types.Array(types.float32, 1, "C"),),
                         (types.Array(types.int64, 2, "C"),)}
    assert set(regs.values()) == {32 + len("kern")}


def test_launches_from_threads_pack_their_own_parameters(fake):
    """Each thread packs into a buffer of its own: values read by the driver at each
    launch are that launch's, however the threads interleave."""
    import threading

    @cuda.jit("void(float64[:], int64)")
    def put(a, v):
        a[0] = v

    dev = cuda.device_array(1)
    put[1, 1](dev, 0)   # compiled and loaded before the threads start

    def launches(first):
        for v in range(first, first + 300):
            put[1, 1](dev, v)

    threads = [threading.Thread(target=launches, args=(k * 1000,)) for k in range(4)]
    # The compiled entry packs into one buffer (it holds the GIL until the driver has
    # copied the values). The real cuLaunchKernel is C and never lets another thread run in
    # between; this double's is a Python callback, which the interpreter may preempt before
    # it reads the buffer: a long switch interval keeps the double as atomic as the driver.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(10.0)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    seen = [struct.unpack("q", launch[5][-1])[0] for launch in fake.launches[1:]]
    assert sorted(seen) == sorted(v for k in range(4) for v in range(k * 1000, k * 1000 + 300))


# -- the short path: device arrays and scalars -------------------------------------------------
@pytest.fixture
def general_path():
    """`general_path.refused()`: a context in which kernel.py's general launch path
    (argument conversion) fails if it is taken."""
    import contextlib

    from kiln.cuda import args as kernel_args

    def refuse(*args):
        raise AssertionError("the general launch path was taken")

    @contextlib.contextmanager
    def refused():
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(kernel_args, "prepare", refuse)
            yield
    return SimpleNamespace(refused=refused)


def test_device_arrays_and_scalars_take_the_short_path_with_the_general_bytes(
        fake, general_path):
    from kiln.cuda.abi import Layout

    @cuda.jit
    def kern(out, a, x, n, flag, small, b):
        i = cuda.grid(1)
        if i < n and flag:
            out[i] = a[i, 0] * x + small + b[i]

    out = cuda.device_array(6, np.float32)
    a = cuda.to_device(np.ones((6, 3), np.float64))[:, 1:]    # not contiguous
    b = cuda.to_device(np.arange(12, dtype=np.int16))[::2]
    args = (out, a, 2.5, 6, True, np.float32(0.5), b)
    kern[1, 32](*args)       # the first launch makes the short path
    with general_path.refused():
        kern[1, 32](*args[:2], -1.5, 7, False, np.float32(-0.25), b)
    argtypes = (types.float32[::1], types.Array(types.float64, 2, "A"), types.float64,
                types.int64, types.boolean, types.float32, types.Array(types.int16, 1, "A"))
    layout = Layout(argtypes)
    for launch, values in zip(fake.launches, [args, (*args[:2], -1.5, 7, False,
                                                     np.float32(-0.25), b)]):
        assert b"".join(launch[5]) == b"".join(
            layout.pack(values)[offset:offset + len(part)]
            for offset, part in zip(layout.offsets, launch[5]))
    assert fake.names().count("cuModuleLoadData") == 1


def test_a_python_int_past_int64_gets_its_own_specialization(fake):
    @cuda.jit
    def put(a, v):
        a[0] = v

    dev = cuda.device_array(1, np.uint64)
    put[1, 1](dev, 5)
    put[1, 1](dev, 2**63)      # uint64: packed as int64 it would not fit
    put[1, 1](dev, 7)
    assert fake.names().count("cuModuleLoadData") == 2
    functions = [args[0] for name, args in fake.calls if name == "cuLaunchKernel"]
    assert functions[0] is functions[2] and functions[0] is not functions[1]
    assert [struct.unpack("Q", launch[5][-1])[0] for launch in fake.launches] == [5, 2**63, 7]


def test_other_arguments_take_the_general_path(fake):
    @cuda.jit
    def inc(a, pair):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += pair[0] + pair[1]

    host = np.zeros(3)
    inc[1, 3](host, (1, 2.0))            # a host array and a tuple: copied in and back
    inc[1, 3](host, (1, 2.0))
    assert fake.names().count("cuMemcpyDtoH") + fake.names().count("cuMemcpyDtoHAsync") == 2
    assert len(fake.launches) == 2 and fake.names().count("cuModuleLoadData") == 1


def test_configurations_are_kept_per_key_and_device(monkeypatch):
    install(monkeypatch, FakeDriver(devices=2))

    @cuda.jit
    def kern(a):
        pass

    assert kern[4, 256] is kern[4, 256] and kern[4, 256] is not kern[4, 128]
    assert kern.forall(300) is kern.forall(300) is kern.configure(3, 128)   # (128 per block)
    assert kern[[4], [256]].config == kern[4, 256].config    # lists: not kept, still right
    cuda.select_device(1)
    try:
        on_one = kern[4, 256]
        assert on_one is kern[4, 256]
    finally:
        cuda.select_device(0)
    assert on_one is not kern[4, 256]


def test_foreign_arrays_take_the_short_path(fake, general_path):
    @cuda.jit
    def add(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    out, a = cuda.device_array(5), cuda.to_device(np.arange(5.0))
    b = Foreign(cuda.to_device(np.ones(5)))
    first_b = b.dev.device_ctypes_pointer.value
    add[1, 8](out, Foreign(a), b)
    b.dev = cuda.to_device(np.ones(5))           # other memory: read again at each launch

    def data(launch, argument):   # each 1-d array: 7 parameters, its data pointer 5th
        return struct.unpack("Q", launch[5][7 * argument + 4])[0]

    with general_path.refused():
        add[1, 8](out, Foreign(a), b)
    pointer = a.device_ctypes_pointer.value
    assert [(data(launch, 1), data(launch, 2)) for launch in fake.launches] == \
        [(pointer, first_b), (pointer, b.dev.device_ctypes_pointer.value)]
    assert fake.names().count("cuModuleLoadData") == 1
    b.dev = cuda.to_device(np.ones((2, 3), np.float32))[1]   # another dtype: compiled again
    with general_path.refused():
        add[1, 8](out, Foreign(a), b)
    assert fake.names().count("cuModuleLoadData") == 2
    assert [struct.unpack("q", v)[0] for v in fake.launches[-1][5][14:21]] == \
        [0, 0, 3, 4, b.dev.device_ctypes_pointer.value, 3, 4]
    add[1, 8](out, Foreign(a, strided=True), Foreign(a))   # strided: the general path
    assert len(fake.launches) == 4


def test_foreign_producer_streams_are_waited_for_only_when_needed(fake):
    @cuda.jit
    def copy(out, a):
        out[0] = a[0]

    out, a = cuda.device_array(1), cuda.to_device(np.ones(1))
    for path in (Foreign, lambda dev, stream: Foreign(dev, stream, strided=True)):
        before = len(fake.calls)
        copy[1, 1](out, path(a, 1))                      # legacy stream before stream 0
        copy[1, 1, cuda.stream()](out, path(a, 1))       # and before a blocking stream
        assert "cuStreamSynchronize" not in fake.names()[before:]
        copy[1, 1](out, path(a, 0x77))                   # another stream: waited for
        copy[1, 1, cuda.external_stream(0x99)](out, path(a, 1))   # may not block
        synced = [args for name, args in fake.calls[before:] if name == "cuStreamSynchronize"]
        assert synced == [(0x77,), (1,)]
    assert len(fake.launches) == 8


def test_more_than_48_kib_of_dynamic_shared_memory_opts_the_function_in(fake):
    @cuda.jit
    def kern(a):
        buf = cuda.shared.array(0, np.float32)
        buf[cuda.threadIdx.x] = 1
        a[0] = buf[0]

    dev = cuda.device_array(1, np.float32)
    kern[1, 32](dev)
    kern[1, 32, 0, 100 * 1024](dev)          # the short path
    kern[1, 32, 0, 64 * 1024](dev)           # already allowed: no second opt-in
    kern[1, 32, 0, 200 * 1024](cuda.to_device(np.zeros(1, np.float32)).copy_to_host())
    asked = [args[2] for name, args in fake.calls if name == "cuFuncSetAttribute"]
    assert asked == [100 * 1024, 200 * 1024]
    assert [launch[3] for launch in fake.launches] == [0, 100 * 1024, 64 * 1024, 200 * 1024]
    static = 1024 + len("kern")   # the fake's static shared memory of the function
    with pytest.raises(CudaAPIError, match=rf"kern.*{227 * 1024} bytes of dynamic shared "
                       rf"memory and its {static} of static .* exceed the device's "
                       rf"{227 * 1024}"):
        kern[1, 32, 0, 227 * 1024](dev)


@pytest.mark.parametrize("key, message", [
    ((1, 1025), "1025 threads along x exceed the device's limit of 1024"),
    ((1, (32, 32, 2)), "2048 threads per block exceed the device's limit of 1024"),
    ((1, (1, 1, 65)), "65 threads along z exceed"),
    (((1, 65536), 1), "65536 blocks along y exceed the device's limit of 65535"),
    ((1, 32, 0, 227 * 1024 + 1), "232449 bytes of dynamic shared memory exceed"),
])
def test_launch_limits_are_the_devices(fake, key, message):
    @cuda.jit
    def kern(a):
        pass

    with pytest.raises(ValueError, match=message):
        kern[key]
    assert "cuLaunchKernel" not in fake.names()


def test_ptx_too_new_for_the_driver_goes_through_nvjitlink(monkeypatch):
    pytest.importorskip("cuda.bindings.nvjitlink")
    fake = install(monkeypatch, FakeDriver(version=11080, cc=(12, 0)))  # sm_120 needs ISA 8.7

    @cuda.jit
    def kern(a):
        a[0] = 1

    try:
        kern[1, 1](cuda.device_array(1, np.int32))
    except CudaSupportError as exc:   # libnvJitLink absent: the message says what to do
        assert "nvidia-nvjitlink-cu12" in str(exc) and "loads PTX up to ISA 7.8" in str(exc)
        return
    (image,) = fake.modules.values()
    assert image.startswith(b"\x7fELF")   # a cubin, not PTX the driver would refuse


def linking_kernel(path):
    """A cache=True kernel linked with the PTX file at `path` (a function 'triple')."""
    triple = cuda.declare_device("triple", "int32(int32)", link=path)

    @cuda.jit(cache=True)
    def uses_triple(a):
        a[0] = triple(a[0])
    return uses_triple


TRIPLE_PTX = """.version 7.8
.target sm_90
.address_size 64
.visible .func  (.param .b32 func_retval0) triple(.param .b64 p0, .param .b32 p1)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [p0];
	ld.param.u32 %r1, [p1];
	mul.lo.s32 %r2, %r1, FACTOR;
	st.u32 [%rd1], %r2;
	st.param.b32 [func_retval0], 0;
	ret;
}
"""


def test_cache_true_keeps_the_linked_cubin(monkeypatch, tmp_path):
    """A second process (a fresh back-end and kernel) loads the cubin nvJitLink made from
    the disk; a changed linked file is linked again."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    from kiln.cuda.driver import jitlink
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    linked = []
    real_link = jitlink.ptx_to_cubin
    monkeypatch.setattr(jitlink, "ptx_to_cubin",
                        lambda *args: linked.append(args[2]) or real_link(*args))
    source = tmp_path / "triple.ptx"

    def image(factor):
        source.write_text(TRIPLE_PTX.replace("FACTOR", str(factor)))
        fake = install(monkeypatch, FakeDriver())
        linking_kernel(source)[1, 1](cuda.device_array(1, np.int32))
        (found,) = fake.modules.values()
        return found

    first = image(3)
    assert first.startswith(b"\x7fELF") and linked == ["uses_triple"]
    assert image(3) == first and linked == ["uses_triple"]          # from the disk
    assert image(4) != first and linked == ["uses_triple"] * 2      # the file changed


def test_without_nvjitlink_an_old_driver_is_a_clear_error(monkeypatch):
    install(monkeypatch, FakeDriver(version=12040, cc=(12, 0)))
    monkeypatch.setitem(sys.modules, "cuda.bindings.nvjitlink", None)
    try:
        monkeypatch.delattr(importlib.import_module("cuda.bindings"), "nvjitlink",
                            raising=False)
    except ImportError:
        pass   # no cuda-bindings (the light install): no nvJitLink either

    @cuda.jit
    def kern(a):
        a[0] = 1

    with pytest.raises(CudaSupportError, match=r"driver \(12.4\) loads PTX up to ISA 8.4, and "
                       r"sm_120 needs 8.7.*pip install nvidia-nvjitlink-cu12"):
        kern[1, 1](cuda.device_array(1, np.int32))


def test_driver_refusal_names_the_kernel(monkeypatch):
    class Refusing(FakeDriver):
        def _cuModuleLoadData(self, image):
            return 222, None

    install(monkeypatch, Refusing())

    @cuda.jit
    def kern(a):
        a[0] = 1

    with pytest.raises(CudaAPIError, match="kernel 'kern'.*sm_90.*CUDA_ERROR_UNSUPPORTED_PTX"):
        kern[1, 1](cuda.device_array(1, np.int32))


# -- memory -----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: np.arange(24, dtype=np.float64).reshape(4, 6),
    lambda: np.asfortranarray(np.arange(24, dtype=np.int32).reshape(4, 6)),
    lambda: np.array([np.nan, -np.inf, np.inf, -0.0, 1e-308], np.float64),
    lambda: np.zeros((0, 3), np.float32),
    lambda: np.arange(10, dtype=np.complex128) * (1 - 2j),
    lambda: np.array([True, False, True]),
])
def test_round_trip_through_device_memory(fake, make):
    host = make()
    dev = cuda.to_device(host)
    back = dev.copy_to_host()
    np.testing.assert_array_equal(back, host)
    assert back.dtype == host.dtype and np.signbit(back).tolist() == np.signbit(host).tolist() \
        if host.dtype.kind == "f" else True
    assert back.flags.f_contiguous == host.flags.f_contiguous


def test_strided_views_copy_both_ways(fake):
    host = np.arange(60, dtype=np.int64).reshape(6, 10)
    dev = cuda.to_device(host)
    view = dev[1:5, ::-3]
    np.testing.assert_array_equal(view.copy_to_host(), host[1:5, ::-3])
    np.testing.assert_array_equal(dev.T.copy_to_host(), host.T)
    before = len(fake.calls)
    dev[::2, 1::4] = -np.arange(9).reshape(3, 3)  # 9 items moved, by a kernel on the device
    copies = [(name, args) for name, args in fake.calls[before:] if name.startswith("cuMemcpy")]
    assert [(name, args[2]) for name, args in copies] == [("cuMemcpyHtoDAsync", 9 * 8)]
    assert fake.launches[-1][0] == "copy_strided"
    expected = host.copy()
    expected[::2, 1::4] = -np.arange(9).reshape(3, 3)
    np.testing.assert_array_equal(dev.copy_to_host(), expected)
    assert dev[2, 3] == expected[2, 3]
    other = cuda.device_array((4, 4), np.int64)
    other.copy_to_device(dev[1:5, 2:6])          # strided source on the device
    np.testing.assert_array_equal(other.copy_to_host(), expected[1:5, 2:6])
    contiguous = cuda.device_array(10, np.int64)
    contiguous.copy_to_device(dev[3])            # one cuMemcpyDtoD
    np.testing.assert_array_equal(contiguous.copy_to_host(), expected[3])
    assert "cuMemcpyDtoDAsync" in fake.names()


def test_repeated_values_go_to_the_device_once(fake):
    """`d[:] = 7` or a row broadcast over a matrix: the host sends each value once and the
    copy kernel repeats it (before, the whole broadcast array was made on the host)."""
    dev = cuda.device_array((300, 4), np.int32)
    before = len(fake.calls)
    dev[:] = 7
    dev[::2] = np.arange(4, dtype=np.int32)
    sent = [args[2] for name, args in fake.calls[before:] if name == "cuMemcpyHtoDAsync"]
    assert sent == [4, 16]
    dev[1::2] = cuda.to_device(np.arange(10, 14, dtype=np.int32))   # a device row, repeated
    want = np.full((300, 4), 7, np.int32)
    want[::2] = np.arange(4)
    want[1::2] = np.arange(10, 14)
    np.testing.assert_array_equal(dev.copy_to_host(), want)


def test_memory_is_freed_when_arrays_go_and_deferred_under_defer_cleanup(fake):
    dev = cuda.to_device(np.ones(100))
    view = dev[10:20]
    del dev
    assert len(fake.allocations) == 1            # the view keeps it
    del view
    assert not fake.allocations
    with cuda.defer_cleanup():
        dev = cuda.device_array(8)
        del dev
        assert len(fake.allocations) == 1
    assert not fake.allocations


def test_out_of_memory_names_the_error(monkeypatch):
    install(monkeypatch, FakeDriver(memory=1024))
    with pytest.raises(CudaAPIError, match="CUDA_ERROR_OUT_OF_MEMORY allocating 2048 bytes"):
        cuda.device_array(256, np.float64)


def test_foreign_device_memory_through_the_cuda_array_interface(fake):
    pointer = fake._cuMemAlloc(48)[1]
    fake.allocations[pointer][:] = np.arange(6, dtype=np.float64).tobytes()

    class Foreign:      # what CuPy or PyTorch would hand over
        __cuda_array_interface__ = {"shape": (3, 2), "strides": None, "typestr": "<f8",
                                    "data": (pointer, False), "version": 3, "stream": None}

    dev = cuda.as_cuda_array(Foreign())
    np.testing.assert_array_equal(dev.copy_to_host(), np.arange(6.0).reshape(3, 2))
    dev[0, 0] = 42.0
    assert np.frombuffer(fake.allocations[pointer], np.float64)[0] == 42.0
    again = cuda.from_cuda_array_interface(dev.__cuda_array_interface__)
    assert again.__cuda_array_interface__["data"] == (pointer, False)
    assert dev.__cuda_array_interface__["version"] == 3
    del dev, again
    assert pointer in fake.allocations         # kiln never frees memory it did not allocate


def test_pinned_and_mapped_host_memory(fake):
    pinned = cuda.pinned_array((3, 4), np.float32)
    pinned[...] = 7
    assert pinned.sum() == 84 and len(fake.host) == 1
    mapped = cuda.mapped_array(5, np.int16)
    address = mapped.__array_interface__["data"][0]
    assert mapped.__cuda_array_interface__["data"] == (address, False)
    del pinned, mapped
    assert not fake.host


# -- streams and events ------------------------------------------------------------------------
def test_events_time_and_wait_through_the_driver(fake):
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    with pytest.raises(CudaAPIError, match="both events to have been recorded"):
        start.elapsed_time(end)
    start.record(stream)
    end.record(stream)
    end.wait(cuda.default_stream())
    assert cuda.event_elapsed_time(start, end) == 1.5
    assert stream.query() and end.query()
    untimed = cuda.event(timing=False)
    untimed.record()
    with pytest.raises(CudaAPIError, match="timing=True"):
        start.elapsed_time(untimed)
    names = fake.names()
    assert names.count("cuEventRecord") == 3 and "cuStreamWaitEvent" in names
    assert ("cuEventCreate", (2,)) in fake.calls   # CU_EVENT_DISABLE_TIMING


def test_stream_copies_are_queued_and_default_copies_synchronize(fake):
    stream = cuda.stream()
    host = np.arange(4.0)
    dev = cuda.to_device(host, stream=stream)
    calls = fake.names()
    at = calls.index("cuMemcpyHtoDAsync")
    assert fake.calls[at][1][3] == int(stream) and "cuStreamSynchronize" not in calls[at:]
    stream.synchronize()
    out = np.empty(4)
    dev.copy_to_host(out)                    # on the array's stream: queued there
    assert fake.names()[-1] == "cuMemcpyDtoHAsync" and fake.calls[-1][1][3] == int(stream)
    np.testing.assert_array_equal(out, host)
    out[...] = 0
    cuda.to_device(host).copy_to_host(out)   # on stream 0: done when the call returns
    names = fake.names()
    last = len(names) - 1 - names[::-1].index("cuMemcpyDtoHAsync")
    assert names[last + 1] == "cuStreamSynchronize" and fake.calls[last][1][3] == 0
    np.testing.assert_array_equal(out, host)


def test_close_releases_the_primary_context_and_its_modules(fake):
    @cuda.jit
    def kern(a):
        a[0] = 1

    kern[1, 1](cuda.device_array(1, np.int32))
    cuda.close()
    assert "cuDevicePrimaryCtxRelease" in fake.names()
    kern[1, 1](cuda.device_array(1, np.int32))     # a new context: the module is loaded again
    assert fake.names().count("cuModuleLoadData") == 2
    assert fake.names().count("cuDevicePrimaryCtxRetain") == 2
    with pytest.raises(CudaAPIError, match="no CUDA device 3"):
        cuda.select_device(3)


def test_a_producer_stream_in_the_interface_is_waited_for(fake):
    pointer = fake._cuMemAlloc(16)[1]
    desc = {"shape": (2,), "strides": None, "typestr": "<f8", "data": (pointer, False),
            "version": 3, "stream": 0x77}
    cuda.from_cuda_array_interface(desc)
    assert fake.calls[-1] == ("cuStreamSynchronize", (0x77,))
    count = len(fake.calls)
    cuda.from_cuda_array_interface(desc, sync=False)
    cuda.from_cuda_array_interface(dict(desc, stream=None))
    assert len(fake.calls) == count


def test_a_device_newer_than_kiln_knows_gets_the_newest_target_below_it(monkeypatch):
    install(monkeypatch, FakeDriver(version=12090, cc=(10, 3)))

    def kern(a):
        a[0] = 1

    ptx, _ = cuda.compile_ptx_for_current_device(kern, "void(i4[:])")
    assert ".target sm_100" in ptx
    jitted = cuda.jit("void(i4[:])")(kern)
    assert ".target sm_100" in jitted.inspect_asm()[(jitted.signatures[0].args[0],)]


def test_an_argument_kiln_cannot_type_names_the_kernel(fake):
    @cuda.jit
    def kern(a):
        pass

    dates = np.zeros(3, "M8[10s]")   # a unit with a multiplier
    with pytest.raises(TypeError, match=r"kernel 'kern': argument 1 \(DeviceNDArray of dtype"):
        kern[1, 1](cuda.to_device(dates))
    assert "cuLaunchKernel" not in fake.names()


# -- DLPack ------------------------------------------------------------------------------------
def test_dlpack_export_is_a_cuda_tensor_ordered_before_the_consumers_stream(fake):
    host = np.arange(12.0).reshape(3, 4)
    dev = cuda.to_device(host)
    pointer = dev.device_ctypes_pointer.value
    assert dev.__dlpack_device__() == (2, 0)
    capsule = dev[:, 1:].__dlpack__(stream=0x55, max_version=(1, 0))
    tensor = managed_tensor(capsule).dl_tensor
    assert (tensor.device.device_type, tensor.device.device_id) == (2, 0)
    assert tensor.data == pointer + 8 and list(tensor.shape[:2]) == [3, 3]
    assert list(tensor.strides[:2]) == [4, 1]
    names = fake.names()
    record = names.index("cuEventRecord")   # on the array's stream, then the consumer's waits
    event = fake.calls[record][1][0]
    assert fake.calls[record:record + 2] == [("cuEventRecord", (event, 0)),
                                              ("cuStreamWaitEvent", (0x55, event, 0))]
    dev.__dlpack__()                        # stream None: the legacy default stream, 1
    waits = [args for name, args in fake.calls if name == "cuStreamWaitEvent"]
    assert len(waits) == 2 and waits[-1][0] == 1
    count = len(fake.calls)
    dev.__dlpack__(stream=-1)               # -1: the consumer asks for no synchronization
    assert len(fake.calls) == count
    with pytest.raises(ValueError, match="0 is ambiguous"):
        dev.__dlpack__(stream=0)
    with pytest.raises(BufferError, match="on kDLCUDA 0.*not to kDLCUDA 1"):
        dev.__dlpack__(dl_device=(2, 1))
    with pytest.raises(BufferError, match="needs a copy, and copy=False forbids it"):
        dev.__dlpack__(dl_device=(1, 0), copy=False)
    on_host = np.from_dlpack(dev, device="cpu")     # NumPy asks for (kDLCPU, 0): a copy
    np.testing.assert_array_equal(on_host, host)
    on_host[0, 0] = -1
    assert dev[0, 0] == 0.0

    del dev
    gc.collect()
    assert pointer in fake.allocations      # the unconsumed capsule holds the memory
    del capsule, tensor
    gc.collect()
    assert pointer not in fake.allocations


def test_dlpack_export_keeps_device_memory_until_the_deleter(fake):
    dev = cuda.to_device(np.arange(4, dtype=np.int32))
    pointer = dev.device_ctypes_pointer.value
    capsule = dev.__dlpack__(stream=-1)
    view = cuda.from_dlpack(dev)            # kiln consuming its own export
    assert view.device_ctypes_pointer.value == pointer
    del dev
    gc.collect()
    assert pointer in fake.allocations
    del capsule                             # unconsumed: its destructor calls the deleter
    gc.collect()
    assert pointer in fake.allocations      # the view still holds it
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(4))
    del view
    gc.collect()
    assert pointer not in fake.allocations and fake.names().count("cuMemFree") == 1


def test_dlpack_import_of_a_cuda_tensor_wraps_its_pointer(fake):
    pointer = fake._cuMemAlloc(80)[1]
    fake.allocations[pointer][:] = np.arange(10, dtype=np.float64).tobytes()
    producer = Producer(pointer, (2, 2), strides=(4, -1), byte_offset=8, device=(2, 0))
    stream = cuda.stream()
    view = cuda.from_dlpack(producer, stream=stream)
    assert producer.requests == [(int(stream), (1, 0))]
    assert view.device_ctypes_pointer.value == pointer + 8
    np.testing.assert_array_equal(view.copy_to_host(), [[1.0, 0.0], [5.0, 4.0]])
    cuda.from_dlpack(producer)              # kiln's default stream is DLPack's 1
    assert producer.requests[-1] == (1, (1, 0))
    gc.collect()
    assert producer.deleted == 1
    del view
    gc.collect()
    assert producer.deleted == 2
    assert pointer in fake.allocations      # kiln never frees memory it did not allocate

    @cuda.jit
    def fill(a):
        a[cuda.grid(1)] = 1.0

    flat = Producer(pointer, (10,), device=(2, 0))
    fill[1, 10, stream](flat)               # a DLPack argument: its pointer, no copy
    assert flat.requests == [(int(stream), (1, 0))]
    fields = [struct.unpack("q", v)[0] for v in fake.launches[-1][5][:7]]
    assert fields == [0, 0, 10, 8, pointer, 10, 8]
    gc.collect()
    assert flat.deleted == 1


def test_dlpack_import_refuses_host_and_other_device_tensors(monkeypatch):
    install(monkeypatch, FakeDriver(devices=2))
    with pytest.raises(BufferError, match="kDLCPU 0: kiln.cuda takes device memory: copy it "
                       "with cuda.to_device"):
        cuda.from_dlpack(np.zeros(3))
    elsewhere = Producer(0x1234, (4,), device=(2, 1))
    with pytest.raises(BufferError, match=r"CUDA device 1 and the current device is 0: "
                       r"cuda.select_device\(1\) first"):
        cuda.from_dlpack(elsewhere)
    assert elsewhere.requests == []
    pinned = Producer(0x1234, (4,), device=(3, 0))   # kDLCUDAHost: device-accessible
    assert cuda.from_dlpack(pinned).device_ctypes_pointer.value == 0x1234
    with pytest.raises(BufferError, match="kDLROCM 0: kiln.cuda takes kDLCUDA, kDLCUDAHost, "
                       "kDLCUDAManaged"):
        cuda.from_dlpack(Producer(0x1234, (4,), device=(10, 0)))


# -- debug=True: exceptions recorded by the device, raised on the host --------------------------
class Negative(Exception):
    pass


def test_debug_kernel_raises_what_the_device_recorded(fake):
    """The fake runs no kernel: the test writes the record a failing thread would write
    (its code, tid, ctaid) before the launch returns, as the device would."""
    @cuda.jit(debug=True)
    def divide(out, a, b):
        if a < 0:
            raise Negative("a is negative")
        out[cuda.grid(1)] = a // b

    out = cuda.device_array(4, np.int64)
    divide[1, 4](out, 7, 2)                      # nothing recorded: nothing raised
    assert fake.names()[-3:] == ["cuCtxSynchronize", "cuModuleGetGlobal", "cuMemcpyDtoH"]
    (program,) = backend.active.modules._programs[divide].values()
    codes = {cls: code for code, (cls, _) in enumerate(program.exceptions, 1)}
    (address, size), = fake.globals.values()
    assert size == 32

    def device_records(cls, tid, ctaid):
        fake.allocations[address][:] = struct.pack("<q6i", codes[cls], *tid, *ctaid)

    device_records(ZeroDivisionError, (3, 0, 0), (0, 2, 0))
    with pytest.raises(ZeroDivisionError, match=r"^integer division or modulo by zero \[in "
                       r"kernel 'divide' at blockIdx=\(0, 2, 0\), threadIdx=\(3, 0, 0\)\]$"):
        divide[1, 4](out, 7, 0)
    assert bytes(fake.allocations[address]) == bytes(32)   # zeroed for the next launch
    divide[1, 4](out, 7, 2)
    device_records(Negative, (0, 0, 0), (5, 0, 0))
    with pytest.raises(Negative, match=r"a is negative \[in kernel 'divide' at "
                                       r"blockIdx=\(5, 0, 0\), threadIdx=\(0, 0, 0\)\]"):
        divide[1, 4](out, -1, 2)
    assert bytes(fake.allocations[address]) == bytes(32)


def test_without_debug_no_record_is_read(fake):
    @cuda.jit
    def divide(out, a, b):
        out[0] = a // b

    divide[1, 1](cuda.device_array(1, np.int64), 7, 0)
    assert "cuModuleGetGlobal" not in fake.names() and "cuCtxSynchronize" not in fake.names()


# -- IPC handles -----------------------------------------------------------------------------
def test_an_ipc_handle_pickles_and_opens_the_same_memory(fake):
    """The fake's "other process" is this one: opening maps the same fake memory."""
    import pickle
    base = cuda.to_device(np.arange(24, dtype=np.float32).reshape(4, 6))
    view = base[1:, ::2]                               # an offset and strides in the allocation
    handle = pickle.loads(pickle.dumps(view.get_ipc_handle()))
    assert isinstance(handle, cuda.IpcArrayHandle) and handle.nbytes == 96
    assert [args for name, args in fake.calls if name == "cuIpcGetMemHandle"] == \
        [(base.device_ctypes_pointer.value,)]
    with handle as opened:
        np.testing.assert_array_equal(opened.copy_to_host(), view.copy_to_host())
        opened[0, 0] = -1.0
    assert base.copy_to_host()[1, 0] == -1.0
    del opened
    gc.collect()
    cuda.current_context().deallocations.clear()
    assert fake.names().count("cuIpcCloseMemHandle") == 1


def test_open_ipc_array_takes_a_raw_handle(fake):
    dev = cuda.to_device(np.arange(10, dtype=np.int32))
    raw = dev.get_ipc_handle().handle
    assert len(raw) == 64
    with cuda.open_ipc_array(raw, (3,), np.int32, offset=8) as part:
        np.testing.assert_array_equal(part.copy_to_host(), [2, 3, 4])


def test_ipc_refused_by_the_driver_says_why(fake):
    with pytest.raises(CudaAPIError, match="cuIpcOpenMemHandle failed.*opens in another "
                                           "process"):
        with cuda.open_ipc_array(bytes(64), (3,), np.int32):
            pass


# -- compiled launch entries (cuda/driver/entry.py) ------------------------------------------
def test_launches_go_through_a_compiled_entry(fake, monkeypatch):
    """The first launch checks the kernel, the second makes the KnownLaunch, the third
    compiles its entry, and from the fourth the trampoline calls it: the same parameter
    bytes, no Python on the way. The fake gives C callbacks for cuLaunchKernel and
    cuCtxGetCurrent."""
    from kiln.cuda.driver import launcher

    @cuda.jit
    def kern(out, a, x, n, flag, small, half, b):
        i = cuda.grid(1)
        if i < n and flag:
            out[i] = a[i, 0] * x + small + half + b[i]

    out = cuda.device_array(6, np.float32)
    a = cuda.to_device(np.ones((6, 3)))[:, 1:]
    b = cuda.to_device(np.arange(12, dtype=np.int16))[::2]
    args = (out, a, 2.5, 6, True, np.float32(0.5), np.float16(1.5), b)
    configured = kern[2, 32, 0, 64]
    for _ in range(3):
        configured(*args)
    compiled_calls = lambda: [c for c in fake.calls if c == ("cuLaunchKernel", ("compiled",))]
    assert not compiled_calls()
    refused = []
    monkeypatch.setattr(launcher, "launch_known", lambda *a: refused.append(a))
    configured(*args)
    configured(out, a, -1.5, 7, False, np.float32(-0.25), np.float16(2), b)
    assert len(compiled_calls()) == 2 and not refused
    assert fake.launches[3] == fake.launches[0]
    _, grid, block, shared, stream, values = fake.launches[4]
    assert (grid, block, shared, stream) == ((2, 1, 1), (32, 1, 1), 64, 0)
    # out: 7 parameters, a: 9, then x, n, flag, small, half
    assert struct.unpack("d", values[16])[0] == -1.5 and \
        struct.unpack("q", values[17])[0] == 7 and values[18] == b"\0"
    assert struct.unpack("f", values[19])[0] == -0.25 and \
        struct.unpack("e", values[20])[0] == 2.0
    # other arguments: the entry answers NotImplemented and the Python path launches
    configured(out, a, 2.5, 2**63, True, np.float32(0.5), np.float16(1.5), b)
    configured(out, cuda.to_device(np.ones((6, 3), np.float32)), 2.5, 6, True,
               np.float32(0.5), np.float16(1.5), b)
    assert len(refused) == 2 and len(compiled_calls()) == 2


def test_each_compiled_entry_launches_its_own_kernel(fake):
    @cuda.jit
    def first(a, v):
        a[0] = v

    @cuda.jit
    def second(a, v):
        a[1] = v

    dev = cuda.device_array(2)
    one, two = first[1, 1], second[1, 2]
    for i in range(4):
        one(dev, 1.0 + i)
        two(dev, -1 - i)
    names = [(name, struct.unpack("q", values[-1])[0] if name == "second" else
              struct.unpack("d", values[-1])[0]) for name, *_, values in fake.launches]
    assert names == [("first", 1.0), ("second", -1), ("first", 2.0), ("second", -2),
                     ("first", 3.0), ("second", -3), ("first", 4.0), ("second", -4)]
    assert fake.calls.count(("cuLaunchKernel", ("compiled",))) == 2


def test_a_compiled_entry_launches_only_in_its_context(monkeypatch):
    fake = install(monkeypatch, FakeDriver(devices=2))

    @cuda.jit
    def fill(a, v):
        a[0] = v

    dev = cuda.device_array(1)
    configured = fill[1, 1]
    for _ in range(4):
        configured(dev, 1.0)
    assert fake.calls[-1] == ("cuLaunchKernel", ("compiled",))
    cuda.select_device(1)
    try:
        other = cuda.device_array(1)
        configured(other, 2.0)          # another current context: the Python path
        assert fake.calls[-1][0] == "cuLaunchKernel" and fake.calls[-1][1] != ("compiled",)
    finally:
        cuda.select_device(0)
    cuda.close()                        # the context goes (its handle comes back the same)
    loads = fake.names().count("cuModuleLoadData")
    configured(cuda.device_array(1), 3.0)
    assert fake.names().count("cuModuleLoadData") == loads + 1
    assert fake.calls[-1][1] != ("compiled",)


def _compiled_launches(fake):
    return fake.calls.count(("cuLaunchKernel", ("compiled",)))


def _watch_python_launches(monkeypatch):
    """The launches the Python short path is asked for (entries answered NotImplemented)."""
    from kiln.cuda.driver import launcher
    asked, original = [], launcher.launch_known
    monkeypatch.setattr(launcher, "launch_known", lambda *a: asked.append(a) or original(*a))
    return asked


def test_compiled_entries_read_foreign_arrays(fake, monkeypatch):
    """An entry reads a foreign array's interface dict at each launch as the Python path
    does: the same parameter bytes, its memory and size read anew (an empty array's data
    pointer 0); what it cannot take (extents that are not ints, a producer stream to wait
    for) it leaves to the Python path."""
    @cuda.jit
    def add(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    out, a = cuda.device_array(5), Foreign(cuda.to_device(np.arange(5.0)))
    b = Foreign(cuda.to_device(np.ones(5)), stream=1)
    configured = add[1, 8]
    for _ in range(4):
        configured(out, a, b)
    assert _compiled_launches(fake) == 1 and fake.launches[-1] == fake.launches[0]
    asked = _watch_python_launches(monkeypatch)
    b.dev = cuda.to_device(np.ones(5))
    a.dev = cuda.device_array(0)
    synced = fake.names().count("cuStreamSynchronize")
    configured(out, a, b)
    assert _compiled_launches(fake) == 2 and not asked
    values = [struct.unpack("q", v)[0] for v in fake.launches[-1][5]]
    assert values[7:21] == [0, 0, 0, 8, 0, 0, 8,
                            0, 0, 5, 8, b.dev.device_ctypes_pointer.value, 5, 8]

    class Extents(Foreign):     # NumPy ints for extents: the Python path reads them
        @property
        def __cuda_array_interface__(self):
            desc = super().__cuda_array_interface__
            return dict(desc, shape=tuple(np.int64(n) for n in desc["shape"]))
    configured(out, a, Extents(b.dev, stream=1))
    b.stream = 0x77                          # a stream to wait for: the Python path waits
    configured(out, a, b)
    assert _compiled_launches(fake) == 2 and len(asked) == 2
    assert fake.names().count("cuStreamSynchronize") == synced + 1
    assert fake.launches[-2][5] == fake.launches[-1][5]


def test_compiled_entries_read_torch_tensors_without_their_interface(fake, monkeypatch):
    """A PyTorch tensor's `__cuda_array_interface__` builds a dict in Python at each read:
    an entry reads its C attributes instead (fake_torch.py stands in for PyTorch), giving
    the parameters the interface would, and leaves to the Python path (which reads the
    interface and raises its errors) every tensor the interface would refuse or describe
    otherwise."""
    import fake_torch
    monkeypatch.setitem(sys.modules, "torch", fake_torch.module)

    @cuda.jit
    def add(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] + b[i]

    out = cuda.device_array(5)
    a = fake_torch.Tensor(cuda.to_device(np.arange(5.0)))
    b = fake_torch.Tensor(cuda.to_device(np.ones(5)))
    configured = add[1, 8]
    for _ in range(4):
        configured(out, a, b)
    assert _compiled_launches(fake) == 1 and fake.launches[-1] == fake.launches[0]
    asked = _watch_python_launches(monkeypatch)
    calls = a.calls
    a.dev, b.dev = cuda.to_device(np.arange(7.0)), cuda.device_array(0)
    configured(out, a, b)
    assert _compiled_launches(fake) == 2 and not asked and a.calls == calls + 2
    values = [struct.unpack("q", v)[0] for v in fake.launches[-1][5]]
    assert values[7:21] == [0, 0, 7, 8, a.dev.device_ctypes_pointer.value, 7, 8,
                            0, 0, 0, 8, 0, 0, 8]
    b.dev = cuda.to_device(np.ones(7))
    held = sys.getrefcount(fake_torch.float64), sys.getrefcount(fake_torch.strided)
    for _ in range(50):   # the entry releases what it reads
        configured(out, a, b)
    assert (sys.getrefcount(fake_torch.float64), sys.getrefcount(fake_torch.strided)) == held
    # what the interface refuses, or describes otherwise: the Python path
    a.requires_grad = True
    with pytest.raises(RuntimeError, match="requires grad"):
        configured(out, a, b)
    a.requires_grad = False
    fake_torch.overridden.append(a)
    with pytest.raises(RuntimeError, match="__torch_function__"):
        configured(out, a, b)
    fake_torch.overridden.clear()
    a.is_cuda = False
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        configured(out, a, b)
    a.is_cuda = True
    a.dev = cuda.to_device(np.arange(14.0))[::2]      # strided: the general path
    configured(out, a, b)
    assert fake.launches[-1][5][13] == struct.pack("q", 16)   # (a's stride)
    a.dev = cuda.to_device(np.arange(7.0, dtype=np.float32))   # another dtype
    configured(out, a, b)
    assert _compiled_launches(fake) == 52 and len(asked) == 5
    a.dev = cuda.to_device(np.arange(7.0))             # float64 again: the entry takes it
    configured(out, a, b)
    assert _compiled_launches(fake) == 53 and len(asked) == 5
    values = [struct.unpack("q", v)[0] for v in fake.launches[-1][5]]
    assert values[11:14] == [a.dev.device_ctypes_pointer.value, 7, 8]


def test_compiled_entries_wait_for_the_legacy_stream_only_where_the_driver_does_not(fake):
    """A foreign array of the legacy default stream (`stream: 1`) needs no wait before a
    launch on a blocking stream; before one on an external stream, which may not block,
    the host waits at every launch, so no entry takes those."""
    @cuda.jit
    def copy(out, a):
        out[0] = a[0]

    out, a = cuda.device_array(1), Foreign(cuda.to_device(np.ones(1)), stream=1)
    blocking, external = cuda.stream(), cuda.external_stream(0x99)
    for _ in range(4):
        copy[1, 1, blocking](out, a)
    compiled, before = _compiled_launches(fake), len(fake.calls)
    assert compiled >= 1
    for _ in range(4):
        copy[1, 1, external](out, a)
    assert _compiled_launches(fake) == compiled
    assert [args for name, args in fake.calls[before:] if name == "cuStreamSynchronize"] == \
        [(1,)] * 4


def test_compiled_entries_convert_scalars_as_the_signature_says(fake, monkeypatch):
    """A kernel compiled for a signature takes Python numbers converted to its parameters'
    types; the entry converts them as NumPy would, and leaves to the Python path what NumPy
    refuses or warns about, and ints that a float cannot hold exactly."""
    @cuda.jit("void(float32[:], float32, int32, float64, uint8)")
    def kern(out, x, n, y, k):
        out[0] = x + n + y + k

    out = cuda.device_array(3, np.float32)   # (a C array for the signature's 'A' one)
    configured = kern[1, 1]
    for _ in range(4):
        configured(out, 2.5, 7, 3, 200)
    compiled = _compiled_launches(fake)
    assert compiled >= 1 and fake.launches[-1] == fake.launches[0]
    asked = _watch_python_launches(monkeypatch)
    configured(out, 0.1, -8, 2 ** 53, 0)
    assert _compiled_launches(fake) == compiled + 1 and not asked
    x, n, y, k = fake.launches[-1][5][7:]
    assert struct.unpack("f", x)[0] == np.float32(0.1) and struct.unpack("i", n)[0] == -8
    assert struct.unpack("d", y)[0] == 2.0 ** 53 and k == b"\0"
    configured(out, 2.5, 7, 2 ** 53 + 1, 200)   # NumPy rounds it: the Python path does
    assert struct.unpack("d", fake.launches[-1][5][9])[0] == float(2 ** 53 + 1)
    with pytest.warns(RuntimeWarning, match="overflow"):
        configured(out, 1e300, 7, 3, 200)
    for n, k, wrapped in ((2 ** 40, 200, (0, 200)), (7, -1, (7, 255)), (7, 256, (7, 0))):
        configured(out, 2.5, n, 3, k)   # wrapped to the declared width, as Numba converts
        _, n_seen, _, k_seen = fake.launches[-1][5][7:]
        assert (struct.unpack("i", n_seen)[0], k_seen[0]) == wrapped
    assert _compiled_launches(fake) == compiled + 1 and len(asked) == 5


def test_what_a_compiled_entry_reads_outlives_its_known_launch(fake):
    """A foreign array of another dtype makes the kernel's KnownLaunch again, but the old
    compiled entry stays in the dispatch table and still reads the typestr it was made
    with: that string (and the Loaded whose shared-memory limit it reads) must live on."""
    import gc
    import weakref

    class Typestr(str):   # (a str that weak references can watch)
        pass

    class Fresh(Foreign):   # a new typestr object at every read, as NumPy's dtype.str gives
        @property
        def __cuda_array_interface__(self):
            desc = super().__cuda_array_interface__
            return dict(desc, typestr=Typestr(desc["typestr"]))

    @cuda.jit
    def first(out, a):
        out[0] = a[0]

    out = cuda.device_array(1)
    f4, f8 = Fresh(cuda.to_device(np.ones(2, np.float32))), Fresh(cuda.to_device(np.ones(2)))
    configured = first[1, 1]
    for _ in range(4):
        configured(out, f4)
    (known,) = [k for k in first.known_launches.values() if k]
    assert known.entry_address is not None
    typestr = weakref.ref(known.steps[1].kind[0])
    del known
    for _ in range(4):
        configured(out, f8)     # the KnownLaunch of f4's kind is replaced
    gc.collect()
    assert typestr() is not None and typestr() == "<f4"
    configured(out, f4)
    assert struct.unpack("Q", fake.launches[-1][5][7 + 4])[0] == \
        f4.dev.device_ctypes_pointer.value


def test_a_compiled_entry_meeting_a_strange_interface_leaves_it_to_python(fake):
    """An interface dict whose typestr raises when compared: the entry answers
    NotImplemented with no error left pending, and the Python path raises it."""
    class Raising(str):
        def __eq__(self, other):
            raise RuntimeError("no comparing me")
        __hash__ = str.__hash__

    class Odd(Foreign):
        typestr = None

        @property
        def __cuda_array_interface__(self):
            desc = super().__cuda_array_interface__
            return desc if self.typestr is None else dict(desc, typestr=self.typestr)

    @cuda.jit
    def first(out, a):
        out[0] = a[0]

    out = cuda.device_array(1)
    a = Odd(cuda.to_device(np.ones(2)))
    configured = first[1, 1]
    for _ in range(4):
        configured(out, a)
    compiled = _compiled_launches(fake)
    assert compiled >= 1
    a.typestr = Raising("<f8")
    with pytest.raises(RuntimeError, match="no comparing me"):
        configured(out, a)
    a.typestr = None
    configured(out, a)
    assert _compiled_launches(fake) == compiled + 1


@pytest.mark.parametrize("seed", range(30))
def test_random_views_assigned_and_read_as_numpy(fake, seed):
    """Random programs on the driver back-end: random strided views of a device array
    assigned a scalar, a host array, a broadcast host row or a device array view, and
    random views read back, each checked against NumPy doing the same on a host copy. The
    fake driver moves the bytes and runs the copy kernel from its parameters."""
    rng = np.random.default_rng(seed)
    dtype = rng.choice([np.int16, np.float64, np.complex64])
    shape = tuple(int(v) for v in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    host = rng.integers(-99, 99, size=shape).astype(dtype)
    dev = cuda.to_device(host)
    other = rng.integers(-99, 99, size=shape).astype(dtype)
    d_other = cuda.to_device(other)

    def random_key():
        key = []
        for n in shape:
            step = int(rng.choice([1, 2, -1, -2]))
            start = int(rng.integers(0, n))
            key.append(slice(start, None, step) if rng.random() < 0.8 else start)
        return tuple(key)

    for _ in range(4):
        key = random_key()
        target = host[key]
        kind = rng.choice(["scalar", "host", "row", "device"])
        if kind == "scalar":
            value = dtype(rng.integers(-9, 9))
            dev[key], host[key] = value, value
        elif kind == "host":
            value = rng.integers(-9, 9, size=np.shape(target)).astype(dtype)
            dev[key], host[key] = value, value
        elif kind == "row" and np.ndim(target):
            value = rng.integers(-9, 9, size=np.shape(target)[-1:]).astype(dtype)
            dev[key], host[key] = value, value
        elif np.ndim(target):
            source_key = tuple(slice(None, n) for n in np.shape(target)) + \
                (0,) * (len(shape) - np.ndim(target))
            source_key = source_key[-len(shape):] if len(source_key) > len(shape) else source_key
            try:
                value, d_value = other[source_key], d_other[source_key]
            except IndexError:
                continue
            if np.shape(value) != np.shape(target):
                continue
            dev[key], host[key] = d_value, value
        np.testing.assert_array_equal(dev.copy_to_host(), host)
        read = random_key()
        np.testing.assert_array_equal(np.asarray(dev[read].copy_to_host()
                                                 if np.ndim(host[read]) else dev[read]),
                                      host[read])


_ARRAY_DTYPES = ["float32", "float64", "int16", "uint8", "complex64", "bool"]


def _random_argument(rng, kind, dtype, shape, variant):
    """One launch argument of a kind (and shape) fixed for the program, its values random."""
    if kind == "array" or kind == "foreign":
        ndim = len(shape)
        host = (rng.standard_normal(shape) * 9).astype(dtype)
        dev = cuda.to_device(host)
        if kind == "foreign":
            return Foreign(dev)
        return dev[(slice(None, None, variant),) * ndim] if variant != 1 else dev
    if kind == "float":
        return float(rng.standard_normal() * 1e3)
    if kind == "int":
        return int(rng.integers(-100, 100))
    if kind == "bool":
        return bool(rng.integers(0, 2))
    return np.dtype(dtype).type(rng.integers(-100, 100))   # a NumPy scalar


@pytest.mark.parametrize("seed", range(40))
def test_random_launches_pack_what_the_general_path_packs(fake, monkeypatch, seed):
    """Random programs for the compiled launch entries: a kernel of random parameters
    (device arrays of random dtypes, ranks and strides, other libraries' arrays, Python and
    NumPy scalars; with or without a signature that converts the Python numbers), launched
    until its entry is compiled, then with new values through the entry and through the
    general path (argument conversion, then Layout.pack): the same parameter bytes."""
    from kiln.cuda.driver import launcher
    from kiln.frontend.source import define_generated
    rng = np.random.default_rng(seed)
    nargs = int(rng.integers(1, 5))
    kinds = [str(rng.choice(["array", "array", "foreign", "float", "int", "bool", "numpy"]))
             for _ in range(nargs)]
    dtypes = [str(rng.choice(_ARRAY_DTYPES if k in ("array", "foreign") else
                             ["float32", "float64", "int32", "int64", "uint16"]))
              for k in kinds]
    shapes = [tuple(int(v) for v in rng.integers(1, 5, size=int(rng.integers(1, 4))))
              for _ in kinds]
    variants = [int(rng.choice([1, 1, 2, -1])) for _ in kinds]
    params = ", ".join(f"p{k}" for k in range(nargs))
    kern = define_generated(f"<random launch {seed}>", f"def kern({params}):\n    pass\n", {})
    signature = None
    if rng.random() < 0.4 and "bool" not in kinds:   # Python numbers converted to these
        converted = {"float": str(rng.choice(["float32", "float64"])),
                     "int": str(rng.choice(["int32", "int64", "int16", "float64"]))}
        signature = "void(" + ", ".join(
            f"{'b1' if d == 'bool' else d}[{', '.join([':'] * len(shape))}]"
            if k in ("array", "foreign") else converted.get(k, d)
            for k, d, shape in zip(kinds, dtypes, shapes)) + ")"
    kernel = cuda.jit(signature)(kern) if signature else cuda.jit(kern)
    configured = kernel[1, 1]

    def arguments():
        return [_random_argument(rng, k, d, shape, v)
                for k, d, shape, v in zip(kinds, dtypes, shapes, variants)]
    for _ in range(4):
        configured(*arguments())
    compiled = _compiled_launches(fake)
    new = arguments()
    configured(*new)
    assert _compiled_launches(fake) == compiled + 1, (kinds, dtypes, signature)
    through_entry = fake.launches[-1][5]
    monkeypatch.setattr(launcher, "launch_known", lambda *a: False)
    configured(*new)
    assert fake.launches[-1][5] == through_entry, (kinds, dtypes, signature)

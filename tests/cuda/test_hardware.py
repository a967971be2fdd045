"""The driver back-end on a real GPU: kernels of the CUDA suite run on the device and are
checked against NumPy, plus what only hardware shows (the PTX the driver loaded, the module
cache, device memory coming back, interop with CuPy and PyTorch through the CUDA Array
Interface and DLPack). Marked `gpu`: they run
with KILN_TEST_CUDA_HARDWARE=1 and skip otherwise (docs/gpu.md, which has the results of
their first run, on an H100)."""
import gc
import math

import numpy as np
import pytest

from kiln import cuda, vectorize
from kiln.cuda import backend
from kiln.cuda.driver import ptxversion

pytestmark = [pytest.mark.gpu, pytest.mark.cuda]


@cuda.jit
def saxpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def test_the_driver_back_end_is_active():
    assert backend.active.name == "driver" and cuda.is_available()
    assert cuda.cuda_error() is None and cuda.detect()


@pytest.mark.parametrize("n", [0, 1, 1000, 1 << 20])
def test_saxpy_matches_numpy_and_loads_once(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    if n > 3:
        x[:3] = [np.nan, np.inf, -np.inf]
    dx, dy, dout = cuda.to_device(x), cuda.to_device(y), cuda.device_array(n, np.float32)
    for _ in range(2):
        saxpy.forall(n)(dout, np.float32(2.5), dx, dy)
    cuda.synchronize()
    np.testing.assert_array_equal(dout.copy_to_host(), np.float32(2.5) * x + y)
    loaded = backend.active.modules._loaded[saxpy]
    assert len([k for k in loaded if k[1] == cuda.get_current_device().id]) == 1


def test_the_loaded_ptx_is_one_the_driver_accepts():
    @cuda.jit
    def ones(a):
        a[cuda.grid(1)] = 1

    dx = cuda.device_array(4, np.float32)
    ones[1, 4](dx)
    np.testing.assert_array_equal(dx.copy_to_host(), np.ones(4, np.float32))
    (entry,) = backend.active.modules._loaded[ones].values()
    newest = ptxversion.max_ptx_isa(backend.active.driver_version)
    assert ptxversion.ptx_isa_of(entry.program.ptx) <= newest or \
        entry.program.image.startswith(b"\x7fELF")


def test_atomic_histogram_matches_bincount():
    @cuda.jit
    def histogram(values, bins):
        i = cuda.grid(1)
        if i < values.size:
            cuda.atomic.add(bins, values[i], 1)

    values = np.random.default_rng(1).integers(0, 17, 100_000).astype(np.int32)
    bins = np.zeros(17, np.int32)
    histogram.forall(values.size)(values, bins)    # host arrays: copied in and back
    np.testing.assert_array_equal(bins, np.bincount(values, minlength=17))


def test_dynamic_shared_memory_reverses_each_block():
    @cuda.jit
    def reverse(a):
        buf = cuda.shared.array(0, np.float64)
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * cuda.blockDim.x
        buf[t] = a[base + t]
        cuda.syncthreads()
        a[base + t] = buf[cuda.blockDim.x - 1 - t]

    host = np.arange(4 * 128, dtype=np.float64)
    dev = cuda.to_device(host)
    reverse[4, 128, 0, 128 * 8](dev)
    np.testing.assert_array_equal(dev.copy_to_host(), host.reshape(4, 128)[:, ::-1].ravel())


def test_strided_views_and_scalars_of_every_kind():
    @cuda.jit
    def combine(out, a, k, f, z, flag):
        i, j = cuda.grid(2)
        if i < out.shape[0] and j < out.shape[1]:
            out[i, j] = a[i, j] * k + f + z.imag + (1.0 if flag else 0.0)

    host = np.arange(64 * 48, dtype=np.float64).reshape(64, 48)
    view = cuda.to_device(host)[::2, ::-3]
    out = cuda.device_array(view.shape, np.float64)
    combine[(8, 8), (8, 8)](out, view, np.int16(-3), math.pi, 1 + 2j, True)
    np.testing.assert_array_equal(out.copy_to_host(),
                                  host[::2, ::-3] * -3 + math.pi + 2.0 + 1.0)


@cuda.jit
def divides(out, iout, a, b, i, j):
    out[0] = a / b
    out[1] = a // b
    out[2] = a % b
    iout[0] = i // j
    iout[1] = i % j
    iout[2] = int(a / b)   # C's conversion: no ValueError for nan (NumPy's astype)


@pytest.mark.parametrize("a, b", [(1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0),
                                  (7.5, 2.0), (np.nan, 1.0)])
def test_division_by_zero_is_numpys_without_debug(a, b):
    """Numba's CUDA error model: a zero divisor gives what NumPy's loops give; before, the
    thread ended silently and left its outputs unwritten."""
    out, iout = np.full(3, -99.0), np.full(3, -99, np.int64)
    divides[1, 1](out, iout, a, b, 7, 0)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, [np.float64(a) / b, np.floor_divide(a, b),
                                            np.remainder(a, b)])
        assert list(iout[:2]) == [np.floor_divide(np.int64(7), 0), np.remainder(np.int64(7),
                                                                                  0)]


def test_streams_events_and_memory_coming_back():
    ctx = cuda.current_context()
    stream = cuda.stream()
    start, end = cuda.event(), cuda.event()
    free_before = ctx.get_memory_info().free
    n = 1 << 24
    dev = cuda.device_array(n, np.float32, stream=stream)
    start.record(stream)
    saxpy.forall(n, stream=stream)(dev, np.float32(0), dev, dev)
    end.record(stream)
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) > 0
    del dev
    assert ctx.get_memory_info().free >= free_before - (1 << 20)


def test_mapped_memory_is_written_in_place():
    @cuda.jit
    def square(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = a[i] * a[i]

    mapped = cuda.mapped_array(100, np.float64)
    mapped[:] = np.arange(100)
    square.forall(100)(mapped)
    cuda.synchronize()
    np.testing.assert_array_equal(mapped, np.arange(100.0) ** 2)


def test_cupy_arrays_go_in_without_a_copy():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1000, dtype=cupy.float32)
    out = cupy.empty_like(x)
    saxpy.forall(1000)(out, np.float32(2), x, x)
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), np.arange(1000, dtype=np.float32) * 3)
    assert cuda.as_cuda_array(out).device_ctypes_pointer.value == out.data.ptr
    back = cupy.asarray(cuda.as_cuda_array(out))
    assert back.data.ptr == out.data.ptr


def test_launches_with_new_cupy_arrays_each_time_read_each_one():
    """From the third launch the compiled entry reads the interface dicts: every launch
    must still see its own arrays."""
    cupy = pytest.importorskip("cupy")
    for k in range(6):
        x = cupy.full(1000, k, dtype=cupy.float32)
        out = cupy.empty_like(x)
        saxpy[4, 256](out, 2.0 if k % 2 else np.float32(2), x, x)
        cupy.cuda.runtime.deviceSynchronize()
        np.testing.assert_array_equal(cupy.asnumpy(out), np.full(1000, 3 * k, np.float32))


@vectorize(["float32(float32, float32)"], target="cuda")
def twice_plus(x, y):
    return 2 * x + y


def test_cupy_arrays_in_a_cuda_ufunc_broadcast_and_as_out():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    row = cupy.arange(4, dtype=cupy.float32)[::-1]
    out = cupy.empty((3, 8), dtype=cupy.float32)[:, ::2]
    assert twice_plus(x, row, out=out) is out
    cupy.cuda.runtime.deviceSynchronize()
    want = 2 * np.arange(12, dtype=np.float32).reshape(3, 4) + np.arange(4, dtype=np.float32)[::-1]
    np.testing.assert_array_equal(cupy.asnumpy(out), want)


def test_torch_tensors_go_in_without_a_copy():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    saxpy.forall(1000)(out, np.float32(2), x, x)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(1000, dtype=np.float32) * 3)


def test_torch_tensors_in_launches_through_the_compiled_entry():
    """From the third launch a compiled entry reads tensors' C attributes (launcher.py's
    TorchTensor): the same results as the interface gives, new memory and sizes read at
    each launch, and what the interface refuses or describes otherwise (grad, strided,
    another dtype) left to the Python path."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA")
    configured = saxpy[4, 256]
    for n in (1000, 1000, 1000, 1000, 7, 0, 1000):
        x = torch.arange(n, dtype=torch.float32, device="cuda")
        out = torch.full((n,), -1.0, device="cuda")
        configured(out, np.float32(2), x, x)
        torch.cuda.synchronize()
        np.testing.assert_array_equal(out.cpu().numpy(), np.arange(n, dtype=np.float32) * 3)
    with pytest.raises(RuntimeError, match="requires grad"):
        configured(out, np.float32(2), x.requires_grad_(), x)
    x = torch.arange(2000, dtype=torch.float32, device="cuda")[::2]
    configured(out, np.float32(2), x, x)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(0, 2000, 2) * 3)
    doubles = torch.arange(1000, dtype=torch.float64, device="cuda")
    for _ in range(3):
        configured(out, np.float32(0.5), doubles, doubles)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(1000, dtype=np.float32) * 1.5)


def test_cupy_arrays_through_dlpack_both_ways():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(1000, dtype=cupy.float32)
    out = cupy.empty_like(x)
    x_kiln, out_kiln = cuda.from_dlpack(x), cuda.from_dlpack(out)
    assert out_kiln.device_ctypes_pointer.value == out.data.ptr     # no copy
    saxpy.forall(1000)(out_kiln, np.float32(2), x_kiln, x_kiln)
    cuda.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), np.arange(1000, dtype=np.float32) * 3)
    dev = cuda.to_device(np.arange(10, dtype=np.int64))[::2]
    back = cupy.from_dlpack(dev)                                    # kiln -> CuPy, no copy
    assert back.data.ptr == dev.device_ctypes_pointer.value and back.strides == (16,)
    back += 1
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(dev.copy_to_host(), np.arange(0, 10, 2) + 1)


def test_torch_tensors_through_dlpack_both_ways():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch was built without CUDA")
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    stream = cuda.stream()
    saxpy[4, 256, stream](cuda.from_dlpack(out, stream=stream), np.float32(2),
                          cuda.from_dlpack(x, stream=stream), cuda.from_dlpack(x))
    stream.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy(), np.arange(1000, dtype=np.float32) * 3)
    dev = cuda.to_device(np.arange(12, dtype=np.float64).reshape(3, 4)).T
    back = torch.from_dlpack(dev)                                   # kiln -> PyTorch
    assert back.data_ptr() == dev.device_ctypes_pointer.value
    assert back.stride() == (1, 4) and back.shape == (4, 3)
    back.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(dev.copy_to_host(), np.arange(12.0).reshape(3, 4).T * 2)
    del back
    gc.collect()
    np.testing.assert_array_equal(dev.copy_to_host(), np.arange(12.0).reshape(3, 4).T * 2)


def test_linked_external_device_function():
    """declare_device + link: the kernel linked by nvJitLink with data/mul.ptx runs."""
    from test_external import triple
    a = np.arange(-5, 1000, dtype=np.int32)
    out = np.zeros_like(a)
    triple.forall(a.size)(a, out)
    np.testing.assert_array_equal(out, a * 3)


@pytest.mark.parametrize("n", [0, 1006])
def test_linked_cuda_c_device_function(n):
    """CUDA C compiled by NVRTC (data/mul.cu, and a CUSource in memory), linked, runs."""
    from test_nvrtc import ADD_CU, plus_one_kernel, triple_cu
    limit = 2**31 // 3   # a * 3 stays in int32
    a = np.concatenate([[-limit, -7, -1, 0, 1, limit], np.arange(1000)]).astype(np.int32)[:n]
    out = np.full_like(a, -99)
    triple_cu.forall(n)(a, out)
    np.testing.assert_array_equal(out, a * 3)
    plus_one = plus_one_kernel([cuda.CUSource(ADD_CU, name="add.cu")])
    b = a.copy()
    plus_one.forall(n)(b)
    np.testing.assert_array_equal(b, a + 1)


def test_grid_sync_on_the_device():
    """A cooperative launch with the grid barrier: every block updated before any reads."""
    from test_cooperative import shift_after_update
    n = 64 * 256   # 64 blocks of 256: resident at once on any GPU kiln targets
    a = cuda.to_device(np.arange(n, dtype=np.float32))
    out = cuda.device_array(n, np.float32)
    for _ in range(3):   # the barrier is reused launch after launch
        shift_after_update[64, 256](a, out)
    expected = np.arange(n, dtype=np.float32) + 3
    np.testing.assert_array_equal(a.copy_to_host(), expected)
    np.testing.assert_array_equal(out.copy_to_host(), np.roll(expected, -1))


def test_debug_kernel_reports_the_first_exception_and_runs_again():
    """debug=True (cuda/debug.py): a thread dividing by zero on the device is reported on the
    host with its block and thread; the record is cleared, so the next launch is clean, and
    the threads that did not fail wrote their results."""
    @cuda.jit(debug=True)
    def divide(out, a, b):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a[i] // b[i]

    a = np.arange(64, dtype=np.int64)
    b = np.ones(64, dtype=np.int64)
    b[37] = 0
    out = cuda.device_array(64, np.int64)
    with pytest.raises(ZeroDivisionError, match=r"in kernel 'divide' at blockIdx=\(1, 0, 0\), "
                                                r"threadIdx=\(5, 0, 0\)"):
        divide[2, 32](out, cuda.to_device(a), cuda.to_device(b))
    got = out.copy_to_host()
    np.testing.assert_array_equal(np.delete(got, 37), np.delete(a, 37))
    b[37] = 1
    divide[2, 32](out, cuda.to_device(a), cuda.to_device(b))
    np.testing.assert_array_equal(out.copy_to_host(), a)


def _double_in_another_process(handle):
    """Runs in a spawned process: opens the array through its IPC handle and doubles it."""
    from kiln import cuda as child_cuda

    @child_cuda.jit
    def double(a):
        i = child_cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    with handle as shared:
        double.forall(shared.size)(shared)
        child_cuda.synchronize()


def test_an_ipc_handle_shares_device_memory_with_another_process():
    import multiprocessing
    host = np.arange(1000, dtype=np.float64)
    dev = cuda.to_device(host)
    process = multiprocessing.get_context("spawn").Process(
        target=_double_in_another_process, args=(dev[10:].get_ipc_handle(),))
    process.start()
    process.join(120)
    assert process.exitcode == 0
    np.testing.assert_array_equal(dev.copy_to_host(), np.r_[host[:10], 2 * host[10:]])

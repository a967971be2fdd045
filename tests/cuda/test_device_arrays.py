"""Host-side memory: transfers, DeviceNDArray, pinned/mapped arrays and the CUDA Array
Interface."""
import re

import numpy as np
import pytest

from kiln import cuda

pytestmark = pytest.mark.cuda


def test_to_device_and_back():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = cuda.to_device(host)
    assert isinstance(d, cuda.DeviceNDArray)
    assert (d.shape, d.dtype, d.size, d.ndim, d.nbytes, len(d)) == \
        ((3, 4), np.float32, 12, 2, 48, 3)
    assert d.strides == host.strides
    np.testing.assert_array_equal(d.copy_to_host(), host)
    out = np.empty_like(host)
    assert d.copy_to_host(out) is out
    np.testing.assert_array_equal(out, host)
    assert cuda.to_device(d) is d


def test_device_array_and_like():
    d = cuda.device_array((2, 3), dtype=cuda.int16)
    assert d.shape == (2, 3) and d.dtype == np.int16 and d.is_c_contiguous()
    f = cuda.device_array(5, np.float64, order="F")
    assert f.shape == (5,)
    like = cuda.device_array_like(np.zeros((4, 2), np.complex64, order="F"))
    assert like.shape == (4, 2) and like.dtype == np.complex64 and like.is_f_contiguous()
    assert cuda.device_array_like(d).shape == (2, 3)


def test_copy_to_device_and_errors():
    d = cuda.device_array(4, np.float64)
    d.copy_to_device(np.arange(4.0))
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(4.0))
    other = cuda.to_device(np.ones(4))
    d.copy_to_device(other)
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(4))
    with pytest.raises(ValueError, match="incompatible shape"):
        d.copy_to_device(np.zeros(5))
    with pytest.raises(TypeError, match="incompatible dtype"):
        d.copy_to_device(np.zeros(4, np.float32))
    cuda.to_device(np.full(4, 3.0), to=d)
    np.testing.assert_array_equal(d.copy_to_host(), 3.0)


def test_slicing_gives_views_on_the_device():
    host = np.arange(20, dtype=np.int64).reshape(4, 5)
    d = cuda.to_device(host)
    assert d[1, 2] == 7
    row = d[2]
    assert isinstance(row, cuda.DeviceNDArray)
    np.testing.assert_array_equal(row.copy_to_host(), host[2])
    np.testing.assert_array_equal(d[:, 1:4:2].copy_to_host(), host[:, 1:4:2])
    np.testing.assert_array_equal(d[::-1, -1].copy_to_host(), host[::-1, -1])
    view = d[1:3]
    view[0, 0] = 100          # setitem writes through to the parent
    d[3] = np.arange(5) * -1
    expected = host.copy()
    expected[1, 0] = 100
    expected[3] = np.arange(5) * -1
    np.testing.assert_array_equal(d.copy_to_host(), expected)
    with pytest.raises(TypeError, match="only integer and slice indexing"):
        d[[0, 1]]


def test_kernel_writes_through_a_slice():
    @cuda.jit
    def fill(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = v

    d = cuda.to_device(np.zeros(10))
    fill[1, 16](d[2:8:2], 5.0)
    np.testing.assert_array_equal(d.copy_to_host(), [0, 0, 5, 0, 5, 0, 5, 0, 0, 0])


def test_reshape_ravel_transpose_view():
    host = np.arange(6, dtype=np.int32)
    d = cuda.to_device(host)
    r = d.reshape(2, 3)
    np.testing.assert_array_equal(r.copy_to_host(), host.reshape(2, 3))
    np.testing.assert_array_equal(d.reshape((3, -1)).copy_to_host(), host.reshape(3, 2))
    np.testing.assert_array_equal(r.ravel().copy_to_host(), host)
    np.testing.assert_array_equal(r.T.copy_to_host(), host.reshape(2, 3).T)
    np.testing.assert_array_equal(d.view(np.uint8).copy_to_host(), host.view(np.uint8))
    np.testing.assert_array_equal(np.asarray(r), host.reshape(2, 3))
    with pytest.raises(ValueError, match="cannot reshape"):
        d.reshape(4, 2)
    with pytest.raises(NotImplementedError, match="non-C-contiguous"):
        r.T.reshape(6)
    parts = d.split(4)
    assert [p.shape for p in parts] == [(4,), (2,)]


def test_squeeze_as_numpy():
    host = np.arange(6.0).reshape(2, 1, 3, 1)
    d = cuda.to_device(host)
    for axis in (None, 1, (1, 3), -1):
        np.testing.assert_array_equal(d.squeeze(axis).copy_to_host(), host.squeeze(axis))
    for axis in (0, 4):
        with pytest.raises(Exception) as ours:
            d.squeeze(axis)
        with pytest.raises(type(ours.value), match=re.escape(str(ours.value))):
            host.squeeze(axis)


def test_cuda_array_interface_round_trip():
    d = cuda.to_device(np.arange(8, dtype=np.float32))
    cai = d.__cuda_array_interface__
    assert cai["shape"] == (8,) and cai["typestr"] == "<f4" and cai["version"] == 3
    assert cai["strides"] is None and cai["data"][1] is False
    assert cuda.is_cuda_array(d) and not cuda.is_cuda_array(np.zeros(1))

    class Foreign:  # what CuPy or PyTorch look like to kiln
        def __init__(self, desc):
            self.__cuda_array_interface__ = desc

    strided = d[::2]
    foreign = Foreign(strided.__cuda_array_interface__)
    assert foreign.__cuda_array_interface__["strides"] == (8,)
    view = cuda.as_cuda_array(foreign)
    np.testing.assert_array_equal(view.copy_to_host(), [0, 2, 4, 6])
    view[0] = 42  # no copy: writes reach the original
    assert d[0] == 42
    with pytest.raises(TypeError, match="does not implement the CUDA Array Interface"):
        cuda.as_cuda_array(np.zeros(2))

    @cuda.jit
    def bump(a):
        a[cuda.grid(1)] += 1

    bump[1, 4](foreign)  # kernels take CUDA Array Interface objects without a copy
    np.testing.assert_array_equal(d.copy_to_host(), [43, 1, 3, 3, 5, 5, 7, 7])


def test_pinned_and_mapped_arrays():
    p = cuda.pinned_array((2, 2), np.float32)
    assert isinstance(p, np.ndarray) and p.shape == (2, 2) and p.dtype == np.float32
    m = cuda.mapped_array(8, np.int32)
    m[:] = 0
    assert cuda.is_cuda_array(m)

    @cuda.jit
    def write(a):
        a[cuda.grid(1)] = cuda.grid(1)

    write[1, 8](m)  # the kernel writes host-visible memory directly
    np.testing.assert_array_equal(m, np.arange(8))
    with cuda.pinned(p):
        pass
    host = np.zeros(8, np.int32)
    with cuda.mapped(host) as d:
        write[1, 8](d)
    np.testing.assert_array_equal(host, np.arange(8))


def test_in_out_inout_arguments():
    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        dst[i] = src[i] * 2
        src[i] = -1

    src, dst = np.arange(4.0), np.zeros(4)
    copy[1, 4](cuda.In(src), cuda.Out(dst))
    np.testing.assert_array_equal(src, np.arange(4.0))  # In: not copied back
    np.testing.assert_array_equal(dst, np.arange(4.0) * 2)
    copy[1, 4](cuda.InOut(src), dst)
    np.testing.assert_array_equal(src, -1)


def test_tuple_and_record_arguments():
    @cuda.jit
    def tuples(pair, scale, out):
        a, b = pair
        i = cuda.grid(1)
        out[i] = (a[i] + b[i]) * scale[0] + scale[1]

    out = np.zeros(3)
    tuples[1, 3]((np.ones(3), cuda.to_device(np.arange(3.0))), (2.0, 1.0), out)
    np.testing.assert_array_equal(out, (1 + np.arange(3.0)) * 2 + 1)


@pytest.mark.cudasim_only
def test_ipc_handles_need_a_gpu_and_say_so():
    from kiln.cuda import CudaSupportError
    dev = cuda.to_device(np.arange(4))
    with pytest.raises(CudaSupportError, match="IPC handles need a GPU"):
        dev.get_ipc_handle()
    with pytest.raises(CudaSupportError, match="IPC handles need a GPU"):
        with cuda.open_ipc_array(bytes(64), (4,), np.int64):
            pass


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.complex128,
                                   np.dtype([("x", np.float32), ("n", np.int16),
                                             ("flag", np.bool_)], align=False)])
def test_the_strided_copy_kernel_moves_only_the_elements(dtype):
    """cuda/stridedcopy.py's kernel (the driver back-end copies strided views with it), run
    here: items of any size moved as 8-, 4-, 2- or 1-byte units (complex128 as two 8-byte
    ones, a 7-byte record as seven bytes), reversed, transposed and broadcast views, the
    bytes between a view's elements left as they were."""
    from kiln.cuda import stridedcopy
    from kiln.cuda.devicearray import broadcast_to
    host = np.frombuffer(np.random.default_rng(3).bytes(6 * 10 * np.dtype(dtype).itemsize),
                         dtype).reshape(6, 10)
    host = host.copy()
    src = cuda.to_device(host)
    for dst_key, src_view, want in [
            ((slice(None, None, 2), slice(1, None, 3)), src[1:4, ::-3][:, :3],
             host[1:4, ::-3][:, :3]),
            ((slice(None), slice(0, 6)), src[:, :6], host[:, :6]),
            ((slice(0, 3), slice(0, 10, 2)), broadcast_to(src[4, ::2], (3, 5)),
             host[4, ::2])]:
        target = cuda.to_device(np.zeros_like(host))
        stridedcopy.copy(target[dst_key], src_view)
        expected = np.zeros_like(host)
        expected[dst_key] = want
        assert target.copy_to_host().tobytes() == expected.tobytes()


def test_the_strided_copy_kernel_compiles_to_ptx():
    from kiln.cuda import stridedcopy, toolkit
    if toolkit.ptxas_path() is None:
        pytest.skip(f"ptxas not installed: {toolkit.INSTALL_HINT}")
    kernel = stridedcopy._KERNELS.kernel(3).py_func
    for unit in ("uint8", "uint64"):
        ptx, _ = cuda.compile_ptx(kernel, f"void({unit}[:, :, :], {unit}[:, :, :], int64)",
                                  cc=(7, 0))
        toolkit.check_ptx(ptx, (7, 0))
        assert "ld.global" in ptx and "st.global" in ptx


def test_setitem_broadcasts_a_device_array_as_numpy():
    host = np.zeros((3, 4))
    d = cuda.to_device(host)
    d[:] = cuda.to_device(np.arange(4.0))            # a row into every row
    host[:] = np.arange(4.0)
    d[1] = cuda.to_device(np.array(5.0))             # a 0-d array into a row
    host[1] = 5.0
    d[:, ::2] = cuda.to_device(np.array([[7.0], [8.0], [9.0]]))   # a column, strided target
    host[:, ::2] = [[7.0], [8.0], [9.0]]
    np.testing.assert_array_equal(d.copy_to_host(), host)
    with pytest.raises(ValueError, match=r"incompatible shape: \(3, 4\) vs. \(3,\)"):
        d[:] = cuda.to_device(np.ones(3))


def test_the_strided_copy_kernel_takes_shapes_that_differ_in_axes_of_one():
    from kiln.cuda import stridedcopy
    target = cuda.to_device(np.zeros((3, 1, 2)))[:, :, ::-1]
    stridedcopy.copy(target, cuda.to_device(np.arange(6.0).reshape(3, 2)))
    np.testing.assert_array_equal(target.copy_to_host(), np.arange(6.0).reshape(3, 1, 2))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("view", [lambda a: a, lambda a: a[::2, ::2], lambda a: a[::2, ::2].T,
                                  lambda a: a.T, lambda a: a[:, ::3]])
def test_array_like_is_laid_out_as_numpys_zeros_like(order, view):
    """*_array_like of a device array: NumPy's zeros_like's strides and flags (contiguous,
    its axes in the order of the original's strides)."""
    host = view(np.zeros((10, 12), order=order))
    dev = view(cuda.device_array((10, 12), order=order))
    assert dev.strides == host.strides
    expected = np.zeros_like(host)
    for like in (cuda.device_array_like, cuda.pinned_array_like, cuda.mapped_array_like):
        made = like(dev)
        assert made.shape == expected.shape and made.strides == expected.strides
        for flag in ("C_CONTIGUOUS", "F_CONTIGUOUS"):
            assert made.flags[flag] == expected.flags[flag]
            assert getattr(made.flags, flag.lower()) == expected.flags[flag]


def test_auto_device():
    """devicearray.auto_device: (device array, copied?); a device array is itself; a
    non-contiguous host array is refused."""
    d, copied = cuda.devicearray.auto_device(2)
    assert copied and d.shape == () and d.copy_to_host() == 2
    a = np.arange(12.0).reshape(3, 4)
    d, copied = cuda.devicearray.auto_device(a)
    assert copied and np.array_equal(d.copy_to_host(), a)
    assert cuda.devicearray.auto_device(d) == (d, False)
    with pytest.raises(ValueError, match="not contiguous"):
        cuda.devicearray.auto_device(np.arange(10.0)[:-1:2])


@pytest.mark.parametrize("view", [lambda a: a, lambda a: a.T, lambda a: a[::2], lambda a: a[:, :1],
                                  lambda a: a[1:2, 3:], lambda a: a[:, ::-1]])
def test_is_contiguous_and_array_core_against_numpy(view):
    """devicearray.is_contiguous (C order, leaving out length-1 and broadcast axes) and
    array_core agree with NumPy's flags for the same view."""
    from kiln.cuda import devicearray
    host = view(np.zeros((6, 8)))
    dev = view(cuda.device_array((6, 8)))
    assert dev.strides == host.strides
    squeezed = host.squeeze() if host.size else host
    assert devicearray.is_contiguous(dev) == squeezed.flags["C_CONTIGUOUS"]
    assert devicearray.is_contiguous(dev) == devicearray.array_core(dev).flags["C_CONTIGUOUS"]
    devicearray.verify_cuda_ndarray_interface(dev)
    with pytest.raises(ValueError):
        devicearray.verify_cuda_ndarray_interface(host)


def test_view_of_the_same_itemsize_keeps_any_strides():
    dev = cuda.to_device(np.arange(12, dtype=np.int32).reshape(3, 4))[:, ::2]
    host = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    got = dev.view(np.float32)
    assert got.strides == host.view(np.float32).strides
    np.testing.assert_array_equal(got.copy_to_host(), host.view(np.float32))
    with pytest.raises(ValueError, match="To change to a dtype of a different size"):
        dev.view(np.int16)
    with pytest.raises(ValueError, match="its size must be a divisor"):
        cuda.device_array(3, np.int16).view(np.int32)


@pytest.mark.parametrize("shape, layout", [((60,), "C"), ((2, 5, 2, 3), "C"),
                                           ((2, 5, 2, 3), "F")])
@pytest.mark.parametrize("order", "CFA")
def test_ravel_against_numpy(shape, layout, order):
    host = np.arange(60).reshape(shape, order=layout)
    dev = cuda.to_device(host)
    if layout != order and order != "A" and len(shape) > 1:
        with pytest.raises(NotImplementedError):   # it would need a copy
            dev.ravel(order=order)
        return
    flat = dev.ravel(order=order)
    assert flat is not dev and flat.ndim == 1
    np.testing.assert_array_equal(flat.copy_to_host(), host.ravel(order=order))

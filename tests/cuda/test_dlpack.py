"""DLPack both ways in the simulator, whose device memory is host memory: device arrays are
kDLCPU tensors NumPy reads in place, and host tensors (NumPy's, hand-built ones) become
device arrays kernels write through. Checked against NumPy: every dtype DLPack and kiln
share, strides (negative too), 0-d and empty arrays, byte_offset, read-only flags, both
capsule kinds, deleters called exactly once and memory kept alive until then, and the
errors. The driver back-end's side is in test_driver_logic.py."""
import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest
from dlpack_producer import Producer, capsule_name, managed_tensor

from kiln import cuda
from kiln.cuda import dlpack

pytestmark = [pytest.mark.cuda, pytest.mark.cudasim_only]

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


def sample(dtype, shape=(3, 4)):
    """Values of `dtype` with its edge cases: negatives, extremes, NaN and inf."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    if dtype.kind == "b":
        values = np.arange(n) % 3 == 0
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = np.resize(np.array([info.min, info.max, 0, 1], dtype), n)
        values[4:] = np.arange(4, n).astype(dtype) * (-1 if dtype.kind == "i" else 1)
    else:
        real = np.linspace(-2.5, 3.5, n)
        real[:3] = [np.nan, np.inf, -np.inf]
        values = np.empty(n, dtype)
        values.real = real
        if dtype.kind == "c":
            values.imag = real[::-1]
    return values.astype(dtype).reshape(shape)


def bump(dtype):
    return np.logical_not if np.dtype(dtype).kind == "b" else (lambda a: a + 1)


@cuda.jit
def scale(a, factor):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * factor + i


# -- export: NumPy reads device arrays in place ----------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_views_a_device_array_without_a_copy(dtype):
    host = sample(dtype)
    dev = cuda.to_device(host)
    assert dev.__dlpack_device__() == (dlpack.DLDeviceType.kDLCPU, 0)
    seen = np.from_dlpack(dev)
    assert seen.dtype == host.dtype and seen.shape == host.shape
    np.testing.assert_array_equal(seen, host)
    seen[...] = bump(dtype)(seen)          # writes reach the device array...
    np.testing.assert_array_equal(dev.copy_to_host(), bump(dtype)(host))
    dev[0, 0] = host[1, 1]                 # ...and its writes reach NumPy's view
    assert seen[0, 0] == host[1, 1] or np.isnan(host[1, 1])


@pytest.mark.parametrize("view", [
    lambda a: a, lambda a: a[::2], lambda a: a[:, 1::2], lambda a: a.T, lambda a: a[::-1],
    lambda a: a[1:, ::-2], lambda a: a[2, 3, ...], lambda a: a[:0], lambda a: a[:, :0]],
    ids=["whole", "rows", "columns", "transposed", "reversed", "negative", "0-d", "empty",
         "empty-columns"])
def test_views_keep_their_strides(view):
    host = np.arange(30, dtype=np.float64).reshape(5, 6)
    dev_view = view(cuda.to_device(host))
    expected = view(host)
    seen = np.from_dlpack(dev_view)
    assert seen.shape == expected.shape and seen.dtype == expected.dtype
    np.testing.assert_array_equal(seen, expected)
    if expected.size > 1:
        assert seen.strides == expected.strides


def test_zero_d_and_empty_arrays():
    scalar = cuda.to_device(np.asarray(-2.5))
    assert np.from_dlpack(scalar).shape == () and np.from_dlpack(scalar)[()] == -2.5
    for shape in [(0,), (3, 0), (0, 0, 2)]:
        empty = np.from_dlpack(cuda.device_array(shape, np.int32))
        assert empty.shape == shape and empty.dtype == np.int32
        producer = Producer(None, shape)    # NULL data is fine when there are no elements
        imported = cuda.from_dlpack(producer)
        assert imported.shape == shape and imported.copy_to_host().shape == shape
        scale.forall(0)(imported, 1.0)
        del imported
        gc.collect()
        assert producer.deleted == 1
    one = np.array([4.5])
    producer = Producer(one.ctypes.data, (), owner=one)   # 0-d: no shape entries needed
    producer.managed.dl_tensor.shape = None
    assert cuda.from_dlpack(producer).copy_to_host()[()] == 4.5


def test_the_capsules_say_what_the_spec_says():
    dev = cuda.to_device(np.arange(12, dtype=np.int16).reshape(3, 4))[::2, 1:]
    legacy = dev.__dlpack__()
    assert capsule_name(legacy) == "dltensor"
    assert capsule_name(dev.__dlpack__(max_version=(0, 8))) == "dltensor"
    capsule = dev.__dlpack__(max_version=(1, 3))
    assert capsule_name(capsule) == "dltensor_versioned"
    managed = managed_tensor(capsule)
    assert (managed.version.major, managed.version.minor) == (1, 0) and managed.flags == 0
    tensor = managed.dl_tensor
    assert (tensor.device.device_type, tensor.device.device_id) == (1, 0)
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (dlpack.kDLInt, 16, 1)
    assert tensor.ndim == 2 and list(tensor.shape[:2]) == [2, 3]
    assert list(tensor.strides[:2]) == [8, 1]          # in elements, not bytes
    assert tensor.byte_offset == 0
    assert tensor.data == dev.device_ctypes_pointer.value
    assert ctypes.c_int16.from_address(tensor.data).value == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_each_dtype_has_its_dlpack_code(dtype):
    dev = cuda.device_array(2, dtype)
    tensor = managed_tensor(dev.__dlpack__(max_version=(1, 0))).dl_tensor
    code = {"b": dlpack.kDLBool, "i": dlpack.kDLInt, "u": dlpack.kDLUInt,
            "f": dlpack.kDLFloat, "c": dlpack.kDLComplex}[np.dtype(dtype).kind]
    assert (tensor.dtype.code, tensor.dtype.bits) == (code, np.dtype(dtype).itemsize * 8)


# -- export: lifetimes -------------------------------------------------------------------------
def test_a_capsule_keeps_the_array_alive_until_its_deleter_runs():
    dev = cuda.to_device(np.arange(4.0))
    alive = weakref.ref(dev)
    capsule = dev.__dlpack__()
    del dev
    gc.collect()
    assert alive() is not None             # the unconsumed capsule holds it
    del capsule                            # its destructor calls the deleter
    gc.collect()
    assert alive() is None

    dev = cuda.to_device(np.arange(4.0))
    alive = weakref.ref(dev)
    seen = np.from_dlpack(dev)
    del dev
    gc.collect()
    np.testing.assert_array_equal(seen, np.arange(4.0))   # still valid memory
    del seen                               # NumPy calls the deleter, once
    gc.collect()
    assert alive() is None


def test_a_capsule_dropped_while_an_exception_unwinds_releases_once(monkeypatch):
    """CPython frees the capsule while 1 / 0's exception is pending (popping the operand
    stack); a destructor or deleter written in Python would turn that into a SystemError."""
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    dev = cuda.to_device(np.arange(3.0))
    alive = weakref.ref(dev)
    for max_version in (None, (1, 0)):
        with pytest.raises(ZeroDivisionError):
            (dev.__dlpack__(max_version=max_version), 1 / 0)
    with pytest.raises(ZeroDivisionError):
        (np.from_dlpack(dev), 1 / 0)        # NumPy calls the deleter then
    del dev
    gc.collect()
    assert alive() is None and unraisable == []


def test_a_consumed_capsule_is_renamed_and_cannot_be_consumed_twice():
    dev = cuda.to_device(np.arange(5, dtype=np.int32))
    alive = weakref.ref(dev)
    capsule = dev.__dlpack__(max_version=(1, 0))
    view = dlpack.consume(capsule)
    assert capsule_name(capsule) == "used_dltensor_versioned"
    with pytest.raises(TypeError, match="unconsumed DLPack capsule"):
        dlpack.consume(capsule)
    del dev, capsule                        # the view alone holds the memory now
    gc.collect()
    assert alive() is not None
    np.testing.assert_array_equal(view.copy_to_host(), np.arange(5))
    del view
    gc.collect()
    assert alive() is None


def test_many_exports_and_imports_release_everything():
    dev = cuda.to_device(np.arange(8.0))
    for _ in range(200):
        seen, again = np.from_dlpack(dev), cuda.from_dlpack(dev)
        legacy, versioned = dev.__dlpack__(), dev.__dlpack__(max_version=(1, 0))
        del seen, again, legacy, versioned
    gc.collect()
    assert sys.getrefcount(dev) == 2       # no export left a reference behind


# -- export: options and refusals ------------------------------------------------------------
def test_read_only_arrays_say_so_or_are_refused():
    host = np.arange(6.0)
    host.flags.writeable = False
    dev = cuda.from_dlpack(host)           # NumPy's versioned capsule says read-only
    assert dev.readonly
    with pytest.raises(ValueError, match="read-only"):
        dev[0] = 1.0
    with pytest.raises(ValueError, match="kernel writes to a read-only array"):
        scale.forall(6)(dev, 2.0)
    np.testing.assert_array_equal(host, np.arange(6.0))
    managed = managed_tensor(dev.__dlpack__(max_version=(1, 0)))
    assert managed.flags == dlpack.FLAG_READ_ONLY
    seen = np.from_dlpack(dev)
    assert not seen.flags.writeable
    np.testing.assert_array_equal(seen, host)
    with pytest.raises(BufferError, match="read-only device array cannot be exported as a "
                       "legacy"):
        dev.__dlpack__()
    assert managed_tensor(dev.__dlpack__(copy=True)).dl_tensor.data != host.ctypes.data


def test_copy_and_device_requests():
    host = np.arange(6, dtype=np.float32)
    dev = cuda.to_device(host)
    copied = np.from_dlpack(dev, copy=True)
    copied[:] = -1                          # a copy: the device array is untouched
    np.testing.assert_array_equal(dev.copy_to_host(), host)
    assert managed_tensor(dev.__dlpack__(max_version=(1, 0), copy=True)).flags == \
        dlpack.FLAG_IS_COPIED
    same = np.from_dlpack(dev, copy=False, device="cpu")
    same[0] = 7
    assert dev[0] == 7
    with pytest.raises(BufferError, match="on kDLCPU 0.*not to kDLCUDA 0"):
        dev.__dlpack__(dl_device=(2, 0))
    with pytest.raises(ValueError, match="stream=5: a host .kDLCPU. tensor takes stream=None"):
        dev.__dlpack__(stream=5)


@pytest.mark.parametrize("dtype", [">f8", "M8[s]", "S3", [("x", "<i4"), ("y", "<f4")]])
def test_dtypes_dlpack_cannot_describe_are_refused(dtype):
    dev = cuda.device_array(2, np.dtype(dtype))
    with pytest.raises(BufferError, match="DLPack cannot describe dtype"):
        dev.__dlpack__()


def test_strides_that_are_not_whole_elements_are_refused():
    odd = cuda.from_cuda_array_interface(
        {"shape": (2,), "strides": (6,), "typestr": "<i4", "version": 3, "stream": None,
         "data": (np.zeros(4, np.int32).ctypes.data, False)})
    with pytest.raises(BufferError, match=r"strides \(6,\) are not multiples of the item "
                       "size"):
        odd.__dlpack__()


# -- import: host memory into kernels -------------------------------------------------------
class DLPackOnly:
    """An array with DLPack and nothing else (no `__cuda_array_interface__`)."""

    def __init__(self, ary):
        self.ary = ary

    def __dlpack__(self, **keywords):
        return self.ary.__dlpack__(**keywords)

    def __dlpack_device__(self):
        return self.ary.__dlpack_device__()


def test_kernels_write_through_an_imported_array():
    host = np.linspace(-3, 3, 70)
    host[:3] = [np.nan, np.inf, -np.inf]
    expected = host * 2.5 + np.arange(70)
    view = cuda.from_dlpack(host)
    assert view.device_ctypes_pointer.value == host.ctypes.data    # no copy
    scale.forall(70)(view, 2.5)
    np.testing.assert_array_equal(host, expected)

    target = np.arange(10, dtype=np.int64)
    scale.forall(10)(DLPackOnly(target), 3)        # a DLPack argument, used in place
    np.testing.assert_array_equal(target, np.arange(10) * 3 + np.arange(10))
    again = cuda.as_cuda_array(DLPackOnly(target))
    assert again.device_ctypes_pointer.value == target.ctypes.data
    with pytest.raises(TypeError, match="CUDA Array Interface .* or DLPack"):
        cuda.as_cuda_array(object())


def test_strided_imports_see_numpys_layout():
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    for view in (base[::2, 1::3], base.T, base[::-1, ::-2], base[3, 5, ...], base[:, :0]):
        dev = cuda.from_dlpack(view)
        assert dev.shape == view.shape and dev.dtype == view.dtype
        np.testing.assert_array_equal(dev.copy_to_host(), view)
    strided = base[::2, ::-3]
    scale.forall(3)(cuda.from_dlpack(strided[0]), 0.0)   # writes land in the base
    np.testing.assert_array_equal(base[0, ::-3], np.arange(3))


# -- import: hand-built tensors --------------------------------------------------------------
def test_byte_offset_strides_and_the_deleter():
    buffer = np.arange(20, dtype=np.float64)
    producer = Producer(buffer.ctypes.data, (2, 3), strides=(6, 2), byte_offset=16,
                        owner=buffer)
    view = cuda.from_dlpack(producer)
    assert producer.requests == [(None, (1, 0))]     # a host tensor: no stream
    expected = np.lib.stride_tricks.as_strided(buffer[2:], (2, 3), (48, 16))
    np.testing.assert_array_equal(view.copy_to_host(), expected)
    view[1, 2] = -1.0
    assert buffer[2 + 6 + 4] == -1.0
    part = view[1]                          # views of the view hold the tensor too
    del view
    gc.collect()
    assert producer.deleted == 0
    np.testing.assert_array_equal(part.copy_to_host(), [8.0, 10.0, -1.0])
    del part
    gc.collect()
    assert producer.deleted == 1


@pytest.mark.parametrize("versioned", [True, False])
def test_null_strides_are_c_contiguous(versioned):
    buffer = np.arange(12, dtype=np.int32)
    producer = Producer(buffer.ctypes.data, (3, 4), dtype=(dlpack.kDLInt, 32, 1),
                        versioned=versioned, owner=buffer)
    view = cuda.from_dlpack(producer)
    assert view.strides == (16, 4)
    np.testing.assert_array_equal(view.copy_to_host(), buffer.reshape(3, 4))
    del view
    gc.collect()
    assert producer.deleted == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_each_dlpack_dtype_imports(dtype):
    host = sample(dtype, (5,))
    code = {"b": dlpack.kDLBool, "i": dlpack.kDLInt, "u": dlpack.kDLUInt,
            "f": dlpack.kDLFloat, "c": dlpack.kDLComplex}[host.dtype.kind]
    producer = Producer(host.ctypes.data, (5,), dtype=(code, host.dtype.itemsize * 8, 1),
                        owner=host)
    view = cuda.from_dlpack(producer)
    assert view.dtype == host.dtype
    np.testing.assert_array_equal(view.copy_to_host(), host)


def test_a_pre_1_0_producer_is_asked_without_max_version():
    buffer = np.ones(3)
    producer = Producer(buffer.ctypes.data, (3,), versioned=False, keywords=False,
                        owner=buffer)
    np.testing.assert_array_equal(cuda.from_dlpack(producer).copy_to_host(), buffer)
    assert producer.requests == [(None, None)]
    gc.collect()
    assert producer.deleted == 1


def test_the_read_only_flag_makes_a_read_only_array():
    buffer = np.arange(4.0)
    producer = Producer(buffer.ctypes.data, (4,), flags=dlpack.FLAG_READ_ONLY, owner=buffer)
    view = cuda.from_dlpack(producer)
    assert view.readonly
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 2.0


@pytest.mark.parametrize("change, message", [
    (dict(dtype=(dlpack.kDLFloat, 32, 4)), "4 lanes"),
    (dict(dtype=(dlpack.kDLBfloat, 16, 1)), "bfloat of 16 bits has no kiln dtype"),
    (dict(dtype=(dlpack.kDLFloat, 128, 1)), "type code 2 of 128 bits"),
    (dict(version=(2, 0)), "DLPack 2.0 tensor: kiln reads DLPack 1.x"),
    (dict(shape=(3, -1)), "negative extent"),
    (dict(data=None), r"shape \(4,\) with a NULL data pointer"),
    (dict(tamper=lambda t: setattr(t, "ndim", -1)), "ndim=-1"),
    (dict(tamper=lambda t: setattr(t, "shape", None)), "ndim=1 and no shape"),
])
def test_refused_tensors_are_released(change, message):
    buffer = np.zeros(16)
    options = dict(data=buffer.ctypes.data, shape=(4,), owner=buffer)
    options.update(change)
    tamper = options.pop("tamper", None)
    producer = Producer(**options)
    if tamper is not None:                  # a malformed tensor
        tamper(producer.managed.dl_tensor)
    with pytest.raises(BufferError, match=message):
        cuda.from_dlpack(producer)
    assert producer.deleted == 1            # the consumer owned it: released at once


def test_a_tensor_on_another_device_is_refused():
    buffer = np.zeros(4)
    on_gpu = Producer(buffer.ctypes.data, (4,), device=(2, 0), owner=buffer)
    with pytest.raises(BufferError, match="kDLCUDA 0: the simulator's device memory is "
                       "host memory"):
        cuda.from_dlpack(on_gpu)
    assert on_gpu.requests == [] and on_gpu.deleted == 0    # refused before asking
    liar = Producer(buffer.ctypes.data, (4,), device=(4, 0), owner=buffer)
    liar.device = (1, 0)                    # says kDLCPU, hands over an OpenCL tensor
    with pytest.raises(BufferError, match="kDLOpenCL 0"):
        cuda.from_dlpack(liar)
    assert liar.deleted == 1
    with pytest.raises(TypeError, match="list object does not implement DLPack"):
        cuda.from_dlpack([1.0, 2.0])

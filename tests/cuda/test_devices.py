"""Devices, contexts, streams and events."""
import numpy as np
import pytest

from kiln import cuda

pytestmark = pytest.mark.cuda


def test_is_available_and_detect(capsys):
    assert cuda.is_available()
    assert cuda.detect()
    assert "1/1 devices are supported" in capsys.readouterr().out or len(cuda.gpus) > 1


def test_current_device_properties():
    dev = cuda.get_current_device()
    assert isinstance(dev.name, str) and dev.name
    major, minor = dev.compute_capability
    assert major >= 5
    assert dev.MAX_THREADS_PER_BLOCK >= 1024 and dev.WARP_SIZE == 32
    assert dev.MULTIPROCESSOR_COUNT >= 1 and dev.MAX_SHARED_MEMORY_PER_BLOCK >= 48 * 1024
    assert dev.MAX_BLOCK_DIM_Z == 64 and dev.MAX_GRID_DIM_X == 2**31 - 1
    with pytest.raises(AttributeError):
        dev.NOT_AN_ATTRIBUTE
    assert cuda.gpus[0].id == dev.id and len(cuda.gpus) >= 1
    assert cuda.gpus.current.id == dev.id
    assert [d.id for d in cuda.list_devices()] == [d.id for d in cuda.gpus]


def test_select_device_close_and_context():
    dev = cuda.select_device(0)
    assert dev.id == 0
    ctx = cuda.current_context()
    assert ctx.device.id == 0
    ctx.memory_manager.deallocations.clear()
    free, total = ctx.get_memory_info()
    assert 0 < free <= total
    cuda.close()
    d = cuda.to_device(np.arange(3))  # a fresh context after close
    np.testing.assert_array_equal(d.copy_to_host(), np.arange(3))
    with cuda.defer_cleanup():
        cuda.device_array(4)
    cuda.synchronize()
    cuda.current_context().synchronize()


def test_select_missing_device():
    with pytest.raises(cuda.CudaAPIError):
        cuda.select_device(len(cuda.gpus) + 7)


def test_streams():
    s = cuda.stream()
    assert s.query() is not False
    d = cuda.to_device(np.arange(4.0), stream=s)
    out = np.zeros(4)
    d.copy_to_host(out, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(out, np.arange(4.0))
    with s.auto_synchronize():
        cuda.to_device(np.zeros(2), stream=s)
    for default in (cuda.default_stream(), cuda.legacy_default_stream(),
                    cuda.per_thread_default_stream()):
        default.synchronize()
    assert d.bind(s).stream is s
    assert cuda.to_device(np.zeros(1)).__cuda_array_interface__["stream"] is None
    assert d.bind(s).__cuda_array_interface__["stream"] == int(s.handle.value)


def test_events():
    start = cuda.event()
    end = cuda.event(timing=True)
    start.record()
    cuda.to_device(np.zeros(1000))
    end.record(cuda.default_stream())
    end.synchronize()
    end.wait()
    assert end.query()
    assert cuda.event_elapsed_time(start, end) >= 0
    with pytest.raises(cuda.CudaAPIError):
        cuda.event().elapsed_time(end)

"""Streams and events of the driver. A stream is its CUstream handle (`int(stream)`; 1 is
the legacy default stream, 2 the per-thread one, as the driver defines them; `.handle` is
a ctypes pointer, as in Numba, for code that reads `stream.handle.value`); streams kiln
created are destroyed when dropped, external ones (CuPy's, PyTorch's) never."""
from __future__ import annotations

import contextlib
import ctypes
import weakref

from ..errors import CudaAPIError

LEGACY_DEFAULT, PER_THREAD_DEFAULT = 0x1, 0x2   # CU_STREAM_LEGACY, CU_STREAM_PER_THREAD


class Stream:
    """A driver stream. `blocking`: its work waits for the legacy default stream's (kiln's
    streams and the default ones; an external stream may be non-blocking)."""

    def __init__(self, context, handle, kind="stream", owned=False):
        self.context = context
        self._address = int(handle)
        self._kind = kind
        self.blocking = kind != "external stream"
        if owned:
            driver = context.driver
            weakref.finalize(self, context.deallocations.add,
                             lambda h=handle: None if context.released
                             else driver.call("cuStreamDestroy", h))

    def __int__(self):
        return self._address

    @property
    def handle(self):
        return ctypes.c_void_p(self._address)

    def synchronize(self):
        self.context.make_current()
        self.context.driver.call("cuStreamSynchronize", self._address)

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def query(self) -> bool:
        """True when all the stream's work is done."""
        return _ready(self.context.driver, "cuStreamQuery", self._address)

    def add_callback(self, callback, arg=None):
        """Call `callback(stream, status, arg)` once the work queued so far is done (kiln
        waits for it here rather than calling back from a driver thread)."""
        self.synchronize()
        callback(self, None, arg)

    def __repr__(self):
        return f"<CUDA {self._kind} {self._address:#x}>"


def _ready(driver, name, handle) -> bool:
    try:
        driver.call(name, handle)
    except CudaAPIError as exc:
        if "CUDA_ERROR_NOT_READY" in str(exc):
            return False
        raise
    return True


def create_stream(context) -> Stream:
    context.make_current()
    handle = context.driver.call("cuStreamCreate", 0)
    return Stream(context, handle, owned=True)


class Event:
    def __init__(self, context, timing=True):
        self.context = context
        self.timing = timing
        driver = context.driver
        flags = 0 if timing else getattr(driver.module, "CU_EVENT_DISABLE_TIMING", 0x2)
        if not isinstance(flags, int):
            flags = int(flags)
        context.make_current()
        self.handle = driver.call("cuEventCreate", flags)
        weakref.finalize(self, context.deallocations.add,
                         lambda h=self.handle: None if context.released
                         else driver.call("cuEventDestroy", h))
        self.recorded = False

    def record(self, stream=0):
        self.context.driver.call("cuEventRecord", self.handle, int(stream) if stream else 0)
        self.recorded = True

    def synchronize(self):
        self.context.driver.call("cuEventSynchronize", self.handle)

    def wait(self, stream=0):
        """Make `stream` wait for this event before running what is queued after."""
        self.context.driver.call("cuStreamWaitEvent", int(stream) if stream else 0,
                                 self.handle, 0)

    def query(self) -> bool:
        return _ready(self.context.driver, "cuEventQuery", self.handle)

    def elapsed_time(self, evtend) -> float:
        """Milliseconds from this event to `evtend`."""
        if not (self.timing and evtend.timing):
            raise CudaAPIError("elapsed_time needs events created with timing=True")
        if not (self.recorded and evtend.recorded):
            raise CudaAPIError("elapsed_time needs both events to have been recorded")
        return float(self.context.driver.call("cuEventElapsedTime", self.handle,
                                              evtend.handle))

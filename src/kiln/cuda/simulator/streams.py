"""Simulated streams and events. Simulated work runs synchronously, in order, when it is
issued, so a stream is already synchronized and an event's time is when it was recorded
(wall time, so `event_elapsed_time` measures what ran between two records)."""
from __future__ import annotations

import contextlib
import ctypes
import itertools
import time

from ..errors import CudaAPIError

_handles = itertools.count(0x1000)


class SimStream:
    def __init__(self, handle=None, kind="stream"):
        self.handle = ctypes.c_void_p(next(_handles) if handle is None else handle)
        self._kind = kind

    def __int__(self):
        return self.handle.value or 0

    def synchronize(self):
        """Wait for the stream's work: done already in the simulator."""

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self
        self.synchronize()

    def query(self) -> bool:
        return True

    def add_callback(self, callback, arg=None):
        callback(self, None, arg)

    def __repr__(self):
        return f"<CUDA {self._kind} {int(self):#x} (simulated)>"


class SimEvent:
    def __init__(self, timing=True):
        self.timing = timing
        self._time = None

    def record(self, stream=0):
        self._time = time.perf_counter()

    def synchronize(self):
        """Wait for the recorded work: done already in the simulator."""

    def wait(self, stream=0):
        """Make `stream` wait for this event: a no-op in order."""

    def query(self) -> bool:
        return True

    def elapsed_time(self, evtend) -> float:
        """Milliseconds from this event to `evtend`."""
        if not (self.timing and evtend.timing):
            raise CudaAPIError("elapsed_time needs events created with timing=True")
        if self._time is None or evtend._time is None:
            raise CudaAPIError("elapsed_time needs both events to have been recorded")
        return (evtend._time - self._time) * 1000.0

"""`print` in simulated kernels: each thread's output reaches sys.stdout a whole line at a
time, as a GPU's printf does, instead of interleaving with other threads' (Python's print
writes its items, separators and end one `write` at a time). While a grid runs, sys.stdout
is a `LineStdout` over the stream that was there: kernel threads' writes collect per thread
until a newline and go out under one lock; other threads' writes pass straight through."""
from __future__ import annotations

import contextlib
import sys
import threading

from .. import kernelcontext


class LineStdout:
    def __init__(self, stream):
        self.stream = stream
        self._lock = threading.Lock()
        self._pending = threading.local()

    def write(self, text):
        if not kernelcontext.in_kernel():
            return self.stream.write(text)
        pending = getattr(self._pending, "text", "") + text
        lines, newline, rest = pending.rpartition("\n")
        self._pending.text = rest
        if newline:
            self._emit(lines + newline)
        return len(text)

    def flush_thread(self):
        """What the running thread wrote after its last newline (at its end)."""
        rest = getattr(self._pending, "text", "")
        if rest:
            self._pending.text = ""
            self._emit(rest)

    def _emit(self, text):
        with self._lock:
            self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def __getattr__(self, name):   # encoding, isatty, fileno...: the stream's
        return getattr(self.stream, name)


@contextlib.contextmanager
def whole_lines():
    """sys.stdout as a LineStdout while the block runs (restored unless replaced since)."""
    line_stdout = LineStdout(sys.stdout)
    sys.stdout = line_stdout
    try:
        yield line_stdout
    finally:
        if sys.stdout is line_stdout:
            sys.stdout = line_stdout.stream

"""`parallel=True`: prange loops split across a thread pool (see outline.py for the stage,
launch.py for the call into the runtime's thread layer, runtime/threads.py for the layer)."""
from __future__ import annotations


def prange(*args):
    """`range` that a `parallel=True` function splits across threads; elsewhere, in
    compiled code and in Python, it is `range`."""
    return range(*args)

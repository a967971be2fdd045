"""What compiled code runs on: memory (nrt.py), the CPython boundary (boxing.py, pyapi.py),
threads (threads.py) and stack guards (stack.py). `allocation_stats()` is public."""
from .loaded import AllocationStats, allocation_stats

__all__ = ["AllocationStats", "allocation_stats"]

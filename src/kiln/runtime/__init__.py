"""What compiled code runs on: memory (nrt.py), the CPython boundary (boxing.py, pyapi.py),
threads (threads.py) and stack guards (stack.py). `allocation_stats()` is public."""

__all__ = ["AllocationStats", "allocation_stats"]


def __getattr__(name):
    # from loaded.py when first asked for: a cached hit imports this package for its parts
    if name in __all__:
        from . import loaded
        return getattr(loaded, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""kiln: a just-in-time compiler for numeric Python and NumPy, with Numba's API.

    from kiln import njit

    @njit
    def sum_of_squares(x):
        s = 0.0
        for v in x:
            s += v * v
        return s
"""
from . import errors, types
from .decorators import jit, njit
from .parallel import prange
from .ufunc import vectorize
from .runtime.threads import get_num_threads, get_thread_id, set_num_threads, threading_layer
from .types import (b1, bool_, boolean, c8, c16, complex64, complex128, f2, f4, f8, float16,
                    float32, float64, i1, i2, i4, i8, int8, int16, int32, int64, intp, u1, u2,
                    u4, u8, uint8, uint16, uint32, uint64, uintp, void, none, typeof)

__version__ = "0.1.0"
__all__ = ["njit", "jit", "prange", "vectorize", "set_num_threads", "get_num_threads", "get_thread_id",
           "threading_layer", "errors", "types", "typeof", "b1", "bool_", "boolean", "c8", "c16",
           "complex64", "complex128", "f2", "f4", "f8", "float16", "float32", "float64", "i1",
           "i2", "i4", "i8", "int8", "int16", "int32", "int64", "intp", "u1", "u2", "u4", "u8",
           "uint8", "uint16", "uint32", "uint64", "uintp", "void", "none"]


def __getattr__(name):
    # kiln.cuda loads the CUDA stack only when first used.
    if name == "cuda":
        import importlib
        return importlib.import_module("kiln.cuda")
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")

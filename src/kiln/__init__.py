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
from .frontend.objmode import objmode
from .parallel import prange
from .types import (b1, bool_, boolean, c8, c16, complex64, complex128, f2, f4, f8, float16,
                    float32, float64, i1, i2, i4, i8, int8, int16, int32, int64, intp, u1, u2,
                    u4, u8, uint8, uint16, uint32, uint64, uintp, void, none, typeof,
                    deferred_type, optional)

__version__ = "0.1.0"
__all__ = ["njit", "jit", "objmode", "literally", "cfunc", "carray", "farray", "prange", "vectorize", "guvectorize", "set_num_threads",
           "get_num_threads", "get_thread_id", "threading_layer", "literal_unroll", "errors", "types", "typeof", "b1", "bool_", "boolean", "c8", "c16",
           "complex64", "complex128", "f2", "f4", "f8", "float16", "float32", "float64", "i1",
           "i2", "i4", "i8", "int8", "int16", "int32", "int64", "intp", "u1", "u2", "u4", "u8",
           "uint8", "uint16", "uint32", "uint64", "uintp", "void", "none", "deferred_type",
           "optional"]


_LAZY = {"cfunc": "kiln.ccallback", "literally": "kiln.library.literally", "carray": "kiln.library.foreign",
         "farray": "kiln.library.foreign", "vectorize": "kiln.ufunc", "guvectorize": "kiln.ufunc", "set_num_threads": "kiln.runtime.threads",
         "get_num_threads": "kiln.runtime.threads", "get_thread_id": "kiln.runtime.threads",
         "threading_layer": "kiln.runtime.threads", "literal_unroll": "kiln.typing.unroll"}


def __getattr__(name):
    # kiln.cuda, kiln.typed, kiln.runtime, kiln.config, kiln.experimental, the ufunc builder
    # and the thread layer load only when first used, so `import kiln` stays cheap.
    import importlib
    if name in ("cuda", "typed", "runtime", "config", "experimental"):
        return importlib.import_module(f"kiln.{name}")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")

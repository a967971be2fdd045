"""kiln: a just-in-time compiler for numeric Python and NumPy, with Numba's API.

    from kiln import njit

    @njit
    def sum_of_squares(x):
        s = 0.0
        for v in x:
            s += v * v
        return s
"""
from typing import NamedTuple

from . import errors, types
from .decorators import jit, njit
from .frontend.objmode import objmode
from .parallel import prange
from .types import (b1, bool_, boolean, c8, c16, complex64, complex128, f2, f4, f8, float16,
                    float32, float64, i1, i2, i4, i8, int8, int16, int32, int64, intp, u1, u2,
                    u4, u8, uint8, uint16, uint32, uint64, uintp, void, none, typeof,
                    deferred_type, optional, from_dtype)

from .version import __version__
__all__ = ["njit", "jit", "objmode", "literally", "cfunc", "carray", "farray", "prange", "vectorize", "guvectorize", "set_num_threads",
           "get_num_threads", "get_thread_id", "threading_layer", "literal_unroll", "jit_module", "set_parallel_chunksize",
           "get_parallel_chunksize", "parallel_chunksize", "errors", "types", "typeof", "b1", "bool_", "boolean", "c8", "c16",
           "complex64", "complex128", "f2", "f4", "f8", "float16", "float32", "float64", "i1",
           "i2", "i4", "i8", "int8", "int16", "int32", "int64", "intp", "u1", "u2", "u4", "u8",
           "uint8", "uint16", "uint32", "uint64", "uintp", "void", "none", "deferred_type",
           "optional", "from_dtype", "version_info"]


class _VersionInfo(NamedTuple):
    """`kiln.version_info`, compared as a tuple: `kiln.version_info >= (0, 1)`."""
    major: int
    minor: int
    patch: int
    string: str


version_info = _VersionInfo(*map(int, __version__.split(".")), __version__)

# Numba names kiln does not have, and what to use instead
_ABSENT = {
    "stencil": "write the neighbourhood loop (with prange in a parallel=True function, "
               "which kiln splits across the threads)",
    "generated_jit": "it was removed from Numba too (0.59): use kiln.extending.overload",
    "pndindex": "use prange over the outer axis and np.ndindex inside",
    "gdb": "kiln does not attach gdb; KILN_DUMP=typed,llvm,asm prints each stage",
    "gdb_init": "kiln does not attach gdb; KILN_DUMP=typed,llvm,asm prints each stage",
    "gdb_breakpoint": "kiln does not attach gdb; KILN_DUMP=typed,llvm,asm prints each stage",
}

# Numba's top level also has every name of numba.core.types' __all__ and of
# numba.core.errors' (`numba.double`, `numba.TypingError`): kiln's are kiln.types' and
# kiln.errors'.
_TYPE_NAMES = frozenset("""int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp uintp intc
    uintc ssize_t size_t boolean float32 float64 complex64 complex128 bool_ byte char uchar
    short ushort int_ uint long_ ulong longlong ulonglong double void none b1 i1 i2 i4 i8 u1
    u2 u4 u8 f4 f8 c8 c16 optional deferred_type bool""".split())


# As Numba's: `from kiln import *` gives the type and error names too (not `bool`,
# which would hide Python's)
__all__ += sorted(_TYPE_NAMES - {"bool"} - set(__all__)) + list(errors.NUMBA_NAMES)

_LAZY = {"cfunc": "kiln.ccallback", "literally": "kiln.library.literally", "carray": "kiln.library.foreign",
         "farray": "kiln.library.foreign", "jit_module": "kiln.decorators",
         "set_parallel_chunksize": "kiln.decorators", "get_parallel_chunksize": "kiln.decorators",
         "parallel_chunksize": "kiln.decorators", "vectorize": "kiln.ufunc", "guvectorize": "kiln.ufunc", "set_num_threads": "kiln.runtime.threads",
         "get_num_threads": "kiln.runtime.threads", "get_thread_id": "kiln.runtime.threads",
         "threading_layer": "kiln.runtime.threads", "literal_unroll": "kiln.typing.unroll"}


def __getattr__(name):
    # kiln.cuda, kiln.typed, kiln.runtime, kiln.config, kiln.experimental, the ufunc builder
    # and the thread layer load only when first used, so `import kiln` stays cheap.
    import importlib
    if name in ("cuda", "typed", "runtime", "config", "experimental", "np"):
        return importlib.import_module(f"kiln.{name}")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _TYPE_NAMES:
        return getattr(types, name)
    if name in errors.NUMBA_NAMES:
        return getattr(errors, name)
    if name in _ABSENT:
        raise AttributeError(f"kiln has no {name}: {_ABSENT[name]}")
    raise AttributeError(f"module 'kiln' has no attribute {name!r}")

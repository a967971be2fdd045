"""C functions that generated programs call: the very same objects in the CPython reference
run and in kiln's, so both call the same machine code. C library functions through ctypes
and, when cffi is installed, through cffi (`ffi.dlopen`)."""
import ctypes
import ctypes.util

_libm = ctypes.CDLL(ctypes.util.find_library("m"))


def _ctypes_function(name, nargs):
    fn = getattr(_libm, name)
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double] * nargs
    return fn


c_fma, c_fmax, c_nextafter = (_ctypes_function("fma", 3), _ctypes_function("fmax", 2),
                              _ctypes_function("nextafter", 2))
try:
    import cffi
except ImportError:
    cf_cbrt, cf_fmin, cf_remainder = (_ctypes_function("cbrt", 1), _ctypes_function("fmin", 2),
                                      _ctypes_function("remainder", 2))
else:
    _ffi = cffi.FFI()
    _ffi.cdef("double cbrt(double); double fmin(double, double); "
              "double remainder(double, double);")
    _lib = _ffi.dlopen(ctypes.util.find_library("m"))
    cf_cbrt, cf_fmin, cf_remainder = _lib.cbrt, _lib.fmin, _lib.remainder

ARITY = {"c_fma": 3, "c_fmax": 2, "c_nextafter": 2, "cf_cbrt": 1, "cf_fmin": 2,
         "cf_remainder": 2}
IMPORT = f"from tests.fuzz.cfuncs import {', '.join(ARITY)}\n"

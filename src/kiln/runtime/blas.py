"""The BLAS and LAPACK that compiled code calls, each routine under the symbol
`kiln_linalg_<provider>_<routine>` (library/linalg.py emits the calls; the JIT and cached
shared libraries bind the symbols to the addresses found here).

Two providers: "numpy", the OpenBLAS that NumPy's wheels bundle (numpy.libs/
libscipy_openblas64_*: NumPy's own np.dot runs it, so results match NumPy's, and binding it
imports nothing), built for 64-bit integers (ILP64, symbols `scipy_<routine>_64_`); and
"scipy", the function pointers of `scipy.linalg.cython_blas` / `cython_lapack`, which take
32-bit integers (LP64). NumPy's is used where found, SciPy's otherwise or with
KILN_BLAS=scipy. The provider is part of every symbol (so code made for one integer width
is never bound to the other) and of the cache key (`token`)."""
from __future__ import annotations

import functools
import os

from ..errors import TypingError
from ..options import env_value

SYMBOL_PREFIX = "kiln_linalg_"
_NUMPY_LIBRARY = "libscipy_openblas64_"     # the bundled library's name starts so
_NUMPY_CHECK = "scipy_dgemm_64_"            # an ILP64 Fortran routine it must export


class Provider:
    """One BLAS/LAPACK: its name, its integer width, where its routines are."""

    def __init__(self, name: str, int_bits: int, path: str | None = None):
        self.name, self.int_bits, self.path = name, int_bits, path
        self.prefix = f"{SYMBOL_PREFIX}{name}_"

    @property
    def token(self):
        """What the cache key holds: the provider and its library's file (its name carries
        a hash of its build)."""
        return (self.name, self.int_bits, self.path and os.path.basename(self.path))


@functools.cache
def provider() -> Provider:
    """The BLAS/LAPACK this process compiles calls to, chosen once (KILN_BLAS=scipy picks
    SciPy's): compiled callees are shared, so one process never mixes integer widths."""
    choice = (env_value("BLAS") or "").strip().lower()
    if choice not in ("", "numpy", "scipy"):
        raise TypingError(f"KILN_BLAS={choice!r}: the BLAS is 'numpy' (NumPy's bundled "
                          "OpenBLAS) or 'scipy' (SciPy's)")
    path = _numpy_library() if choice != "scipy" else None
    if path is not None:
        return Provider("numpy", 64, path)
    if choice == "numpy":
        raise TypingError("KILN_BLAS=numpy: this NumPy bundles no OpenBLAS kiln can call "
                          f"({_NUMPY_LIBRARY}* exporting {_NUMPY_CHECK}); unset KILN_BLAS "
                          "to use SciPy's")
    return Provider("scipy", 32)


@functools.cache
def _numpy_library():
    """The path of the ILP64 OpenBLAS NumPy's wheel bundles (numpy.libs on Linux and
    Windows, numpy/.dylibs on macOS), or None."""
    import numpy
    package = os.path.dirname(os.path.abspath(numpy.__file__))
    for folder in (os.path.join(os.path.dirname(package), "numpy.libs"),
                   os.path.join(package, ".dylibs")):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if name.startswith(_NUMPY_LIBRARY) and _exports(os.path.join(folder, name)):
                return os.path.join(folder, name)
    return None


@functools.cache
def _opened(path):
    import ctypes
    return ctypes.CDLL(path)   # NumPy has loaded it: this finds the loaded copy


def _exports(path) -> bool:
    try:
        return hasattr(_opened(path), _NUMPY_CHECK)
    except OSError:
        return False


def require() -> Provider:
    """The provider, checked to be usable at compile time: a TypingError saying what to
    install where there is none."""
    found = provider()
    if found.name == "scipy":
        _scipy_tables()
    return found


@functools.cache
def _scipy_tables() -> dict:
    """SciPy's routines by name (PyCapsules), or a TypingError saying what to install."""
    try:
        from scipy.linalg import cython_blas, cython_lapack
    except ImportError:
        raise TypingError("linear algebra in compiled code calls the BLAS and LAPACK that "
                          "NumPy's wheels bundle, which this NumPy lacks, or SciPy's: "
                          "install SciPy with `pip install scipy` (or "
                          "`pip install kiln[linalg]`)") from None
    return {**cython_blas.__pyx_capi__, **cython_lapack.__pyx_capi__}


def routine_address(symbol: str) -> int:
    """The address of the routine a `kiln_linalg_<provider>_<routine>` symbol stands for."""
    name, _, routine = symbol[len(SYMBOL_PREFIX):].partition("_")
    if name == "numpy":
        path = _numpy_library()
        if path is None:
            raise RuntimeError(f"kiln: {symbol} is NumPy's bundled OpenBLAS, which this "
                               "NumPy lacks")
        import ctypes
        function = getattr(_opened(path), f"scipy_{routine}_64_")
        return ctypes.cast(function, ctypes.c_void_p).value
    from .pyapi import capsule_pointer
    return capsule_pointer(_scipy_tables()[routine])

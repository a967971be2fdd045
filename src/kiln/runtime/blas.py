"""The BLAS and LAPACK routines compiled code calls: SciPy's (the function pointers of
`scipy.linalg.cython_blas` / `cython_lapack`), each under the symbol
`kiln_linalg_<routine>` (library/linalg.py emits the calls; the JIT and cached shared
libraries bind the symbols to the addresses found here)."""
from __future__ import annotations

import functools

from ..errors import TypingError
from .pyapi import capsule_pointer

SYMBOL_PREFIX = "kiln_linalg_"


@functools.cache
def scipy_tables() -> dict:
    """SciPy's routines by name (PyCapsules), or a TypingError saying what to install."""
    try:
        from scipy.linalg import cython_blas, cython_lapack
    except ImportError:
        raise TypingError("linear algebra in compiled code calls the BLAS and LAPACK that "
                          "SciPy ships: install it with `pip install scipy` (or "
                          "`pip install kiln[linalg]`)") from None
    return {**cython_blas.__pyx_capi__, **cython_lapack.__pyx_capi__}


def routine_address(symbol: str) -> int:
    """The address of the routine a `kiln_linalg_<routine>` symbol stands for."""
    return capsule_pointer(scipy_tables()[symbol[len(SYMBOL_PREFIX):]])

"""Scalar type names in the cuda namespace (`cuda.float32`...) and dtype normalization.

Numba's `numba.cuda` has no `float32`, so `cuda.shared.array(..., dtype=cuda.float32)`
fails there; kiln exports kiln.types' scalar types here and accepts kiln types, NumPy
dtypes and NumPy scalar types interchangeably wherever a dtype is expected.
"""
from __future__ import annotations

import numpy as np

from kiln.types import (b1, bool_, boolean, byte, c8, c16, complex64, complex128, f2, f4, f8,
                        float16, float32, float64, i1, i2, i4, i8, int8, int16, int32, int64,
                        intp, u1, u2, u4, u8, uint8, uint16, uint32, uint64, uintp, void, none)

__all__ = ["as_numpy_dtype", "b1", "bool_", "boolean", "byte", "c8", "c16", "complex64",
           "complex128", "f2", "f4", "f8", "float16", "float32", "float64", "i1", "i2", "i4",
           "i8", "int8", "int16", "int32", "int64", "intp", "u1", "u2", "u4", "u8", "uint8",
           "uint16", "uint32", "uint64", "uintp", "void", "none"]


def as_numpy_dtype(dtype) -> np.dtype:
    """The NumPy dtype for a kiln scalar type, a NumPy dtype or scalar type, or a dtype string."""
    np_dtype = getattr(dtype, "np_dtype", None)
    if np_dtype is not None:
        return np_dtype
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{dtype!r} is not a dtype: use a kiln type (cuda.float32), a NumPy "
                        "dtype or a NumPy scalar type (np.float32)") from None

"""Numba's `numba.np.numpy_support` names: kiln types to NumPy dtypes and back."""
import numpy as np

from ..errors import NumbaNotImplementedError
from ..types import as_dtype, from_dtype as _from_dtype  # noqa: F401 - re-exported

__all__ = ["as_dtype", "from_dtype", "from_struct_dtype"]


class UnsupportedDtype(NumbaNotImplementedError, TypeError):
    """A dtype kiln has no type for: Numba's NumbaNotImplementedError, so code written for
    Numba can skip it, and the TypeError kiln's own conversions raise."""


def from_dtype(dtype):
    """The kiln type of a NumPy dtype (UnsupportedDtype for float128, say)."""
    dtype = np.dtype(dtype)
    try:
        return _from_dtype(dtype)
    except TypeError as e:
        raise UnsupportedDtype(str(e)) from None


def from_struct_dtype(dtype):
    """The Record of a NumPy structured dtype (Numba's name for from_dtype of one)."""
    dtype = np.dtype(dtype)
    if dtype.names is None:
        raise TypeError(f"{dtype} is not a structured dtype")
    return from_dtype(dtype)

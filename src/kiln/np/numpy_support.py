"""Numba's `numba.np.numpy_support` names: kiln types to NumPy dtypes and back."""
from ..types import as_dtype, from_dtype  # noqa: F401 - re-exported

__all__ = ["as_dtype", "from_dtype"]

"""Numba's `numba.core.typing` spellings (`cffi_utils`)."""

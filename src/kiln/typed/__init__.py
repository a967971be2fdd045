"""Numba's `typed` containers: `kiln.typed.List`, a list of one item type that lives in
kiln's runtime, shared without copying between Python and compiled code."""
from .typedlist import List  # noqa: F401

__all__ = ["List"]

"""Numba's `typed` containers: `kiln.typed.List` and `kiln.typed.Dict`, containers of one
item type (key and value types) that live in kiln's runtime, shared without copying between
Python and compiled code."""
from .typeddict import Dict  # noqa: F401
from .typedlist import List  # noqa: F401

__all__ = ["Dict", "List"]

"""Numba's `numba.core` spellings, so `from kiln.core import types` and
`from kiln.core.errors import TypingError` work as they do with Numba."""
import sys

from .. import errors, types

sys.modules[__name__ + ".types"] = types
sys.modules[__name__ + ".errors"] = errors

__all__ = ["errors", "types"]

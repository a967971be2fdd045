"""Numba's `typed` containers: `kiln.typed.List` and `kiln.typed.Dict`, containers of one
item type (key and value types) that live in kiln's runtime, shared without copying between
Python and compiled code."""
from .typeddict import Dict  # noqa: F401
from .typedlist import List  # noqa: F401

__all__ = ["Dict", "List"]

_ABSENT = {
    "Set": "kiln has no typed set container to share between Python and compiled code; "
           "make the set in compiled code with set(items) (its type is types.Set)",
}


def __getattr__(name):
    if name in _ABSENT:
        raise AttributeError(f"kiln.typed has no {name}: {_ABSENT[name]}")
    raise AttributeError(f"module 'kiln.typed' has no attribute {name!r}")

"""`kiln.experimental`: Numba's experimental API for mutable compiled objects.

`jitclass` makes a Python class's instances live in compiled code (classes.py);
`structref` defines struct types and their Python proxies by hand (structref.py). Both
are mutable structs of typed fields shared between Python and compiled code
(types/classes.py, library/structs.py, proxies.py)."""
from . import structref
from .classes import jitclass

__all__ = ["jitclass", "structref"]

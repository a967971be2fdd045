"""NumPy ufuncs compiled by kiln: `@vectorize` (vectorize.py) over inner loops generated
around a compiled scalar kernel (loops.py)."""
from .vectorize import DUFunc, vectorize

__all__ = ["vectorize", "DUFunc"]

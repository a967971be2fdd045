"""NumPy ufuncs compiled by kiln: `@vectorize` (vectorize.py) and `@guvectorize`
(gufunc.py), over inner loops generated around a compiled kernel (loops.py)."""
from .gufunc import GUFunc, guvectorize
from .vectorize import DUFunc, vectorize

__all__ = ["vectorize", "guvectorize", "DUFunc", "GUFunc"]

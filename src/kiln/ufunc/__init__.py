"""NumPy ufuncs compiled by kiln: `@vectorize` (vectorize.py) and `@guvectorize`
(gufunc.py), over inner loops generated around a compiled kernel (loops.py); Numba's
builder classes `Vectorize` and `GUVectorize` (numba.np.ufunc's) make the same objects."""
from .gufunc import GUFunc, GUVectorize, guvectorize
from .loops import PyUFunc_None, PyUFunc_One, PyUFunc_ReorderableNone, PyUFunc_Zero
from .vectorize import DUFunc, Vectorize, vectorize

__all__ = ["vectorize", "guvectorize", "Vectorize", "GUVectorize", "DUFunc", "GUFunc",
           "PyUFunc_None", "PyUFunc_One", "PyUFunc_ReorderableNone", "PyUFunc_Zero"]

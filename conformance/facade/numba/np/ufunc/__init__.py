"""`numba.np.ufunc`: the ufunc builders (Vectorize, GUVectorize), their decorators, the
identity codes (PyUFunc_One, ...) and the thread layer's functions, which are kiln's; its
submodules are Numba's internals."""
from kiln.ufunc import (GUVectorize, PyUFunc_None, PyUFunc_One,  # noqa: F401
                        PyUFunc_ReorderableNone, PyUFunc_Zero, Vectorize, guvectorize,
                        vectorize)
from kiln.runtime.threads import (get_num_threads, get_thread_id,  # noqa: F401
                                  set_num_threads, threading_layer)
from kiln.decorators import get_parallel_chunksize, set_parallel_chunksize  # noqa: F401

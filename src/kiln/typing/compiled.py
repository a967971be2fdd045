"""Which Python functions have a dispatcher: a call to one in compiled code is a call of
compiled code. Apart from the typing context, so that making a dispatcher (at import of
the user's module) loads no typing machinery."""
from __future__ import annotations

import types
import weakref

compiled_functions = weakref.WeakKeyDictionary()  # Python function -> its dispatcher


def register_compiled_function(pyfunc, dispatcher):
    """Called by each target's dispatcher as it is made; returns the function the
    dispatcher types: `pyfunc`, or for a second dispatcher of it a copy (same code, same
    live globals), typed anew, so its globals are read when it compiles, as in Numba
    (`njit(f)` after a global of f changed sees the new value, and the first dispatcher
    keeps what it compiled)."""
    if pyfunc in compiled_functions and isinstance(pyfunc, types.FunctionType):
        pyfunc = types.FunctionType(pyfunc.__code__, pyfunc.__globals__, pyfunc.__name__,
                                    pyfunc.__defaults__, pyfunc.__closure__)
        pyfunc.__kwdefaults__ = dispatcher.py_func.__kwdefaults__
        pyfunc.__qualname__ = dispatcher.py_func.__qualname__
        pyfunc.__module__ = dispatcher.py_func.__module__
    compiled_functions[pyfunc] = dispatcher
    return pyfunc

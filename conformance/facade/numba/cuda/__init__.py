"""`numba.cuda`: kiln.cuda's names (every attribute is kiln.cuda's). A package of its own
rather than kiln.cuda itself, so that `from numba.cuda import config` and numba-cuda's
other module names reach the facade's finder (conformance/facade/numba/__init__.py).
numba-cuda also exports Numba's type names (`from numba.cuda import double`): those
kiln.cuda lacks are kiln.types'."""
import kiln.cuda as _kiln_cuda
import kiln.types as _kiln_types
from kiln.cuda import *  # noqa: F401,F403


def __getattr__(name):
    try:
        return getattr(_kiln_cuda, name)
    except AttributeError:
        if name in _kiln_types.__all__:
            return getattr(_kiln_types, name)
        raise

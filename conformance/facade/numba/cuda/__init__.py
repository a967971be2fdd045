"""`numba.cuda`: kiln.cuda's names (every attribute is kiln.cuda's). A package of its own
rather than kiln.cuda itself, so that `from numba.cuda import config` and numba-cuda's
other module names reach the facade's finder (conformance/facade/numba/__init__.py)."""
import kiln.cuda as _kiln_cuda
from kiln.cuda import *  # noqa: F401,F403


def __getattr__(name):
    return getattr(_kiln_cuda, name)

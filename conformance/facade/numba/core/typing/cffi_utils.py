"""`numba.core.typing.cffi_utils`: kiln's register_module, and whether cffi is there."""
from kiln.core.typing.cffi_utils import *  # noqa: F401,F403
from kiln.core.typing.cffi_utils import register_module  # noqa: F401

try:
    import cffi  # noqa: F401
    SUPPORTED = True
except ImportError:
    SUPPORTED = False

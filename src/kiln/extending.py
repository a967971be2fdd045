"""kiln's extension API, with Numba's names: teach compiled code new functions, methods
and attributes. kiln's own library is written with exactly these decorators."""
from .typing.registry import (intrinsic, overload, overload_attribute, overload_method,
                               register_jitable)
from .library.foreign import get_cython_function_address
from .library.literally import SentryLiteralArgs, sentry_literal_args
from . import types

__all__ = ["intrinsic", "overload", "overload_attribute", "overload_method",
           "register_jitable", "types", "get_cython_function_address", "SentryLiteralArgs",
           "sentry_literal_args"]

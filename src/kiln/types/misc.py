"""Numba's `types.misc` (`numba.core.types.misc`): the types of that module of Numba's
that kiln has, under the same names, for code that spells them `types.misc.SliceLiteral`."""
from .classes import ClassInstanceType, ClassType, DeferredType  # noqa: F401
from .containers import Optional, RangeType, SliceLiteral, SliceType, UnicodeType  # noqa: F401
from .core import EllipsisType, ExceptionClass, Module, NoneType, Opaque  # noqa: F401
from .functions import CPointer, RawPointer, VoidPointer  # noqa: F401

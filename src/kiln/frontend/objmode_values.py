"""An objmode block's values as they cross to and from Python: which types can
(`boxable`, `unboxable`), and each output of a block checked against its declared type and
converted to the Python object compiled code unboxes (`coerce_output`, in Python, so a
mismatch is a TypeError or ValueError naming the variable). kiln.typed's List and Dict
convert outputs of their types (`container_output`; typed/ is imported by
`library.load()` before any block is compiled)."""
from __future__ import annotations

import numbers
import operator

import numpy as np

from .. import types as t
from ..errors import TypingError

_CONTAINERS = {}   # ListType, DictType -> coerce(ty, value, fail, coerce_output)


def container_output(family):
    """Register the decorated `coerce(ty, value, fail, coerce_output)`: an output of a
    `family` type as a kiln.typed container (typed/typedlist.py, typeddict.py)."""
    def register(coerce):
        _CONTAINERS[family] = coerce
        return coerce
    return register


def boxable(ty):
    """Whether a value of `ty` can be passed to Python (a block's input)."""
    if isinstance(ty, t.Optional):
        return boxable(ty.type)
    if isinstance(ty, t.BaseTuple):
        return all(map(boxable, ty.types))
    return isinstance(ty, (t.Boolean, t.Number, t.NoneType, t.Array, t.ListType, t.DictType,
                           t.SetType, t.UnicodeType))


def unboxable(ty):
    """Whether a Python value can come back as `ty` (a block's output)."""
    if isinstance(ty, t.BaseTuple):
        return all(map(unboxable, ty.types))
    return isinstance(ty, (t.Boolean, t.Integer, t.Float, t.Complex, t.NoneType, t.Array,
                           t.ListType, t.DictType, t.UnicodeType))


def check_output_type(name, ty, loc):
    """Refuse, when the block is outlined, an output type that Python values cannot be
    unboxed to."""
    if not unboxable(ty):
        raise TypingError(f"kiln.objmode(): output {name!r} has type {ty}, which kiln cannot "
                          "unbox from Python (numbers, booleans, None, strings, arrays, "
                          "tuples, typed lists and dicts can)", loc)


def coerce_output(name, ty, value):
    """`value`, an output of a block, as the Python object compiled code unboxes for `ty`:
    a TypeError (wrong kind) or ValueError (out of range) naming the variable otherwise."""
    def fail(why, error=TypeError):
        raise error(f"objmode output {name!r} is declared {ty}, but the block set it to "
                    f"{value!r:.80} ({why})")
    if isinstance(ty, t.Boolean):
        if not isinstance(value, (bool, np.bool_)):
            fail(f"a {type(value).__name__}, not a bool")
        return bool(value)
    if isinstance(ty, t.Integer):
        try:
            number = operator.index(value)
        except TypeError:
            fail(f"a {type(value).__name__}, not an integer")
        info = np.iinfo(ty.np_dtype)
        if not info.min <= number <= info.max:
            fail("out of range", ValueError)
        return ty.np_dtype.type(number)
    if isinstance(ty, (t.Float, t.Complex)):
        kind = numbers.Real if isinstance(ty, t.Float) else numbers.Complex
        if not isinstance(value, kind):
            fail(f"a {type(value).__name__}, not a {'real ' * (kind is numbers.Real)}number")
        return ty.np_dtype.type(value)
    if isinstance(ty, t.NoneType):
        if value is not None:
            fail("not None")
        return None
    if isinstance(ty, t.BaseTuple):
        if not isinstance(value, tuple) or len(value) != len(ty):
            fail(f"not a tuple of {len(ty)} items")
        return tuple(coerce_output(f"{name}[{i}]", item_ty, item)
                     for i, (item_ty, item) in enumerate(zip(ty.types, value)))
    if isinstance(ty, t.Array):
        return _coerce_array(ty, value, fail)
    if isinstance(ty, t.UnicodeType):
        if not isinstance(value, str):
            fail(f"a {type(value).__name__}, not a str")
        return str(value)     # (a str subclass as the plain str compiled code unboxes)
    for family, coerce in _CONTAINERS.items():
        if isinstance(ty, family):
            return coerce(ty, value, fail, coerce_output)
    fail("not a type an objmode output can have")


def _coerce_array(ty, value, fail):
    if not isinstance(value, np.ndarray):
        fail(f"a {type(value).__name__}, not a NumPy array")
    if value.ndim != ty.ndim:
        fail(f"{value.ndim} dimensions, not {ty.ndim}")
    if value.dtype != ty.dtype.np_dtype or not value.dtype.isnative:
        fail(f"dtype {value.dtype}")
    flags = value.flags
    if ty.layout == "C" and not flags.c_contiguous or \
            ty.layout == "F" and not flags.f_contiguous:
        fail("not contiguous in that order; declare the layout 'A' (x[:]) or copy it")
    if not ty.readonly and not flags.writeable:
        fail("read-only")
    return value


class ObjModeBlockType(t.Opaque):
    """The outlined block a call runs (a frozen global of the rewritten function)."""

    runs_python = True   # it may change anything Python reaches (codegen/borrowing.py)

    def __init__(self, block):
        self.block = block
        self.name = f"ObjModeBlock({block.where})"

    @property
    def key(self):
        return (id(self.block),)

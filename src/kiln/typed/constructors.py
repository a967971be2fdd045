"""The typed containers' constructors of an empty container in compiled code
(`List.empty_list(item_type)`, `Dict.empty(key_type, value_type)`): the classmethod read
off the class as a function value, its overload, and the types it takes as arguments."""
from __future__ import annotations

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import overload, template


def empty_constructor(cls, name):
    """Register the decorated function as the overload of the classmethod `cls.name` in
    compiled code, where `cls.name` reads as that function."""
    function = t.Function(getattr(cls, name))

    @template(("attr", name))
    def attribute(tctx, owner):
        if not (isinstance(owner, t.Function) and owner.pyfunc is cls):
            return None
        return function(owner), lambda context, b, sig, args: dm.null_value(function)
    return overload(getattr(cls, name))


def type_argument(ty, expected):
    """The kiln type that the type argument `ty` (kiln.float64, a kiln type) names; else
    the error `expected` says which argument it is and what it takes."""
    if isinstance(ty, t.NumberClass):
        return ty.instance_type
    if isinstance(ty, t.Function) and isinstance(ty.pyfunc, t.Type):
        return ty.pyfunc
    raise TypingError(f"{expected}, not {ty}")

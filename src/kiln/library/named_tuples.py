"""Named tuples in compiled code (`collections.namedtuple`, `typing.NamedTuple`): `p.x`
reads a field, `Point(x, y)` makes one (positional arguments, the class's defaults for the
rest), and an instance goes back to Python as an instance of its class
(runtime/boxing.py). Indexing, unpacking, iteration and comparison are the tuple's."""
from __future__ import annotations

from .. import types as t
from ..errors import TypingError
from ..types.named_tuples import on_new_named_tuple_class
from ..types.typeof import typeof
from ..typing.unify import held
from .registry import Resolution, Template, registry, template

_NAMED = (t.NamedTuple, t.NamedUniTuple)


class _Field(Template):
    """`p.name` of a named tuple that has the field `name`: its item, borrowed."""

    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        if len(args) != 1 or kws or not isinstance(args[0], _NAMED) or \
                self.name not in args[0].fields:
            return None
        index = args[0].fields.index(self.name)
        return Resolution(args[0].types[index](args[0]),
                          lambda context, builder, sig, llargs:
                          builder.extract_value(llargs[0], index))


_registered = set()


def _register_fields(cls):
    for name in cls._fields:
        if name not in _registered:
            _registered.add(name)
            registry.register(("attr", name), _Field(name))


on_new_named_tuple_class(_register_fields)


@template("call")
def _make(tctx, cls_ty, *args):
    """`Point(x, y)`: the fields from the arguments in order, then the class's defaults."""
    if not isinstance(cls_ty, t.NamedTupleClass):
        return None
    cls = cls_ty.cls
    fields, defaults = cls._fields, getattr(cls, "_field_defaults", {})
    missing = [f for f in fields[len(args):] if f not in defaults]
    if len(args) > len(fields) or missing:
        raise TypingError(f"{cls.__name__}() takes the fields {', '.join(fields)} (by "
                          f"position in compiled code); {len(args)} given"
                          + (f", {', '.join(missing)} missing" if missing else ""))
    given = [held(t.unliteral(a)) for a in args]
    filled = [(defaults[f], typeof(defaults[f])) for f in fields[len(args):]]
    result = t.named_tuple_of(given + [ty for _, ty in filled], cls)

    def codegen(context, builder, sig, llargs):
        items = [context.cast(builder, v, a, ty)
                 for v, a, ty in zip(llargs[1:], args, given)]
        items += [context.get_constant(builder, ty, value) for value, ty in filled]
        return context.make_tuple(builder, result, items)
    return result(cls_ty, *args), codegen

"""Named tuples in compiled code (`collections.namedtuple`, `typing.NamedTuple`): `p.x`
reads a field, `Point(x, y)` makes one (positional arguments, the class's defaults for the
rest), and an instance goes back to Python as an instance of its class
(runtime/boxing.py). Indexing, unpacking, iteration and comparison are the tuple's."""
from __future__ import annotations

import operator

from .. import types as t
from ..errors import TypingError
from ..types.named_tuples import on_new_named_tuple_class
from ..types.typeof import typeof
from ..typing.unify import held
from ..typing.registry import Resolution, Template, registry, template

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


class _MakeByName(Template):
    """`Point(1, y=2)`, `Point(y=2, x=1)`: keyword arguments name the fields; together
    with the positional ones they must cover the fields up to the last one named (the
    class's defaults give the rest), as in Python."""

    def resolve(self, tctx, args, kws):
        if not kws or not args or not isinstance(args[0], t.NamedTupleClass):
            return None
        cls_ty, positional = args[0], list(args[1:])
        fields = cls_ty.cls._fields
        unknown = [k for k in kws if k not in fields or fields.index(k) < len(positional)]
        if unknown:
            raise TypingError(f"{cls_ty.cls.__name__}() got an unexpected or repeated "
                              f"field {unknown[0]!r} (its fields: {', '.join(fields)})")
        named = fields[len(positional):max(fields.index(k) for k in kws) + 1]
        if any(f not in kws for f in named):
            gap = next(f for f in named if f not in kws)
            raise TypingError(f"{cls_ty.cls.__name__}(): give field {gap!r} too (kiln "
                              "fills only the fields after the last one given from the "
                              "defaults)")
        kw_order = tuple(kws)
        sig, make = _make(tctx, cls_ty, *positional, *[kws[f] for f in named])

        def codegen(context, builder, sig_, llargs):
            given = dict(zip(kw_order, llargs[len(args):]))
            return make(context, builder, sig,
                        list(llargs[:len(args)]) + [given[f] for f in named])
        signature = sig.return_type(cls_ty, *positional, *[kws[k] for k in kw_order])
        return Resolution(signature, codegen, kw_order)


registry.register("call", _MakeByName())


@template(type)
def _type_of(tctx, value):
    """type(p) of a named tuple: its class."""
    if not isinstance(value, _NAMED):
        return None
    rt = t.NamedTupleClass(value.cls)
    return rt(value), lambda context, builder, sig, args: context.get_constant(builder, rt, None)


def _same_class(negate):
    def typer(tctx, a, b):
        if not (isinstance(a, t.NamedTupleClass) and isinstance(b, t.NamedTupleClass)):
            return None
        same = (a.cls is b.cls) != negate
        return t.boolean(a, b), lambda context, builder, sig, args: \
            context.get_constant(builder, t.boolean, same)
    return typer


for _op, _negate in ((operator.is_, False), (operator.is_not, True), (operator.eq, False),
                     (operator.ne, True)):
    template(_op)(_same_class(_negate))

"""CUDA's vector types compiled (cuda/vectors.py gives their meaning): a vector is a struct
of its components (`fields`, which the data model lays out), built by calling its type
with scalars and vectors and read through `.x .y .z .w`."""
from __future__ import annotations

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import Resolution, Template, registry
from .vectors import _FIELDS, KINDS


class VectorType(t.Type):
    """The kiln type of `kind`'s vectors."""

    def __init__(self, kind):
        self.kind = kind
        self.fields = (t.from_dtype(kind.base),) * kind.count
        self.name = kind.__name__

    @property
    def key(self):
        return (self.kind.__name__,)


def _components(ty):
    return ty.kind.count if isinstance(ty, VectorType) else 1


class _Construct(Template):
    """`float32x4(a, v2, b)`: the components of the arguments in order, each converted to
    the vector's scalar type."""

    targets = frozenset({"cuda"})

    def __init__(self, kind):
        self.kind = kind

    def resolve(self, tctx, args, kws):
        args = tuple(t.unliteral(a) for a in args)
        if kws or not all(isinstance(a, (VectorType, t.Integer, t.Float, t.Boolean))
                          for a in args):
            return None
        given = sum(map(_components, args))
        if given != self.kind.count:
            raise TypingError(f"{self.kind.__name__}() needs {self.kind.count} components, "
                              f"not {given} (from {len(args)} arguments)")
        result = VectorType(self.kind)
        scalar = result.fields[0]

        def lower(context, builder, sig, llargs):
            value = dm.null_value(result)
            position = 0
            for ty, arg in zip(args, llargs):
                parts = [(builder.extract_value(arg, i), ty.fields[i])
                         for i in range(ty.kind.count)] if isinstance(ty, VectorType) \
                    else [(arg, ty)]
                for part, part_ty in parts:
                    value = builder.insert_value(
                        value, context.cast(builder, part, part_ty, scalar), position)
                    position += 1
            return value
        return Resolution(t.Signature(result, args), lower)


class _Field(Template):
    """`v.x` ... `v.w`: a component (a vector has as many of `xyzw` as components)."""

    targets = frozenset({"cuda"})

    def __init__(self, index):
        self.index = index

    def resolve(self, tctx, args, kws):
        if len(args) != 1 or not isinstance(args[0], VectorType) or \
                self.index >= args[0].kind.count:
            return None
        index = self.index
        return Resolution(t.Signature(args[0].fields[index], args),
                          lambda context, builder, sig, llargs:
                          builder.extract_value(llargs[0], index))


for _kind in KINDS.values():
    registry.register(_kind, _Construct(_kind))
for _index, _name in enumerate(_FIELDS):
    registry.register(("attr", _name), _Field(_index))

"""What compiled code does with a generator besides `for` (library/iteration.py):
`next(g)` and `next(g, default)`; and `iter(x)`, a generator over x."""
from __future__ import annotations

from .. import types as t
from ..codegen import generators as gen
from ..typing.unify import unify
from ..typing.registry import overload, register_jitable, template


@template(next)
def _next(tctx, generator, default=None):
    if not isinstance(generator, t.GeneratorType):
        return None
    item_ty = generator.yield_type
    if default is not None:
        item_ty = unify(item_ty, default)
        if item_ty is None:
            return None

    def codegen(context, builder, sig, args):
        got = gen.resume(context, builder, args[0], generator.yield_type)
        if default is None:
            with builder.if_then(builder.not_(got), likely=False):
                context.raise_error(builder, StopIteration, None)
            return gen.item(builder, args[0], generator.yield_type)
        with builder.if_else(got) as (then, otherwise):
            with then:
                value = context.cast(builder, gen.item(builder, args[0], generator.yield_type),
                                     generator.yield_type, item_ty)
                from_item = builder.block
            with otherwise:
                fallback = context.cast(builder, args[1], default, item_ty)
                from_default = builder.block
        phi = builder.phi(value.type)
        phi.add_incoming(value, from_item)
        phi.add_incoming(fallback, from_default)
        return phi
    sig = item_ty(generator) if default is None else item_ty(generator, default)
    return sig, codegen


@register_jitable
def _each(iterable):
    for item in iterable:
        yield item


@overload(iter)
def _iter(iterable):
    """`iter(x)`: a generator over x's items (one with the state Python's iterator keeps:
    `next` and `for` share it); a generator is its own iterator."""
    if isinstance(iterable, t.GeneratorType):
        return lambda iterable: iterable
    from .iteration import item_type_of
    if item_type_of(iterable) is None:
        return None
    return lambda iterable: _each(iterable)

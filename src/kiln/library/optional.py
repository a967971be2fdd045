"""Optional values (`T or None`): testing them against None (`is`, `==`) and for truth. Everything
else unwraps them with a run-time check (see CodegenContext.cast)."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .registry import template


def _identity(negate, scalars=False):
    """`opt is None` (and, with `scalars`, `opt == None`, where a number or bool compared
    with None is simply unequal, as in Python)."""
    def typer(tctx, a, b):
        other, none = (a, b) if isinstance(b, t.NoneType) else (b, a)
        if not isinstance(none, t.NoneType):
            return None
        if isinstance(other, t.Optional):
            def codegen(context, builder, sig, args):
                present = builder.extract_value(args[0] if other is a else args[1], 1)
                return present if negate else builder.not_(present)
        elif isinstance(other, t.NoneType) or (scalars and isinstance(other, (t.Number, t.Boolean))):
            equal = isinstance(other, t.NoneType)
            def codegen(context, builder, sig, args):
                return ir.Constant(dm.i1, int(equal != negate))
        else:
            return None
        return t.boolean(a, b), codegen
    return typer


template(operator.is_)(_identity(negate=False))
template(operator.is_not)(_identity(negate=True))
template(operator.eq)(_identity(negate=False, scalars=True))
template(operator.ne)(_identity(negate=True, scalars=True))


@template(operator.truth)
def _truth(tctx, opt):
    if not isinstance(opt, t.Optional):
        return None
    inner = tctx.resolve(operator.truth, (opt.type,))
    if inner is None:
        return None

    def codegen(context, builder, sig, args):
        result = context.alloca(builder, dm.i1)
        builder.store(ir.Constant(dm.i1, 0), result)
        with builder.if_then(builder.extract_value(args[0], 1)):
            value = context.cast(builder, builder.extract_value(args[0], 0), opt.type,
                                 inner.signature.args[0])
            builder.store(inner.lower(context, builder, inner.signature, [value]), result)
        return builder.load(result, typ=dm.i1)
    return t.boolean(opt), codegen

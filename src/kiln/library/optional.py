"""Optional values (`T or None`): testing them against None and for truth. Everything
else unwraps them with a run-time check (see CodegenContext.cast)."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from .registry import template


def _identity(negate):
    def typer(tctx, a, b):
        optional = a if isinstance(a, t.Optional) else b
        other = b if optional is a else a
        if not isinstance(optional, t.Optional) or not isinstance(other, t.NoneType):
            return None

        def codegen(context, builder, sig, args):
            present = builder.extract_value(args[0] if optional is a else args[1], 1)
            return present if negate else builder.not_(present)
        return t.boolean(a, b), codegen
    return typer


template(operator.is_)(_identity(negate=False))
template(operator.is_not)(_identity(negate=True))


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

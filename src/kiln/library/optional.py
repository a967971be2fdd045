"""Optional values (`T or None`): testing them against None (`is`, `==`) and for truth, and
reading an attribute of the value (AttributeError when it is None, as in Python). Everything
else unwraps them with a run-time check (see CodegenContext.cast). Also `is` between two
numbers or booleans, which compiled code holds as values, not objects: Numba's rule, their
equality."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing import families
from ..typing.registry import Resolution, template


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
            answer = isinstance(other, t.NoneType) != negate
            def codegen(context, builder, sig, args):
                return ir.Constant(dm.i1, int(answer))
            # known when compiling: a literal, as Numba types it (an overload that
            # prefers literals sees the answer)
            return t.BooleanLiteral(answer)(a, b), codegen
        else:
            return None
        return t.boolean(a, b), codegen
    return typer


template(operator.is_)(_identity(negate=False))
template(operator.is_not)(_identity(negate=True))


def _value_identity(negate):
    """`a is b` of two numbers (or booleans): compiled code has no objects for them, so
    identity is equality, as in Numba (CPython's answer for small ints and bools, and for
    one object compared with itself). Numbers of different kinds are never the same
    object: an int is not a float, whatever their values."""
    def typer(tctx, a, b):
        scalar = (t.Number, t.Boolean)
        if not (isinstance(a, scalar) and isinstance(b, scalar)):
            return None
        kinds = [next(k for k in (t.Boolean, t.Integer, t.Float, t.Complex) if isinstance(x, k))
                 for x in (a, b)]
        if kinds[0] is not kinds[1]:
            def codegen(context, builder, sig, args):
                return ir.Constant(dm.i1, int(negate))
            return t.boolean(a, b), codegen
        equal = tctx.resolve(operator.ne if negate else operator.eq, (a, b))
        if equal is None:
            return None

        def codegen(context, builder, sig, args):
            values = [context.cast(builder, v, ty, st)
                      for v, ty, st in zip(args, (a, b), equal.signature.args)]
            result = equal.lower(context, builder, equal.signature, values)
            return context.cast(builder, result, equal.signature.return_type, t.boolean)
        return t.boolean(a, b), codegen
    return typer


template(operator.is_)(_value_identity(negate=False))
template(operator.is_not)(_value_identity(negate=True))
template(operator.eq)(_identity(negate=False, scalars=True))
template(operator.ne)(_identity(negate=True, scalars=True))


def _equality(negate):
    """`opt == x` where either side (or both) may be None: as Python, two Nones are equal,
    None and a value unequal (unwrapping would raise TypeError), else the values' own
    comparison (numbers, strings...)."""
    op = operator.ne if negate else operator.eq

    def typer(tctx, a, b):
        if not (isinstance(a, t.Optional) or isinstance(b, t.Optional)) or \
                isinstance(a, t.NoneType) or isinstance(b, t.NoneType):
            return None
        operands = tuple(x.type if isinstance(x, t.Optional) else x for x in (a, b))
        inner = tctx.resolve(op, operands)
        if inner is None:
            return None

        def codegen(context, builder, sig, args):
            present = [builder.extract_value(v, 1) if isinstance(ty, t.Optional)
                       else ir.Constant(dm.i1, 1) for v, ty in zip(args, (a, b))]
            result = context.alloca(builder, dm.i1)   # unless both hold values: both None
            both_none = builder.icmp_unsigned("==", present[0], present[1])
            builder.store(builder.not_(both_none) if negate else both_none, result)
            with builder.if_then(builder.and_(present[0], present[1])):
                values = [builder.extract_value(v, 0) if isinstance(ty, t.Optional) else v
                          for v, ty in zip(args, (a, b))]
                values = [context.cast(builder, v, ty, st)
                          for v, ty, st in zip(values, operands, inner.signature.args)]
                equal = inner.lower(context, builder, inner.signature, values)
                builder.store(context.cast(builder, equal, inner.signature.return_type,
                                           t.boolean), result)
            return builder.load(result, typ=dm.i1)
        return t.boolean(a, b), codegen
    return typer


template(operator.eq)(_equality(negate=False))
template(operator.ne)(_equality(negate=True))


@template(operator.truth)
@template(bool)
def _truth(tctx, *args):
    """`not opt`, `if opt:` and `bool(opt)`: False when None, else the value's truth."""
    if len(args) != 1 or not isinstance(args[0], t.Optional):
        return None
    (opt,) = args
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


@families.answers("known_identity")
def known_identity(value, a, b) -> Resolution:
    """`a is b` whose answer the types give (None against anything but an Optional), for
    operands that must still be evaluated (`f() is None` calls f)."""
    return Resolution(t.Signature(t.boolean, (a, b)),
                      lambda context, builder, sig, args: ir.Constant(dm.i1, int(value)))


@families.answers("optional_attribute")
def optional_attribute(opt, name, inner):
    """`opt.name` of an Optional: the attribute of its value (`inner` resolves it), or
    Python's AttributeError when it is None."""
    if inner is None:
        return None

    def lower(context, builder, sig, args):
        present = builder.extract_value(args[0], 1)
        context.guard(builder, builder.not_(present), AttributeError,
                      f"'NoneType' object has no attribute '{name}'")
        value = context.cast(builder, builder.extract_value(args[0], 0), opt.type,
                             inner.signature.args[0])
        return inner.lower(context, builder, inner.signature, [value])
    return Resolution(t.Signature(inner.signature.return_type, (opt,)), lower,
                      new_reference=inner.new_reference)

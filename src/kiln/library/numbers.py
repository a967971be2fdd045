"""Arithmetic, comparison and bitwise operators on scalars, with Python's semantics:
`//` and `%` floor toward negative infinity, division by zero raises ZeroDivisionError,
integers wrap at their width like Numba's, floats compute bit-for-bit what CPython does."""
from __future__ import annotations

import operator
import sys

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.unify import arithmetic_result, promote_numbers
from ..typing.registry import intrinsic, template
from . import number_helpers as helpers

_INTLIKE = (t.Integer, t.Boolean)


def _all(types_, classes):
    return all(isinstance(x, classes) for x in types_)


def _float_flags(context):
    return context.fastmath


def _python_impl(pyfunc, numpy_pyfunc=None):
    """Codegen that compiles a Python helper (see number_helpers) for this signature; with
    error_model="numpy", `numpy_pyfunc` where given (NumPy's inf/nan instead of a raise)."""
    def codegen(context, builder, sig, args):
        numpy_model = numpy_pyfunc is not None and context.options.error_model == "numpy"
        return context.call_python(builder, numpy_pyfunc if numpy_model else pyfunc, sig, args)
    return codegen


# ---- + - * ---------------------------------------------------------------------------------

def _complex_parts(builder, value):
    return builder.extract_value(value, 0), builder.extract_value(value, 1)


def _make_complex(context, builder, ty, re, im):
    return context.make_tuple(builder, ty, [re, im])


def _simple_arith(int_op, float_op, complex_fn):
    def typer(tctx, a, b):
        if not _all((a, b), t.Number):
            return None
        rt = arithmetic_result(a, b)

        def codegen(context, builder, sig, args):
            x, y = args
            if isinstance(rt, t.Integer):
                return getattr(builder, int_op)(x, y)
            if isinstance(rt, t.Float):
                return getattr(builder, float_op)(x, y, flags=_float_flags(context))
            return complex_fn(context, builder, rt, x, y)
        return rt(rt, rt), codegen
    return typer


def _complex_add(context, builder, ty, x, y, sub=False):
    (a, b), (c, d) = _complex_parts(builder, x), _complex_parts(builder, y)
    op = builder.fsub if sub else builder.fadd
    return _make_complex(context, builder, ty, op(a, c), op(b, d))


def _complex_mul(context, builder, ty, x, y):
    """(a+bj)(c+dj) with CPython's plain formula (no C99 Annex G inf recovery)."""
    (a, b), (c, d) = _complex_parts(builder, x), _complex_parts(builder, y)
    re = builder.fsub(builder.fmul(a, c), builder.fmul(b, d))
    im = builder.fadd(builder.fmul(a, d), builder.fmul(b, c))
    return _make_complex(context, builder, ty, re, im)


template(operator.add)(_simple_arith("add", "fadd", _complex_add))
template(operator.sub)(_simple_arith("sub", "fsub",
                                     lambda c, b, ty, x, y: _complex_add(c, b, ty, x, y, True)))
template(operator.mul)(_simple_arith("mul", "fmul", _complex_mul))


# ---- / // % divmod -------------------------------------------------------------------------

@template(operator.truediv)
def _truediv(tctx, a, b):
    if not _all((a, b), t.Number):
        return None
    rt = arithmetic_result(a, b)
    if rt == t.int64:
        return t.float64(rt, rt), _int64_truediv
    if isinstance(rt, t.Integer):
        rt = t.float64
    if isinstance(rt, t.Complex):
        return rt(rt, rt), _python_impl(helpers.complex_div)

    def codegen(context, builder, sig, args):
        x, y = args
        if context.options.error_model == "python":
            is_zero = builder.fcmp_ordered("==", y, ir.Constant(y.type, 0.0))
            context.guard(builder, is_zero, ZeroDivisionError, "division by zero")
        return builder.fdiv(x, y, flags=_float_flags(context))
    return rt(rt, rt), codegen


def _int64_truediv(context, builder, sig, args):
    """int64 / int64: CPython's correctly rounded quotient (number_helpers.int_truediv); with
    error_model="numpy" the float division of the converted operands, as NumPy's."""
    if context.options.error_model == "python":
        return context.call_python(builder, helpers.int_truediv, sig, args)
    x, y = (builder.sitofp(v, ir.DoubleType()) for v in args)
    return builder.fdiv(x, y, flags=_float_flags(context))


def _int_divmod(context, builder, ty, x, y, message="integer division or modulo by zero"):
    """Floor quotient and remainder of integers; a zero divisor raises `message` (CPython's
    words for the operation), or with error_model="numpy" gives 0 and 0 as NumPy's integer
    loops do."""
    zero = ir.Constant(x.type, 0)
    by_zero = builder.icmp_unsigned("==", y, zero)
    if context.options.error_model == "numpy":
        q, r = _int_divmod_nonzero(builder, ty, x, builder.select(by_zero, ir.Constant(
            x.type, 1), y))
        return builder.select(by_zero, zero, q), builder.select(by_zero, zero, r)
    context.guard(builder, by_zero, ZeroDivisionError, message)
    return _int_divmod_nonzero(builder, ty, x, y)


def _int_divmod_nonzero(builder, ty, x, y):
    zero = ir.Constant(x.type, 0)
    if not ty.signed:
        return builder.udiv(x, y), builder.urem(x, y)
    # INT_MIN // -1 overflows in hardware; Python's answer wraps to INT_MIN like Numba's.
    minus_one = builder.icmp_signed("==", y, ir.Constant(x.type, -1))
    safe_y = builder.select(minus_one, ir.Constant(x.type, 1), y)
    q = builder.sdiv(x, safe_y)
    r = builder.srem(x, safe_y)
    q = builder.select(minus_one, builder.neg(x), q)
    r = builder.select(minus_one, zero, r)
    # Adjust toward negative infinity when the remainder's sign differs from the divisor's.
    adjust = builder.and_(builder.icmp_signed("!=", r, zero),
                          builder.icmp_signed("<", builder.xor(r, y), zero))
    q = builder.select(adjust, builder.sub(q, ir.Constant(x.type, 1)), q)
    r = builder.select(adjust, builder.add(r, y), r)
    return q, r


def _floor_op(which, float_helper, numpy_helper, message):
    def typer(tctx, a, b):
        if not _all((a, b), t.Number) or isinstance(a, t.Complex) or isinstance(b, t.Complex):
            return None
        rt = arithmetic_result(a, b)
        if isinstance(rt, t.Float):
            return rt(rt, rt), _python_impl(float_helper, numpy_helper)

        def codegen(context, builder, sig, args):
            return _int_divmod(context, builder, rt, *args, message)[which]
        return rt(rt, rt), codegen
    return typer


# CPython's words: `%` has its own from Python 3.11
template(operator.floordiv)(_floor_op(0, helpers.float_floordiv, helpers.numpy_floordiv,
                                      "integer division or modulo by zero"))
template(operator.mod)(_floor_op(1, helpers.float_mod, helpers.numpy_mod,
                                 "integer modulo by zero" if sys.version_info >= (3, 11)
                                 else "integer division or modulo by zero"))


@template(divmod)
def _divmod(tctx, a, b):
    if not _all((a, b), (t.Integer, t.Boolean, t.Float)):
        return None
    rt = arithmetic_result(a, b)
    if isinstance(rt, t.Float):
        return t.UniTuple(rt, 2)(rt, rt), _python_impl(helpers.float_divmod)

    def codegen(context, builder, sig, args):
        return context.make_tuple(builder, sig.return_type, _int_divmod(context, builder, rt,
                                                                        *args))
    return t.UniTuple(rt, 2)(rt, rt), codegen


# ---- ** --------------------------------------------------------------------------------------

def _power(tctx, a, b):
    if not _all((a, b), t.Number):
        return None
    rt = arithmetic_result(a, b)
    if isinstance(rt, t.Integer):
        return rt(rt, rt), _python_impl(helpers.int_power)
    if isinstance(rt, t.Complex):
        return rt(rt, rt), _python_impl(helpers.complex_power)
    return rt(rt, rt), _python_impl(helpers.float_power, helpers.numpy_power)


template(operator.pow)(_power)
template(pow)(_power)


# ---- comparisons -----------------------------------------------------------------------------

_ICMP = {operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
         operator.gt: ">", operator.ge: ">="}


def _comparison(op):
    def typer(tctx, a, b):
        if not _all((a, b), t.Number):
            return None
        ct = promote_numbers(a, b)
        if isinstance(ct, t.Boolean):
            ct = t.uint8
        if isinstance(ct, t.Complex) and op not in (operator.eq, operator.ne):
            return None
        if _wide_int(a) and isinstance(b, t.Float):
            return _exact_int_float_comparison(op, False)
        if isinstance(a, t.Float) and _wide_int(b):
            return _exact_int_float_comparison(op, True)

        def codegen(context, builder, sig, args):
            x, y = args
            sym = _ICMP[op]
            if isinstance(ct, t.Integer):
                cmp = builder.icmp_signed if ct.signed else builder.icmp_unsigned
                return cmp(sym, x, y)
            if isinstance(ct, t.Float):
                if op is operator.ne:
                    return builder.fcmp_unordered(sym, x, y, flags=context.fastmath)
                return builder.fcmp_ordered(sym, x, y, flags=context.fastmath)
            (p, q), (r, s) = _complex_parts(builder, x), _complex_parts(builder, y)
            if op is operator.eq:
                return builder.and_(builder.fcmp_ordered("==", p, r),
                                    builder.fcmp_ordered("==", q, s))
            return builder.or_(builder.fcmp_unordered("!=", p, r),
                               builder.fcmp_unordered("!=", q, s))
        return t.boolean(ct, ct), codegen
    return typer


def _wide_int(ty):
    """A signed integer too wide for float64 to hold every value exactly."""
    return isinstance(ty, t.Integer) and ty.signed and ty.bitwidth > 32


# three-way result c of compare(int, float) (-1, 0, 1; 2 for NaN) -> `int op float`
_THREE_WAY = {operator.eq: (0,), operator.ne: (-1, 1, 2), operator.lt: (-1,),
              operator.le: (-1, 0), operator.gt: (1,), operator.ge: (0, 1)}
_SWAPPED = {operator.eq: operator.eq, operator.ne: operator.ne, operator.lt: operator.gt,
            operator.le: operator.ge, operator.gt: operator.lt, operator.ge: operator.le}


def _exact_int_float_comparison(op, swapped):
    """int64 against a float compares the exact values, as CPython does (NumPy and Numba
    convert the int to float64 first, so 2**53 + 1 == 2.0**53 there)."""
    wanted = _THREE_WAY[_SWAPPED[op] if swapped else op]
    sig = t.int64(t.int64, t.float64)

    def codegen(context, builder, _sig, args):
        i, f = (args[1], args[0]) if swapped else args
        c = context.call_python(builder, helpers.int_float_compare, sig, [i, f])
        result = ir.Constant(dm.i1, 0)
        for w in wanted:
            result = builder.or_(result, builder.icmp_signed("==", c, ir.Constant(c.type, w)))
        return result
    args = (t.float64, t.int64) if swapped else (t.int64, t.float64)
    return t.boolean(*args), codegen


for _op in _ICMP:
    template(_op)(_comparison(_op))


# ---- bitwise ---------------------------------------------------------------------------------

def _bitwise(name):
    def typer(tctx, a, b):
        if _all((a, b), t.Boolean):
            return t.boolean(t.boolean, t.boolean), \
                lambda context, builder, sig, args: getattr(builder, name)(*args)
        if not _all((a, b), _INTLIKE):
            return None
        rt = arithmetic_result(a, b)
        return rt(rt, rt), lambda context, builder, sig, args: getattr(builder, name)(*args)
    return typer


template(operator.and_)(_bitwise("and_"))
template(operator.or_)(_bitwise("or_"))
template(operator.xor)(_bitwise("xor"))


def _shift(left, python):
    """`<<` or `>>` of integers: a count past the width shifts every bit out, as in Python
    and NumPy; a negative count is Python's ValueError, but NumPy's loops (`python` False)
    read it as unsigned, so it too shifts every bit out (0, or -1 for a negative `>>`).
    In Python code the result has the shifted operand's signedness, as in Numba
    (np.uint64(1) << 63 is 2**63, not -2**63)."""
    def typer(tctx, a, b):
        if not _all((a, b), _INTLIKE):
            return None
        rt = arithmetic_result(a, a) if python else arithmetic_result(a, b)
        nt = t.integer_of(rt.bitwidth, arithmetic_result(b, b).signed) if python else rt

        def codegen(context, builder, sig, args):
            x, n = args
            zero = ir.Constant(x.type, 0)
            if nt.signed and python:
                context.guard(builder, builder.icmp_signed("<", n, zero), ValueError,
                              "negative shift count")
            too_far = builder.icmp_unsigned(">=", n, ir.Constant(x.type, rt.bitwidth))
            safe_n = builder.select(too_far, zero, n)
            if left:
                return builder.select(too_far, zero, builder.shl(x, safe_n))
            if rt.signed:
                sign = builder.ashr(x, ir.Constant(x.type, rt.bitwidth - 1))
                return builder.select(too_far, sign, builder.ashr(x, safe_n))
            return builder.select(too_far, zero, builder.lshr(x, safe_n))
        return rt(rt, nt), codegen
    return typer


template(operator.lshift)(_shift(True, python=True))
template(operator.rshift)(_shift(False, python=True))
numpy_left_shift = intrinsic(_shift(True, python=False))     # np.left_shift's element
numpy_right_shift = intrinsic(_shift(False, python=False))


# ---- unary -----------------------------------------------------------------------------------

def _in_own_width(a, rt, flip):
    """`-x` / `~x` of an unsigned integer narrower than its result, computed in its own
    width and then widened, as Numba and NumPy do (~np.uint8(1) is 254, not 2**64 - 2)."""
    if not (isinstance(a, t.Integer) and not a.signed and a.bitwidth < rt.bitwidth):
        return None

    def codegen(context, builder, sig, args):
        x = builder.not_(args[0]) if flip else builder.neg(args[0])
        return builder.zext(x, dm.value_type(rt))
    return rt(a), codegen


@template(operator.neg)
def _neg(tctx, a):
    if not isinstance(a, t.Number):
        return None
    rt = arithmetic_result(a, a) if isinstance(a, _INTLIKE) else a
    narrow = _in_own_width(a, rt, flip=False)
    if narrow is not None:
        return narrow

    def codegen(context, builder, sig, args):
        (x,) = args
        if isinstance(rt, t.Integer):
            return builder.neg(x)
        if isinstance(rt, t.Float):
            return builder.fneg(x, flags=_float_flags(context))
        re, im = _complex_parts(builder, x)
        return _make_complex(context, builder, rt, builder.fneg(re), builder.fneg(im))
    return rt(rt), codegen


@template(operator.pos)
def _pos(tctx, a):
    if not isinstance(a, t.Number):
        return None
    rt = arithmetic_result(a, a) if isinstance(a, _INTLIKE) else a
    return rt(rt), lambda context, builder, sig, args: args[0]


@template(operator.invert)
def _invert(tctx, a):
    """`~` of an integer flips its bits; of a bool it is logical not, as NumPy's (and Numba's)
    `~np.bool_` (CPython's `~True` is -2, deprecated since 3.12): `B[~mask]` relies on it."""
    if not isinstance(a, _INTLIKE):
        return None
    rt = a if isinstance(a, t.Boolean) else arithmetic_result(a, a)
    return _in_own_width(a, rt, flip=True) or \
        (rt(rt), lambda context, builder, sig, args: builder.not_(args[0]))


@template(operator.truth)
def _truth(tctx, a):
    if not isinstance(a, (t.Number, t.NoneType)):
        return None
    return t.boolean(a), lambda context, builder, sig, args: context.is_true(builder, args[0], a)

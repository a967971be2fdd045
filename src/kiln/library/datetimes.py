"""datetime64 and timedelta64 in compiled code (types/datetimes.py), with NumPy's meaning.

A value is an int64 (NaT the int64 minimum); its unit is in its type. An operation on two
values first converts both to their common unit (the finer one; a datetime in years or
months by the calendar), and gives NaT where an operand is NaT; comparisons with NaT are
false (`!=` true). Units that NumPy refuses to mix ('Y' with 'D' timedeltas) are a
TypingError when compiling, in NumPy's words. Values cross to and from Python as
np.datetime64/np.timedelta64 scalars of their unit, and arrays of them as M8/m8 arrays
(array_boxing.py reads the unit from the dtype through `register_dtype_check`).
"""
from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import context as codegen_context
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..runtime import pyapi as P
from ..typing.operators import OP_SYMBOLS
from ..types.datetimes import CALENDAR, NAT, NUMPY_CODES, _NPDatetimeBase, common_unit, factor
from .array_boxing import register_dtype_check
from .builtins import _max2, _min2
from ..typing.registry import omitted, overload, overload_method, register_jitable, template

_DT, _TD = t.NPDatetime, t.NPTimedelta
_BOTH = (_DT, _TD)
_NAT = ir.Constant(dm.i64, NAT)

dm.register_model(_NPDatetimeBase, lambda ty: dm.i64)
codegen_context.register_constant(
    _NPDatetimeBase, lambda context, builder, ty, value: ir.Constant(dm.i64, int(
        np.asarray(value, dtype=ty.np_dtype).view(np.int64))))


# ---- units -------------------------------------------------------------------------------

def _incompatible(a, b):
    return TypingError(f"Cannot get a common metadata divisor for Numpy datetime metadata "
                       f"[{a}] and [{b}] because they have incompatible nonlinear base "
                       "time units")


def _common(a, b):
    """The unit an operation on `a` and `b` computes in (a datetime side converts years and
    months by the calendar), or NumPy's TypingError."""
    unit = common_unit(a.unit, b.unit, isinstance(a, _TD), isinstance(b, _TD))
    if unit is None:
        raise _incompatible(a.unit, b.unit)
    return unit


@register_jitable
def _first_of_month(year, month):
    """Days from 1970-01-01 to the first of `month` (1-12) of `year`, proleptic Gregorian."""
    if month <= 2:
        year -= 1
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * ((month + 9) % 12) + 2) // 5
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def _calendar_to(value, months, divisor, scale):
    """A datetime in years (or months) since 1970 in days (// divisor, * scale); NaT stays."""
    if value == NAT:
        return value
    if months:
        days = _first_of_month(1970 + value // 12, value % 12 + 1)
    else:
        days = _first_of_month(1970 + value, 1)
    return days // divisor * scale


def convert(context, builder, value, ty, unit):
    """`value` of type `ty` in `unit` (the common unit of an operation, never coarser)."""
    if ty.unit == unit or ty.unit == "":
        return value
    if isinstance(ty, _DT) and ty.unit in CALENDAR and unit not in CALENDAR:
        weeks = unit == "W"
        args = [value, ir.Constant(dm.i64, int(ty.unit == "M")),
                ir.Constant(dm.i64, 7 if weeks else 1),
                ir.Constant(dm.i64, 1 if weeks else factor("D", unit))]
        return context.call_python(builder, _calendar_to, t.int64(*[t.int64] * 4), args)
    scaled = builder.mul(value, ir.Constant(dm.i64, factor(ty.unit, unit)))
    return builder.select(_is_nat(builder, value), _NAT, scaled)


def _cast(context, builder, value, src, dst):
    """A value stored or passed as another datetime type (NumPy's casts: to a finer unit
    exactly, to a coarser one rounding down), or an integer taken as a count of units."""
    if not isinstance(src, _BOTH):
        return context.cast(builder, value, src, t.int64)
    timedeltas = isinstance(src, _TD) or isinstance(dst, _TD)   # never by the calendar
    if common_unit(src.unit, dst.unit, timedeltas, timedeltas) == dst.unit:
        return convert(context, builder, value, src, dst.unit)
    ratio = factor(dst.unit, src.unit)
    if ratio is not None:
        return context.call_python(builder, _to_coarser, t.int64(t.int64, t.int64),
                                   [value, ir.Constant(dm.i64, ratio)])
    if not (isinstance(src, _DT) and dst.unit in CALENDAR):
        raise TypingError(f"Cannot cast NumPy {src.type_name} from [{src.unit}] to "
                          f"[{dst.unit}] according to the rule 'same_kind'")
    args = [value, ir.Constant(dm.i64, 1 if src.unit == "W" else factor("D", src.unit)),
            ir.Constant(dm.i64, int(src.unit == "W")), ir.Constant(dm.i64, int(dst.unit == "M"))]
    return context.call_python(builder, _to_calendar, t.int64(*[t.int64] * 4), args)


def _to_coarser(value, ratio):
    return value if value == NAT else value // ratio


def _to_calendar(value, per_day, weeks, months):
    """A datetime in days or finer (`per_day` units a day) or in weeks, in the years (or
    months) since 1970 of its day: the proleptic Gregorian calendar, rounding down."""
    if value == NAT:
        return value
    days = value * 7 if weeks else value // per_day
    shifted = days + 719468           # from 0000-03-01
    era = shifted // 146097
    day_of_era = shifted - era * 146097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36524 -
                   day_of_era // 146096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    march_based = (5 * day_of_year + 2) // 153
    month = march_based + 3 if march_based < 10 else march_based - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    return (year - 1970) * 12 + month - 1 if months else year - 1970


codegen_context.register_cast(_NPDatetimeBase, _NPDatetimeBase, _cast)
codegen_context.register_cast(t.Integer, _NPDatetimeBase, _cast)
codegen_context.register_cast(t.Boolean, _NPDatetimeBase, _cast)
codegen_context.register_cast(_NPDatetimeBase, t.Integer, lambda context, builder, value, src,
                              dst: context.cast(builder, value, t.int64, dst))   # its count


def _is_nat(builder, value):
    return builder.icmp_signed("==", value, _NAT)


def _either_nat(builder, a, b):
    return builder.or_(_is_nat(builder, a), _is_nat(builder, b))


# ---- boxing ------------------------------------------------------------------------------

def _box_scalar(value, code):
    """np.datetime64/np.timedelta64 of `value` in the unit numbered `code`."""
    return _BOX_CLASSES[code](value)


_BOX_CLASSES = {}
for _unit, _code in NUMPY_CODES.items():
    for _cls in _BOTH:
        _BOX_CLASSES[_code + (100 if _cls is _TD else 0)] = (
            lambda value, _dtype=_cls(_unit).np_dtype: np.int64(value).view(_dtype))


def _type_code(ty):
    return NUMPY_CODES[ty.unit] + (100 if isinstance(ty, _TD) else 0)


@boxing.boxer(_NPDatetimeBase)
def _box(api, ty, value, fail):
    number = api.call("PyLong_FromLongLong", dm.ptr, [value])
    code = api.call("PyLong_FromLongLong", dm.ptr, [ir.Constant(dm.i64, _type_code(ty))])
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(_box_scalar), number, code,
                       ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(number)
    api.decref(code)
    return result


# NumPy's datetime scalar: {PyObject_HEAD, int64 value, {int32 unit, int32 multiplier}}
_SCALAR_UNIT = P.SCALAR_VALUE + 8


@boxing.unboxer(_NPDatetimeBase)
def _unbox(unboxer, ty, obj):
    """An np.datetime64/np.timedelta64 of exactly this unit (multiplier 1)."""
    api, b = unboxer.api, unboxer.b
    cls = np.datetime64 if isinstance(ty, _DT) else np.timedelta64
    unboxer.require(api.is_type(obj, api.constant_object(cls)))
    unboxer.require(b.icmp_signed("==", api.read(obj, _SCALAR_UNIT, dm.i32),
                                  ir.Constant(dm.i32, NUMPY_CODES[ty.unit])))
    unboxer.require(b.icmp_signed("==", api.read(obj, _SCALAR_UNIT + 4, dm.i32),
                                  ir.Constant(dm.i32, 1)))
    return api.read(obj, P.SCALAR_VALUE, dm.i64)


# NumPy's datetime dtype: its c_metadata (a PyArray_DatetimeDTypeMetaData*) holds the unit
# and multiplier as {NpyAuxData (4 pointers), int32 unit, int32 multiplier}; NumPy 2 moved
# the field (PyArray_Descr gained flags, elsize and alignment of 8 bytes, a hash, reserved)
_DESCR_C_METADATA = P.HEAD + (96 if int(np.__version__.split(".")[0]) >= 2 else 64)
_METADATA_UNIT = 32


def _dtype_ok(b, api, dtype, descr):
    """An M8/m8 array's descr of exactly this unit (multiplier 1)."""
    same_kind = b.icmp_signed("==", api.read(descr, P.DESCR_TYPE_NUM, dm.i32),
                              ir.Constant(dm.i32, dtype.np_dtype.num))
    result = b.alloca(dm.i1)
    b.store(ir.Constant(dm.i1, 0), result)
    with b.if_then(same_kind):
        metadata = api.read(descr, _DESCR_C_METADATA, dm.ptr)
        unit = api.read(metadata, _METADATA_UNIT, dm.i32)
        count = api.read(metadata, _METADATA_UNIT + 4, dm.i32)
        b.store(b.and_(b.icmp_signed("==", unit, ir.Constant(dm.i32, NUMPY_CODES[dtype.unit])),
                       b.icmp_signed("==", count, ir.Constant(dm.i32, 1))), result)
    return b.load(result, typ=dm.i1)


register_dtype_check(_NPDatetimeBase, _dtype_ok)


# ---- what NumPy refuses; truth --------------------------------------------------------------

def _refused(op):
    """Tried after this module's own templates of `op`: an operand that is a datetime and an
    operation NumPy has no loop for (`dt * 2`, `td + 1.5`) is a TypingError, not an integer's
    operation."""
    def typer(tctx, *operands):
        if not any(isinstance(o, _BOTH) for o in operands) or \
                not all(isinstance(o, t.Number) for o in operands):   # (arrays: ufuncs.py)
            return None
        raise TypingError(f"unsupported operand types for {OP_SYMBOLS.get(op, op.__name__)}: "
                          f"{' and '.join(map(str, operands))} (NumPy has no such operation)")
    return typer


for _op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
            operator.mod, operator.pow, operator.lshift, operator.rshift, operator.and_,
            operator.or_, operator.xor, operator.eq, operator.ne, operator.lt, operator.le,
            operator.gt, operator.ge, operator.neg, operator.pos, operator.invert, abs):
    template(_op)(_refused(_op))


@template(bool)
def _truth(tctx, *args):
    """bool(x): NumPy's, the value is not zero (NaT is true). (`bool()` is another
    template's.)"""
    if len(args) != 1 or not isinstance(args[0], _BOTH):
        return None
    return t.boolean(*args), lambda context, builder, sig, llargs: \
        builder.icmp_signed("!=", llargs[0], ir.Constant(dm.i64, 0))


# ---- arithmetic --------------------------------------------------------------------------

def _operands(a, b):
    """The datetime types of `a op b`'s operands, where one is a datetime: an integer is a
    timedelta of the other's unit (NumPy's `td + 1`, `dt - 1`, `td < 1`); else None."""
    if not (isinstance(a, _BOTH) or isinstance(b, _BOTH)):
        return None
    a, b = (_TD("") if _is_int(x) else x for x in (a, b))
    return (a, b) if isinstance(a, _BOTH) and isinstance(b, _BOTH) else None


def _held(operands):
    """The argument types an operation takes: an integer operand as int64."""
    return tuple(t.int64 if _is_int(x) else x for x in operands)


def _linear(op, result_of):
    """`a op b` of two datetime values, computed in their common unit: `result_of(a, b)` is
    the result type (None: not this operation), NaT where either is NaT."""
    def typer(tctx, *operands):
        if _operands(*operands) is None:
            return None
        a, b = _operands(*operands)
        kind = result_of(a, b)
        if kind is None:
            return None
        unit = _common(a, b)

        def codegen(context, builder, sig, args):
            x, y = (convert(context, builder, v, ty, unit) for v, ty in zip(args, (a, b)))
            value = getattr(builder, op)(x, y)
            return builder.select(_either_nat(builder, x, y), _NAT, value)
        return kind(unit)(*_held(operands)), codegen
    return typer


_SUMS = {(_TD, _TD): _TD, (_DT, _TD): _DT, (_TD, _DT): _DT}
_DIFFERENCES = {(_TD, _TD): _TD, (_DT, _TD): _DT, (_DT, _DT): _TD}
template(operator.add)(_linear("add", lambda a, b: _SUMS.get((type(a), type(b)))))
template(operator.sub)(_linear("sub", lambda a, b: _DIFFERENCES.get((type(a), type(b)))))


def _is_int(ty):
    return isinstance(ty, (t.Integer, t.Boolean))


def _scale(op):
    """td * number, number * td, td / number, td // number: NumPy's loops (a float result
    truncates toward zero; NaT, NaN, and division by zero give NaT)."""
    def typer(tctx, a, b):
        if op is operator.mul and isinstance(b, _TD) and not isinstance(a, _BOTH):
            a, b, swapped = b, a, True
        else:
            swapped = False
        if not isinstance(a, _TD) or not isinstance(b, (t.Integer, t.Boolean, t.Float)):
            return None
        number = t.float64 if isinstance(b, t.Float) else t.int64

        def codegen(context, builder, sig, args):
            td, n = (args[1], args[0]) if swapped else args
            n = context.cast(builder, n, b, number)
            if number == t.float64:
                x = builder.sitofp(td, n.type)
                if op is operator.mul:
                    bad = builder.fcmp_unordered("uno", n, n)
                    value = builder.fmul(x, n)
                else:
                    bad = builder.fcmp_unordered("ueq", n, ir.Constant(n.type, 0.0))
                    value = builder.fdiv(x, n)
                value = builder.fptosi(value, dm.i64)
            elif op is operator.mul:
                bad, value = ir.Constant(dm.i1, 0), builder.mul(td, n)
            else:
                bad = builder.icmp_signed("==", n, ir.Constant(dm.i64, 0))
                one = ir.Constant(dm.i64, 1)
                value = builder.sdiv(td, builder.select(bad, one, n))
            return builder.select(builder.or_(bad, _is_nat(builder, td)), _NAT, value)
        return a(*((b, a) if swapped else (a, b))), codegen
    return typer


template(operator.mul)(_scale(operator.mul))
template(operator.truediv)(_scale(operator.truediv))
template(operator.floordiv)(_scale(operator.floordiv))


def _td_ratio(tctx, a, b):
    """td / td: a float64 (NaN where either is NaT)."""
    if not (isinstance(a, _TD) and isinstance(b, _TD)):
        return None
    unit = _common(a, b)

    def codegen(context, builder, sig, args):
        x, y = (convert(context, builder, v, ty, unit) for v, ty in zip(args, (a, b)))
        f64 = dm.value_type(t.float64)
        value = builder.fdiv(builder.sitofp(x, f64), builder.sitofp(y, f64))
        return builder.select(_either_nat(builder, x, y), ir.Constant(f64, float("nan")), value)
    return t.float64(a, b), codegen


template(operator.truediv)(_td_ratio)


def _floor_quotient(x, y):
    """td // td in one unit: floor division; 0 where either is NaT or y is 0 (NumPy's)."""
    if x == NAT or y == NAT or y == 0:
        return 0
    return x // y


def _floor_remainder(x, y):
    """td % td in one unit: the remainder's sign is y's; NaT where either is NaT or y is 0."""
    if x == NAT or y == NAT or y == 0:
        return NAT
    return x % y


def _td_floor(helper, result_of):
    def typer(tctx, a, b):
        if not (isinstance(a, _TD) and isinstance(b, _TD)):
            return None
        unit = _common(a, b)
        result = result_of(unit)

        def codegen(context, builder, sig, args):
            x, y = (convert(context, builder, v, ty, unit) for v, ty in zip(args, (a, b)))
            return context.call_python(builder, helper, t.int64(t.int64, t.int64), [x, y])
        return result(a, b), codegen
    return typer


template(operator.floordiv)(_td_floor(_floor_quotient, lambda unit: t.int64))
template(operator.mod)(_td_floor(_floor_remainder, _TD))


def _unary(op):
    """-td, +td, abs(td): NaT (the int64 minimum) is its own negation."""
    def typer(tctx, a):
        if not isinstance(a, _TD):
            return None

        def codegen(context, builder, sig, args):
            (x,) = args
            if op is operator.pos:
                return x
            negative = builder.neg(x)
            if op is operator.neg:
                return negative
            return builder.select(builder.icmp_signed("<", x, ir.Constant(dm.i64, 0)),
                                  negative, x)
        return a(a), codegen
    return typer


for _op in (operator.neg, operator.pos, abs):
    template(_op)(_unary(_op))


# ---- comparisons -------------------------------------------------------------------------

_ICMP = {operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
         operator.gt: ">", operator.ge: ">="}


def _comparison(op):
    """Between two datetimes or two timedeltas, in their common unit; with NaT only `!=`
    holds."""
    def typer(tctx, *operands):
        a, b = _operands(*operands) or (None, None)
        if not (isinstance(a, _BOTH) and type(a) is type(b)):
            return None
        unit = _common(a, b)

        def codegen(context, builder, sig, args):
            x, y = (convert(context, builder, v, ty, unit) for v, ty in zip(args, (a, b)))
            holds = builder.icmp_signed(_ICMP[op], x, y)
            nat = _either_nat(builder, x, y)
            if op is operator.ne:
                return builder.or_(holds, nat)
            return builder.and_(holds, builder.not_(nat))
        return t.boolean(*_held(operands)), codegen
    return typer


for _op in _ICMP:
    template(_op)(_comparison(_op))


# ---- builtins and NumPy's scalar functions -----------------------------------------------

def _pick(less):
    """min/max of two datetimes (or two timedeltas), Python's rule: `b if b < a else a`
    (for max, `b if b > a`), so a NaT first wins and a NaT second loses, as in CPython;
    of two units, the result is in the finer one."""
    def typer(tctx, *args):
        if len(args) != 2 or not isinstance(args[0], _BOTH) or type(args[0]) is not \
                type(args[1]):
            return None
        result = type(args[0])(_common(*args))
        better = tctx.resolve(operator.lt if less else operator.gt, (result, result))

        def codegen(context, builder, sig, llargs):
            x, y = (convert(context, builder, v, ty, result.unit) for v, ty in zip(llargs, args))
            return builder.select(better.lower(context, builder, better.signature, [y, x]), y, x)
        return result(*args), codegen
    return typer


for _key, _less in ((min, True), (max, False), (_min2, True), (_max2, False)):
    template(_key)(_pick(_less))


@overload(hash)
def _hash(value):
    if isinstance(value, _TD) and value.unit == "":
        def generic(value):
            raise ValueError("Can't hash generic timedelta64")
        return generic
    if isinstance(value, _BOTH):
        return lambda value: _as_int64(value)
    return None


def _timedelta_mean(a, axis=None):
    """np.mean of a timedelta64 array, NumPy's: the sum divided by the count, truncating
    (NaT where the array is empty or holds a NaT)."""
    if isinstance(a, t.Array) and isinstance(a.dtype, _TD) and omitted(axis):
        return lambda a, axis=None: np.sum(a) / a.size
    return None


overload(np.mean)(_timedelta_mean)
overload_method(t.Array, "mean")(_timedelta_mean)


@template(int)
def _int(tctx, *args):
    """int(x) of a datetime64[ns] or timedelta64[ns] (Numba's rule: other units refused)."""
    if len(args) != 1 or not isinstance(args[0], _BOTH):
        return None
    if args[0].unit != "ns":
        raise TypingError(f"Only {args[0].type_name}[ns] can be converted, but got {args[0]}")
    return t.int64(args[0]), lambda context, builder, sig, llargs: llargs[0]


def _as_int64(x):
    raise TypeError("only callable from compiled code")


@template(_as_int64)
def _as_int64_typer(tctx, x):
    if not isinstance(x, _BOTH):
        return None
    return t.int64(x), lambda context, builder, sig, args: args[0]


@template(np.isnat)
def _isnat(tctx, x):
    if not isinstance(x, _BOTH):
        return None
    return t.boolean(x), lambda context, builder, sig, args: _is_nat(builder, args[0])


@template("number_class")
def _constructor(tctx, number_class, *args):
    """np.datetime64(...) / np.timedelta64(...): of a constant string, the value NumPy
    makes, frozen; of an integer and a constant unit, a value of that unit."""
    if not isinstance(number_class.instance_type, _BOTH):
        return None
    kind = type(number_class.instance_type)
    cls = np.datetime64 if kind is _DT else np.timedelta64
    if not 1 <= len(args) <= 2 or (len(args) == 2 and not isinstance(args[1], t.StringLiteral)):
        return None
    unit = args[1].value if len(args) == 2 else ""
    if isinstance(args[0], t.StringLiteral):
        try:
            value = cls(args[0].value, *([unit] if unit else []))
        except ValueError as error:
            raise TypingError(f"{cls.__name__}({args[0].value!r}): {error}") from None
        ty = t.typeof(value)
        return ty(number_class, *args), lambda context, builder, sig, llargs: \
            context.get_constant(builder, ty, value)
    if isinstance(args[0], kind) and not unit:
        return args[0](number_class, args[0]), lambda context, builder, sig, llargs: \
            llargs[1]
    if not _is_int(args[0]):
        return None
    try:
        ty = kind(unit)
        cls(0, *([unit] if unit else []))
    except (TypeError, ValueError) as error:
        raise TypingError(f"{cls.__name__}(n, {unit!r}): {error}") from None
    return ty(number_class, *args), lambda context, builder, sig, llargs: \
        context.cast(builder, llargs[1], args[0], t.int64)

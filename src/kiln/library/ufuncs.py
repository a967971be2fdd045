"""NumPy's elementwise functions and the arithmetic operators on arrays, with broadcasting.

Types follow NumPy 2 exactly because NumPy itself decides them: at compile time the
ufunc runs on one-element arrays of the operands' dtypes (a default-width Python scalar
counts as a "weak" Python number, as NEP 50 says), and its result dtype is the result
type. The element operation is kiln's scalar implementation of the same operator or math
function, with NumPy's semantics where they differ from Python's (division by zero gives
inf/nan, not an exception; see `_NUMPY_SCALAR`). One table lists them all.

The loop: the output is a new C-contiguous array of the broadcast shape. When every
operand is C-contiguous with that shape, it is one flat loop that LLVM vectorizes;
otherwise a loop nest walks each operand by its strides (a stride of 0 on a broadcast
axis).
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..runtime import nrt
from ..errors import TypingError
from .allocation import allocate
from .arrays import ArrayValue
from .registry import Resolution, intrinsic, overload, template

# ---- scalar operations with NumPy's semantics ----------------------------------------------

def _ieee(instruction):
    def typer(typingctx, a, b):
        if not (isinstance(a, t.Float) and a == b):
            return None

        def codegen(context, builder, sig, args):
            if instruction == "fdiv":
                return builder.fdiv(*args, flags=context.fastmath)
            return builder.call(context.declare_intrinsic("llvm.pow", [a.type for a in args]), args)
        return a(a, b), codegen
    return typer


ieee_divide = intrinsic(_ieee("fdiv"))   # x / 0.0 is ±inf or nan, no exception
ieee_power = intrinsic(_ieee("pow"))     # overflow is inf, 0.0 ** -1 is inf


def _by_kind(float_impl, int_impl, complex_impl=None):
    """An overload choosing the implementation by the operands' kind."""
    def ov(a, b):
        if isinstance(a, t.Float):
            return float_impl
        if isinstance(a, t.Complex):
            return complex_impl
        return int_impl
    return ov


def _float_divide(a, b):
    return ieee_divide(a, b)


def _python_divide(a, b):
    return a / b


def _float_floor_divide(a, b):
    return ieee_divide(a, b) if b == 0 else a // b


def _int_floor_divide(a, b):
    return 0 if b == 0 else a // b


def _float_remainder(a, b):
    return math.nan if b == 0 else a % b


def _int_remainder(a, b):
    return 0 if b == 0 else a % b


def _float_power(a, b):
    return ieee_power(a, b)


def _python_power(a, b):
    return a ** b


def _maximum(a, b):
    return a if (a > b or a != a) else b     # equal (0.0 and -0.0): b, as NumPy


def _minimum(a, b):
    return a if (a < b or a != a) else b


def np_true_divide(a, b):
    """NumPy's true division of two operands of one dtype (compiled code only)."""


def np_floor_divide(a, b):
    """NumPy's floor division: by zero it is inf/nan for floats, 0 for integers."""


def np_remainder(a, b):
    """NumPy's remainder: by zero it is nan for floats, 0 for integers."""


def np_power(a, b):
    """NumPy's power: float overflow is inf, not OverflowError."""


def np_maximum(a, b):
    """NumPy's maximum: NaN wins."""


def np_minimum(a, b):
    """NumPy's minimum: NaN wins."""


overload(np_true_divide)(_by_kind(_float_divide, None, _python_divide))
overload(np_floor_divide)(_by_kind(_float_floor_divide, _int_floor_divide))
overload(np_remainder)(_by_kind(_float_remainder, _int_remainder))
overload(np_power)(_by_kind(_float_power, _python_power, _python_power))
overload(np_maximum)(lambda a, b: _maximum)
overload(np_minimum)(lambda a, b: _minimum)


# ufunc -> (the scalar operation kiln applies per element, how inputs are converted):
#   "result": inputs converted to the result dtype (arithmetic);
#   "common": inputs converted to their common dtype, result bool (comparisons);
#   "same": the input as it is (predicates such as isnan).
UFUNCS = {
    np.add: (operator.add, "result"), np.subtract: (operator.sub, "result"),
    np.multiply: (operator.mul, "result"), np.true_divide: (np_true_divide, "result"),
    np.floor_divide: (np_floor_divide, "result"), np.remainder: (np_remainder, "result"),
    np.power: (np_power, "result"),
    np.bitwise_and: (operator.and_, "result"), np.bitwise_or: (operator.or_, "result"),
    np.bitwise_xor: (operator.xor, "result"),
    np.left_shift: (operator.lshift, "result"), np.right_shift: (operator.rshift, "result"),
    np.equal: (operator.eq, "common"), np.not_equal: (operator.ne, "common"),
    np.less: (operator.lt, "common"), np.less_equal: (operator.le, "common"),
    np.greater: (operator.gt, "common"), np.greater_equal: (operator.ge, "common"),
    np.negative: (operator.neg, "result"), np.positive: (operator.pos, "result"),
    np.invert: (operator.invert, "result"), np.absolute: (abs, "result"),
    np.maximum: (np_maximum, "result"), np.minimum: (np_minimum, "result"),
    np.isnan: (math.isnan, "same"), np.isinf: (math.isinf, "same"),
    np.isfinite: (math.isfinite, "same"),
    np.arctan2: (math.atan2, "result"), np.hypot: (math.hypot, "result"),
    np.copysign: (math.copysign, "result"), np.fmod: (math.fmod, "result"),
}
_MATH = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log10": "log10", "log2": "log2",
         "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan",
         "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh",
         "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
         "fabs": "fabs", "exp2": "exp2", "cbrt": "cbrt"}
UFUNCS.update({getattr(np, name): (getattr(math, fn), "result") for name, fn in _MATH.items()
               if hasattr(np, name) and hasattr(math, fn)})
UFUNCS[np.abs] = UFUNCS[np.absolute]

OPERATORS = {operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply,
             operator.truediv: np.true_divide, operator.floordiv: np.floor_divide,
             operator.mod: np.remainder, operator.pow: np.power, operator.and_: np.bitwise_and,
             operator.or_: np.bitwise_or, operator.xor: np.bitwise_xor,
             operator.lshift: np.left_shift, operator.rshift: np.right_shift,
             operator.eq: np.equal, operator.ne: np.not_equal, operator.lt: np.less,
             operator.le: np.less_equal, operator.gt: np.greater, operator.ge: np.greater_equal,
             operator.neg: np.negative, operator.pos: np.positive, operator.invert: np.invert,
             abs: np.absolute}
INPLACE = {operator.iadd: operator.add, operator.isub: operator.sub, operator.imul: operator.mul,
           operator.itruediv: operator.truediv, operator.ifloordiv: operator.floordiv,
           operator.imod: operator.mod, operator.ipow: operator.pow, operator.iand: operator.and_,
           operator.ior: operator.or_, operator.ixor: operator.xor}

_WEAK = {t.boolean: False, t.int64: 0, t.float64: 0.0, t.complex128: 0j}


def _sample(ty):
    """What stands for an operand when NumPy decides the result type."""
    if isinstance(ty, t.Array):
        return np.zeros(1, dtype=ty.dtype.np_dtype)
    return _WEAK.get(ty, np.zeros(1, dtype=ty.np_dtype)[0])


def _numpy_dtype(ufunc, operands):
    """The kiln dtype NumPy gives `ufunc` of these operand types, or None if it refuses."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return t.from_dtype(np.asarray(ufunc(*map(_sample, operands))).dtype)
        except (TypeError, ValueError):
            return None


def _dtype(ty):
    return ty.dtype if isinstance(ty, t.Array) else ty


def _resolve_ufunc(tctx, ufunc, operands):
    """(result type, per-element Resolution, the dtype inputs are converted to) or None."""
    if not all(isinstance(o, (t.Array, t.Number)) for o in operands) or \
            not isinstance(ufunc, np.ufunc) or ufunc.nin != len(operands):
        return None
    key, conversion = UFUNCS[ufunc]
    out_dtype = _numpy_dtype(ufunc, operands)
    if out_dtype is None:
        return None
    if conversion == "result":
        loop = out_dtype
    elif conversion == "common":
        loop = _numpy_dtype(np.add, operands) if len(operands) == 2 else _dtype(operands[0])
        if loop is None:
            return None
    else:
        loop = _dtype(operands[0])
    element = tctx.resolve(key, (loop,) * len(operands))
    if element is None:
        return None
    arrays = [o for o in operands if isinstance(o, t.Array)]
    if not arrays:
        return out_dtype, element, loop
    return t.Array(out_dtype, max(a.ndim for a in arrays), "C"), element, loop


# ---- the loop ------------------------------------------------------------------------------

def _broadcast_shape(context, builder, operands, ndim):
    """The broadcast shape, raising ValueError with NumPy's words when there is none."""
    i64 = dm.i64
    one = ir.Constant(i64, 1)
    shape = []
    for d in range(ndim):
        size = one
        for arr in operands:
            if arr.ty.ndim + d - ndim >= 0:
                dim = arr.shape(arr.ty.ndim + d - ndim)
                size = builder.select(builder.icmp_unsigned("==", size, one), dim, size)
        for arr in operands:
            if arr.ty.ndim + d - ndim >= 0:
                dim = arr.shape(arr.ty.ndim + d - ndim)
                bad = builder.and_(builder.icmp_unsigned("!=", dim, size),
                                   builder.icmp_unsigned("!=", dim, one))
                context.guard(builder, bad, ValueError,
                              "operands could not be broadcast together")
        shape.append(size)
    return shape


def _loop(builder, count, body):
    """`for i in range(count): body(i)` in IR."""
    i64 = dm.i64
    pre = builder.block
    header = builder.append_basic_block("ufunc.loop")
    step = builder.append_basic_block("ufunc.body")
    end = builder.append_basic_block("ufunc.end")
    builder.branch(header)
    builder.position_at_end(header)
    index = builder.phi(i64)
    index.add_incoming(ir.Constant(i64, 0), pre)
    builder.cbranch(builder.icmp_signed("<", index, count), step, end)
    builder.position_at_end(step)
    body(index)
    index.add_incoming(builder.add(index, ir.Constant(i64, 1)), builder.block)
    builder.branch(header)
    builder.position_at_end(end)


def elementwise(context, builder, out_ty, operands, operand_types, element, loop_dtype,
                out=None):
    """`element` applied to the broadcast operands: into a new array of `out_ty`, or into
    the array `out` (in-place operators). An operand that overlaps `out` other than
    element for element is read before anything is written (through a temporary)."""
    arrays = [ArrayValue(context, builder, v, ty) if isinstance(ty, t.Array) else None
              for v, ty in zip(operands, operand_types)]
    present = [a for a in arrays if a is not None]
    if out is not None:
        out = ArrayValue(context, builder, out, out_ty)
        shape = _broadcast_shape(context, builder, present + [out], out_ty.ndim)
        for d, size in enumerate(shape):
            context.guard(builder, builder.icmp_unsigned("!=", size, out.shape(d)), ValueError,
                          "non-broadcastable output operand")
        clash = ir.Constant(dm.i1, 0)
        for a in present:
            clash = builder.or_(clash, _overlaps_elsewhere(builder, a, out))
        with builder.if_else(clash, likely=False) as (through_temporary, direct):
            with through_temporary:
                temp = elementwise(context, builder, out_ty.copy(readonly=False), operands,
                                   operand_types, element, loop_dtype)
                _copy(context, builder, temp, out)
                nrt.emit_decref(builder, builder.extract_value(temp, dm.ARRAY_MEMINFO))
            with direct:
                _fill_loops(context, builder, out, out_ty, arrays, operands, operand_types,
                            shape, element, loop_dtype)
        return out.value
    shape = _broadcast_shape(context, builder, present, out_ty.ndim)
    out = ArrayValue(context, builder, allocate(context, builder, out_ty, shape), out_ty)
    _fill_loops(context, builder, out, out_ty, arrays, operands, operand_types, shape, element,
                loop_dtype)
    return out.value


def copy_into(context, builder, out_ty, out, source_ty, source):
    """`out[...] = source` (a slice assignment): broadcast, cast to out's dtype, and read
    before writing when the two overlap."""
    identity = Resolution(source_ty.dtype(source_ty.dtype), lambda ctx, b, sig, args: args[0])
    elementwise(context, builder, out_ty, [source], [source_ty], identity, source_ty.dtype,
                out=out)


def _extent(builder, a):
    """[first byte, last byte] an array's elements span (an empty array spans nothing)."""
    start = builder.ptrtoint(a.field(dm.ARRAY_DATA), dm.i64)
    low, high = start, start
    for d in range(a.ty.ndim):
        reach = builder.mul(builder.sub(a.shape(d), ir.Constant(dm.i64, 1)), a.stride(d))
        negative = builder.icmp_signed("<", reach, ir.Constant(dm.i64, 0))
        low = builder.add(low, builder.select(negative, reach, ir.Constant(dm.i64, 0)))
        high = builder.add(high, builder.select(negative, ir.Constant(dm.i64, 0), reach))
    return low, builder.add(high, ir.Constant(dm.i64, a.ty.dtype.np_dtype.itemsize - 1))


def _overlaps_elsewhere(builder, a, out):
    """Whether `a` shares memory with `out` without being exactly `out`'s elements."""
    (a_low, a_high), (o_low, o_high) = _extent(builder, a), _extent(builder, out)
    overlap = builder.and_(builder.icmp_signed("<=", a_low, o_high),
                           builder.icmp_signed("<=", o_low, a_high))
    same = builder.icmp_unsigned("==", a.field(dm.ARRAY_DATA), out.field(dm.ARRAY_DATA))
    for d in range(min(a.ty.ndim, out.ty.ndim)):
        same = builder.and_(same, builder.icmp_signed(
            "==", a.stride(a.ty.ndim - 1 - d), out.stride(out.ty.ndim - 1 - d)))
    same = builder.and_(same, ir.Constant(dm.i1, int(a.ty.ndim == out.ty.ndim)))
    empty = builder.icmp_signed("==", a.field(dm.ARRAY_NITEMS), ir.Constant(dm.i64, 0))
    return builder.and_(builder.and_(overlap, builder.not_(same)), builder.not_(empty))


def _copy(context, builder, source, out):
    """out[...] = source, for a new C-contiguous `source` of out's shape and dtype."""
    source_ty = out.ty.copy(layout="C", readonly=False)
    identity = Resolution(out.ty.dtype(out.ty.dtype), lambda ctx, b, sig, args: args[0])
    shape = [out.shape(d) for d in range(out.ty.ndim)]
    _fill_loops(context, builder, out, out.ty, [ArrayValue(context, builder, source, source_ty)],
                [source], [source_ty], shape, identity, out.ty.dtype)


def _fill_loops(context, builder, out, out_ty, arrays, operands, operand_types, shape, element,
                loop_dtype):
    present = [a for a in arrays if a is not None]

    def compute(values):
        args = [context.cast(builder, v, _dtype(ty), loop_dtype)
                for v, ty in zip(values, operand_types)]
        result = element.lower(context, builder, element.signature, args)
        return context.cast(builder, result, element.signature.return_type, out_ty.dtype)

    scalars = [None if a is not None else v for a, v in zip(arrays, operands)]
    flat = out_ty.layout == "C" and \
        all(a.ty.layout == "C" and a.ty.ndim == out_ty.ndim for a in present)
    if flat:  # same-shape C-contiguous operands: one vectorizable loop
        same = ir.Constant(dm.i1, 1)
        for a in present:
            same = builder.and_(same, builder.icmp_unsigned(
                "==", a.field(dm.ARRAY_NITEMS), out.field(dm.ARRAY_NITEMS)))
        with builder.if_else(same) as (fast, general):
            with fast:
                def flat_body(i):
                    values = [s if a is None else dm.load_item(
                        builder, a.ty.dtype, builder.gep(a.field(dm.ARRAY_DATA), [i],
                                                         source_etype=dm.memory_type(a.ty.dtype)))
                        for a, s in zip(arrays, scalars)]
                    target = builder.gep(out.field(dm.ARRAY_DATA), [i],
                                         source_etype=dm.memory_type(out_ty.dtype))
                    dm.store_item(builder, out_ty.dtype, compute(values), target)
                _loop(builder, out.field(dm.ARRAY_NITEMS), flat_body)
            with general:
                _strided(builder, out, out_ty, arrays, scalars, shape, compute)
    else:
        _strided(builder, out, out_ty, arrays, scalars, shape, compute)


def _strided(builder, out, out_ty, arrays, scalars, shape, compute):
    """The loop nest over the output's axes; each operand advances by its own stride (0
    along an axis it is broadcast over)."""
    ndim = out_ty.ndim
    i64 = dm.i64
    zero = ir.Constant(i64, 0)

    def strides_of(a):
        result = []
        for d in range(ndim):
            k = a.ty.ndim + d - ndim
            if k < 0:
                result.append(zero)
            else:
                result.append(builder.select(builder.icmp_unsigned("==", a.shape(k), shape[d]),
                                             a.stride(k), zero))
        return result
    operand_strides = [None if a is None else strides_of(a) for a in arrays]
    out_strides = [out.stride(d) for d in range(ndim)]

    def level(d, offsets, out_offset):
        if d == ndim:
            values = []
            for a, s, off in zip(arrays, scalars, offsets):
                if a is None:
                    values.append(s)
                else:
                    ptr = builder.gep(a.field(dm.ARRAY_DATA), [off], source_etype=dm.i8)
                    values.append(dm.load_item(builder, a.ty.dtype, ptr))
            ptr = builder.gep(out.field(dm.ARRAY_DATA), [out_offset], source_etype=dm.i8)
            dm.store_item(builder, out_ty.dtype, compute(values), ptr)
            return

        def body(i):
            inner = [None if st is None else builder.add(off, builder.mul(i, st[d]))
                     for off, st in zip(offsets, operand_strides)]
            level(d + 1, inner, builder.add(out_offset, builder.mul(i, out_strides[d])))
        _loop(builder, shape[d], body)
    level(0, [None if a is None else zero for a in arrays], zero)


# ---- registration ----------------------------------------------------------------------------

def _ufunc_template(ufunc):
    def typer(tctx, *operands):
        found = _resolve_ufunc(tctx, ufunc, operands)
        if found is None:
            return None
        result, element, loop = found
        if not isinstance(result, t.Array):  # all scalars: NumPy's semantics, one element
            def scalar(context, builder, sig, args):
                args = [context.cast(builder, a, ty, loop) for a, ty in zip(args, operands)]
                value = element.lower(context, builder, element.signature, args)
                return context.cast(builder, value, element.signature.return_type, result)
            return result(*operands), scalar

        def codegen(context, builder, sig, args):
            return elementwise(context, builder, result, args, operands, element, loop)
        codegen.new_reference = True
        return result(*operands), codegen
    return typer


def _operator_template(ufunc):
    """An operator applies to arrays only when an operand is one (scalars keep Python's)."""
    typer = _ufunc_template(ufunc)

    def on_arrays(tctx, *operands):
        if not any(isinstance(o, t.Array) for o in operands):
            return None
        return typer(tctx, *operands)
    return on_arrays


def _inplace_template(ufunc):
    """`a += b` on an array writes into `a` (its aliases see it), casting as NumPy's
    'same_kind' rule allows."""
    def typer(tctx, target, other):
        if not isinstance(target, t.Array):
            return None
        found = _resolve_ufunc(tctx, ufunc, (target, other))
        if found is None:
            return None
        result, element, loop = found
        if target.readonly:
            raise TypingError(f"cannot modify a read-only array ({target}) in place")
        if result.ndim != target.ndim:
            raise TypingError(f"non-broadcastable output operand: {target} {ufunc.__name__} "
                              f"{other} has more dimensions")
        if not np.can_cast(result.dtype.np_dtype, target.dtype.np_dtype, "same_kind"):
            raise TypingError(f"cannot cast the result of {ufunc.__name__} from "
                              f"{result.dtype} to {target.dtype} in place (NumPy's "
                              "'same_kind' rule)")

        def codegen(context, builder, sig, args):
            return elementwise(context, builder, target, args, (target, other), element, loop,
                               out=args[0])
        return target(target, other), codegen
    return typer


for _ufunc in UFUNCS:
    template(_ufunc)(_ufunc_template(_ufunc))
for _inplace, _op in INPLACE.items():
    template(_inplace)(_inplace_template(OPERATORS[_op]))
for _op, _ufunc in OPERATORS.items():
    template(_op)(_operator_template(_ufunc))

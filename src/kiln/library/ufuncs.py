"""NumPy's elementwise functions and the arithmetic operators on arrays, with broadcasting.

Types follow NumPy 2 exactly because NumPy itself decides them: at compile time the
ufunc runs on one-element arrays of the operands' dtypes (a default-width Python scalar
counts as a "weak" Python number, as NEP 50 says), and its result dtype is the result
type. The element operation is kiln's scalar implementation of the same operator or math
function, with NumPy's semantics where they differ from Python's (division by zero gives
inf/nan, not an exception: the `np_*` elements here and in ufunc_elements). One table lists
them all. float16 is computed in float32 and rounded once, as NumPy's loops do (but
`_HALF_LOOPS`). A two-output ufunc (modf, frexp, divmod) gives a tuple of two table entries
(`Output`), a loop each.

The loop over arrays, and the fusion of a tree of these operations into one loop, are
`fusion`'s.
"""
from __future__ import annotations

import math
import operator
import platform
import warnings
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from . import ufunc_elements as elements
from ..codegen.array_expressions import Consumer, Elementwise, Tree, as_trees, dtype_of
from .fusion import evaluate
from .numbers import numpy_left_shift, numpy_right_shift
from .number_helpers import exact_power
from ..typing.registry import intrinsic, overload, register_jitable, template

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


@intrinsic
def numpy_complex_divide(typingctx, a, b):
    """NumPy's complex division loop, Smith's method scaled by a reciprocal: by zero it is
    inf or nan (not Python's ZeroDivisionError), and other quotients round as NumPy's do
    (CPython divides by the denominator instead, which can differ in the last bit)."""
    if not (isinstance(a, t.Complex) and a == b):
        return None

    def codegen(context, builder, sig, args):
        (ar, ai), (br, bi) = [(builder.extract_value(v, 0), builder.extract_value(v, 1))
                              for v in args]
        fabs = context.declare_intrinsic("llvm.fabs", [br.type])
        abs_r, abs_i = builder.call(fabs, [br]), builder.call(fabs, [bi])
        zero, one = ir.Constant(br.type, 0.0), ir.Constant(br.type, 1.0)
        add, sub, mul, div = builder.fadd, builder.fsub, builder.fmul, builder.fdiv
        rat = div(bi, br)                      # |b.real| >= |b.imag|
        scl = div(one, add(br, mul(bi, rat)))
        real_major = (mul(add(ar, mul(ai, rat)), scl), mul(sub(ai, mul(ar, rat)), scl))
        rat = div(br, bi)                      # |b.imag| > |b.real|, or a NaN
        scl = div(one, add(bi, mul(br, rat)))
        imag_major = (mul(add(mul(ar, rat), ai), scl), mul(sub(mul(ai, rat), ar), scl))
        by_zero = (div(ar, abs_r), div(ai, abs_r))
        is_zero = builder.and_(builder.fcmp_ordered("==", abs_r, zero),
                               builder.fcmp_ordered("==", abs_i, zero))
        real_first = builder.fcmp_ordered(">=", abs_r, abs_i)
        parts = [builder.select(real_first, builder.select(is_zero, z, r), i)
                 for z, r, i in zip(by_zero, real_major, imag_major)]
        return context.make_tuple(builder, sig.return_type, parts)
    return a(a, b), codegen


def _rounding(name, keeps_integers):
    """A float rounding by the LLVM intrinsic `name`; integers stay as they are (NumPy's
    floor/ceil/trunc) or are not its business (rint converts them first)."""
    def typer(typingctx, x):
        if isinstance(x, t.Integer) and keeps_integers:
            return x(x), lambda context, builder, sig, args: args[0]
        if not isinstance(x, t.Float):
            return None

        def codegen(context, builder, sig, args):
            return builder.call(context.declare_intrinsic(name, [args[0].type]), list(args))
        return x(x), codegen
    return typer


np_floor = intrinsic(_rounding("llvm.floor", keeps_integers=True))
np_ceil = intrinsic(_rounding("llvm.ceil", keeps_integers=True))
np_trunc = intrinsic(_rounding("llvm.trunc", keeps_integers=True))
np_rint = intrinsic(_rounding("llvm.rint", keeps_integers=False))  # halves to even


@intrinsic
def np_reciprocal(typingctx, x):
    """1 / x of a float, IEEE (NumPy's integer reciprocal is not supported)."""
    if not isinstance(x, t.Float):
        return None

    def codegen(context, builder, sig, args):
        return builder.fdiv(ir.Constant(args[0].type, 1.0), args[0])
    return x(x), codegen
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


def _complex_divide(a, b):
    return numpy_complex_divide(a, b)


def _float_floor_divide(a, b):
    return ieee_divide(a, b) if b == 0 else a // b


def _int_floor_divide(a, b):
    # the zero in a's type: an int literal would make the result's type a's and int64's
    # common type, float64 for uint64 (whose quotients past 2**53 it would round)
    return type(a)(0) if b == 0 else a // b


def _float_remainder(a, b):
    return math.nan if b == 0 else a % b


def _int_remainder(a, b):
    return type(a)(0) if b == 0 else a % b


def _float_power(a, b):
    return ieee_power(a, b)


def _python_power(a, b):
    return a ** b


def _complex_power(a, b):
    """NumPy's complex power loop: 1 for a zero exponent; at a zero base 0 for an exponent
    of positive real part, else nan (Python raises ZeroDivisionError); an integral
    exponent under 100 by repeated squaring (a reciprocal by NumPy's division when it is
    negative); any other by the C library's cpow, as NumPy calls it."""
    one = type(a)(1)              # (an int would widen complex64 arithmetic)
    if b.real == 0 and b.imag == 0:
        return one
    if a == 0:
        if b.real > 0:
            return one * 0        # +0j for either zero
        return one * complex(math.nan, math.nan)
    if b.imag == 0 and -100 < b.real < 100 and b.real == math.floor(b.real):
        n = int(b.real)
        if n == 1:
            return a
        if n == 2:
            return a * a
        if n == 3:
            return a * (a * a)
        m = abs(n)
        result = one
        p = a
        mask = 1
        while True:
            if m & mask:
                result = result * p
            mask <<= 1
            if m < mask:
                break
            p = p * p
        return np_true_divide(one, result) if n < 0 else result
    return libm_cpow(a, b)


def libm_cpow(a, b):
    """The C library's complex power (compiled code only)."""


@overload(libm_cpow, target="cuda")
def _device_cpow(a, b):
    """Devices have no cpow: CPython's algorithm (the polar form)."""
    return lambda a, b: a ** b


@intrinsic(target="cpu")
def _host_cpow(typingctx, a, b):
    """cpow(a, b), or cpowf for complex64 where its C ABI is known (x86-64: a C complex
    float is two floats in one vector register; elsewhere cpow in double, rounded). A C
    complex double goes in two floating-point registers, as LLVM passes two doubles."""
    if not (isinstance(a, t.Complex) and a == b):
        return None

    def codegen(context, builder, sig, args):
        if a == t.complex64 and platform.machine() in ("x86_64", "AMD64"):
            pair = ir.VectorType(ir.FloatType(), 2)
            packed = []
            for value in args:
                vector = ir.Constant(pair, ir.Undefined)
                for i in range(2):
                    vector = builder.insert_element(vector, builder.extract_value(value, i),
                                                    ir.Constant(ir.IntType(32), i))
                packed.append(vector)
            result = builder.call(_libm(builder, "cpowf", pair, [pair, pair]), packed)
            out = ir.Constant(dm.value_type(a), ir.Undefined)
            for i in range(2):
                out = builder.insert_value(out, builder.extract_element(
                    result, ir.Constant(ir.IntType(32), i)), i)
            return out
        wide = t.complex128
        parts = []
        for value in args:
            value = context.cast(builder, value, a, wide)
            parts += [builder.extract_value(value, 0), builder.extract_value(value, 1)]
        double = ir.DoubleType()
        cpow = _libm(builder, "cpow", ir.LiteralStructType([double, double]), [double] * 4)
        return context.cast(builder, builder.call(cpow, parts), wide, a)
    return a(a, b), codegen


def _libm(builder, name, restype, argtypes):
    return builder.module.globals.get(name) or \
        ir.Function(builder.module, ir.FunctionType(restype, argtypes), name)


@overload(libm_cpow, target="cpu")
def _cpu_cpow(a, b):
    return lambda a, b: _host_cpow(a, b)


def _float_power_by_scalar(a, b):
    if b == 2.0:
        return a * a
    if b == 0.5:
        return math.sqrt(a)
    if b == -1.0:
        return np_reciprocal(a)
    return exact_power(a, b)    # products for 1 .. 8 (number_helpers), else C's pow


def _maximum(a, b):
    return a if (a > b or a != a) else b     # equal (0.0 and -0.0): b, as NumPy


def _minimum(a, b):
    return a if (a < b or a != a) else b


def _half_maximum(a, b):
    return a if (a >= b or a != a) else b    # float16's loop: equal gives a


def _half_minimum(a, b):
    return a if (a <= b or a != a) else b


def np_true_divide(a, b):
    """NumPy's true division of two operands of one dtype (compiled code only)."""


def np_floor_divide(a, b):
    """NumPy's floor division: by zero it is inf/nan for floats, 0 for integers."""


def np_remainder(a, b):
    """NumPy's remainder: by zero it is nan for floats, 0 for integers."""


def np_power(a, b):
    """NumPy's power: float overflow is inf, not OverflowError."""


def np_power_by_scalar(a, b):
    """NumPy's power of an array by a scalar exponent: its loop squares for 2, takes the
    square root for 0.5 and the reciprocal for -1 (pow's last bit can differ from those)."""


def np_maximum(a, b):
    """NumPy's maximum: NaN wins."""


def np_minimum(a, b):
    """NumPy's minimum: NaN wins."""


overload(np_true_divide)(_by_kind(_float_divide, None, _complex_divide))
overload(np_floor_divide)(_by_kind(_float_floor_divide, _int_floor_divide))
overload(np_remainder)(_by_kind(_float_remainder, _int_remainder))
overload(np_power)(_by_kind(_float_power, _python_power, _complex_power))
overload(np_power_by_scalar)(_by_kind(_float_power_by_scalar, _python_power, _complex_power))
def np_where(condition, x, y):
    """One element of np.where: x where the condition holds, else y."""


def np_square(x):
    """One element of np.square."""


def np_sign(x):
    """One element of np.sign: NaN stays NaN, either zero gives 0."""


def np_fmax(a, b):
    """NumPy's fmax: NaN loses."""


def np_fmin(a, b):
    """NumPy's fmin: NaN loses."""


def _square(x):
    return x * x


def _sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def _float_sign(x):
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    return 0.0 if x == 0 else x


def _fmax(a, b):
    return a if (a >= b or b != b) else b


def _fmin(a, b):
    return a if (a <= b or b != b) else b


@register_jitable
def _conjugate_element(x):
    return x.conjugate()


@register_jitable
def _logical_not(x):
    return not x


def np_isnan(x):
    """One element of np.isnan: of a complex number, either part NaN."""


def np_isinf(x):
    """One element of np.isinf: of a complex number, either part infinite."""


def np_isfinite(x):
    """One element of np.isfinite: of a complex number, both parts finite."""


def _by_parts(real_test, any_part):
    def test(x):
        if any_part:
            return real_test(x.real) or real_test(x.imag)
        return real_test(x.real) and real_test(x.imag)
    return lambda x: test if isinstance(x, t.Complex) else lambda x: real_test(x)


overload(np_isnan)(_by_parts(math.isnan, any_part=True))
overload(np_isinf)(_by_parts(math.isinf, any_part=True))
overload(np_isfinite)(_by_parts(math.isfinite, any_part=False))


def _complex_square(x):
    return elements.np_multiply(x, x)    # NumPy squares with its complex product


overload(np_square)(lambda x: _complex_square if isinstance(x, t.Complex) else _square)
overload(np_sign)(lambda x: _float_sign if isinstance(x, t.Float) else
                  elements.complex_sign if isinstance(x, t.Complex) else _sign)
overload(np_fmax)(lambda a, b: elements.complex_fmax if isinstance(a, t.Complex) else _fmax)
overload(np_fmin)(lambda a, b: elements.complex_fmin if isinstance(a, t.Complex) else _fmin)


def np_clip(x, low, high):
    """One element of np.clip: NaN in any operand wins, as in NumPy."""


def _real_only(implementation):
    """Complex numbers refused: NumPy's clip of them is not min(max(x, low), high), and kiln
    does not have it."""
    return lambda x, low, high: None if isinstance(x, t.Complex) else implementation


def _clip(x, low, high):
    return np_minimum(np_maximum(x, low), high)


overload(np_clip)(_real_only(_clip))


def np_clip_by_scalars(x, low, high):
    """One element of np.clip with scalar bounds, as NumPy's loop for bounds of stride 0
    computes it: a NaN bound gives NaN, and an element equal to a bound (0.0 against -0.0)
    is kept, where array bounds give the bound."""


def _clip_by_scalars(x, low, high):
    if low != low:
        return low
    if high != high:
        return high
    kept = low if x < low else x
    return high if kept > high else kept


overload(np_clip_by_scalars)(_real_only(_clip_by_scalars))


def _choose(condition, x, y):
    return x if condition else y


overload(np_where)(lambda condition, x, y: _choose)
overload(np_maximum)(lambda a, b: _half_maximum if a == t.float16 else
                     elements.complex_maximum if isinstance(a, t.Complex) else _maximum)
overload(np_minimum)(lambda a, b: _half_minimum if a == t.float16 else
                     elements.complex_minimum if isinstance(a, t.Complex) else _minimum)


# ufunc -> (the scalar operation kiln applies per element, how inputs are converted):
#   "result": inputs converted to the result dtype (arithmetic);
#   "common": inputs converted to their common dtype, result bool (comparisons);
#   "same": the input as it is (predicates such as isnan);
#   "where": np.where's condition as a bool, the two choices converted to the result dtype;
#   "bool": every input as a bool (the logical functions);
#   "float_and_int": the first input as the result dtype, the second as int64 (ldexp);
#   "mantissa": the input as the float dtype of frexp's mantissa (for its exponent).
UFUNCS = {
    np.add: (operator.add, "result"), np.subtract: (operator.sub, "result"),
    np.multiply: (elements.np_multiply, "result"), np.true_divide: (np_true_divide, "result"),
    np.floor_divide: (np_floor_divide, "result"), np.remainder: (np_remainder, "result"),
    np.power: (np_power, "result"),
    np.bitwise_and: (operator.and_, "result"), np.bitwise_or: (operator.or_, "result"),
    np.bitwise_xor: (operator.xor, "result"),
    np.left_shift: (numpy_left_shift, "result"), np.right_shift: (numpy_right_shift, "result"),
    np.equal: (operator.eq, "common"), np.not_equal: (operator.ne, "common"),
    np.less: (elements.np_less, "common"), np.less_equal: (elements.np_less_equal, "common"),
    np.greater: (elements.np_greater, "common"),
    np.greater_equal: (elements.np_greater_equal, "common"),
    np.negative: (operator.neg, "result"), np.positive: (operator.pos, "result"),
    np.invert: (operator.invert, "result"), np.absolute: (elements.np_absolute, "same"),
    np.maximum: (np_maximum, "result"), np.minimum: (np_minimum, "result"),
    np.isnan: (np_isnan, "same"), np.isinf: (np_isinf, "same"),
    np.isfinite: (np_isfinite, "same"),
    np.arctan2: (math.atan2, "result"), np.hypot: (math.hypot, "result"),
    np.copysign: (math.copysign, "result"), np.fmod: (elements.np_fmod, "result"),
    np.where: (np_where, "where"),
    np.floor: (np_floor, "result"), np.ceil: (np_ceil, "result"), np.trunc: (np_trunc, "result"),
    np.rint: (np_rint, "result"), np.reciprocal: (np_reciprocal, "result"),
    np.square: (np_square, "result"), np.sign: (np_sign, "result"),
    np.fmax: (np_fmax, "result"), np.fmin: (np_fmin, "result"),
    np.conjugate: (_conjugate_element, "result"),
    np.logical_and: (operator.and_, "bool"), np.logical_or: (operator.or_, "bool"),
    np.logical_xor: (operator.xor, "bool"), np.logical_not: (_logical_not, "bool"),
}
UFUNCS.update({
    np.deg2rad: (elements.np_deg2rad, "result"), np.radians: (elements.np_deg2rad, "result"),
    np.rad2deg: (elements.np_rad2deg, "result"), np.degrees: (elements.np_rad2deg, "result"),
    np.float_power: (np_power, "result"), np.gcd: (elements.np_gcd, "result"),
    np.lcm: (elements.np_lcm, "result"), np.heaviside: (elements.np_heaviside, "result"),
    np.logaddexp: (elements.np_logaddexp, "result"),
    np.logaddexp2: (elements.np_logaddexp2, "result"),
    np.nextafter: (elements.np_nextafter, "result"), np.spacing: (elements.np_spacing, "result"),
    np.signbit: (elements.np_signbit, "same"), np.ldexp: (math.ldexp, "float_and_int"),
})

if hasattr(np, "bitwise_count"):  # NumPy 2
    UFUNCS[np.bitwise_count] = (elements.np_bitwise_count, "same")
CLIP = getattr(np, "_core", getattr(np, "core", None)).umath.clip  # the ufunc behind np.clip
UFUNCS[CLIP] = (np_clip, "result")
_MATH = {"sqrt": "sqrt", "exp": "exp", "log": "log", "log10": "log10", "log2": "log2",
         "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan",
         "arcsin": "asin", "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh",
         "tanh": "tanh", "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh",
         "fabs": "fabs", "exp2": "exp2", "cbrt": "cbrt"}
UFUNCS.update({getattr(np, name): (getattr(math, fn), "result") for name, fn in _MATH.items()
               if hasattr(np, name) and hasattr(math, fn)})
UFUNCS[np.abs] = UFUNCS[np.absolute]


UFUNCS[np.isnat] = (np.isnat, "same")
_DATETIMES = (t.NPDatetime, t.NPTimedelta)
_DATETIME_ELEMENTS = {np.multiply: operator.mul, np.true_divide: operator.truediv,
                      np.floor_divide: operator.floordiv, np.remainder: operator.mod}


@dataclass(frozen=True)
class Output:
    """One output of a two-output ufunc (modf, frexp, divmod), as a one-output function of
    the same inputs: NumPy's `ufunc(...)[index]`. Each is in the table; the ufunc itself
    computes its outputs in one loop each."""

    ufunc: np.ufunc
    index: int

    @property
    def nin(self):
        return self.ufunc.nin

    @property
    def __name__(self):
        return f"{self.ufunc.__name__}[{self.index}]"

    def __call__(self, *args):
        return self.ufunc(*args)[self.index]


MODF = Output(np.modf, 0), Output(np.modf, 1)
FREXP = Output(np.frexp, 0), Output(np.frexp, 1)
DIVMOD = Output(np.divmod, 0), Output(np.divmod, 1)
UFUNCS.update({
    MODF[0]: (elements.np_modf_fraction, "result"), MODF[1]: (elements.np_modf_integral, "result"),
    FREXP[0]: (elements.np_frexp_mantissa, "result"),
    FREXP[1]: (elements.np_frexp_exponent, "mantissa"),
    DIVMOD[0]: (np_floor_divide, "result"), DIVMOD[1]: (np_remainder, "result"),
})


def _both_outputs(outputs):
    """The overload of a two-output ufunc: a tuple of its outputs."""
    first, second = outputs

    def unary(x):
        return (first(x), second(x))

    def binary(a, b):
        return (first(a, b), second(a, b))

    def typer(*operands):
        if len(operands) != first.nin or not all(isinstance(o, (t.Array, t.Number))
                                                 for o in operands):
            return None
        if _numpy_dtype(first, operands) is None:   # NumPy has no loop for these
            return None
        return unary if first.nin == 1 else binary
    return typer


_divmod = _both_outputs(DIVMOD)
overload(np.modf)(_both_outputs(MODF))
overload(np.frexp)(_both_outputs(FREXP))
overload(np.divmod)(_divmod)
overload(divmod)(lambda a, b: _divmod(a, b)   # an array's __divmod__ is np.divmod
                 if isinstance(a, t.Array) or isinstance(b, t.Array) else None)


def _infinity_of_sign(negative):
    """np.isposinf / np.isneginf (functions, not ufuncs): isinf and the sign bit, fused."""
    def isposinf(x):
        return np.logical_and(np.isinf(x), np.logical_not(np.signbit(x)))

    def isneginf(x):
        return np.logical_and(np.isinf(x), np.signbit(x))

    def typer(x):
        if isinstance(dtype_of(x), t.Complex):
            raise TypingError(f"This operation is not supported for {dtype_of(x)} values "
                              "because it would be ambiguous.")
        return isneginf if negative else isposinf
    return typer


overload(np.isposinf)(_infinity_of_sign(False))
overload(np.isneginf)(_infinity_of_sign(True))



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
           operator.ior: operator.or_, operator.ixor: operator.xor,
           operator.ilshift: operator.lshift, operator.irshift: operator.rshift}

# NumPy computes float16 ufuncs in float32 and rounds the result to float16, but for these,
# which have float16 loops of their own.
_HALF_LOOPS = {np.nextafter, np.spacing, np.maximum, np.minimum}

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


def resolve_ufunc(tctx, ufunc, operands):
    """(result type, per-element Resolution, the dtypes the operands are converted to) or
    None."""
    nin = getattr(ufunc, "nin", 3)  # np.where(cond, x, y)
    if not all(isinstance(o, (t.Array, t.Number)) for o in operands) or nin != len(operands):
        return None
    key, conversion = UFUNCS[ufunc]
    if ufunc is np.power and isinstance(operands[0], t.Array) and \
            isinstance(operands[1], t.Number):
        key = np_power_by_scalar
    if ufunc is CLIP and all(isinstance(o, t.Number) or o.ndim == 0 for o in operands[1:]):
        key = np_clip_by_scalars   # bounds of stride 0 (NumPy decides on the strides)
    out_dtype = _numpy_dtype(ufunc, operands)
    datetimes = [dtype_of(o) for o in operands if isinstance(dtype_of(o), _DATETIMES)]
    if datetimes and out_dtype is None:
        raise TypingError(f"ufunc '{ufunc.__name__}' is not supported between "
                          f"{' and '.join(str(dtype_of(o)) for o in operands)}")
    if out_dtype is None:
        return None
    if datetimes and conversion in ("result", "common"):
        # datetime64 operations convert units themselves (library/datetimes.py): each
        # operand as it is, to the scalar operator
        key = _DATETIME_ELEMENTS.get(ufunc, key)
        loops = tuple(dtype_of(o) for o in operands)
    elif conversion == "result":
        loops = (out_dtype,) * nin
    elif conversion == "common":
        common = _numpy_dtype(np.add, operands) if nin == 2 else dtype_of(operands[0])
        if common is None:
            return None
        loops = (common,) * nin
        by_value = _by_value(ufunc, operands, common)
        if by_value is not None:
            key, loops = by_value
    elif conversion == "where":
        loops = (t.boolean, out_dtype, out_dtype)
    elif conversion == "bool":
        loops = (t.boolean,) * nin
    elif conversion == "float_and_int":   # ldexp: the float's dtype, an int exponent
        loops = (out_dtype, t.int64)
    elif conversion == "mantissa":
        loops = (_numpy_dtype(FREXP[0], operands),)
    else:
        loops = (dtype_of(operands[0]),)
    if t.float16 in loops and ufunc not in _HALF_LOOPS:
        loops = tuple(t.float32 if loop == t.float16 else loop for loop in loops)
    element = tctx.resolve(key, loops)
    if element is None:
        return None
    return elementwise_result(out_dtype, operands), element, loops


def _by_value(ufunc, operands, common):
    """(element, loops) of a comparison of an integer array with a Python int, which NumPy
    2 compares by value even outside the array's dtype (`uint8_array > -1`): in int64, or
    uint64 against int64 by sign first; None for other comparisons."""
    if not isinstance(common, t.Integer) or len(operands) != 2:
        return None
    arrays = [o for o in operands if isinstance(o, t.Array)]
    if len(arrays) != 1 or not isinstance(arrays[0].dtype, t.Integer) or \
            t.int64 not in operands:
        return None
    if arrays[0].dtype != t.uint64:
        return UFUNCS[ufunc][0], (t.int64, t.int64)
    return elements.MIXED_COMPARISONS[ufunc.__name__], \
        tuple(t.uint64 if isinstance(o, t.Array) else t.int64 for o in operands)


def elementwise_result(out_dtype, operands):
    """An elementwise function's result: a number of scalars, a new C array otherwise."""
    arrays = [o for o in operands if isinstance(o, t.Array)]
    if not arrays:
        return out_dtype
    return t.Array(out_dtype, max(a.ndim for a in arrays), "C")


# ---- registration ----------------------------------------------------------------------------

def _ufunc_template(ufunc):
    return elementwise_template(lambda tctx, operands: resolve_ufunc(tctx, ufunc, operands))


def elementwise_template(resolve):
    """The template of an elementwise function: `resolve(tctx, operand types)` gives (result
    type, per-element Resolution, the dtypes the operands are converted to) or None. On
    scalars it is one element; on arrays a loop that fuses with its neighbours."""
    def typer(tctx, *operands):
        found = resolve(tctx, operands)
        if found is None:
            return None
        result, element, loops = found
        operation = Elementwise(result, element, loops)
        if not isinstance(result, t.Array):  # all scalars: NumPy's semantics, one element
            def scalar(context, builder, sig, args):
                tree = operation.apply([Tree.leaf(a, ty) for a, ty in zip(args, operands)])
                return tree.compute(context, builder, args)
            return result(*operands), scalar

        def codegen(context, builder, sig, args):
            return evaluate(context, builder, operation.apply(as_trees(args, operands)))
        codegen.new_reference = True
        codegen.fusion = Consumer(frozenset(range(len(operands))), operation)
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
        found = resolve_ufunc(tctx, ufunc, (target, other))
        if found is None:
            return None
        result, element, loops = found
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
            tree = Elementwise(target, element, loops).apply(as_trees(args, (target, other)))
            return evaluate(context, builder, tree, out=args[0], out_ty=target)
        codegen.fusion = Consumer(frozenset({1}))
        return target(target, other), codegen
    return typer


for _ufunc in UFUNCS:   # np.where of scalars only is routines.py's: a 0-d array
    template(_ufunc)((_operator_template if _ufunc is np.where else _ufunc_template)(_ufunc))
template(np.clip)(_ufunc_template(CLIP))
template(("method", "conj"))(_operator_template(np.conjugate))  # on arrays; numbers have theirs
template(("method", "conjugate"))(_operator_template(np.conjugate))
template(("method", "clip"))(_ufunc_template(CLIP))
for _inplace, _op in INPLACE.items():
    template(_inplace)(_inplace_template(OPERATORS[_op]))
for _op, _ufunc in OPERATORS.items():
    template(_op)(_operator_template(_ufunc))

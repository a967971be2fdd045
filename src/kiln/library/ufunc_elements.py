"""Elements of the NumPy ufuncs that Python's operators and `math` do not provide, each
written after NumPy's own C loop (npy_math) so the numbers are NumPy's: constants are
taken in the operands' dtype (float32 arithmetic stays float32), and the branches follow
NumPy's for infinities, zeros and NaN. ufuncs.py's table maps each ufunc to one of these.
"""
from __future__ import annotations

import math

from llvmlite import ir

from .. import types as t
from ..typing.registry import intrinsic, overload, register_jitable


def _in_dtype(ty, *values):
    """`values` as NumPy scalars of the float type `ty` (closure constants of that type)."""
    return tuple(ty.np_dtype.type(v) for v in values)


def np_deg2rad(x):
    """x * (pi / 180), the constant computed in x's dtype as NumPy's loop does."""


def np_rad2deg(x):
    """x * (180 / pi), the constant computed in x's dtype."""


def _scaled(numerator, denominator):
    def ov(x):
        if not isinstance(x, t.Float):
            return None
        top, bottom = _in_dtype(x, numerator, denominator)
        factor = top / bottom

        def scale(x):
            return x * factor
        return scale
    return ov


overload(np_deg2rad)(_scaled(math.pi, 180.0))
overload(np_rad2deg)(_scaled(180.0, math.pi))


def np_gcd(a, b):
    """Greatest common divisor of the absolute values (gcd(0, 0) is 0)."""


def np_lcm(a, b):
    """Least common multiple of the absolute values (0 when either is 0)."""


def _magnitudes(a):
    """(the unsigned type of a's width, a's type): npy_gcd runs Euclid on the magnitudes as
    unsigned numbers, where |INT_MIN| is 2**(n-1): gcd(INT_MIN, 6) is 2, and gcd(INT_MIN, 0)
    converts back to INT_MIN."""
    return t.integer_of(a.bitwidth, False).np_dtype.type, a.np_dtype.type


@overload(np_gcd)
def _gcd(a, b):
    if not isinstance(a, t.Integer):
        return None
    unsigned, result = _magnitudes(a)

    def gcd(a, b):
        x, y = unsigned(abs(a)), unsigned(abs(b))
        while x != 0:
            x, y = y % x, x
        return result(y)
    return gcd


@overload(np_lcm)
def _lcm(a, b):
    if not isinstance(a, t.Integer):
        return None
    unsigned, result = _magnitudes(a)

    def lcm(a, b):
        x, y = unsigned(abs(a)), unsigned(abs(b))
        g = result(np_gcd(a, b))
        if g == 0:
            return g
        return result(x // unsigned(g) * y)
    return lcm


def np_fmod(a, b):
    """C's remainder, signed as the dividend: math.fmod for floats; for integers 0 when
    dividing by 0, as NumPy's loop."""


def _int_fmod(a, b):
    if b == 0:
        return a - a
    r = a % b            # Python's: signed as the divisor
    if r != 0 and (r < 0) != (a < 0):
        return r - b
    return r


def _float_fmod(a, b):
    return math.fmod(a, b)


overload(np_fmod)(lambda a, b: _int_fmod if isinstance(a, t.Integer) else
                  _float_fmod if isinstance(a, t.Float) else None)


def np_heaviside(x, h0):
    """0 below zero, 1 above, h0 at zero, NaN for NaN."""


def _heaviside(x, h0):
    if x < 0:
        return 0.0
    if x > 0:
        return 1.0
    if x == 0:
        return h0
    return x


overload(np_heaviside)(lambda x, h0: _heaviside)


def np_logaddexp(x, y):
    """log(exp(x) + exp(y)) without overflow, as npy_logaddexp."""


def np_logaddexp2(x, y):
    """log2(2**x + 2**y) without overflow, as npy_logaddexp2."""


@overload(np_logaddexp)
def _logaddexp(x, y):
    if not isinstance(x, t.Float):
        return None
    (log2,) = _in_dtype(x, math.log(2.0))

    def logaddexp(x, y):
        if x == y:    # infinities of one sign, without inf - inf
            return x + log2
        tmp = x - y
        if tmp > 0:
            return x + math.log1p(math.exp(-tmp))
        if tmp <= 0:
            return y + math.log1p(math.exp(tmp))
        return tmp    # NaN
    return logaddexp


@overload(np_logaddexp2)
def _logaddexp2(x, y):
    if not isinstance(x, t.Float):
        return None
    one, log2e = _in_dtype(x, 1.0, 1.0 / math.log(2.0))

    def logaddexp2(x, y):
        if x == y:
            return x + one
        tmp = x - y
        if tmp > 0:
            return x + log2e * math.log1p(math.exp2(-tmp))
        if tmp <= 0:
            return y + log2e * math.log1p(math.exp2(tmp))
        return tmp
    return logaddexp2


def np_spacing(x):
    """The distance to the next float away from zero, upwards from either zero (NaN for
    infinities)."""


def np_nextafter(x, y):
    """The next float after x towards y."""


@overload(np_spacing)
def _spacing(x):
    if x == t.float16:
        return _half_spacing
    if not isinstance(x, t.Float):
        return None
    (inf,) = _in_dtype(x, math.inf)

    def spacing(x):
        if math.isinf(x):
            return x - x
        return math.nextafter(x, -inf if x < 0 else inf) - x   # -0.0 steps up
    return spacing


@overload(np_nextafter)
def _nextafter(x, y):
    if x == t.float16:
        return _half_nextafter
    if not isinstance(x, t.Float):
        return None
    return lambda x, y: math.nextafter(x, y)


# NumPy's float16 spacing and nextafter work on the bits (npy_half_spacing,
# npy_half_nextafter); these compute the same halves exactly in float64 from the binade
# exponent: a half of frexp exponent e steps by 2**(e - 11), never below 2**-24.

@register_jitable
def _half_step(x, toward_zero):
    mantissa, exponent = math.frexp(x)
    if toward_zero and abs(mantissa) == 0.5:   # from 2**k down into the binade below
        exponent -= 1
    return math.ldexp(1.0, max(exponent - 11, -24))


def _half_spacing(h):
    """npy_half_spacing: always positive; for -2**k it is the step towards zero."""
    x = float(h)
    if not math.isfinite(x):
        return math.nan
    if x == 65504.0:     # the largest half: the next is inf
        return math.inf
    if x == 0:
        return 2.0 ** -24
    return _half_step(x, x < 0)


def _half_nextafter(hx, hy):
    """npy_half_nextafter: x itself when x == y (so 0.0 towards -0.0 stays 0.0)."""
    x, y = float(hx), float(hy)
    if x != x or y != y:
        return math.nan
    if x == y:
        return x
    if x == 0:
        return math.copysign(2.0 ** -24, y)
    if math.isinf(x):
        return math.copysign(65504.0, x)
    step = _half_step(x, (x > y) == (x > 0))
    # a step to zero keeps x's sign (the bits count down to -0.0); 65504 + 32 rounds to inf
    return math.copysign(x - step if x > y else x + step, x)


def np_modf_fraction(x):
    """modf's first output: the fractional part, with x's sign (±0.0 for infinities)."""


def np_modf_integral(x):
    """modf's second output: the integral part."""


def np_frexp_mantissa(x):
    """frexp's first output: the mantissa in [0.5, 1) with x's sign (x itself for 0, inf,
    NaN)."""


def np_frexp_exponent(x):
    """frexp's second output: the exponent (0 for 0, inf, NaN)."""


def _of_floats(impl):
    return lambda x: impl if isinstance(x, t.Float) else None


overload(np_modf_fraction)(_of_floats(lambda x: math.modf(x)[0]))
overload(np_modf_integral)(_of_floats(lambda x: math.modf(x)[1]))
overload(np_frexp_mantissa)(_of_floats(lambda x: math.frexp(x)[0]))
overload(np_frexp_exponent)(_of_floats(lambda x: math.frexp(x)[1]))


def np_signbit(x):
    """Whether the sign bit is set (-0.0 and negative NaN included)."""


def _float_signbit(x):
    return math.copysign(1.0, x) < 0


def _int_signbit(x):
    return x < 0


overload(np_signbit)(lambda x: _float_signbit if isinstance(x, t.Float) else _int_signbit)


@intrinsic
def np_bitwise_count(typingctx, x):
    """How many bits are set in |x| (NumPy's bitwise_count), as uint8."""
    if not isinstance(x, (t.Integer, t.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        value = args[0]
        if isinstance(x, t.Integer) and x.signed:
            negative = builder.icmp_signed("<", value, ir.Constant(value.type, 0))
            value = builder.select(negative, builder.neg(value), value)
        count = builder.call(context.declare_intrinsic("llvm.ctpop", [value.type]), [value])
        width = count.type.width
        byte = ir.IntType(8)
        return count if width == 8 else \
            builder.trunc(count, byte) if width > 8 else builder.zext(count, byte)
    return t.uint8(x), codegen


def complex_sign(z):
    """np.sign of a complex number (NumPy 2): z / |z| in the parts' dtype, with NumPy's
    loop's answers for NaN, infinities and zero."""
    re, im = z.real, z.imag
    magnitude = abs(z)
    if magnitude != magnitude:
        return complex(math.nan, math.nan)
    if math.isinf(magnitude):
        if math.isinf(re):
            if math.isinf(im):
                return complex(math.nan, math.nan)
            return complex(1.0 if re > 0 else -1.0, 0.0)
        return complex(0.0, 1.0 if im > 0 else -1.0)
    if magnitude == 0:
        return complex(0.0, 0.0)
    return complex(re / magnitude, im / magnitude)


# NumPy orders complex numbers by their real parts, then their imaginary parts (its CGE and
# CLE macros: a NaN imaginary part makes the real parts' order void).
@register_jitable
def _has_nan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


@register_jitable
def complex_ge(x, y):
    return (x.real > y.real and not math.isnan(x.imag) and not math.isnan(y.imag)) or \
        (x.real == y.real and x.imag >= y.imag)


@register_jitable
def complex_le(x, y):
    return (x.real < y.real and not math.isnan(x.imag) and not math.isnan(y.imag)) or \
        (x.real == y.real and x.imag <= y.imag)


@register_jitable
def complex_gt(x, y):
    return (x.real > y.real and not math.isnan(x.imag) and not math.isnan(y.imag)) or \
        (x.real == y.real and x.imag > y.imag)


@register_jitable
def complex_lt(x, y):
    return (x.real < y.real and not math.isnan(x.imag) and not math.isnan(y.imag)) or \
        (x.real == y.real and x.imag < y.imag)


def np_less(a, b):
    """One element of np.less: Python's `<`, complex numbers in NumPy's order."""


def np_less_equal(a, b):
    """One element of np.less_equal."""


def np_greater(a, b):
    """One element of np.greater."""


def np_greater_equal(a, b):
    """One element of np.greater_equal."""


def _lt(a, b):
    return a < b


def _le(a, b):
    return a <= b


def _gt(a, b):
    return a > b


def _ge(a, b):
    return a >= b


def _ordering(in_complex_order, plain):
    return lambda a, b: in_complex_order if isinstance(a, t.Complex) else plain


for _element, _in_complex_order, _plain in ((np_less, complex_lt, _lt),
                                            (np_less_equal, complex_le, _le),
                                            (np_greater, complex_gt, _gt),
                                            (np_greater_equal, complex_ge, _ge)):
    overload(_element)(_ordering(_in_complex_order, _plain))


def complex_maximum(a, b):
    """NumPy's maximum of complex numbers: a NaN in `a` wins, else `a` unless `b` is
    greater (a NaN in `b` then wins)."""
    return a if _has_nan(a) or complex_ge(a, b) else b


def complex_minimum(a, b):
    return a if _has_nan(a) or complex_le(a, b) else b


def complex_fmax(a, b):
    """NumPy's fmax of complex numbers: a NaN in `b` loses."""
    return a if _has_nan(b) or complex_ge(a, b) else b


def complex_fmin(a, b):
    return a if _has_nan(b) or complex_le(a, b) else b


def ordered_less(a, b):
    """a < b, complex numbers in NumPy's order (by real part, then imaginary part), as
    np.argmin and np.min compare them."""


@overload(ordered_less)
def _ordered_less(a, b):
    if isinstance(a, t.Complex) or isinstance(b, t.Complex):
        def lexicographic(a, b):
            return a.real < b.real or (a.real == b.real and a.imag < b.imag)
        return lexicographic

    def plain(a, b):
        return a < b
    return plain


def np_multiply(a, b):
    """One element of np.multiply. NumPy's SIMD loop multiplies complex numbers with fused
    multiply-adds where the CPU has them (AVX2 and FMA3: its X86_V3 dispatch), rounding
    each part once after a product: (a+bj)(c+dj) = fma(a, c, -bd) + fma(a, d, bc)j. kiln
    compiles for this CPU, so it does the same here (Python's operator, and np.prod,
    round every product)."""


def _host_fuses():
    import llvmlite.binding as llvm
    features = llvm.get_host_cpu_features()
    return bool(features.get("fma")) and bool(features.get("avx2"))


@intrinsic
def _fused_complex_product(typingctx, x, y):
    if not (isinstance(x, t.Complex) and x == y):
        return None

    def codegen(context, builder, sig, args):
        (a, b), (c, d) = [[builder.extract_value(v, i) for i in (0, 1)] for v in args]
        ty = a.type
        fma = builder.module.declare_intrinsic("llvm.fma", [ty], ir.FunctionType(ty, [ty] * 3))
        re = builder.call(fma, [a, c, builder.fneg(builder.fmul(b, d))])
        im = builder.call(fma, [a, d, builder.fmul(b, c)])
        return context.make_tuple(builder, x, [re, im])
    return x(x, y), codegen


@overload(np_multiply)
def _np_multiply(a, b):
    if isinstance(a, t.Complex) and a == b and _host_fuses():
        def fused(a, b):
            return _fused_complex_product(a, b)
        return fused

    def plain(a, b):
        return a * b
    return plain


# NumPy 2 compares an integer array with a Python int by value, even an int outside the
# array's dtype (`uint8_array > -1` is all True): kiln converts both to int64 where that
# holds both, and compares a uint64 with an int64 by sign first (these elements).
@register_jitable
def _unsigned_signed_order(u, s):
    """-1, 0 or 1: how the uint64 `u` compares with the int64 `s`."""
    if s < 0:
        return 1
    v = _as_uint64(s)
    return 1 if u > v else (-1 if u < v else 0)


@intrinsic
def _as_uint64(typingctx, s):
    """A non-negative int64 as a uint64 (the same bits)."""
    if not isinstance(s, t.Integer):
        return None
    return t.uint64(s), lambda context, builder, sig, args: args[0]


def _mixed_comparison(test):
    def element(a, b):
        """One element of a comparison of a uint64 with an int64 (either order)."""

    def ov(a, b):
        if a == t.uint64:
            def unsigned_first(a, b):
                return test(_unsigned_signed_order(a, b))
            return unsigned_first

        def signed_first(a, b):
            return test(-_unsigned_signed_order(b, a))
        return signed_first
    overload(element)(ov)
    return element


def _less(order):
    return order < 0


def _less_equal(order):
    return order <= 0


def _greater(order):
    return order > 0


def _greater_equal(order):
    return order >= 0


def _equal(order):
    return order == 0


def _not_equal(order):
    return order != 0


MIXED_COMPARISONS = {name: _mixed_comparison(register_jitable(test)) for name, test in (
    ("less", _less), ("less_equal", _less_equal), ("greater", _greater),
    ("greater_equal", _greater_equal), ("equal", _equal), ("not_equal", _not_equal))}


def np_absolute(x):
    """One element of np.absolute. For complex numbers NumPy's SIMD loop does not call
    hypot (as Python's abs does): it scales by the larger part, |z| = larger *
    sqrt(r*r + 1) with r = smaller / larger, the r*r + 1 fused where the CPU fuses
    (np_multiply says when); an infinite part gives inf, else a NaN part gives NaN."""


@intrinsic
def _square_plus_one(typingctx, r):
    """r*r + 1: one fused multiply-add where NumPy's loop fuses, else two roundings."""
    def codegen(context, builder, sig, args):
        (x,) = args
        one = ir.Constant(x.type, 1.0)
        if _host_fuses():
            fma = builder.module.declare_intrinsic("llvm.fma", [x.type],
                                                   ir.FunctionType(x.type, [x.type] * 3))
            return builder.call(fma, [x, x, one])
        return builder.fadd(builder.fmul(x, x), one)
    return r(r), codegen


@overload(np_absolute)
def _np_absolute(x):
    if not isinstance(x, t.Complex):
        return lambda x: abs(x)
    (inf,) = _in_dtype(x.underlying_float, math.inf)

    def complex_absolute(x):
        re, im = abs(x.real), abs(x.imag)
        if re == inf or im == inf:
            return inf
        if re != re or im != im:
            return re + im               # NaN
        larger, smaller = (re, im) if re >= im else (im, re)
        if larger == 0:
            return larger
        return math.sqrt(_square_plus_one(smaller / larger)) * larger
    return complex_absolute

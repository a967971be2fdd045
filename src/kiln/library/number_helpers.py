"""Scalar algorithms written in Python and compiled by kiln itself, following CPython's
own C code (floatobject.c, complexobject.c) so results match CPython bit for bit."""
from __future__ import annotations

import math


from llvmlite import ir

from .. import types as t
from .mathlib import call_libm
from ..typing.registry import intrinsic, register_jitable


@intrinsic
def _floor(typingctx, x):
    """Float floor that stays a float (math.floor returns an int)."""
    def codegen(context, builder, sig, args):
        fn = context.declare_intrinsic("llvm.floor", [args[0].type])
        return builder.call(fn, args)
    return x(x), codegen


@intrinsic
def _pow(typingctx, x, y):
    """The C library's pow, as CPython calls it (see mathlib.call_libm)."""
    def codegen(context, builder, sig, args):
        return call_libm(context, builder, "pow", x, list(args))
    return x(x, x), codegen


# ---- float ** small integer: correctly rounded products ------------------------------------
#
# x ** n for n = 2 .. 8 is computed from error-free products: x*x = h + l exactly
# (l = fma(x, x, -h)), and the last product is a single fma whose addend carries the low
# part, so the result is x**n rounded once (to nearest): x*x bit for bit for n = 2, and for
# n = 3 .. 8 the correctly rounded power (the low parts are accurate to about 2**-100 of the
# result, so only an exact value within that distance of a rounding midpoint could round the
# other way). The C library's pow is not correctly rounded (glibc's misrounds about 0.07% of
# random float64 bases, by one unit in the last place); where it does, kiln's result is the
# exact one. Where that result is not finite (the power overflows, or x is inf or NaN)
# the answer is the plain product times inf (inf of the power's sign, or x's NaN). A
# subnormal result (below 2**-1022) can be one unit of the subnormal grid off: the low part
# is rounded to that grid before it is added. The ops carry no fast-math flags, and LLVM
# vectorizes them (fma, select).

EXACT_POWERS = range(1, 9)


def _exact_chain(builder, fma, x, n):
    """(result, plain product) of x ** n, 3 <= n <= 8."""
    def two_prod(a, b):
        p = builder.fmul(a, b)
        return p, builder.call(fma, [a, b, builder.fneg(p)])

    def square_dd(hi, lo):                      # (hi + lo)**2 as (high, low)
        p, e = two_prod(hi, hi)
        return p, builder.fadd(e, builder.fmul(hi, builder.fadd(lo, lo)))

    def times_x_dd(hi, lo):                     # (hi + lo) * x as (high, low)
        p, e = two_prod(hi, x)
        return p, builder.fadd(e, builder.fmul(lo, x))

    def round_square(hi, lo):                   # (hi + lo)**2 rounded once
        addend = builder.fmul(hi, builder.fadd(lo, lo))
        return builder.call(fma, [hi, hi, addend]), builder.fmul(hi, hi)

    def round_times_x(hi, lo):                  # (hi + lo) * x rounded once
        addend = builder.fmul(lo, x)
        return builder.call(fma, [hi, x, addend]), builder.fmul(hi, x)

    h, l = two_prod(x, x)
    if n == 3:
        return round_times_x(h, l)
    if n == 4:
        return round_square(h, l)
    if n in (5, 8):
        h4, l4 = square_dd(h, l)
        return round_times_x(h4, l4) if n == 5 else round_square(h4, l4)
    h3, l3 = times_x_dd(h, l)
    if n == 6:
        return round_square(h3, l3)
    h6, l6 = square_dd(h3, l3)
    return round_times_x(h6, l6)


def _exact_power_intrinsic(finite_only):
    def exact_power(typingctx, x, e):
        if not (isinstance(x, t.Float) and x == e):
            return None

        def codegen(context, builder, sig, args):
            xv, ev = args
            ty = xv.type
            if isinstance(ty, ir.HalfType):     # float16: computed in float32, rounded once
                f32 = ir.FloatType()
                r = _exact_power_ir(context, builder, builder.fpext(xv, f32),
                                    builder.fpext(ev, f32), t.float32, finite_only)
                return builder.fptrunc(r, ty)
            return _exact_power_ir(context, builder, xv, ev, sig.args[0], finite_only)
        return x(x, e), codegen
    return intrinsic(exact_power)


# x ** e for a float x and a float e: the correctly rounded product for e = 1.0 .. 8.0 (see
# above), the C library's pow otherwise. With a constant e the choice folds away.
exact_power = _exact_power_intrinsic(False)
# The same where the result is finite; a product that is not may be NaN where the answer
# is inf, for a caller that tests the result and then asks exact_power (Python's `**`)
exact_power_if_finite = _exact_power_intrinsic(True)


def _exact_power_ir(context, builder, xv, ev, ft, finite_only):
    ty = xv.type
    fma = context.declare_intrinsic("llvm.fma", [ty, ty, ty])
    i32 = ir.IntType(32)
    fn = builder.function
    convert = fn.append_basic_block("pow.int")
    dispatch = fn.append_basic_block("pow.dispatch")
    libm = fn.append_basic_block("pow.libm")
    done = fn.append_basic_block("pow.done")
    in_range = builder.and_(builder.fcmp_ordered(">=", ev, ir.Constant(ty, 1.0)),
                            builder.fcmp_ordered("<=", ev, ir.Constant(ty, 8.0)))
    builder.cbranch(in_range, convert, libm)
    builder.position_at_end(convert)
    k = builder.fptosi(ev, i32)
    builder.cbranch(builder.fcmp_ordered("==", builder.sitofp(k, ty), ev), dispatch, libm)
    builder.position_at_end(dispatch)
    switch = builder.switch(k, libm)
    incoming = []
    for n in EXACT_POWERS:
        block = fn.append_basic_block(f"pow.{n}")
        switch.add_case(ir.Constant(i32, n), block)
        builder.position_at_end(block)
        if n == 1:
            value = xv
        elif n == 2:
            value = builder.fmul(xv, xv)
        else:
            result, plain = _exact_chain(builder, fma, xv, n)
            # A result that is not finite: x is inf or NaN (the plain product is the
            # answer), or the power overflows, where the low part's product can overflow
            # with the other sign (so the result may be +inf for a negative power): the
            # answer is inf with the plain product's sign, i.e. plain * inf
            if not finite_only:
                finite = builder.fcmp_ordered("==", builder.fsub(result, result),
                                              ir.Constant(ty, 0.0))
                value = builder.select(finite, result,
                                       builder.fmul(plain, ir.Constant(ty, math.inf)))
            else:
                value = result
        incoming.append((value, builder.block))
        builder.branch(done)
    builder.position_at_end(libm)
    incoming.append((call_libm(context, builder, "pow", ft, [xv, ev]), builder.block))
    builder.branch(done)
    builder.position_at_end(done)
    phi = builder.phi(ty)
    for value, block in incoming:
        phi.add_incoming(value, block)
    return phi


@register_jitable
def _c_fmod(vx, wx):
    """C's fmod as CPython calls it. For an infinite vx the C library computes
    (x*y)/(x*y), the platform's default NaN (negative on x86); LLVM expands fmod by a
    constant such as 1.0 inline and would give +NaN, which copysign can see."""
    if math.isinf(vx):
        return (vx * wx) / (vx * wx)
    return math.fmod(vx, wx)


@register_jitable
def float_divmod(vx, wx):
    if wx == 0.0:
        raise ZeroDivisionError("float divmod()")
    mod = _c_fmod(vx, wx)
    div = (vx - mod) / wx
    if mod:
        if (wx < 0.0) != (mod < 0.0):
            mod += wx
            div -= 1.0
    else:
        mod = math.copysign(0.0, wx)
    if div:
        floordiv = _floor(div)
        if div - floordiv > 0.5:
            floordiv += 1.0
    else:
        floordiv = math.copysign(0.0, vx / wx)
    return floordiv, mod


def float_floordiv(vx, wx):
    if wx == 0.0:
        raise ZeroDivisionError("float floor division by zero")
    return float_divmod(vx, wx)[0]


@register_jitable
def float_mod(vx, wx):
    if wx == 0.0:
        raise ZeroDivisionError("float modulo by zero")
    mod = _c_fmod(vx, wx)
    if mod:
        if (wx < 0.0) != (mod < 0.0):
            mod += wx
    else:
        mod = math.copysign(0.0, wx)
    return mod


def numpy_floordiv(vx, wx):
    """NumPy's float floor division (error_model="numpy"): by zero, the IEEE quotient."""
    if wx == 0.0:
        return vx / wx
    return float_divmod(vx, wx)[0]


def numpy_mod(vx, wx):
    """NumPy's float remainder (error_model="numpy"): by zero, nan, computed as C's fmod
    computes it, so the FPU's invalid flag is raised and NumPy warns as for its own."""
    if wx == 0.0:
        return (vx * wx) / (vx * wx)
    return float_mod(vx, wx)


def numpy_power(base, exponent):
    """NumPy's float power (error_model="numpy"): inf where CPython raises; small integral
    exponents by products (exact_power), the rest C's pow."""
    if exponent == -1.0:
        return 1.0 / base
    return exact_power(base, exponent)


def int_power(base, exponent):
    if exponent < 0:
        raise ValueError("integers to negative integer powers are not allowed "
                         "(use a float base for a float result)")
    one = type(exponent)(1)      # in the operands' own type: uint64 with an int64
    result = type(base)(1)       # literal would promote to float64 (NumPy's rule)
    while exponent:
        if exponent & one:
            result *= base
        base *= base
        exponent >>= one
    return result


def float_power(base, exponent):
    # CPython's float_pow: a NaN comes back as it is (C's pow may lose a NaN base's sign),
    # 0.0 ** -inf is inf (the infinite exponent is handled first); any other negative
    # exponent of zero raises. The rest is C's pow, which CPython also calls.
    # x ** 1.0 .. 8.0 is the correctly rounded product (exact_power): x ** 2 is x * x; C's
    # pow, which CPython calls, misrounds about 0.07% of bases (docs/performance.md,
    # "Integer powers"). One rarely taken branch on the result keeps CPython's NaN base
    # and OverflowError.
    if 1.0 <= exponent <= 8.0 and exponent == _floor(exponent):
        result = exact_power_if_finite(base, exponent)
        if result - result != 0.0:       # not finite (a float test, cheaper than isfinite)
            if math.isnan(base):
                return base
            if math.isfinite(base):
                raise OverflowError("(34, 'Numerical result out of range')")
            return exact_power(base, exponent)      # an infinite base
        return result
    if exponent == 0.0:
        return 1.0
    if math.isnan(base):
        return base
    if math.isnan(exponent):
        return 1.0 if base == 1.0 else exponent
    if base == 0.0 and exponent < 0.0 and exponent != -math.inf:
        raise ZeroDivisionError("0.0 cannot be raised to a negative power")
    result = 1.0 / base if exponent == -1.0 else _pow(base, exponent)
    # CPython reports C's ERANGE: an infinite result from finite operands overflowed.
    if math.isinf(result) and math.isfinite(base) and math.isfinite(exponent):
        raise OverflowError("(34, 'Numerical result out of range')")
    return result


@register_jitable
def complex_div(a, b):
    abs_breal = abs(b.real)
    abs_bimag = abs(b.imag)
    if abs_breal >= abs_bimag:
        if abs_breal == 0.0:
            raise ZeroDivisionError("complex division by zero")
        ratio = b.imag / b.real
        denom = b.real + b.imag * ratio
        return complex((a.real + a.imag * ratio) / denom, (a.imag - a.real * ratio) / denom)
    if abs_bimag >= abs_breal:
        ratio = b.real / b.imag
        denom = b.real * ratio + b.imag
        return complex((a.real * ratio + a.imag) / denom, (a.imag * ratio - a.real) / denom)
    return complex(math.nan, math.nan)


@register_jitable
def _complex_power_unsigned(x, n):
    r = complex(1.0, 0.0)
    p = x
    mask = 1
    while mask > 0 and n >= mask:
        if n & mask:
            r = r * p
        mask <<= 1
        p = p * p
    return r


def complex_power(a, b):
    """CPython's complex_pow: small integral exponents by repeated multiplication (c_powi),
    the rest by polar form (_Py_c_pow). Overflow gives inf/nan where CPython raises."""
    if b.imag == 0.0 and b.real == _floor(b.real) and abs(b.real) <= 100.0:
        n = int(b.real)
        if n > 0:
            return _complex_power_unsigned(a, n)
        return complex_div(complex(1.0, 0.0), _complex_power_unsigned(a, -n))
    if b.real == 0.0 and b.imag == 0.0:
        return complex(1.0, 0.0)
    if a.real == 0.0 and a.imag == 0.0:
        if b.imag != 0.0 or b.real < 0.0:
            raise ZeroDivisionError("0.0 to a negative or complex power")
        return complex(0.0, 0.0)
    vabs = math.hypot(a.real, a.imag)
    length = _pow(vabs, b.real)
    at = math.atan2(a.imag, a.real)
    phase = at * b.real
    if b.imag != 0.0:
        length = _ieee_divide(length, math.exp(at * b.imag))   # exp underflows: inf
        phase += b.imag * math.log(vabs)
    return complex(length * math.cos(phase), length * math.sin(phase))


@intrinsic
def _ieee_divide(typingctx, x, y):
    """x / y of two floats as IEEE divides: inf or nan by zero, never ZeroDivisionError."""
    if x != y:
        return None

    def codegen(context, builder, sig, args):
        return builder.fdiv(*args)
    return x(x, y), codegen


@intrinsic
def _trunc(typingctx, x):
    """Float truncation that stays a float."""
    def codegen(context, builder, sig, args):
        fn = context.declare_intrinsic("llvm.trunc", [args[0].type])
        return builder.call(fn, args)
    return x(x), codegen


def int_float_compare(i, f):
    """Compare an int64 with a float64 exactly, as CPython does (converting the int to a
    float would round: 2**53 + 1 == 2.0**53 must be False). Returns -1, 0 or 1 like a
    three-way comparison, or 2 when `f` is NaN (unordered)."""
    if f != f:
        return 2
    if f >= 9223372036854775808.0:
        return -1
    if f < -9223372036854775808.0:
        return 1
    whole = _trunc(f)
    fi = int(whole)
    if i < fi:
        return -1
    if i > fi:
        return 1
    frac = f - whole
    if frac > 0.0:
        return -1
    if frac < 0.0:
        return 1
    return 0


def int_truediv(a, b):
    """int64 / int64 correctly rounded, as CPython's exact long division is: converting
    operands beyond 2**53 to float first would round twice. Operands within 2**53 are exact
    floats, so one IEEE division is correctly rounded; otherwise long division gives 55 or
    more bits of the quotient and a sticky bit for the rest, and one conversion rounds."""
    if b == 0:
        raise ZeroDivisionError("division by zero")
    if -9007199254740992 <= a <= 9007199254740992 and -9007199254740992 <= b <= 9007199254740992:
        return float(a) / float(b)
    if a == 0:
        return 0.0 / float(b)
    scale = 1.0                      # -2**63 has no int64 magnitude: halve it (exactly)
    if a == -9223372036854775807 - 1:
        a, scale = a // 2, 2.0
    if b == -9223372036854775807 - 1:
        b, scale = b // 2, scale * 0.5
    negative = (a < 0) != (b < 0)
    na, nb = abs(a), abs(b)
    q, r = na // nb, na % nb
    shift = 0
    while q < 18014398509481984:     # 2**54: one more bit of the quotient
        if r >= nb - r:              # 2r >= nb without overflowing
            q, r = 2 * q + 1, r - (nb - r)
        else:
            q, r = 2 * q, r + r
        shift += 1
    if r != 0:
        q |= 1                       # sticky: below the rounding position, breaks ties
    result = math.ldexp(float(q), -shift) * scale
    return -result if negative else result

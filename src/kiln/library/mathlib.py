"""The `math` module in compiled code, registered from one table.

Float arguments keep their width (float32 in, float32 out, as in Numba); integers are
converted to float64. Calls go to the C library that CPython itself uses, so results are
the same bits; domain errors give NaN as in Numba (CPython raises ValueError)."""
from __future__ import annotations

import math

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.registry import intrinsic, overload, template

# name -> (number of float arguments, LLVM intrinsic or instruction, or None for the libm
# symbol of that name)
FLOAT_FUNCTIONS = {
    "sqrt": (1, "llvm.sqrt"), "fabs": (1, "llvm.fabs"), "exp": (1, "llvm.exp"),
    "log10": (1, "llvm.log10"), "log2": (1, "llvm.log2"),
    "sin": (1, "llvm.sin"), "cos": (1, "llvm.cos"), "tan": (1, None),
    "asin": (1, None), "acos": (1, None), "atan": (1, None),
    "sinh": (1, None), "cosh": (1, None), "tanh": (1, None),
    "asinh": (1, None), "acosh": (1, None), "atanh": (1, None),
    "expm1": (1, None), "log1p": (1, None), "erf": (1, None), "erfc": (1, None),
    "lgamma": (1, None), "cbrt": (1, None), "exp2": (1, "llvm.exp2"),
    "atan2": (2, None), "hypot": (2, None), "copysign": (2, "llvm.copysign"),
    "fmod": (2, "frem"), "pow": (2, None), "nextafter": (2, None),
}
# fmod is LLVM's `frem` instruction (the same function, lowered to libm's fmod): LLVM 22
# folds a *call* to fmod(int-converted x, NaN) into an undefined value, which made
# `n % math.nan` return garbage and crashed programs that branched on it.
LIBM_NAMES = {"gamma": "tgamma"}


def call_libm(context, builder, name, ft, args):
    """Call the C library's `name` for float type `ft` (float32 uses the `f` variant)."""
    lt = dm.value_type(ft)
    if isinstance(ft, t.Float) and ft.bitwidth == 16:
        wide = [builder.fpext(a, ir.FloatType()) for a in args]
        return builder.fptrunc(call_libm(context, builder, name, t.float32, wide), lt)
    symbol = LIBM_NAMES.get(name, name) + ("f" if ft.bitwidth == 32 else "")
    fn = context.declare_external(symbol, lt, [lt] * len(args))
    # not a builtin to LLVM: it would rewrite pow(x, 2.0) as x*x and pow(x, 0.5) as sqrt,
    # which round differently from the C library's pow that CPython calls
    fn.attributes.add("nobuiltin")
    if name != "lgamma":   # lgamma writes signgam; the others write only errno, unread here
        # pure to LLVM, so a call with loop-invariant arguments is hoisted out of a loop
        fn.attributes.add("readnone")
        fn.attributes.add("nounwind")
    return builder.call(fn, args)


def _float_type(*args):
    """The float type the math function computes in, or None if an argument is not real."""
    if not all(isinstance(a, (t.Integer, t.Boolean, t.Float)) for a in args):
        return None
    floats = [a for a in args if isinstance(a, t.Float)]
    if floats and all(f == floats[0] for f in floats) and len(floats) == len(args):
        return floats[0]
    return t.float64


def _register_float_function(name, nargs, llvm_name):
    def typer(tctx, *args):
        if len(args) != nargs:
            return None
        ft = _float_type(*args)
        if ft is None:
            return None

        def codegen(context, builder, sig, llargs):
            if llvm_name == "frem":
                return builder.frem(*llargs, flags=context.fastmath)
            if llvm_name is not None and ft.bitwidth != 16:
                fn = context.declare_intrinsic(llvm_name, [a.type for a in llargs])
                return builder.call(fn, llargs, fastmath=context.fastmath)
            return call_libm(context, builder, name, ft, llargs)
        return ft(*([ft] * nargs)), codegen
    template(getattr(math, name))(typer)


for _name, (_nargs, _llvm) in FLOAT_FUNCTIONS.items():
    if hasattr(math, _name):
        _register_float_function(_name, _nargs, _llvm)


@template(math.log)
def _log(tctx, *args):
    ft = _float_type(*args)
    if ft is None or len(args) not in (1, 2):
        return None

    def codegen(context, builder, sig, llargs):
        fn = context.declare_intrinsic("llvm.log", [llargs[0].type])
        logs = [builder.call(fn, [a]) for a in llargs]
        if len(logs) == 1:
            return logs[0]
        return builder.fdiv(logs[0], logs[1])
    return ft(*([ft] * len(args))), codegen


def _classify(pred, int_answer):
    """isnan/isinf/isfinite; an integer is never NaN or infinite, and always finite."""
    def typer(tctx, x):
        if isinstance(x, (t.Integer, t.Boolean)):
            return t.boolean(x), lambda context, builder, sig, args: \
                ir.Constant(dm.i1, int_answer)
        if not isinstance(x, t.Float):
            return None
        return t.boolean(x), lambda context, builder, sig, args: pred(context, builder, args[0])
    return typer


def _isnan(context, builder, x):
    return builder.fcmp_unordered("uno", x, x)


def _isinf(context, builder, x):
    fabs = builder.call(context.declare_intrinsic("llvm.fabs", [x.type]), [x])
    return builder.fcmp_ordered("==", fabs, ir.Constant(x.type, float("inf")))


def _isfinite(context, builder, x):
    fabs = builder.call(context.declare_intrinsic("llvm.fabs", [x.type]), [x])
    return builder.fcmp_ordered("<", fabs, ir.Constant(x.type, float("inf")))


template(math.isnan)(_classify(_isnan, 0))
template(math.isinf)(_classify(_isinf, 0))
template(math.isfinite)(_classify(_isfinite, 1))


def _rounding(llvm_name):
    """floor/ceil/trunc return Python ints (int64 in compiled code)."""
    def typer(tctx, x):
        if isinstance(x, (t.Integer, t.Boolean)):
            return t.int64(x), lambda context, builder, sig, args: \
                context.cast(builder, args[0], x, t.int64)
        if not isinstance(x, t.Float):
            return None

        def codegen(context, builder, sig, args):
            y = builder.call(context.declare_intrinsic(llvm_name, [args[0].type]), args)
            return context.call_python(builder, _float_to_int, t.int64(x), [y])
        return t.int64(x), codegen
    return typer


def _float_to_int(x):
    return int(x)


template(math.floor)(_rounding("llvm.floor"))
template(math.ceil)(_rounding("llvm.ceil"))
template(math.trunc)(_rounding("llvm.trunc"))


@intrinsic
def _gamma_call(typingctx, x):
    """The C library's tgamma (tgammaf for float32)."""
    if not isinstance(x, t.Float):
        return None
    return x(x), lambda context, builder, sig, args: \
        call_libm(context, builder, "gamma", x, list(args))


@intrinsic
def _gamma_floor(typingctx, x):
    """floor that stays a float."""
    return x(x), lambda context, builder, sig, args: \
        builder.call(context.declare_intrinsic("llvm.floor", [args[0].type]), list(args))


@overload(math.gamma)
def _gamma(x):
    """The C library's tgamma, except that gamma(n) = (n-1)! exactly for integers n <= 23,
    as in CPython (glibc's tgamma(13.0) is one ulp below 12!)."""
    if isinstance(x, t.Float) and x.bitwidth <= 32:
        return lambda x: _gamma_call(x)
    if not isinstance(x, (t.Integer, t.Boolean, t.Float)):
        return None

    def impl(x):
        v = float(x)
        if v == _gamma_floor(v) and 1.0 <= v <= 23.0:
            r = 1.0
            k = 2.0
            while k < v:  # k! for k <= 22 is exact in a double, so every product is
                r *= k
                k += 1.0
            return r
        return _gamma_call(v)
    return impl


@overload(math.degrees)
def _degrees(x):
    return lambda x: x * (180.0 / math.pi)


@overload(math.radians)
def _radians(x):
    return lambda x: x * (math.pi / 180.0)


@template(math.ldexp)
def _ldexp(tctx, x, i):
    ft = _float_type(x)
    if ft is None or not isinstance(i, (t.Integer, t.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        lt = dm.value_type(ft)
        fn = context.declare_external("ldexpf" if ft.bitwidth == 32 else "ldexp", lt,
                                      [lt, dm.i32])
        # C's ldexp takes an int: clamp (not truncate) the exponent, so ldexp(1.0, 2**32) is
        # inf as in CPython. Any exponent beyond +-2**16 already saturates the result.
        n = args[1]
        limit = ir.Constant(n.type, 1 << 16)
        n = builder.select(builder.icmp_signed(">", n, limit), limit, n)
        n = builder.select(builder.icmp_signed("<", n, builder.neg(limit)), builder.neg(limit), n)
        return builder.call(fn, [args[0], builder.trunc(n, dm.i32)])
    return ft(ft, t.int64), codegen


def _out_param_function(symbol, out_type, make_result):
    """frexp/modf: C functions returning one value and writing another through a pointer."""
    def typer(tctx, x):
        ft = _float_type(x)
        if ft is None or ft.bitwidth == 16:
            return None
        rt = t.Tuple((ft, out_type(ft)))

        def codegen(context, builder, sig, args):
            lt = dm.value_type(ft)
            out_lt = dm.value_type(out_type(ft))
            name = symbol + ("f" if ft.bitwidth == 32 else "")
            fn = context.declare_external(name, lt, [lt, dm.ptr])
            slot = context.alloca(builder, out_lt)
            value = builder.call(fn, [args[0], slot])
            return make_result(context, builder, rt, value, builder.load(slot, typ=out_lt))
        return rt(ft), codegen
    return typer


def _frexp_result(context, builder, rt, mantissa, exponent):
    rt = t.Tuple((rt.types[0], t.int64))
    return context.make_tuple(builder, rt, [mantissa, builder.sext(exponent, dm.i64)])


def _modf_result(context, builder, rt, frac, whole):
    return context.make_tuple(builder, rt, [frac, whole])


_frexp_typer = _out_param_function("frexp", lambda ft: t.int32, _frexp_result)


@template(math.frexp)
def _frexp(tctx, x):
    found = _frexp_typer(tctx, x)
    if found is None:
        return None
    sig, codegen = found
    ft = sig.args[0]
    return t.Tuple((ft, t.int64))(ft), codegen


template(math.modf)(_out_param_function("modf", lambda ft: ft, _modf_result))


@overload(math.isclose)
def _isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    def impl(a, b, rel_tol=1e-09, abs_tol=0.0):
        if rel_tol < 0.0 or abs_tol < 0.0:
            raise ValueError("tolerances must be non-negative")
        if a == b:
            return True
        if math.isinf(a) or math.isinf(b):
            return False
        diff = abs(b - a)
        return diff <= abs(rel_tol * b) or diff <= abs(rel_tol * a) or diff <= abs_tol
    return impl


@overload(math.factorial)
def _factorial(n):
    if not isinstance(n, (t.Integer, t.Boolean)):
        return None

    def impl(n):
        if n < 0:
            raise ValueError("factorial() not defined for negative values")
        result = 1
        for i in range(2, n + 1):
            result *= i
        return result
    return impl


@overload(math.gcd)
def _gcd(a, b):
    if not isinstance(a, (t.Integer, t.Boolean)) or not isinstance(b, (t.Integer, t.Boolean)):
        return None

    def impl(a, b):
        # Euclid on magnitudes made negative: -2**63 has no int64 magnitude, so abs() would
        # wrap; for a, b <= 0, a % b stays in (b, 0].
        if a > 0:
            a = -a
        if b > 0:
            b = -b
        while b:
            a, b = b, a % b
        if a == -9223372036854775807 - 1:
            raise OverflowError("gcd is 2**63, beyond int64")
        return -a
    return impl

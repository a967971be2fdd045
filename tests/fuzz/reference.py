"""The `math` module as the CPython reference run sees it: CPython's own, except where kiln
differs on purpose (README, "Differences from CPython found by fuzzing"): a domain error
(ValueError) or a range error (OverflowError) gives the C library's result (nan, ±inf) as in
Numba, and gamma, lgamma and hypot are the C library's (CPython computes them with its own
algorithms, which differ from libm's in the last bit)."""
from __future__ import annotations

import ctypes
import ctypes.util
import math as _math
import types

_libm = ctypes.CDLL(ctypes.util.find_library("m"))


def _c_function(name, nargs, argtypes=None):
    fn = getattr(_libm, name)
    fn.restype = ctypes.c_double
    fn.argtypes = argtypes or [ctypes.c_double] * nargs
    return fn


def _libm_on_error(name, nargs, argtypes=None):
    """CPython's math.`name`, or the C library's result where CPython raises."""
    python, c = getattr(_math, name), _c_function(name, nargs, argtypes)

    def function(*args):
        try:
            return python(*args)
        except (ValueError, OverflowError):
            return c(*args)
    function.__name__ = name
    return function


math = types.SimpleNamespace(**{k: getattr(_math, k) for k in dir(_math) if not k.startswith("_")})
for _name in ["sqrt", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos",
              "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1", "log1p",
              "erf", "erfc", "atan2", "copysign", "fmod", "pow"]:
    setattr(math, _name, _libm_on_error(_name, 2 if _name in ("atan2", "copysign", "fmod", "pow") else 1))
math.ldexp = _libm_on_error("ldexp", 2, [ctypes.c_double, ctypes.c_int])
math.gamma = lambda x: _c_function("tgamma", 1)(float(x))
math.lgamma = lambda x: _c_function("lgamma", 1)(float(x))
math.hypot = lambda x, y: _c_function("hypot", 2)(float(x), float(y))


def _correctly_rounded_power(x, n):
    """x ** n for a finite nonzero float x, rounded once (Fraction's float() rounds to
    nearest); inf where it overflows."""
    from fractions import Fraction
    try:
        return float(Fraction(x) ** n)
    except OverflowError:
        return _math.copysign(_math.inf, x) if n % 2 else _math.inf


def power(base, exponent):
    """`base ** exponent` as kiln computes it (docs/performance.md, "Integer powers"): a
    float to an integral power 1 .. 8 is the correctly rounded product (C's pow, which CPython calls, misrounds
    about 0.07% of bases); everything else is Python's own `**`."""
    import numpy as np
    if isinstance(base, int) and not isinstance(base, bool) and isinstance(exponent, float):
        base = float(base)                 # int ** float is a float power in both
    if isinstance(base, (float, np.floating)) and not isinstance(base, np.float16) and \
            isinstance(exponent, (int, float, np.integer, np.floating)) and \
            not isinstance(exponent, (bool, np.bool_)) and 1 <= exponent <= 8 and \
            exponent == int(exponent) and _math.isfinite(base) and base != 0:
        value = _correctly_rounded_power(float(base), int(exponent))
        if isinstance(base, np.floating):
            return type(base)(value) if isinstance(base, np.float64) else base ** exponent
        if _math.isinf(value):
            raise OverflowError("(34, 'Numerical result out of range')")
        return value
    return base ** exponent

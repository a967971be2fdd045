"""The `cmath` module, written in Python on top of `math` and compiled by kiln, after
CPython's cmathmodule.c: the same algorithms (so the same bits), and its tables of C99's
values for infinite and NaN parts (read from CPython itself at import). Where CPython
raises (a domain error such as atanh(1), or an overflow), kiln returns the non-finite
value instead, as Numba does."""
from __future__ import annotations

import cmath
import math

from .. import types as t
from ..typing.registry import overload, register_jitable

_REAL = (t.Integer, t.Boolean, t.Float)


def _complex_only(fn):
    """Register an overload that applies to complex and real arguments alike."""
    def ov(z):
        if isinstance(z, t.Complex):
            return fn
        if isinstance(z, _REAL):
            return lambda z: fn(complex(z))
        return None
    return ov


def _phase(z):
    return math.atan2(z.imag, z.real)


def _polar(z):
    return abs(z), math.atan2(z.imag, z.real)


_DBL_MIN = 2.2250738585072014e-308         # the smallest normal double
_LARGE = 1.7976931348623157e308 / 4.0      # beyond this, hypot() could overflow
_LOG_LARGE = math.log(_LARGE)
_LN2 = 0.6931471805599453


def _exp(z):
    """cmath.exp as CPython computes it: e**(x-1) * e for large x (so results just below
    the overflow threshold stay finite), and C99's special values for infinite parts. Where
    CPython raises (overflow, or an infinite imaginary part) kiln returns inf/nan."""
    x = z.real
    y = z.imag
    if math.isinf(x) and math.isfinite(y):
        if y == 0.0:
            return complex(math.inf, y) if x > 0.0 else complex(0.0, y)
        if x > 0.0:
            return complex(math.copysign(math.inf, math.cos(y)),
                           math.copysign(math.inf, math.sin(y)))
        return complex(math.copysign(0.0, math.cos(y)), math.copysign(0.0, math.sin(y)))
    if x == -math.inf:
        return complex(0.0, 0.0)  # y is infinite or NaN
    if x == math.inf:
        return complex(math.inf, math.nan)
    if math.isnan(x) and y == 0.0:
        return complex(x, y)
    if x > _LOG_LARGE:
        scale = math.exp(x - 1.0)
        if y == 0.0:
            return complex(scale * math.e, y)
        return complex(scale * math.cos(y) * math.e, scale * math.sin(y) * math.e)
    scale = math.exp(x)
    if y == 0.0:
        return complex(scale, y)
    return complex(scale * math.cos(y), scale * math.sin(y))


def _log(z):
    """cmath.log as CPython computes it: log1p near the unit circle (log(0.6+0.8j) has a real
    part of 2.8e-17, not 0), rescaling for huge and subnormal moduli. log(0) is -inf+phase j
    (CPython raises ValueError)."""
    ax = abs(z.real)
    ay = abs(z.imag)
    if ax > _LARGE or ay > _LARGE:
        re = math.log(math.hypot(ax / 2.0, ay / 2.0)) + _LN2
    elif ax < _DBL_MIN and ay < _DBL_MIN:
        if ax > 0.0 or ay > 0.0:
            re = math.log(math.hypot(math.ldexp(ax, 53), math.ldexp(ay, 53))) - 53 * _LN2
        else:
            re = -math.inf
    else:
        h = math.hypot(ax, ay)
        if 0.71 <= h <= 1.73:
            am = max(ax, ay)
            an = min(ax, ay)
            re = math.log1p((am - 1.0) * (am + 1.0) + an * an) / 2.0
        else:
            re = math.log(h)
    return complex(re, math.atan2(z.imag, z.real))


def _sqrt(z):
    """Principal square root as CPython computes it: no cancellation, no overflow for huge
    parts (the sum is scaled by 1/8), subnormal parts scaled up by 2**53, and C99's special
    values for infinite and NaN parts."""
    x = z.real
    y = z.imag
    if math.isinf(y):
        return complex(math.inf, y)
    if math.isnan(x):
        return complex(x, x)
    if math.isinf(x):
        if math.isnan(y):
            return complex(math.inf, y) if x > 0.0 else complex(y, math.inf)
        if x > 0.0:
            return complex(x, math.copysign(0.0, y))
        return complex(0.0, math.copysign(math.inf, y))
    if math.isnan(y):
        return complex(y, y)
    if x == 0.0 and y == 0.0:
        return complex(0.0, y)
    ax = abs(x)
    ay = abs(y)
    if ax < _DBL_MIN and ay < _DBL_MIN:
        ax = math.ldexp(ax, 53)
        s = math.ldexp(math.sqrt(ax + math.hypot(ax, math.ldexp(ay, 53))), -27)
    else:
        ax /= 8.0
        s = 2.0 * math.sqrt(ax + math.hypot(ax, ay / 8.0))
    d = ay / (2.0 * s)
    if x >= 0.0:
        return complex(s, math.copysign(d, y))
    return complex(d, math.copysign(s, y))


def _isnan(z):
    return math.isnan(z.real) or math.isnan(z.imag)


def _isinf(z):
    return math.isinf(z.real) or math.isinf(z.imag)


def _isfinite(z):
    return math.isfinite(z.real) and math.isfinite(z.imag)


for _fn, _impl in ((cmath.phase, _phase), (cmath.polar, _polar), (cmath.exp, _exp),
                   (cmath.sqrt, _sqrt), (cmath.isnan, _isnan), (cmath.isinf, _isinf),
                   (cmath.isfinite, _isfinite)):
    overload(_fn)(_complex_only(register_jitable(_impl)))
_log = register_jitable(_log)


@register_jitable
def _log_base(z, base):
    """CPython's: log(z) / log(base), a math domain error where base or log(base) is 0."""
    divisor = _log(base)
    if base == 0 or divisor == 0:
        raise ValueError("math domain error")
    return _log(z) / divisor


@overload(cmath.log)
def _log_of(z, base=None):
    number = _REAL + (t.Complex,)
    if not isinstance(z, number):
        return None
    if base is None or isinstance(base, t.NoneType):
        return lambda z, base=None: _log(complex(z))
    if isinstance(base, number):
        return lambda z, base=None: _log_base(complex(z), complex(base))
    return None


# ---- trigonometric and hyperbolic functions (cmathmodule.c) ----------------------------------

_DBL_MAX = 1.7976931348623157e308
_SQRT_LARGE = math.sqrt(_LARGE)
_SQRT_DBL_MIN = math.sqrt(_DBL_MIN)
_LN10 = 2.302585092994046
_SPECIAL_PARTS = (-math.inf, -2.5, -0.0, 0.0, 2.5, math.inf, math.nan)


def _special_table(fn):
    """CPython's 7x7 table of fn's values at infinite and NaN parts, flattened in the order
    of _special_type (where CPython raises, NumPy's C99 value)."""
    import numpy as np
    out = []
    for x in _SPECIAL_PARTS:
        for y in _SPECIAL_PARTS:
            z = complex(x, y)
            if math.isfinite(x) and math.isfinite(y):
                out.append(complex(math.nan, math.nan))   # never read
                continue
            try:
                out.append(complex(fn(z)))
            except (ValueError, OverflowError):
                with np.errstate(all="ignore"):
                    out.append(complex(getattr(np, fn.__name__)(np.complex128(z))))
    return tuple(out)


@register_jitable
def _special_type(d):
    if math.isnan(d):
        return 6
    if math.isinf(d):
        return 5 if d > 0.0 else 0
    if d != 0.0:
        return 4 if d > 0.0 else 1
    return 2 if math.copysign(1.0, d) < 0.0 else 3


_ACOS = _special_table(cmath.acos)
_ACOSH = _special_table(cmath.acosh)
_ASINH = _special_table(cmath.asinh)
_ATANH = _special_table(cmath.atanh)
_COSH = _special_table(cmath.cosh)
_SINH = _special_table(cmath.sinh)
_TANH = _special_table(cmath.tanh)


@register_jitable
def _nonfinite(x, y):
    return not (math.isfinite(x) and math.isfinite(y))


def _rect_special(r, phi):
    try:
        return cmath.rect(r, phi)
    except ValueError:   # raised at run time instead: never read
        return complex(math.nan, math.nan)


_RECT = tuple(_rect_special(r, phi) for r in _SPECIAL_PARTS for phi in _SPECIAL_PARTS)


@register_jitable
def _rect_parts(r, phi):
    """CPython's cmath.rect (cmath_rect_impl), infinite and NaN parts included."""
    if _nonfinite(r, phi):
        if r != 0.0 and not math.isnan(r) and math.isinf(phi):
            raise ValueError("math domain error")
        if math.isinf(r) and math.isfinite(phi) and phi != 0.0:   # signs from cos and sin
            sign = 1.0 if r > 0.0 else -1.0
            return complex(sign * math.copysign(math.inf, math.cos(phi)),
                           sign * math.copysign(math.inf, math.sin(phi)))
        return _RECT[_special_type(r) * 7 + _special_type(phi)]
    if phi == 0.0:
        return complex(r, r * phi)
    return complex(r * math.cos(phi), r * math.sin(phi))


@overload(cmath.rect)
def _rect(r, phi):
    if isinstance(r, _REAL) and isinstance(phi, _REAL):
        return lambda r, phi: _rect_parts(float(r), float(phi))
    return None


@register_jitable
def _acos(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        return _ACOS[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LARGE or abs(y) > _LARGE:
        re = math.atan2(abs(y), x)
        big = math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0
        if x < 0.0:
            return complex(re, -math.copysign(big, y))
        return complex(re, math.copysign(big, -y))
    s1 = _sqrt(complex(1.0 - x, -y))
    s2 = _sqrt(complex(1.0 + x, y))
    return complex(2.0 * math.atan2(s1.real, s2.real),
                   math.asinh(s2.real * s1.imag - s2.imag * s1.real))


@register_jitable
def _acosh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        return _ACOSH[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LARGE or abs(y) > _LARGE:
        return complex(math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0, math.atan2(y, x))
    s1 = _sqrt(complex(x - 1.0, y))
    s2 = _sqrt(complex(x + 1.0, y))
    return complex(math.asinh(s1.real * s2.real + s1.imag * s2.imag),
                   2.0 * math.atan2(s1.imag, s2.real))


@register_jitable
def _asinh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        return _ASINH[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LARGE or abs(y) > _LARGE:
        big = math.log(math.hypot(x / 2.0, y / 2.0)) + _LN2 * 2.0
        re = math.copysign(big, x) if y >= 0.0 else -math.copysign(big, -x)
        return complex(re, math.atan2(y, abs(x)))
    s1 = _sqrt(complex(1.0 + y, -x))
    s2 = _sqrt(complex(1.0 - y, x))
    return complex(math.asinh(s1.real * s2.imag - s2.real * s1.imag),
                   math.atan2(y, s1.real * s2.real - s1.imag * s2.imag))


@register_jitable
def _atanh_nonnegative(x, y):
    """atanh(x + yj) for x >= 0 (finite parts)."""
    ay = abs(y)
    if x > _SQRT_LARGE or ay > _SQRT_LARGE:
        h = math.hypot(x / 2.0, y / 2.0)
        return complex(x / 4.0 / h / h, -math.copysign(math.pi / 2.0, -y))
    if x == 1.0 and ay < _SQRT_DBL_MIN:
        if ay == 0.0:
            return complex(math.inf, y)
        return complex(-math.log(math.sqrt(ay) / math.sqrt(math.hypot(ay, 2.0))),
                       math.copysign(math.atan2(2.0, -ay) / 2.0, y))
    return complex(math.log1p(4.0 * x / ((1.0 - x) * (1.0 - x) + ay * ay)) / 4.0,
                   -math.atan2(-2.0 * y, (1.0 - x) * (1.0 + x) - ay * ay) / 2.0)


@register_jitable
def _atanh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        return _ATANH[_special_type(x) * 7 + _special_type(y)]
    if x < 0.0:
        r = _atanh_nonnegative(-x, -y)
        return complex(-r.real, -r.imag)
    return _atanh_nonnegative(x, y)


@register_jitable
def _cosh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            s = math.copysign(math.inf, math.sin(y))
            return complex(math.copysign(math.inf, math.cos(y)), s if x > 0.0 else -s)
        return _COSH[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LOG_LARGE:
        x1 = x - math.copysign(1.0, x)
        return complex(math.cos(y) * math.cosh(x1) * math.e, math.sin(y) * math.sinh(x1) * math.e)
    return complex(math.cos(y) * math.cosh(x), math.sin(y) * math.sinh(x))


@register_jitable
def _sinh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            c = math.copysign(math.inf, math.cos(y))
            return complex(c if x > 0.0 else -c, math.copysign(math.inf, math.sin(y)))
        return _SINH[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LOG_LARGE:
        x1 = x - math.copysign(1.0, x)
        return complex(math.cos(y) * math.sinh(x1) * math.e, math.sin(y) * math.cosh(x1) * math.e)
    return complex(math.cos(y) * math.sinh(x), math.sin(y) * math.cosh(x))


@register_jitable
def _tanh(z):
    x, y = z.real, z.imag
    if _nonfinite(x, y):
        if math.isinf(x) and math.isfinite(y) and y != 0.0:
            return complex(1.0 if x > 0.0 else -1.0,
                           math.copysign(0.0, 2.0 * math.sin(y) * math.cos(y)))
        return _TANH[_special_type(x) * 7 + _special_type(y)]
    if abs(x) > _LOG_LARGE:
        return complex(math.copysign(1.0, x),
                       4.0 * math.sin(y) * math.cos(y) * math.exp(-2.0 * abs(x)))
    tx = math.tanh(x)
    ty = math.tan(y)
    cx = 1.0 / math.cosh(x)
    txty = tx * ty
    denom = 1.0 + txty * txty
    return complex(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx)


def _rotated(fn):
    """f(z) = -i g(iz): asin from asinh, atan from atanh, sin from sinh, tan from tanh."""
    def rotated(z):
        s = fn(complex(-z.imag, z.real))
        return complex(s.imag, -s.real)
    return rotated


def _cos(z):
    return _cosh(complex(-z.imag, z.real))


def _log10(z):
    r = _log(z)
    return complex(r.real / _LN10, r.imag / _LN10)


for _fn, _impl in ((cmath.acos, _acos), (cmath.acosh, _acosh), (cmath.asinh, _asinh),
                   (cmath.atanh, _atanh), (cmath.cosh, _cosh), (cmath.sinh, _sinh),
                   (cmath.tanh, _tanh), (cmath.asin, register_jitable(_rotated(_asinh))),
                   (cmath.atan, register_jitable(_rotated(_atanh))),
                   (cmath.sin, register_jitable(_rotated(_sinh))),
                   (cmath.tan, register_jitable(_rotated(_tanh))),
                   (cmath.cos, register_jitable(_cos)), (cmath.log10, register_jitable(_log10))):
    overload(_fn)(_complex_only(_impl))


_NUMBER = (t.Integer, t.Boolean, t.Float, t.Complex)


@overload(cmath.isclose)
def _isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    if not (isinstance(a, _NUMBER) and isinstance(b, _NUMBER) and
            isinstance(rel_tol, _REAL + (float,)) and isinstance(abs_tol, _REAL + (float,))):
        return None

    def isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
        if rel_tol < 0.0 or abs_tol < 0.0:
            raise ValueError("tolerances must be non-negative")
        x = complex(a)
        y = complex(b)
        if x == y:
            return True
        if _isinf(x) or _isinf(y):
            return False
        diff = abs(y - x)
        return diff <= rel_tol * abs(y) or diff <= rel_tol * abs(x) or diff <= abs_tol
    return isclose

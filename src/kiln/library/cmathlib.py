"""The basics of the `cmath` module, written in Python on top of `math` and compiled by kiln."""
from __future__ import annotations

import cmath
import math

from .. import types as t
from .registry import overload, register_jitable

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
                   (cmath.log, _log), (cmath.sqrt, _sqrt), (cmath.isnan, _isnan),
                   (cmath.isinf, _isinf), (cmath.isfinite, _isfinite)):
    overload(_fn)(_complex_only(register_jitable(_impl)))


@overload(cmath.rect)
def _rect(r, phi):
    if isinstance(r, _REAL) and isinstance(phi, _REAL):
        return lambda r, phi: complex(r * math.cos(phi), r * math.sin(phi))
    return None

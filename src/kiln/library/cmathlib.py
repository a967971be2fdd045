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


def _exp(z):
    r = math.exp(z.real)
    return complex(r * math.cos(z.imag), r * math.sin(z.imag))


def _log(z):
    return complex(math.log(abs(z)), math.atan2(z.imag, z.real))


def _sqrt(z):
    """Principal square root, computed as CPython does to avoid cancellation."""
    if z.real == 0.0 and z.imag == 0.0:
        return complex(0.0, z.imag)
    ax = abs(z.real)
    ay = abs(z.imag)
    s = math.sqrt((ax + math.hypot(ax, ay)) / 2.0)
    d = ay / (2.0 * s)
    if z.real >= 0.0:
        return complex(s, math.copysign(d, z.imag))
    return complex(d, math.copysign(s, z.imag))


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

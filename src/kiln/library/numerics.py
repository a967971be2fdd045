"""Numerical routines: np.logspace, np.geomspace (real), np.polyval, np.trapezoid (1-d),
np.correlate (1-d, 'valid'), np.cov and np.corrcoef (1-d and 2-d, default arguments),
each following NumPy's own formula step by step (so the same dtypes and the same
roundings): geomspace through logspace of log10 with its endpoints put back, cov as
(X - mean) @ (X - mean).T.conj() * (1 / (N - 1)), corrcoef dividing by the standard
deviations and clipping to [-1, 1].

Sums: correlate adds its products in index order; NumPy calls its dtype's dot (BLAS for
floats), which for more than a few dozen products may round differently. cov's product is
kiln's np.dot (the BLAS of SciPy), and NumPy's BLAS may pick another kernel (syrk, FMA):
the same products summed in another order, so cov and corrcoef of data whose products
are not exact can differ from NumPy's in the last place or two (seen: 1 ulp on six
values); with exact products they agree bit for bit."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array
from .axes import AxisError
from ..typing.registry import omitted, overload, register_jitable

_INTLIKE = (t.Integer, t.Boolean)
_REAL = (t.Integer, t.Boolean, t.Float)
_SCALAR = (t.Number, t.Boolean)


def _np_dtype(ty):
    return ty.dtype.np_dtype if isinstance(ty, t.Array) else ty.np_dtype


@overload(np.logspace)
def _logspace(start, stop, num=50, endpoint=True, base=10.0):
    if not (isinstance(start, _REAL) and isinstance(stop, _REAL) and
            (isinstance(num, _INTLIKE) or num == 50) and
            isinstance(endpoint, (t.Boolean, bool)) and (isinstance(base, _REAL) or base == 10.0)):
        return None

    def logspace(start, stop, num=50, endpoint=True, base=10.0):
        y = np.linspace(float(start), float(stop), num, endpoint=endpoint)
        return np.power(float(base), y)
    return logspace


@overload(np.geomspace)
def _geomspace(start, stop, num=50, endpoint=True):
    if not (isinstance(start, _REAL) and isinstance(stop, _REAL) and
            (isinstance(num, _INTLIKE) or num == 50) and isinstance(endpoint, (t.Boolean, bool))):
        return None

    def geomspace(start, stop, num=50, endpoint=True):
        first = float(start)
        last = float(stop)
        if first == 0.0 or last == 0.0:
            raise ValueError("Geometric sequence cannot include zero")
        sign = np.sign(first)
        first /= sign
        last = last / sign
        result = np.logspace(np.log10(first), np.log10(last), num, endpoint, 10.0)
        if num > 0:
            result[0] = first
            if num > 1 and endpoint:
                result[-1] = last
        return result * sign
    return geomspace


@overload(np.polyval)
def _polyval(p, x):
    if not (isinstance(p, t.Array) and p.ndim == 1 and isinstance(x, (t.Array,) + _SCALAR)):
        return None
    dt = t.from_dtype(np.result_type(p.dtype.np_dtype, _np_dtype(x)))
    if isinstance(x, t.Array):
        def polyval_array(p, x):
            y = np.zeros(x.shape, dt)
            for i in range(p.shape[0]):
                y = y * x + p[i]
            return y
        return polyval_array

    def polyval(p, x):
        y = dt(0)
        for i in range(p.shape[0]):
            y = dt(y * dt(x) + dt(p[i]))
        return y
    return polyval


def _trapezoid(y, x=None, dx=1.0, axis=-1):
    if not (isinstance(y, t.Array) and y.ndim == 1 and (axis == -1 or isinstance(axis, t.Integer))
            and (isinstance(dx, _SCALAR) or dx == 1.0)):
        return None
    if omitted(x):
        def by_step(y, x=None, dx=1.0, axis=-1):
            if axis != -1 and axis != 0:
                raise AxisError("axis out of bounds for array of dimension 1")
            return (dx * (y[1:] + y[:-1]) / 2.0).sum()
        return by_step
    if not (isinstance(x, t.Array) and x.ndim == 1):
        return None

    def by_points(y, x=None, dx=1.0, axis=-1):
        if axis != -1 and axis != 0:
            raise AxisError("axis out of bounds for array of dimension 1")
        d = x[1:] - x[:-1]
        a, b = d.shape[0], max(y.shape[0] - 1, 0)
        if a != b and a != 1 and b != 1:
            raise ValueError("operands could not be broadcast together")
        return (d * (y[1:] + y[:-1]) / 2.0).sum()
    return by_points


if hasattr(np, "trapezoid"):
    overload(np.trapezoid)(_trapezoid)
if hasattr(np, "trapz"):
    overload(np.trapz)(_trapezoid)


@overload(np.correlate)
def _correlate(a, v, mode="valid"):
    if not (isinstance(a, t.Array) and isinstance(v, t.Array) and a.ndim == 1 and v.ndim == 1):
        return None
    if not (mode == "valid" or isinstance(mode, t.StringLiteral) and mode.literal_value == "valid"):
        raise TypingError("np.correlate() takes only mode='valid' in compiled code")
    dt = t.from_dtype(np.result_type(a.dtype.np_dtype, v.dtype.np_dtype))
    complex_v = isinstance(v.dtype, t.Complex)

    def correlate(a, v, mode="valid"):
        n, m = a.shape[0], v.shape[0]
        if n == 0:
            raise ValueError("first array argument cannot be empty")
        if m == 0:
            raise ValueError("second array argument cannot be empty")
        w = np.conj(v) if complex_v else v
        if n >= m:
            return _slide(a, w, dt)
        return _slide(w, a, dt)[::-1].copy()
    return correlate


@register_jitable
def _slide(long, short, dt):
    """out[i] = sum of long[i + j] * short[j], summed in order."""
    k = short.shape[0]
    out = empty_array(long.shape[0] - k + 1, dt)
    for i in range(out.shape[0]):
        total = dt(0)
        for j in range(k):
            total += long[i + j] * short[j]
        out[i] = total
    return out


def _variables(m):
    """The dtype of cov's work array for m (a 1-d or 2-d array), or None."""
    if not (isinstance(m, t.Array) and m.ndim in (1, 2)):
        return None
    return t.from_dtype(np.result_type(m.dtype.np_dtype, np.float64))


@overload(np.cov)
def _cov(m):
    dt = _variables(m)
    if dt is None:
        return None

    def covariance(m):
        X = np.empty((1, m.shape[0]), dt) if m.ndim == 1 else np.empty(m.shape, dt)
        X[:] = m
        n = X.shape[1]
        avg = X.sum(axis=1) / n
        fact = n - 1
        X -= avg.reshape(X.shape[0], 1)
        c = np.dot(X, X.T.conj())
        c *= 1.0 / fact if fact > 0 else np.inf
        return c
    covariance = register_jitable(covariance)
    if m.ndim == 1:
        return lambda m: np.asarray(covariance(m)[0, 0])
    return covariance


@overload(np.corrcoef)
def _corrcoef(x):
    dt = _variables(x)
    if dt is None:
        return None
    if x.ndim == 1:
        def corrcoef_one(x):
            c = np.cov(x)[()]
            return c / c
        return corrcoef_one

    def corrcoef(x):
        c = np.cov(x)
        k = c.shape[0]
        std = np.empty(k, np.float64)
        for i in range(k):
            std[i] = np.sqrt(c[i, i].real)
        for i in range(k):
            for j in range(k):
                v = c[i, j] / std[i]
                c[i, j] = _clip(v / std[j])
        return c

    def corrcoef_complex(x):
        c = np.cov(x)
        k = c.shape[0]
        std = np.empty(k, np.float64)
        for i in range(k):
            std[i] = np.sqrt(c[i, i].real)
        for i in range(k):
            for j in range(k):   # NumPy's complex division by (s + 0j)
                v = _by_real(_by_real(c[i, j], std[i]), std[j])
                c[i, j] = complex(_clip(v.real), _clip(v.imag))
        return c
    return corrcoef_complex if isinstance(dt, t.Complex) else corrcoef


@register_jitable
def _clip(v):
    """v clipped to [-1, 1], NaN kept (np.clip)."""
    return -1.0 if v < -1.0 else (1.0 if v > 1.0 else v)


@register_jitable
def _by_real(z, s):
    """z / complex(s, 0) as NumPy's complex division computes it (Smith's method)."""
    if s == 0.0:
        return complex(z.real / abs(s), z.imag / abs(s))
    rat = 0.0 / s
    scl = 1.0 / (s + 0.0 * rat)
    return complex((z.real + z.imag * rat) * scl, (z.imag - z.real * rat) * scl)

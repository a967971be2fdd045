"""Comparing a result of kiln with NumPy's: dtype, shape and values of arrays; NumPy scalars
by dtype and value (kiln returns a NumPy scalar as the Python number of its kind, as Numba
does, so the number must be of that kind and exactly representable in NumPy's dtype);
floats bit for bit (every NaN alike, -0.0 apart from 0.0) or within an ulp bound;
exceptions by class."""
from __future__ import annotations

import builtins

import numpy as np

try:
    from numpy.exceptions import AxisError
except ImportError:        # NumPy 1
    from numpy import AxisError

_PY_KIND = {bool: "b", int: "iu", float: "f", complex: "c"}


def exception_name(exc: BaseException) -> str:
    """The class compared: NumPy's AxisError, else the first builtin class it derives from
    (NumPy's UFuncTypeError is a TypeError)."""
    if isinstance(exc, AxisError):
        return "AxisError"
    for cls in type(exc).__mro__:
        if getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(exc).__name__


def _float_parts(array):
    """A float view of a float or complex array (complex: real and imaginary interleaved)."""
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "c":
        return array.view(array.real.dtype)
    return array


def _ordered(bits, width):
    """Float bit patterns as integers in the floats' order (for ulp distances)."""
    bits = bits.astype(object)
    sign = 1 << (width - 1)
    return np.array([-(b & (sign - 1)) if b & sign else b for b in bits.ravel()], dtype=object)


def same_values(expected, got, ulps):
    """None when the two arrays of one dtype and shape hold the same values, else a reason."""
    if expected.dtype.kind not in "fc":
        if np.ascontiguousarray(expected).tobytes() != np.ascontiguousarray(got).tobytes():
            return "values differ"
        return None
    e, g = _float_parts(expected).ravel(), _float_parts(got).ravel()
    e_nan, g_nan = np.isnan(e), np.isnan(g)
    if not np.array_equal(e_nan, g_nan):
        return "NaN in other places"
    e, g = e[~e_nan], g[~g_nan]
    width = e.dtype.itemsize * 8
    ints = np.dtype(f"i{e.dtype.itemsize}")
    eb, gb = e.view(ints), g.view(ints)
    if np.array_equal(eb, gb):
        return None
    if not ulps:
        return "values differ"
    if not np.array_equal(np.isinf(e), np.isinf(g)):
        return "inf in other places"
    distance = np.abs(_ordered(eb, width) - _ordered(gb, width))
    worst = max(distance.tolist()) if distance.size else 0
    return None if worst <= ulps else f"{worst} ulps apart (bound {ulps})"


def same(expected, got, ulps=0):
    """None when kiln's `got` stands for NumPy's `expected`, else a reason."""
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"a tuple of {len(expected)}, got {type(got).__name__}"
        ulps = ulps if isinstance(ulps, tuple) else (ulps,) * len(expected)
        for i, (e, g, u) in enumerate(zip(expected, got, ulps)):
            reason = same(e, g, u)
            if reason:
                return f"[{i}]: {reason}"
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"an array, got {type(got).__name__}"
        if expected.dtype != got.dtype:
            return f"dtype {expected.dtype}, got {got.dtype}"
        if expected.shape != got.shape:
            return f"shape {expected.shape}, got {got.shape}"
        return same_values(expected, got, ulps)
    if isinstance(expected, np.generic):
        if isinstance(got, np.ndarray) and got.ndim == 0:   # differences-numpy.md: 0-d
            got = got[()]
        if isinstance(got, np.generic):
            if got.dtype != expected.dtype:
                return f"dtype {expected.dtype}, got {got.dtype}"
            return same_values(np.asarray(expected), np.asarray(got), ulps)
        kind = _PY_KIND.get(type(got))
        if kind is None or expected.dtype.kind not in kind:
            return f"a {expected.dtype} scalar, got {type(got).__name__}"
        with np.errstate(all="ignore"):
            converted = np.asarray(got).astype(expected.dtype)
            back = converted.item()
        if not (back == got or (got != got and back != back)):
            return f"{got!r} is not a {expected.dtype}"
        return same_values(np.asarray(expected), converted, ulps)
    if type(expected) is not type(got):
        return f"a {type(expected).__name__}, got {type(got).__name__}"
    if isinstance(expected, (float, complex)):
        return same_values(np.asarray(expected), np.asarray(got), ulps)
    return None if expected == got else f"{expected!r}, got {got!r}"


def show(value, limit=400):
    """A short readable form of a value for reports."""
    if isinstance(value, np.ndarray):
        text = f"array({value.tolist()!r}, dtype={value.dtype})"
    elif isinstance(value, tuple):
        text = "(" + ", ".join(show(v, 120) for v in value) + ")"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."

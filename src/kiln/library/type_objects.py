"""Scalar types as values: `type(x)` of a number and `a.dtype.type` (classes that convert
when called: `type(scale)(1)`, `a.dtype.type(0)`), and NumPy's machine limits
`np.iinfo`/`np.finfo` of a dtype, whose attributes are compile-time constants (as in
Numba: `np.iinfo(a.dtype).max`)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..typing.registry import template


def _no_value(rt):
    return lambda context, builder, sig, args: dm.null_value(rt)


@boxing.boxer(t.DType)
def _box_dtype(api, ty, value, fail):
    """A dtype (`a.dtype`) returned to Python: NumPy's dtype object."""
    obj = api.constant_object(ty.dtype.np_dtype)
    api.incref(obj)
    return obj


@template(type)
def _type_of(tctx, value):
    """type(x) of a number: its class. (A Python int is typed int64, whose class converts
    as int() does for the values int64 holds.)"""
    if not isinstance(value, t.Number):
        return None
    rt = t.NumberClass(t.unliteral(value))
    return rt(value), _no_value(rt)


@template(("attr", "type"))
def _dtype_type(tctx, dtype):
    """`a.dtype.type`: the scalar class of the dtype."""
    if not isinstance(dtype, t.DType):
        return None
    rt = t.NumberClass(dtype.dtype)
    return rt(dtype), _no_value(rt)


class MachineLimits(t.Opaque):
    """`np.iinfo(dtype)` or `np.finfo(dtype)`: known at compile time, no run-time value."""

    def __init__(self, info):
        self.info = info
        self.name = f"{type(info).__name__}({info.dtype})"

    @property
    def key(self):
        return (type(self.info).__name__, self.info.dtype.str)


def _limits_of(numpy_function):
    def typer(tctx, spec):
        if isinstance(spec, t.DType):
            dtype = spec.dtype
        elif isinstance(spec, t.NumberClass):
            dtype = spec.instance_type
        elif isinstance(spec, t.Number):
            dtype = t.unliteral(spec)
        else:
            return None
        try:
            rt = MachineLimits(numpy_function(dtype.np_dtype))
        except ValueError:   # NumPy's refusal: np.iinfo of a float type
            return None
        return rt(spec), _no_value(rt)
    return typer


template(np.iinfo)(_limits_of(np.iinfo))
template(np.finfo)(_limits_of(np.finfo))

_LIMITS = ("min", "max", "bits", "eps", "epsneg", "tiny", "smallest_normal",
           "smallest_subnormal", "resolution", "precision", "iexp", "maxexp", "minexp",
           "negep", "nexp", "nmant", "machep")


def _limit(name):
    def typer(tctx, limits):
        if not isinstance(limits, MachineLimits) or not hasattr(limits.info, name):
            return None
        value = getattr(limits.info, name)
        if isinstance(value, np.floating):     # eps of float32 is a float32
            rt, value = t.from_dtype(value.dtype), float(value)
        else:                                  # Python ints: bits, min and max of iinfo
            value = int(value)
            rt = t.int64 if value < 2**63 else t.uint64
        return rt(limits), lambda context, builder, sig, args: \
            context.get_constant(builder, rt, value)
    return typer


for _name in _LIMITS:
    template(("attr", _name))(_limit(_name))


@template(("attr", "dtype"))
def _limits_dtype(tctx, limits):
    if not isinstance(limits, MachineLimits):
        return None
    rt = t.DType(t.from_dtype(limits.info.dtype))
    return rt(limits), _no_value(rt)

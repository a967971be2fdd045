"""Set routines on arrays: np.isin (invert too), np.intersect1d, np.union1d and
np.setdiff1d, as NumPy defines them on sorted unique values (so their results are sorted,
1-d, in NumPy's result dtype; NaN is never found equal to NaN, and np.unique keeps one).

np.argpartition is here too, as a full argsort along the last axis: a valid partition for
every kth (NaN last, as NumPy), though the order within each side is the sorted one where
NumPy's introselect leaves its own (NumPy documents that order as unspecified)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from .allocation import empty_array
from .reductions import in_c_order
from ..typing.registry import overload, register_jitable


def _dtype(a, b):
    return t.from_dtype(np.result_type(a.dtype.np_dtype, b.dtype.np_dtype))


def _arrays(*tys):
    return all(isinstance(a, t.Array) for a in tys)


@register_jitable
def _found(sorted_values, x):
    i = np.searchsorted(sorted_values, x)
    return i < sorted_values.shape[0] and sorted_values[i] == x


@overload(np.isin)
def _isin(element, test_elements, assume_unique=False, invert=False):
    if not (_arrays(element, test_elements) and
            isinstance(assume_unique, (t.Boolean, bool)) and isinstance(invert, (t.Boolean, bool))):
        return None
    dt = _dtype(element, test_elements)

    def isin(element, test_elements, assume_unique=False, invert=False):
        pool = np.sort(in_c_order(test_elements).astype(dt))
        flat = in_c_order(element)
        out = empty_array(flat.shape[0], np.bool_)
        for i in range(flat.shape[0]):
            out[i] = _found(pool, dt(flat[i])) != invert
        return out.reshape(element.shape)
    return isin


@overload(np.intersect1d)
def _intersect1d(ar1, ar2, assume_unique=False):
    if not (_arrays(ar1, ar2) and isinstance(assume_unique, (t.Boolean, bool))):
        return None
    dt = _dtype(ar1, ar2)

    def intersect1d(ar1, ar2, assume_unique=False):
        if assume_unique:
            a, b = in_c_order(ar1), in_c_order(ar2)
        else:
            a, b = np.unique(ar1), np.unique(ar2)
        aux = np.sort(np.concatenate((a.astype(dt), b.astype(dt))))
        if aux.shape[0] == 0:
            return aux
        return aux[:-1][aux[1:] == aux[:-1]]
    return intersect1d


@overload(np.union1d)
def _union1d(ar1, ar2):
    if not _arrays(ar1, ar2):
        return None
    dt = _dtype(ar1, ar2)
    return lambda ar1, ar2: np.unique(np.concatenate((in_c_order(ar1).astype(dt),
                                                      in_c_order(ar2).astype(dt))))


@overload(np.setdiff1d)
def _setdiff1d(ar1, ar2, assume_unique=False):
    if not (_arrays(ar1, ar2) and isinstance(assume_unique, (t.Boolean, bool))):
        return None
    dt = t.from_dtype(ar1.dtype.np_dtype)

    def setdiff1d(ar1, ar2, assume_unique=False):
        a = in_c_order(ar1).astype(dt) if assume_unique else np.unique(ar1)
        return a[np.isin(a, ar2, True, True)]
    return setdiff1d


def _kth_kind(kth):
    if isinstance(kth, (t.Integer, t.Boolean)):
        return "int"
    if isinstance(kth, t.BaseTuple) and all(isinstance(k, t.Integer) for k in kth.types):
        return "seq"
    if isinstance(kth, t.Array) and kth.ndim == 1 and isinstance(kth.dtype, t.Integer):
        return "seq"
    return None


@register_jitable
def _check_kth(k, n):
    if k < -n or k >= n:
        raise ValueError("kth out of bounds")


@overload(np.argpartition)
def _argpartition(a, kth):
    kind = _kth_kind(kth)
    if not isinstance(a, t.Array) or a.ndim == 0 or kind is None:
        return None
    if kind == "int":
        def argpartition(a, kth):
            _check_kth(kth, a.shape[a.ndim - 1])
            return np.argsort(a)
        return argpartition

    def argpartition_many(a, kth):
        for k in kth:
            _check_kth(k, a.shape[a.ndim - 1])
        return np.argsort(a)
    return argpartition_many

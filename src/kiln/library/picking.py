"""Elements picked, rounded and replaced: np.round / np.around / a.round, np.real, np.imag,
np.nan_to_num, np.take / a.take (flat positions, or along an axis), np.flatnonzero, np.extract,
np.compress (axis=None), np.select, np.append (axis=None), np.delete (axis=None: an int
or an array of ints) and np.insert (axis=None: an int, or an array of positions).

Rounding follows NumPy's PyArray_Round: x * 10**d rounded half to even, then divided (for
negative d: divided, rounded, multiplied), in the array's own float type; complex parts
are rounded apart; integers with d >= 0 are copied, with d < 0 go through float64.
np.real of an array is its `.real` view; np.imag of a real array is a new array of zeros
(NumPy's is read-only)."""
from __future__ import annotations

import functools
import math

import numpy as np

from .. import types as t
from ..errors import TypingError
from .allocation import empty_array
from .axes import AxisError, around_axis
from .reductions import in_c_order
from ..typing.registry import omitted, overload, overload_method, register_jitable

_INTLIKE = (t.Integer, t.Boolean)
_SCALAR = (t.Number, t.Boolean)


def _np_dtype(ty):
    return ty.dtype.np_dtype if isinstance(ty, t.Array) else ty.np_dtype


# ---- rounding -------------------------------------------------------------------------------

def _round_float(dt):
    @register_jitable
    def round_float(x, decimals):
        if decimals >= 0:
            f = dt(10.0 ** decimals)
            return np.rint(x * f) / f
        f = dt(10.0 ** -decimals)
        return np.rint(x / f) * f
    return round_float


def _rounder(ty):
    """A jitable `r(x, decimals)` rounding one value of kiln type `ty` as NumPy does."""
    if isinstance(ty, t.Float):
        return _round_float(ty)
    if isinstance(ty, t.Complex):
        part = _round_float(ty.underlying_float)

        def round_complex(x, decimals):
            return complex(part(x.real, decimals), part(x.imag, decimals))
        return register_jitable(round_complex)
    if isinstance(ty, t.Integer):
        through = _round_float(t.float64)

        def round_int(x, decimals):
            if decimals >= 0:
                return x
            return ty(through(np.float64(x), decimals))
        return register_jitable(round_int)
    return None


def _round(a, decimals=0, out=None):
    if not (isinstance(decimals, _INTLIKE) or decimals == 0):
        return None
    if isinstance(a, _SCALAR) and omitted(out):
        one = _rounder(a)
        if one is None:
            return None
        return lambda a, decimals=0, out=None: one(a, decimals)
    if not isinstance(a, t.Array):
        return None
    one = _rounder(a.dtype)
    if one is None:
        raise TypingError(f"np.round() of an array of {a.dtype} is not supported")
    dt = a.dtype

    @register_jitable
    def round_array(a, decimals=0, out=None):
        flat = in_c_order(a)
        result = empty_array(flat.shape[0], dt)
        for i in range(flat.shape[0]):
            result[i] = one(flat[i], decimals)
        return result.reshape(a.shape)
    if omitted(out):
        return round_array
    if not (isinstance(out, t.Array) and out.ndim == a.ndim):
        return None

    def round_into(a, decimals=0, out=None):
        if out.shape != a.shape:
            raise ValueError("output array does not match result of np.round")
        out[...] = round_array(a, decimals)
        return out
    return round_into


overload(np.round)(_round)
overload(np.around)(_round)
overload_method(t.Array, "round")(_round)


@overload(np.real)
def _real(val):
    if isinstance(val, t.Array):
        return lambda val: val.real
    if isinstance(val, t.Complex):
        return lambda val: val.real
    if isinstance(val, _SCALAR):
        return lambda val: val
    return None


@overload(np.imag)
def _imag(val):
    if isinstance(val, t.Array):
        if isinstance(val.dtype, t.Complex):
            return lambda val: val.imag
        dt = val.dtype
        return lambda val: np.zeros(val.shape, dt)
    if isinstance(val, t.Complex):
        return lambda val: val.imag
    if isinstance(val, _SCALAR):
        dt = val
        return lambda val: dt(0)
    return None


# ---- NaN and infinities ---------------------------------------------------------------------

def _finite_real(dt):
    info = np.finfo(dt.np_dtype)
    big, small = float(info.max), float(info.min)

    @register_jitable
    def fix(x, nan, posinf, neginf):
        if x != x:
            return dt(nan)
        if x == math.inf:
            return dt(big if posinf is None else posinf)
        if x == -math.inf:
            return dt(small if neginf is None else neginf)
        return x
    return fix


def _fixer(ty):
    if isinstance(ty, t.Float):
        return _finite_real(ty)
    if isinstance(ty, t.Complex):
        part = _finite_real(ty.underlying_float)

        def fix(x, nan, posinf, neginf):
            return complex(part(x.real, nan, posinf, neginf), part(x.imag, nan, posinf, neginf))
        return register_jitable(fix)
    return register_jitable(lambda x, nan, posinf, neginf: x)


@overload(np.nan_to_num)
def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    if not (isinstance(nan, _SCALAR) or nan == 0.0) or \
            not (omitted(posinf) or isinstance(posinf, _SCALAR)) or \
            not (omitted(neginf) or isinstance(neginf, _SCALAR)):
        return None
    if isinstance(x, _SCALAR):
        fix = _fixer(x)
        return lambda x, copy=True, nan=0.0, posinf=None, neginf=None: \
            fix(x, nan, posinf, neginf)
    if not isinstance(x, t.Array):
        return None
    fix = _fixer(x.dtype)
    dt = x.dtype

    def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
        flat = in_c_order(x)
        out = empty_array(flat.shape[0], dt)
        for i in range(flat.shape[0]):
            out[i] = fix(flat[i], nan, posinf, neginf)
        result = out.reshape(x.shape)
        if not copy:
            x[...] = result
        return result
    return nan_to_num


# ---- taking by position ---------------------------------------------------------------------

@register_jitable
def _position(i, n):
    if i < -n or i >= n:
        raise IndexError("index out of bounds for the flattened array")
    return i + n if i < 0 else i


def _integer_items(indices):
    """Whether `indices` is a list or (nested) tuple of integers: None when it is neither
    a list nor a tuple, else a TypingError for items that are not integers."""
    items = indices
    while isinstance(items, (t.BaseTuple, t.ListType)):
        if isinstance(items, t.BaseTuple) and not isinstance(items, t.UniTuple):
            raise TypingError(f"np.take() takes indices of one type, not {indices}")
        items = items.dtype
    if items is indices:
        return None
    if not isinstance(items, t.Integer):
        raise TypingError(f"np.take() indices must be integers, not {indices}")
    return True


@functools.lru_cache(maxsize=None)
def _with_length_at(ndim):
    """A compiled `shape` with its item `axis` replaced by `k` (ndim items)."""
    items = ", ".join(f"k if axis == {d} else shape[{d}]" for d in range(ndim))
    env = {}
    exec(f"def with_length_at(shape, axis, k):\n    return ({items},)\n", env)
    return register_jitable(env["with_length_at"])


def _take_along(a, indices):
    """np.take(a, indices, axis=...): an integer drops the axis, a 1-d array, list or
    tuple of integers picks along it (NumPy's AxisError for an axis out of range)."""
    ndim, dt = a.ndim, a.dtype
    if isinstance(indices, t.Integer) and ndim == 1:
        def take_one(a, indices, axis):
            if axis < -1 or axis > 0:
                raise AxisError(axis, 1)
            return a[_position(indices, a.shape[0])]
        return take_one
    if isinstance(indices, t.Integer):
        def take_slice(a, indices, axis):
            if axis < -ndim or axis >= ndim:
                raise AxisError(axis, ndim)
            view, rest = around_axis(np.ascontiguousarray(a), axis + ndim if axis < 0 else axis)
            out = np.empty((view.shape[0], view.shape[2]), dt)
            at = _position(indices, view.shape[1])
            for i in range(view.shape[0]):
                for j in range(view.shape[2]):
                    out[i, j] = view[i, at, j]
            return out.reshape(rest)
        return take_slice
    if isinstance(indices, t.Array) and indices.ndim != 1 or \
            isinstance(indices, t.BaseTuple) and isinstance(indices.dtype, t.BaseTuple):
        return None
    reshaped = _with_length_at(ndim)

    def take_along(a, indices, axis):
        if axis < -ndim or axis >= ndim:
            raise AxisError(axis, ndim)
        ax = axis + ndim if axis < 0 else axis
        where = np.asarray(indices)
        view, _ = around_axis(np.ascontiguousarray(a), ax)
        out = np.empty((view.shape[0], where.shape[0], view.shape[2]), dt)
        for k in range(where.shape[0]):
            at = _position(where[k], view.shape[1])
            for i in range(view.shape[0]):
                for j in range(view.shape[2]):
                    out[i, k, j] = view[i, at, j]
        return out.reshape(reshaped(a.shape, ax, where.shape[0]))
    return take_along


def _take(a, indices, axis=None):
    """np.take / a.take: flat positions (lists and tuples of integers as NumPy's arrays
    of them), or along `axis`."""
    if not isinstance(a, t.Array):
        return None
    listed = _integer_items(indices)
    if not (isinstance(indices, t.Integer) or listed or isinstance(indices, t.Array) and
            isinstance(indices.dtype, t.Integer)):
        if isinstance(indices, t.Array):
            raise TypingError(f"np.take() indices must be integers, not {indices}")
        return None
    if not omitted(axis):
        if not isinstance(axis, t.Integer):
            return None
        return _take_along(a, indices)
    if isinstance(indices, t.Integer):
        return lambda a, indices, axis=None: in_c_order(a)[_position(indices, a.size)]
    if isinstance(indices, t.Array) and indices.ndim == 0:   # NumPy's result: a scalar
        return lambda a, indices, axis=None: in_c_order(a)[_position(indices[()], a.size)]
    dt = a.dtype

    def take(a, indices, axis=None):
        flat = in_c_order(a)
        chosen = np.asarray(indices)
        where = in_c_order(chosen)
        out = empty_array(where.shape[0], dt)
        for i in range(where.shape[0]):
            out[i] = flat[_position(where[i], flat.shape[0])]
        return out.reshape(chosen.shape)
    return take


overload(np.take)(_take)
overload_method(t.Array, "take")(_take)


@overload(np.flatnonzero)
def _flatnonzero(a):
    if isinstance(a, t.Array):
        return lambda a: np.nonzero(np.ravel(a))[0]
    return None


@register_jitable
def _picked(flat, condition):
    """flat's items at the nonzero positions of condition (1-d); IndexError past its end."""
    count = 0
    for i in range(condition.shape[0]):
        if condition[i]:
            count += 1
    out = np.empty(count, flat.dtype)
    k = 0
    for i in range(condition.shape[0]):
        if condition[i]:
            if i >= flat.shape[0]:
                raise IndexError("index out of bounds for the flattened array")
            out[k] = flat[i]
            k += 1
    return out


@overload(np.extract)
def _extract(condition, arr):
    if isinstance(condition, t.Array) and isinstance(arr, t.Array):
        return lambda condition, arr: _picked(in_c_order(arr), in_c_order(condition))
    return None


@overload(np.compress)
def _compress(condition, a, axis=None):
    if not (isinstance(condition, t.Array) and isinstance(a, t.Array) and omitted(axis)):
        return None
    if condition.ndim != 1:
        def fail(condition, a, axis=None):
            raise ValueError("condition must be a 1-d array")
        return fail
    return lambda condition, a, axis=None: _picked(in_c_order(a), condition)


# ---- select ---------------------------------------------------------------------------------

def _array_items(seq):
    """The array type of a list or homogeneous tuple of arrays, and how many (None: a list)."""
    if isinstance(seq, t.ListType) and isinstance(seq.item_type, t.Array):
        return seq.item_type, None
    if isinstance(seq, t.BaseTuple) and seq.types and \
            all(isinstance(a, t.Array) for a in seq.types) and len(set(seq.types)) == 1:
        return seq.types[0], len(seq.types)
    return None, None


_WEAK = {t.Boolean: False, t.Integer: 0, t.Float: 0.0, t.Complex: 0j}


@overload(np.select)
def _select(condlist, choicelist, default=0):
    cond, _ = _array_items(condlist)
    choice, _ = _array_items(choicelist)
    if cond is None or choice is None or not (isinstance(default, _SCALAR) or default == 0):
        return None
    if cond.dtype != t.boolean:
        def fail(condlist, choicelist, default=0):
            raise TypeError("invalid entry 0 in condlist: should be boolean ndarray")
        return fail
    weak = 0 if default == 0 else next(v for k, v in _WEAK.items() if isinstance(default, k))
    dt = t.from_dtype(np.result_type(choice.dtype.np_dtype, weak))

    def select(condlist, choicelist, default=0):
        if len(condlist) != len(choicelist):
            raise ValueError("list of cases must be same length as list of conditions")
        if len(condlist) == 0:
            raise ValueError("select with an empty condition list is not possible")
        shape = condlist[0].shape
        for i in range(len(condlist)):
            if condlist[i].shape != shape or choicelist[i].shape != shape:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single "
                                 "shape")
        out = np.full(shape, default, dt)
        flat = out.ravel()
        for j in range(len(condlist) - 1, -1, -1):
            c = in_c_order(condlist[j])
            v = in_c_order(choicelist[j])
            for i in range(flat.shape[0]):
                if c[i]:
                    flat[i] = v[i]
        return out
    return select


# ---- append, delete, insert -----------------------------------------------------------------

def _flat_of(values):
    """A jitable giving `values` (an array or a scalar) as a 1-d array."""
    if isinstance(values, t.Array):
        return register_jitable(lambda v: in_c_order(v))
    return register_jitable(lambda v: np.full(1, v))


@overload(np.append)
def _append(arr, values, axis=None):
    if not (isinstance(arr, (t.Array,) + _SCALAR) and
            isinstance(values, (t.Array,) + _SCALAR) and omitted(axis)):
        return None
    dt = t.from_dtype(np.result_type(_np_dtype(arr), _np_dtype(values)))
    first, second = _flat_of(arr), _flat_of(values)

    def append(arr, values, axis=None):
        a = first(arr)
        b = second(values)
        out = empty_array(a.shape[0] + b.shape[0], dt)
        out[:a.shape[0]] = a
        out[a.shape[0]:] = b
        return out
    return append


@overload(np.delete)
def _delete(arr, obj, axis=None):
    if not (isinstance(arr, t.Array) and omitted(axis)):
        return None
    if isinstance(obj, t.Integer):
        def delete_one(arr, obj, axis=None):
            flat = in_c_order(arr)
            n = flat.shape[0]
            if obj < -n or obj >= n:
                raise IndexError("index out of bounds for the flattened array")
            i = obj + n if obj < 0 else obj
            return np.concatenate((flat[:i], flat[i + 1:]))
        return delete_one
    if not (isinstance(obj, t.Array) and obj.ndim == 1 and isinstance(obj.dtype, t.Integer)):
        return None

    def delete_many(arr, obj, axis=None):
        flat = in_c_order(arr)
        n = flat.shape[0]
        keep = np.ones(n, np.bool_)
        for j in range(obj.shape[0]):
            keep[_position(obj[j], n)] = False
        return flat[keep]
    return delete_many


@overload(np.insert)
def _insert(arr, obj, values, axis=None):
    if not (isinstance(arr, t.Array) and omitted(axis) and
            isinstance(values, (t.Array,) + _SCALAR)):
        return None
    dt = arr.dtype
    as_flat = _flat_of(values)
    if isinstance(obj, t.Integer):
        def insert_one(arr, obj, values, axis=None):
            flat = in_c_order(arr)
            n = flat.shape[0]
            if obj < -n or obj > n:
                raise IndexError("index out of bounds for the flattened array")
            i = obj + n if obj < 0 else obj
            v = as_flat(values)
            out = empty_array(n + v.shape[0], dt)
            out[:i] = flat[:i]
            for j in range(v.shape[0]):
                out[i + j] = v[j]
            out[i + v.shape[0]:] = flat[i:]
            return out
        return insert_one
    if not (isinstance(obj, t.Array) and obj.ndim == 1 and isinstance(obj.dtype, t.Integer)):
        return None

    def insert_many(arr, obj, values, axis=None):
        if obj.shape[0] == 1:
            return np.insert(arr, obj[0], values)
        flat = in_c_order(arr)
        n = flat.shape[0]
        count = obj.shape[0]
        v = as_flat(values)
        if v.shape[0] != count and v.shape[0] != 1:
            raise ValueError("shape mismatch: value array could not be broadcast to the "
                             "indexing result")
        where = np.empty(count, np.int64)
        for j in range(count):
            p = obj[j]
            if p < -n or p > n:
                raise IndexError("index out of bounds for the flattened array")
            where[j] = p + n if p < 0 else p
        order = np.argsort(where * count + np.arange(count))   # stable, as NumPy's mergesort
        for j in range(count):
            where[order[j]] += j
        out = empty_array(n + count, dt)
        old = np.ones(n + count, np.bool_)
        for j in range(count):
            old[where[j]] = False
        k = 0
        for i in range(n + count):
            if old[i]:
                out[i] = flat[k]
                k += 1
        for j in range(count):
            out[where[j]] = v[j] if v.shape[0] == count else v[0]
        return out
    return insert_many

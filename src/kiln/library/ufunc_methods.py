"""A kiln ufunc's methods in compiled code: `f.reduce`, `f.accumulate`, `f.reduceat`,
`f.outer` and `f.at` of a `@vectorize` ufunc (eager, or a DUFunc), with NumPy's semantics.

The loop types are NumPy's own: at compile time the ufunc (with the loop the operands need,
compiled first for a DUFunc as its Python methods do) resolves the reduction's dtypes
(`resolve_dtypes(..., reduction=True)`, which knows add's and multiply's widening of small
integers), and a probe on a one-item array gives NumPy's refusal of several axes for a
reduction that is not reorderable. Each step is then a scalar call of the ufunc itself
(its compiled-code template), so the kernel and its loop choice are the call's. Items are
combined in order along each reduced axis (kiln's ufuncs have plain loops, not NumPy's
pairwise sums); several axes are reduced in C order of the reduced axes.

NumPy's own ufuncs (those of ufuncs.py's table) have the same methods, with two cares:
`at` converts both operands to the loop NumPy picks for the arrays' dtypes (a scalar call
would take a Python-typed operand as NEP 50's weak scalar), and the float reductions whose
NumPy loops are not plain (add sums pairwise; maximum and minimum choose among signed
zeros by their SIMD order) are np.sum's, np.max's and np.min's, which follow NumPy's order,
or refused where those cannot say it (several axes, initial=, reduceat).

`ufunc/vectorize.py` registers each ufunc it lets compiled code call (`register`), with
the function that gives the NumPy ufunc holding a loop for given input types."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from ..typing.registry import omitted, overload, overload_method, register_jitable
from .axes import AxisError, permuted
from .reductions import c_contiguous
from .ufuncs import UFUNCS

_UFUNCS = {}   # the ufunc compiled code calls -> (nin, face: input kiln types -> np.ufunc)


def register(key, nin, face):
    """Let compiled code call `key`'s methods; `face(argtypes)` is the NumPy ufunc with a
    loop for those input types."""
    _UFUNCS[key] = (nin, face)


def _ufunc(fn):
    """(ufunc, nin, face) of a receiver that is a registered ufunc (one of NumPy's too),
    else None."""
    if not isinstance(fn, t.Function) or fn.pyfunc not in _UFUNCS:
        return None
    return (fn.pyfunc,) + _UFUNCS[fn.pyfunc]


def _name(ufunc):
    return getattr(ufunc, "__name__", "ufunc")


def _array_like(ty, what, method, ufunc):
    """The element type of an array, list or tuple of numbers, else a TypingError."""
    if isinstance(ty, t.Array):
        return ty.dtype
    if isinstance(ty, (t.List, t.UniTuple)) and isinstance(ty.dtype, t.Number):
        return ty.dtype
    first = "The first argument " if what == "array" else ""
    raise TypingError(f"{first}\"{what}\" must be array-like, not {ty} "
                      f"({_name(ufunc)}.{method}())")


def _dtype_arg(ty, ufunc, method):
    """The dtype= argument as a kiln type, or None."""
    if omitted(ty):
        return None
    if isinstance(ty, t.NumberClass):
        return ty.instance_type
    if isinstance(ty, t.DType):
        return t.from_dtype(np.dtype(ty.dtype))
    raise TypingError(f"{_name(ufunc)}.{method}(): dtype must be a NumPy dtype or scalar "
                      f"class known at compile time, not {ty}")


def _loop(ufunc, face, nin, method, item, dtype, out=None):
    """(R, L1, L2): the reduction's result dtype and the loop's input dtypes, as NumPy
    resolves them for items of kiln type `item` (and `dtype=`, else the dtype of `out=`,
    which NumPy reduces in), with its reductions' 'unsafe' casting."""
    if nin != 2:
        raise TypingError(f"{_name(ufunc)}.{method}(): {method} only supported for binary "
                          "functions")
    given_out = isinstance(out, t.Array) and dtype is None
    uniform = method != "reduce"   # NumPy's accumulate and reduceat take one dtype
    np_ufunc = face((dtype or item,) * 2 if not given_out else
                    (out.dtype, out.dtype if uniform else item))
    first = out.dtype.np_dtype if given_out else None
    try:
        fixed = {} if dtype is None else {"signature": (dtype.np_dtype, None, None)}
        items = first if uniform and given_out else item.np_dtype
        dts = np_ufunc.resolve_dtypes((first, items, None), reduction=True,
                                      casting="unsafe", **fixed)
    except (TypeError, ValueError) as e:
        raise TypingError(f"{_name(ufunc)}.{method}() of {item} items: {e}") from None
    if uniform and dts[0] != dts[1]:
        raise TypingError(f"the resolved dtypes are not compatible with {_name(ufunc)}."
                          f"{method}: {dts}")
    return tuple(t.from_dtype(d) for d in (dts[2], dts[0], dts[1]))


_ORDERED = {np.add: (np.sum, (t.Float, t.Complex)), np.maximum: (np.max, (t.Float,)),
            np.minimum: (np.min, (t.Float,))}


def _ordered_reduction(ufunc, result, method):
    """np.sum, np.max or np.min for NumPy's float add, maximum and minimum reductions
    (their loops are not plain), a TypingError for their reduceat; else None."""
    whole, kinds = _ORDERED.get(ufunc, (None, ()))
    if whole is None or not isinstance(result, kinds):
        return None
    if method != "reduce":
        raise TypingError(f"np.{ufunc.__name__}.{method}() of {result} items: kiln does not "
                          f"follow NumPy's order of this reduction in compiled code yet")
    return whole


@register_jitable
def _normalized(axis, ndim):
    """`axis` in 0..ndim-1, else NumPy's AxisError (its message after Numba's words)."""
    if axis < -ndim or axis >= ndim:
        raise AxisError("Invalid axis: axis " + str(axis) +
                        " is out of bounds for array of dimension " + str(ndim))
    return axis + ndim if axis < 0 else axis


def _axes_of(axis, ndim, ufunc):
    """(number of reduced axes, compiled `axes(axis)`: their numbers, checked, in C order)."""
    if omitted(axis):
        return ndim, register_jitable(lambda axis: np.arange(ndim))
    if isinstance(axis, t.Integer):
        def one(axis):
            axes = np.empty(1, np.int64)
            axes[0] = _normalized(axis, ndim)
            return axes
        return 1, register_jitable(one)
    if isinstance(axis, t.BaseTuple) and len(axis) == 0:
        return 0, register_jitable(lambda axis: np.empty(0, np.int64))
    if isinstance(axis, t.UniTuple) and isinstance(axis.dtype, t.Integer):
        k = len(axis)

        def several(axis):
            axes = np.empty(k, np.int64)
            i = 0
            for given in axis:   # kept sorted as they come
                d = _normalized(given, ndim)
                j = i
                while j > 0 and axes[j - 1] >= d:
                    if axes[j - 1] == d:
                        raise ValueError("duplicate value in 'axis'")
                    axes[j] = axes[j - 1]
                    j -= 1
                axes[j] = d
                i += 1
            return axes
        return k, register_jitable(several)
    raise TypingError(f"{_name(ufunc)}.reduce(): axis must be None, an integer or a tuple of "
                      f"integers, not {axis}")


def _check_reorderable(ufunc, face, item, dtype, ndim, k):
    """NumPy's ValueError for several axes of a reduction that is not reorderable, from a
    probe on a one-item array (which calls no loop), as a TypingError."""
    np_ufunc = face((dtype or item,) * 2)
    if k < 2 or np_ufunc.identity is not None:
        return
    try:
        np_ufunc.reduce(np.zeros((1,) * ndim, item.np_dtype), axis=tuple(range(k)),
                        dtype=None if dtype is None else dtype.np_dtype)
    except ValueError as e:
        raise TypingError(str(e)) from None


def _classes(*dtypes):
    """The scalar classes that convert to these dtypes in compiled code (a datetime64's or
    timedelta64's would drop its unit: refused)."""
    for d in dtypes:
        if not isinstance(d, t.Number) or isinstance(d, (t.NPDatetime, t.NPTimedelta)):
            raise TypingError(f"kiln's ufunc methods in compiled code take numbers, not {d} "
                              "items, yet")
    return tuple(d.np_dtype.type for d in dtypes)


@overload_method(t.Function, "reduce")
def _reduce(fn, array, axis=None, dtype=None, out=None, keepdims=None, initial=None):
    found = _ufunc(fn)
    if found is None:
        return None
    ufunc, nin, face = found
    item = _array_like(array, "array", "reduce", ufunc)
    if not omitted(keepdims):   # (a method's bool arguments reach it as plain bools)
        raise TypingError(f"{_name(ufunc)}.reduce(): kiln does not support keepdims= in "
                          "compiled code yet")
    given_out = not omitted(out)
    wanted = _dtype_arg(dtype, ufunc, "reduce")
    result, first, second = _loop(ufunc, face, nin, "reduce", item, wanted, out)
    r_cls, l1, l2 = _classes(result, first, second)
    zero_d = isinstance(array, t.Array) and array.ndim == 0   # NumPy: its one item reduced
    if zero_d and isinstance(axis, t.BaseTuple) and len(axis) > 0:
        raise TypingError(f"{_name(ufunc)}.reduce(): axis {axis} is out of bounds for array "
                          "of dimension 0")
    ndim = array.ndim if isinstance(array, t.Array) and not zero_d else 1
    items_of = _one_item if zero_d else _as_is
    whole = None if zero_d else _ordered_reduction(ufunc, result, "reduce")
    if whole is not None:
        if not (isinstance(axis, (t.Integer, t.NoneType)) or axis is None) or \
                not omitted(initial) or item != result or given_out:
            raise TypingError(f"np.{ufunc.__name__}.reduce() of {item} items over several "
                              f"axes, with initial=, dtype= or out=: kiln reduces "
                              f"floats only "
                              f"as np.{whole.__name__} does, in NumPy's order; call "
                              f"np.{whole.__name__}(a, axis)")

        def ordered(fn, array, axis=0, dtype=None, out=None, keepdims=None, initial=None):
            return whole(array, axis)
        return ordered
    if zero_d and not isinstance(axis, t.Integer):
        axis = t.none
    k, axes_of = _axes_of(t.int64 if axis is None else axis, ndim, ufunc)
    _check_reorderable(ufunc, face, item, wanted, ndim, k)
    kept = ndim - k
    if given_out and not (isinstance(out, t.Array) and out.layout == "C" and
                          out.ndim == kept):
        raise TypingError(f"{_name(ufunc)}.reduce(): out must be a C-contiguous array of "
                          f"{kept} dimensions here, not {out}")
    o_cls = _classes(out.dtype)[0] if given_out else r_cls
    identity = face((wanted or item,) * 2).identity
    has_initial = not omitted(initial)
    message = f"zero-size array to reduction operation {_name(ufunc)} which has no identity"

    def impl(fn, array, axis=0, dtype=None, out=None, keepdims=None, initial=None):
        a = items_of(np.asarray(array))
        axes = axes_of(axis)
        reduced = np.zeros(ndim, np.bool_)
        for d in axes:
            reduced[d] = True
        order = np.empty(ndim, np.int64)
        j = 0
        for d in range(ndim):
            if not reduced[d]:
                order[j] = d
                j += 1
        order[kept:] = axes
        view = permuted(a, order)
        count = 1
        for d in range(kept):
            count *= view.shape[d]
        size = 1
        for d in range(kept, ndim):
            size *= view.shape[d]
        if k > 0 and size == 0 and not has_initial and identity is None:
            raise ValueError(message)
        items = c_contiguous(view).reshape((count, size))
        res = np.empty(count, r_cls)
        for i in range(count):
            if k == 0:
                res[i] = r_cls(items[i, 0])
                continue
            if has_initial:
                acc = r_cls(initial)
                start = 0
            elif identity is not None:
                acc = r_cls(identity)
                start = 0
            else:
                acc = r_cls(items[i, 0])
                start = 1
            for j in range(start, size):
                acc = r_cls(ufunc(l1(acc), l2(items[i, j])))
            res[i] = acc
        if given_out:
            return _stored(out, res, view.shape[:kept], o_cls)
        if kept == 0:
            return res[0]
        return res.reshape(view.shape[:kept])
    return impl


@register_jitable
def _stored(out, res, shape, o_cls):
    """`out` (C-contiguous) holding the result `res` (its items in C order) of `shape`."""
    if out.shape != shape:
        raise ValueError("output parameter for reduction operation has the wrong shape")
    flat = out.reshape(-1)
    for i in range(res.size):
        flat[i] = o_cls(res[i])
    return out


@overload_method(t.Function, "accumulate")
def _accumulate(fn, array, axis=None, dtype=None, out=None):
    found = _ufunc(fn)
    if found is None:
        return None
    ufunc, nin, face = found
    item = _array_like(array, "array", "accumulate", ufunc)
    if not omitted(out):
        raise TypingError(f"{_name(ufunc)}.accumulate(): kiln does not support out= in "
                          "compiled code yet")
    if not (omitted(axis) or isinstance(axis, t.Integer)):
        raise TypingError(f"{_name(ufunc)}.accumulate(): \"axis\" must be an integer, not "
                          f"{axis}")
    wanted = _dtype_arg(dtype, ufunc, "accumulate")
    result, first, second = _loop(ufunc, face, nin, "accumulate", item, wanted)
    r_cls, l1, l2 = _classes(result, first, second)
    ndim = array.ndim if isinstance(array, t.Array) else 1

    def impl(fn, array, axis=0, dtype=None, out=None):
        a = np.asarray(array)
        order = _moved_last(_normalized(axis, ndim), ndim)
        items = c_contiguous(permuted(a, order))
        n = items.shape[-1]
        count = 1
        for d in range(ndim - 1):
            count *= items.shape[d]
        lines = items.reshape((count, n))
        res = np.empty((count, n), r_cls)
        for i in range(count if n > 0 else 0):
            acc = r_cls(lines[i, 0])
            res[i, 0] = acc
            for j in range(1, n):
                acc = r_cls(ufunc(l1(acc), l2(lines[i, j])))
                res[i, j] = acc
        res = res.reshape(items.shape)
        return np.ascontiguousarray(permuted(res, np.argsort(order)))
    return impl


@register_jitable
def _moved_last(axis, ndim):
    """The axes in order with `axis` moved last (for `permuted`)."""
    order = np.empty(ndim, np.int64)
    j = 0
    for d in range(ndim):
        if d != axis:
            order[j] = d
            j += 1
    order[ndim - 1] = axis
    return order


@overload_method(t.Function, "reduceat")
def _reduceat(fn, array, indices, axis=None, dtype=None, out=None):
    found = _ufunc(fn)
    if found is None:
        return None
    ufunc, nin, face = found
    name = _name(ufunc)
    item = _array_like(array, "array", "reduceat", ufunc)
    index = _array_like(indices, "indices", "reduceat", ufunc)
    if isinstance(indices, t.Array) and indices.ndim > 1:
        raise TypingError(f"{name}.reduceat(): \"indices\" must have at most 1 dimension, "
                          f"not {indices.ndim}")
    if not isinstance(index, t.Integer):
        raise TypingError(f"{name}.reduceat(): \"indices\" must be integers, not {index}")
    if not (omitted(axis) or isinstance(axis, t.Integer)):
        raise TypingError(f"{name}.reduceat(): \"axis\" must be an integer, not {axis}")
    if not (omitted(out) or isinstance(out, t.Array)):
        raise TypingError(f"{name}.reduceat(): output must be an array, not {out}")
    wanted = _dtype_arg(dtype, ufunc, "reduceat")
    result, first, second = _loop(ufunc, face, nin, "reduceat", item, wanted, out)
    _ordered_reduction(ufunc, result, "reduceat")
    r_cls, l1, l2 = _classes(result, first, second)
    ndim = array.ndim if isinstance(array, t.Array) else 1
    given_out = not omitted(out)
    if given_out and out.ndim != ndim:
        raise TypingError(f"{name}.reduceat(): out has {out.ndim} dimensions, the result "
                          f"{ndim}")
    o_cls = _classes(out.dtype)[0] if given_out else r_cls
    # as if `out` did not overlap the array (NumPy's rule for overlapping operands)
    source = _copied if given_out else _as_is
    bounds = f" out-of-bounds in {name}.reduceat [0, "
    result_of = _given_out(name) if given_out else _new_out(r_cls)

    def impl(fn, array, indices, axis=0, dtype=None, out=None):
        a = source(np.asarray(array))
        idx = np.asarray(indices)
        order = _moved_last(_normalized(axis, ndim), ndim)
        view = permuted(a, order)
        n = view.shape[-1]
        m = idx.size
        for i in range(m):
            if idx[i] < 0 or idx[i] >= n:
                raise IndexError("index " + str(idx[i]) + bounds + str(n) + ")")
        res = result_of(out, view.shape[:-1] + (m,), order)
        target = permuted(res, order)
        for where in np.ndindex(view.shape[:-1]):
            line = view[where]
            dest = target[where]
            for i in range(m):
                lo = idx[i]
                hi = idx[i + 1] if i + 1 < m else n
                acc = r_cls(line[lo])
                for j in range(lo + 1, hi):
                    acc = r_cls(ufunc(l1(acc), l2(line[j])))
                dest[i] = o_cls(acc)
        return res
    return impl


@register_jitable
def _copied(a):
    return a.copy()


@register_jitable
def _as_is(a):
    return a


@register_jitable
def _one_item(a):
    return a.reshape(1)


def _given_out(name):
    @register_jitable
    def given(out, shape, order):
        if permuted(out, order).shape != shape:
            raise ValueError(name + ".reduceat(): out has the wrong shape for the result")
        return out
    return given


def _new_out(r_cls):
    @register_jitable
    def new(out, shape, order):
        return permuted(np.empty(shape, r_cls), np.argsort(order))
    return new


@overload_method(t.Function, "outer")
def _outer(fn, a, b):
    found = _ufunc(fn)
    if found is None:
        return None
    ufunc, nin, face = found
    if nin != 2:
        raise TypingError(f"{_name(ufunc)}.outer(): outer product only supported for binary "
                          "functions")
    for given in (a, b):
        _array_like(given, "array", "outer", ufunc)
    ones = (1,) * (b.ndim if isinstance(b, t.Array) else 1)

    def impl(fn, a, b):
        left = np.ascontiguousarray(np.asarray(a))
        return ufunc(left.reshape(left.shape + ones), np.asarray(b))
    return impl


def _at_loop(ufunc, face, operands):
    """The input types of the loop NumPy's `at` takes for these operand types: the
    operands' own for kiln's ufuncs (their compiled calls choose as NumPy does), NumPy's
    resolution for its own ufuncs (an operand typed int64 or float64 may be a Python
    scalar to a compiled call, NEP 50's weak kind, but is an array's item here)."""
    if ufunc not in UFUNCS:
        return operands
    try:
        found = ufunc.resolve_dtypes(tuple(o.np_dtype for o in operands) + (None,),
                                     casting="unsafe")
    except (TypeError, ValueError) as e:
        raise TypingError(f"np.{ufunc.__name__}.at() of {', '.join(map(str, operands))}: "
                          f"{e}") from None
    return tuple(t.from_dtype(d) for d in found[:len(operands)])


@register_jitable
def _positions_of(a, where):
    """The C-order positions of the items `a[where]` selects, in `a[where]`'s shape (NumPy's
    indexing itself, on the positions)."""
    return np.asarray(np.arange(a.size).reshape(a.shape)[where])


@register_jitable
def _positions_along(a, where):
    """`_positions_of` for a 1-d array and 1-d integer indices, without the arange."""
    n = a.shape[0]
    positions = np.empty(where.size, np.int64)
    for i in range(where.size):
        p = where[i]
        if p < -n or p >= n:
            raise IndexError("index " + str(p) + " is out of bounds for axis 0 with size " +
                             str(n))
        positions[i] = p + n if p < 0 else p
    return positions


def flat_copy(x):
    """The items of the array `x` in C order, as a new 1-d array (compiled code only)."""


@overload(flat_copy)
def _flat_copy(x):
    if x.ndim == 0:
        return lambda x: np.full(1, x[()])
    return lambda x: np.ascontiguousarray(x).reshape(-1)


@overload_method(t.Function, "at")
def _at(fn, a, indices, b=None):
    found = _ufunc(fn)
    if found is None:
        return None
    ufunc, nin, face = found
    name = _name(ufunc)
    if not isinstance(a, t.Array):
        raise TypingError(f"{name}.at(): the first operand must be an array, not {a}")
    if a.readonly:
        raise TypingError(f"{name}.at(): the first operand is a read-only array ({a})")
    if nin == 2 and omitted(b):
        raise TypingError(f"{name}.at(): second operand needed for ufunc")
    if nin == 1 and not omitted(b):
        raise TypingError(f"{name}.at(): second operand provided when ufunc is unary")
    operands = (a.dtype,) if nin == 1 else (a.dtype, b if isinstance(b, t.Number) else
                                             _array_like(b, "b", "at", ufunc))
    loops = _at_loop(ufunc, face, operands)
    l1, l2 = _classes(*loops) if nin == 2 else _classes(*loops) * 2
    a_cls, = _classes(a.dtype)
    by_list = isinstance(indices, t.List)
    binary = nin == 2
    copied = a.layout != "C"   # worked on in a C copy, written back
    direct = a.ndim == 1 and isinstance(indices, (t.Array, t.List)) and \
        getattr(indices, "ndim", 1) == 1 and isinstance(indices.dtype, t.Integer)
    chosen_by = _positions_along if direct else _positions_of

    def impl(fn, a, indices, b=None):
        work = np.ascontiguousarray(a)
        flat = work.reshape(-1)
        where = np.asarray(indices) if by_list else indices
        chosen = chosen_by(a, where)
        positions = chosen.reshape(-1)
        if binary:
            flat_values = flat_copy(np.broadcast_to(np.asarray(b), chosen.shape))
            for i in range(positions.size):
                p = positions[i]
                flat[p] = a_cls(ufunc(l1(flat[p]), l2(flat_values[i])))
        else:
            for i in range(positions.size):
                p = positions[i]
                flat[p] = a_cls(ufunc(l1(flat[p])))
        if copied:
            a[...] = work
    return impl


for _own in UFUNCS:   # NumPy's own ufuncs, as kiln's library computes them
    if isinstance(_own, np.ufunc) and _own.nout == 1 and _own.nin <= 2:
        register(_own, _own.nin, lambda argtypes, ufunc=_own: ufunc)

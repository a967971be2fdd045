"""Rearranging arrays: np.fliplr, flipud, rot90 (k only), atleast_1d/2d/3d,
expand_dims, swapaxes (and the method), moveaxis (integer axes), broadcast_to,
ascontiguousarray, asfortranarray, column_stack, dstack, split, array_split, hsplit,
vsplit, and np.shape / np.ndim / np.size.

As in NumPy, flips, rot90, swapaxes, moveaxis, expand_dims, atleast_*d and the pieces of
the splits are views of their argument; broadcast_to is a view with zero strides where it
repeats, read-only in compiled code (kiln's boxing returns every array to Python writeable,
so NumPy's read-only flag is not set on it there). np.squeeze is not here: the number of
dimensions it returns depends on the shape, which compiled code knows only at run time."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from .arrays import ArrayValue, make_array
from .axes import AxisError, normalized_axis
from .shapes import as_c_contiguous
from ..typing.registry import intrinsic, overload, overload_method, register_jitable

_INTLIKE = (t.Integer, t.Boolean)
_SCALAR = (t.Number, t.Boolean)


def _pick(builder, values, k):
    """values[k] for a run-time k (one LLVM value per position)."""
    result = values[0]
    for d, v in enumerate(values[1:], 1):
        result = builder.select(builder.icmp_signed("==", k, ir.Constant(dm.i64, d)), v, result)
    return result


def _view_of(context, builder, a, ty, result_ty, shape, strides):
    return make_array(context, builder, result_ty, a.field(dm.ARRAY_DATA), shape, strides,
                      meminfo=a.field(dm.ARRAY_MEMINFO), parent=a.field(dm.ARRAY_PARENT))


@intrinsic
def swapped_view(typingctx, arr, i, j):
    """The view of `arr` with axes i and j exchanged (both normalized, AxisError outside)."""
    if not (isinstance(arr, t.Array) and isinstance(i, _INTLIKE) and isinstance(j, _INTLIKE)):
        return None
    result = arr.copy(layout="A")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        n = arr.ndim
        p = normalized_axis(context, builder, args[1], i, n)
        q = normalized_axis(context, builder, args[2], j, n)
        shapes = [a.shape(d) for d in range(n)]
        strides = [a.stride(d) for d in range(n)]
        new_shape, new_strides = [], []
        for d in range(n):
            at = ir.Constant(dm.i64, d)
            src = builder.select(builder.icmp_signed("==", at, p), q,
                                 builder.select(builder.icmp_signed("==", at, q), p, at))
            new_shape.append(_pick(builder, shapes, src))
            new_strides.append(_pick(builder, strides, src))
        return _view_of(context, builder, a, arr, result, new_shape, new_strides)
    return result(arr, i, j), codegen


@intrinsic
def moved_view(typingctx, arr, source, destination):
    """The view of `arr` with axis `source` moved to position `destination`."""
    if not (isinstance(arr, t.Array) and isinstance(source, _INTLIKE) and
            isinstance(destination, _INTLIKE)):
        return None
    result = arr.copy(layout="A")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        n = arr.ndim
        src = normalized_axis(context, builder, args[1], source, n)
        dst = normalized_axis(context, builder, args[2], destination, n)
        shapes = [a.shape(d) for d in range(n)]
        strides = [a.stride(d) for d in range(n)]
        one = ir.Constant(dm.i64, 1)
        new_shape, new_strides = [], []
        for d in range(n):
            at = ir.Constant(dm.i64, d)
            # the others keep their order: position e among them is axis e (+1 past src)
            e = builder.sub(at, builder.select(builder.icmp_signed(">", at, dst), one,
                                               ir.Constant(dm.i64, 0)))
            e = builder.add(e, builder.select(builder.icmp_signed(">=", e, src), one,
                                              ir.Constant(dm.i64, 0)))
            axis = builder.select(builder.icmp_signed("==", at, dst), src, e)
            new_shape.append(_pick(builder, shapes, axis))
            new_strides.append(_pick(builder, strides, axis))
        return _view_of(context, builder, a, arr, result, new_shape, new_strides)
    return result(arr, source, destination), codegen


@intrinsic
def unit_axis_view(typingctx, arr, axis):
    """The view of `arr` with a new axis of length 1 at `axis` (of ndim + 1 axes)."""
    if not (isinstance(arr, t.Array) and isinstance(axis, _INTLIKE)):
        return None
    result = arr.copy(ndim=arr.ndim + 1, layout="A")

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        n = arr.ndim + 1
        k = normalized_axis(context, builder, args[1], axis, n)
        one = ir.Constant(dm.i64, 1)
        itemsize = ir.Constant(dm.i64, arr.dtype.np_dtype.itemsize)
        shapes = [a.shape(d) for d in range(arr.ndim)] + [one]
        strides = [a.stride(d) for d in range(arr.ndim)] + [itemsize]
        new_shape, new_strides = [], []
        for d in range(n):
            at = ir.Constant(dm.i64, d)
            before = builder.icmp_signed("<", at, k)
            src = builder.select(before, at, builder.sub(at, one)) if d else at
            here = builder.icmp_signed("==", at, k)
            new_shape.append(builder.select(here, one, _pick(builder, shapes, src)))
            new_strides.append(builder.select(here, itemsize, _pick(builder, strides, src)))
        return _view_of(context, builder, a, arr, result, new_shape, new_strides)
    return result(arr, axis), codegen


@intrinsic
def broadcast_view(typingctx, arr, shape):
    """The read-only view of `arr` broadcast to `shape` (a tuple of ints), NumPy's
    ValueError where it cannot be."""
    items = shape.types if isinstance(shape, t.BaseTuple) else None
    if not (isinstance(arr, t.Array) and items is not None and
            all(isinstance(i, _INTLIKE) for i in items)):
        return None
    if len(items) < arr.ndim:
        raise TypingError("input operand has more dimensions than allowed by the axis "
                          "remapping")
    result = arr.copy(ndim=len(items), layout="A", readonly=True)

    def codegen(context, builder, sig, args):
        a = ArrayValue(context, builder, args[0], arr)
        zero, one = ir.Constant(dm.i64, 0), ir.Constant(dm.i64, 1)
        dims = [context.cast(builder, builder.extract_value(args[1], d), ty, t.int64)
                for d, ty in enumerate(items)]
        lead = len(items) - arr.ndim
        strides = []
        for d, size in enumerate(dims):
            context.guard(builder, builder.icmp_signed("<", size, zero), ValueError,
                          "all elements of broadcast shape must be non-negative")
            if d < lead:
                strides.append(zero)
                continue
            have = a.shape(d - lead)
            fits = builder.or_(builder.icmp_signed("==", have, size),
                               builder.icmp_signed("==", have, one))
            context.guard(builder, builder.not_(fits), ValueError,
                          "operands could not be broadcast together with remapped shapes")
            strides.append(builder.select(builder.icmp_signed("==", have, size),
                                          a.stride(d - lead), zero))
        return _view_of(context, builder, a, arr, result, dims, strides)
    return result(arr, shape), codegen


# ---- flips and rotations --------------------------------------------------------------------

@overload(np.fliplr)
def _fliplr(m):
    if not isinstance(m, t.Array):
        return None
    if m.ndim < 2:
        def fail(m):
            raise ValueError("Input must be >= 2-d.")
        return fail
    return lambda m: m[:, ::-1]


@overload(np.flipud)
def _flipud(m):
    if not isinstance(m, t.Array):
        return None
    if m.ndim < 1:
        def fail(m):
            raise ValueError("Input must be >= 1-d.")
        return fail
    return lambda m: m[::-1]


@overload(np.rot90)
def _rot90(m, k=1):
    if not (isinstance(m, t.Array) and (isinstance(k, _INTLIKE) or k == 1)):
        return None
    if m.ndim < 2:
        def fail(m, k=1):
            raise ValueError("Axes must be different.")
        return fail

    def rot90(m, k=1):
        k = k % 4
        if k == 0:
            return swapped_view(m, 0, 0)
        if k == 2:
            return swapped_view(m[::-1, ::-1], 0, 0)
        if k == 1:
            return swapped_view(m[:, ::-1], 0, 1)
        return swapped_view(m, 0, 1)[:, ::-1]
    return rot90


# ---- dimensions -----------------------------------------------------------------------------

def _atleast_1d_one(a):
    if isinstance(a, _SCALAR):
        return lambda a: np.full(1, a)
    if not isinstance(a, t.Array):
        return None
    if a.ndim == 0:
        return lambda a: a.reshape(1)
    return lambda a: a


def _atleast_2d_one(a):
    if isinstance(a, _SCALAR):
        return lambda a: np.full((1, 1), a)
    if not isinstance(a, t.Array):
        return None
    if a.ndim == 0:
        return lambda a: a.reshape(1, 1)
    if a.ndim == 1:
        return lambda a: a[None, :]
    return lambda a: a


def _atleast_3d_one(a):
    if isinstance(a, _SCALAR):
        return lambda a: np.full((1, 1, 1), a)
    if not isinstance(a, t.Array):
        return None
    impls = {0: lambda a: a.reshape(1, 1, 1), 1: lambda a: a[None, :, None],
             2: lambda a: a[:, :, None]}
    return impls.get(a.ndim, lambda a: a)


def _atleast(one, name):
    """np.atleast_Nd of one argument (the array) or of several (a tuple of arrays)."""
    def ov(*arys):
        impls = [one(a) for a in arys]
        if not impls or any(i is None for i in impls):
            return None
        if len(impls) == 1:
            return impls[0]
        env = {f"f{i}": register_jitable(f) for i, f in enumerate(impls)}
        params = ", ".join(f"a{i}" for i in range(len(impls)))
        calls = ", ".join(f"f{i}(a{i})" for i in range(len(impls)))
        exec(f"def {name}({params}):\n    return ({calls},)\n", env)
        return env[name]
    return ov


overload(np.atleast_1d)(_atleast(_atleast_1d_one, "atleast_1d"))
overload(np.atleast_2d)(_atleast(_atleast_2d_one, "atleast_2d"))
overload(np.atleast_3d)(_atleast(_atleast_3d_one, "atleast_3d"))


@overload(np.expand_dims)
def _expand_dims(a, axis):
    if isinstance(a, t.Array) and isinstance(axis, _INTLIKE):
        return lambda a, axis: unit_axis_view(a, axis)
    return None


def _swapaxes(a, axis1, axis2):
    if isinstance(a, t.Array) and isinstance(axis1, _INTLIKE) and isinstance(axis2, _INTLIKE):
        return lambda a, axis1, axis2: swapped_view(a, axis1, axis2)
    return None


overload(np.swapaxes)(_swapaxes)
overload_method(t.Array, "swapaxes")(_swapaxes)


@overload(np.moveaxis)
def _moveaxis(a, source, destination):
    if isinstance(a, t.Array) and isinstance(source, _INTLIKE) and \
            isinstance(destination, _INTLIKE):
        return lambda a, source, destination: moved_view(a, source, destination)
    return None


@overload(np.broadcast_to)
def _broadcast_to(array, shape):
    if isinstance(shape, _INTLIKE):
        return lambda array, shape: np.broadcast_to(array, (shape,))
    if isinstance(array, _SCALAR):
        return lambda array, shape: broadcast_view(np.full(1, array), shape)
    if isinstance(array, t.Array):
        return lambda array, shape: broadcast_view(array, shape)
    return None


@overload(np.ascontiguousarray)
def _ascontiguousarray(a):
    if isinstance(a, _SCALAR):
        return lambda a: np.full(1, a)
    if not isinstance(a, t.Array):
        return None
    if a.ndim == 0:
        return lambda a: a.reshape(1)
    return lambda a: as_c_contiguous(a)   # a itself when contiguous at run time, as NumPy


@overload(np.asfortranarray)
def _asfortranarray(a):
    if isinstance(a, _SCALAR):
        return lambda a: np.full(1, a)
    if not isinstance(a, t.Array):
        return None
    if a.ndim == 0:
        return lambda a: a.reshape(1)
    if a.layout == "F" or a.ndim == 1 and a.layout == "C":
        return lambda a: a
    return lambda a: as_c_contiguous(a.T).T


@overload(np.shape)
def _shape(a):
    if isinstance(a, t.Array):
        return lambda a: a.shape
    if isinstance(a, _SCALAR):
        return lambda a: ()
    return None


@overload(np.ndim)
def _ndim(a):
    if isinstance(a, t.Array):
        n = a.ndim
        return lambda a: n
    if isinstance(a, _SCALAR):
        return lambda a: 0
    return None


@overload(np.size)
def _size(a):
    if isinstance(a, t.Array):
        return lambda a: a.size
    if isinstance(a, _SCALAR):
        return lambda a: 1
    return None


# ---- stacking -------------------------------------------------------------------------------

def _arrays_in(tup):
    if isinstance(tup, t.BaseTuple) and tup.types and \
            all(isinstance(a, t.Array) for a in tup.types):
        return tup.types
    return None


def _stacker(name, arrays, shaped, axis):
    """`impl(tup)`: np.concatenate of each array passed through `shaped[ndim]`."""
    env = {"np": np}
    parts = []
    for i, a in enumerate(arrays):
        env[f"f{i}"] = shaped(a)
        parts.append(f"f{i}(tup[{i}])")
    src = f"def {name}(tup):\n    return np.concatenate(({', '.join(parts)},), axis={axis})\n"
    exec(src, env)
    return env[name]


def _as_column(a):
    if a.ndim == 1:
        return register_jitable(lambda a: a[:, None])
    return register_jitable(lambda a: a)


def _as_depth(a):
    impls = {0: lambda a: a.reshape(1, 1, 1), 1: lambda a: a[None, :, None],
             2: lambda a: a[:, :, None]}
    return register_jitable(impls.get(a.ndim, lambda a: a))


@overload(np.column_stack)
def _column_stack(tup):
    arrays = _arrays_in(tup)
    if arrays is None:
        return None
    if any(a.ndim not in (1, 2) for a in arrays):
        raise TypingError("np.column_stack() takes 1-d and 2-d arrays")
    return _stacker("column_stack", arrays, _as_column, 1)


@overload(np.dstack)
def _dstack(tup):
    arrays = _arrays_in(tup)
    if arrays is None:
        return None
    if len({min(a.ndim, 3) if a.ndim else 3 for a in arrays}) != 1 or \
            any(a.ndim > 3 for a in arrays):
        raise TypingError("np.dstack() takes arrays of up to 3 dimensions")
    return _stacker("dstack", arrays, _as_depth, 2)


# ---- splitting ------------------------------------------------------------------------------

@register_jitable
def _piece(a, axis, start, stop):
    return swapped_view(swapped_view(a, 0, axis)[start:stop], 0, axis)


@register_jitable
def _split_at(a, indices, axis):
    n = swapped_view(a, 0, axis).shape[0]
    out = [_piece(a, axis, 0, 0)]
    out.pop()
    start = 0
    for i in indices:
        out.append(_piece(a, axis, start, i))
        start = i
    out.append(_piece(a, axis, start, n))
    return out


@register_jitable
def _split_even(a, sections, axis, exact):
    n = swapped_view(a, 0, axis).shape[0]
    if exact:   # NumPy's np.split tests N % sections first
        if sections == 0:
            raise ZeroDivisionError("integer modulo by zero")
        if n % sections:
            raise ValueError("array split does not result in an equal division")
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    each, extras = divmod(n, sections)
    out = [_piece(a, axis, 0, 0)]
    out.pop()
    start = 0
    for i in range(sections):
        stop = start + each + (1 if i < extras else 0)
        out.append(_piece(a, axis, start, stop))
        start = stop
    return out


def _indices_kind(sections):
    """'int', 'seq' (a tuple, list or 1-d array of ints), or None."""
    if isinstance(sections, _INTLIKE):
        return "int"
    if isinstance(sections, t.BaseTuple) and all(isinstance(i, _INTLIKE) for i in sections.types):
        return "seq"
    if isinstance(sections, t.Array) and sections.ndim == 1 and \
            isinstance(sections.dtype, t.Integer):
        return "seq"
    if isinstance(sections, t.ListType) and isinstance(sections.item_type, t.Integer):
        return "seq"
    return None


def _splitter(exact):
    def ov(ary, indices_or_sections, axis=0):
        kind = _indices_kind(indices_or_sections)
        if not isinstance(ary, t.Array) or kind is None or ary.ndim == 0 or \
                not (isinstance(axis, _INTLIKE) or axis == 0):
            return None
        if kind == "int":
            return lambda ary, indices_or_sections, axis=0: \
                _split_even(ary, indices_or_sections, axis, exact)
        return lambda ary, indices_or_sections, axis=0: \
            _split_at(ary, indices_or_sections, axis)
    return ov


overload(np.split)(_splitter(True))
overload(np.array_split)(_splitter(False))


@overload(np.hsplit)
def _hsplit(ary, indices_or_sections):
    if not isinstance(ary, t.Array) or _indices_kind(indices_or_sections) is None:
        return None
    if ary.ndim == 0:
        def fail(ary, indices_or_sections):
            raise ValueError("hsplit only works on arrays of 1 or more dimensions")
        return fail
    axis = 1 if ary.ndim > 1 else 0
    return lambda ary, indices_or_sections: np.split(ary, indices_or_sections, axis)


@overload(np.vsplit)
def _vsplit(ary, indices_or_sections):
    if not isinstance(ary, t.Array) or _indices_kind(indices_or_sections) is None:
        return None
    if ary.ndim < 2:
        def fail(ary, indices_or_sections):
            raise ValueError("vsplit only works on arrays of 2 or more dimensions")
        return fail
    return lambda ary, indices_or_sections: np.split(ary, indices_or_sections, 0)


__all__ = ["AxisError", "broadcast_view", "moved_view", "swapped_view", "unit_axis_view"]

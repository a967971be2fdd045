"""NumPy's array creation functions in compiled code: empty, zeros, ones, full, their
*_like forms, arange, linspace, eye, identity, copy, array and asarray (of arrays and of
literal lists and tuples, nested). Each is Python that kiln compiles, on top of the
allocation primitives."""
from __future__ import annotations

import math

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from .allocation import allocate, empty_array, flat_view, shape_items, zeroed_array
from .arrays import ArrayValue, assign_into
from ..typing.registry import (intrinsic, omitted, overload, overload_method, register_jitable,
                               template)

FLOAT64 = t.float64
_BUILTIN_DTYPES = {float: t.float64, int: t.int64, bool: t.boolean, complex: t.complex128}


def dtype_of(dtype_ty, default=None):
    """The kiln scalar type a `dtype=` argument names (np.float32, 'f4', np.dtype('f4'),
    float, kiln.float32), `default` when it is omitted or None."""
    if omitted(dtype_ty):
        return default
    if isinstance(dtype_ty, t.NumberClass):
        return dtype_ty.instance_type
    if isinstance(dtype_ty, t.DType):
        return dtype_ty.dtype
    if isinstance(dtype_ty, t.Function) and dtype_ty.pyfunc in _BUILTIN_DTYPES:
        return _BUILTIN_DTYPES[dtype_ty.pyfunc]
    if isinstance(dtype_ty, t.StringLiteral):
        try:
            return t.from_dtype(np.dtype(dtype_ty.value))
        except TypeError:
            pass
    raise TypingError(f"kiln does not support the dtype {dtype_ty} here")


def _scalar_dtype(value_ty):
    """The dtype NumPy gives an array filled with a scalar of this type."""
    if isinstance(value_ty, t.Number):
        return value_ty
    raise TypingError(f"cannot fill an array with a value of type {value_ty}")


def _require_shape(shape):
    if shape_items(shape) is None:
        raise TypingError(f"an array shape must be an int or a tuple of ints, not {shape}")


@register_jitable
def _fill(a, value):
    flat = flat_view(a)
    for i in range(flat.shape[0]):
        flat[i] = value
    return a


def _filler(value, dt):
    """_fill, or for a complex value and a real dtype, _fill with its real part: np.full
    and np.full_like cast unsafely (NumPy warns that the imaginary part is dropped)."""
    if isinstance(value, t.Complex) and not isinstance(dt, t.Complex):
        return register_jitable(lambda a, value: _fill(a, value.real))
    return _fill


@overload(np.empty)
def _empty(shape, dtype=None):
    _require_shape(shape)
    dt = dtype_of(dtype, t.float64)
    return lambda shape, dtype=None: empty_array(shape, dt)


@overload(np.zeros)
def _zeros(shape, dtype=None):
    _require_shape(shape)
    dt = dtype_of(dtype, t.float64)
    return lambda shape, dtype=None: zeroed_array(shape, dt)


@overload(np.ones)
def _ones(shape, dtype=None):
    _require_shape(shape)
    dt = dtype_of(dtype, t.float64)
    return lambda shape, dtype=None: _fill(empty_array(shape, dt), 1)


@overload(np.full)
def _full(shape, fill_value, dtype=None):
    _require_shape(shape)
    dt = dtype_of(dtype, None) or _scalar_dtype(fill_value)
    fill = _filler(fill_value, dt)
    return lambda shape, fill_value, dtype=None: fill(empty_array(shape, dt), fill_value)


def _like(prototype, dtype):
    if not isinstance(prototype, t.Array):
        return None
    return dtype_of(dtype, prototype.dtype)


@overload(np.empty_like)
def _empty_like(a, dtype=None):
    dt = _like(a, dtype)
    return dt and (lambda a, dtype=None: empty_array(a.shape, dt))


@overload(np.zeros_like)
def _zeros_like(a, dtype=None):
    dt = _like(a, dtype)
    return dt and (lambda a, dtype=None: zeroed_array(a.shape, dt))


@overload(np.ones_like)
def _ones_like(a, dtype=None):
    dt = _like(a, dtype)
    return dt and (lambda a, dtype=None: _fill(empty_array(a.shape, dt), 1))


@overload(np.full_like)
def _full_like(a, fill_value, dtype=None):
    dt = _like(a, dtype)
    fill = dt and _filler(fill_value, dt)
    return dt and (lambda a, fill_value, dtype=None: fill(empty_array(a.shape, dt), fill_value))


@register_jitable
def _copy_of(a, dt):
    out = empty_array(a.shape, dt)
    assign_into(out, a)
    return out


def _copy_keeping_order(a, dt):
    """A copy in NumPy's order='K' (np.copy, astype): a Fortran array's stays Fortran."""
    if a.layout == "F" and a.ndim > 1:
        return lambda a, *_: _copy_of(a.T, dt).T
    return lambda a, *_: _copy_of(a, dt)


@overload(np.copy)
def _np_copy(a):
    if isinstance(a, t.Array):
        return _copy_keeping_order(a, a.dtype)
    return None


@overload_method(t.Array, "copy")
def _array_copy(a):
    dt = a.dtype
    return lambda a: _copy_of(a, dt)


def refuse_dropping_imaginary(source, dt):
    """NumPy casts a complex array's items to a real dtype with a ComplexWarning, dropping
    their imaginary parts (and refuses complex scalars and sequences); kiln refuses all of
    them at compile time, as it does a store (arrays.py), at the caller's line."""
    if isinstance(dt, t.Complex):
        return
    if isinstance(source, t.BaseTuple):
        for item in source.types:
            refuse_dropping_imaginary(item, dt)
    elif isinstance(source, (t.ListType, t.Array)):
        refuse_dropping_imaginary(source.dtype, dt)
    elif isinstance(source, t.Complex):
        raise TypingError(f"kiln does not cast {source} values to {dt}: that drops their "
                          "imaginary parts (NumPy refuses complex scalars, and warns with "
                          "ComplexWarning for arrays); take `.real` first")


@overload_method(t.Array, "astype")
def _astype(a, dtype):
    dt = dtype_of(dtype)
    refuse_dropping_imaginary(a.dtype, dt)
    return _copy_keeping_order(a, dt)


@overload_method(t.Array, "fill")
def _array_fill(a, value):
    if not isinstance(value, t.Number):
        return None
    refuse_dropping_imaginary(t.unliteral(value), a.dtype)

    def fill(a, value):
        assign_into(a, value)
    return fill


@overload(np.arange)
def _arange(start, stop=None, step=None, dtype=None):
    numbers = [a for a in (start, stop, step) if not isinstance(a, t.NoneType) and a is not None]
    if not all(isinstance(a, t.Number) for a in numbers):
        return None
    complex_bounds = any(isinstance(a, t.Complex) for a in numbers)
    natural = t.complex128 if complex_bounds else \
        t.float64 if any(isinstance(a, t.Float) for a in numbers) else t.int64
    dt = dtype_of(dtype, natural)
    if complex_bounds and not isinstance(dt, t.Complex):
        return None
    fill = _arange_fill(dt)
    length = _complex_length if complex_bounds else _real_length

    def arange(start, stop=None, step=None, dtype=None):
        if stop is None:
            lo, hi = 0, start
        else:
            lo, hi = start, stop
        by = 1 if step is None else step
        if by == 0:
            raise ZeroDivisionError("division by zero")
        n = length(lo, hi, by)
        out = empty_array(n, dt)
        if n > 0:
            out[0] = lo
        if n > 1:
            out[1] = lo + by
            fill(out)
        return out
    return arange


@register_jitable
def _real_length(lo, hi, by):
    return max(math.ceil((hi - lo) / by), 0)


@register_jitable
def _complex_length(lo, hi, by):
    """NumPy's length of a complex arange: the smaller of the real and imaginary parts'."""
    steps = (hi - lo) / by
    return max(min(math.ceil(steps.real), math.ceil(steps.imag)), 0)


def _arange_fill(dt):
    """NumPy's fill of an arange past its first two items, which it casts from start and
    start + step: item i is first + i * (second - first), the difference taken in the
    dtype (so np.arange(-3.5, 5, dtype=np.int64) counts from -3 by 1), computed as NumPy's
    C loop for that dtype computes it."""
    if isinstance(dt, t.Boolean):
        return _refuse_long_bool_arange
    if isinstance(dt, t.Complex):
        return _FILL_COMPLEX[dt]
    if dt == t.float16:
        return _fill_half
    if isinstance(dt, t.Float) or dt == t.uint64:
        return _fill_in_dtype
    return _fill_in_int64


@register_jitable
def _refuse_long_bool_arange(out):
    if out.shape[0] > 2:
        raise TypeError("arange() is only supported for booleans when the result has at "
                        "most length 2.")


@register_jitable
def _fill_in_dtype(out):   # float32, float64 in their own arithmetic; uint64 modulo 2**64
    first = out[0]
    delta = out[1] - first
    for i in range(2, out.shape[0]):
        out[i] = first + out.dtype.type(i) * delta


@register_jitable
def _fill_in_int64(out):   # the difference wraps in the dtype, the items in int64 (npy_intp)
    first = np.int64(out[0])
    delta = np.int64(out.dtype.type(out[1] - out[0]))
    for i in range(2, out.shape[0]):
        out[i] = first + i * delta


@register_jitable
def _fill_half(out):   # NumPy's half loop computes in float32
    first = np.float32(out[0])
    delta = np.float32(out[1]) - first
    for i in range(2, out.shape[0]):
        out[i] = first + np.float32(i) * delta


def _complex_fill(part):
    @register_jitable
    def fill_complex(out):   # each part apart, in the parts' dtype
        first = out[0]
        delta_real, delta_imag = out[1].real - first.real, out[1].imag - first.imag
        for i in range(2, out.shape[0]):
            out[i] = complex(first.real + part(i) * delta_real,
                             first.imag + part(i) * delta_imag)
    return fill_complex


_FILL_COMPLEX = {t.complex64: _complex_fill(np.float32), t.complex128: _complex_fill(np.float64)}


@overload(np.linspace)
def _linspace(start, stop, num=50, endpoint=True):
    if not all(isinstance(a, (t.Integer, t.Boolean, t.Float)) for a in (start, stop)):
        return None

    def linspace(start, stop, num=50, endpoint=True):
        if num < 0:
            raise ValueError("Number of samples must be non-negative.")
        div = num - 1 if endpoint else num
        out = empty_array(num, FLOAT64)
        delta = stop - start
        step = delta / div if div > 0 else np.nan
        for i in range(num):
            if div > 0 and step == 0:
                out[i] = (i / div) * delta + start
            elif div > 0:
                out[i] = i * step + start
            else:
                out[i] = i * delta + start
        if endpoint and num > 1:
            out[num - 1] = stop
        return out
    return linspace



@overload(np.eye)
def _eye(N, M=None, k=0, dtype=None):
    dt = dtype_of(dtype, t.float64)

    def eye(N, M=None, k=0, dtype=None):
        cols = N if M is None else M
        out = zeroed_array((N, cols), dt)
        for i in range(N):
            j = i + k
            if 0 <= j < cols:
                out[i, j] = 1
        return out
    return eye


@overload(np.identity)
def _identity(n, dtype=None):
    dt = dtype_of(dtype, t.float64)

    def identity(n, dtype=None):
        out = zeroed_array((n, n), dt)
        for i in range(n):
            out[i, i] = 1
        return out
    return identity


# ---- np.array / np.asarray ------------------------------------------------------------------

_WEAK_SAMPLES = {t.boolean: False, t.int64: 0, t.float64: 0.0, t.complex128: 0j}


def _nested(ty):
    """(shape, a sample NumPy would build the same array from) of nested tuples of
    numbers, or None."""
    if isinstance(ty, t.Number):
        return (), _WEAK_SAMPLES.get(ty, np.zeros(1, ty.np_dtype)[0])
    if not isinstance(ty, t.BaseTuple):
        return None
    items = [_nested(item) for item in ty.types]
    if any(item is None for item in items):
        return None
    shapes = {shape for shape, _ in items}
    if len(shapes) > 1:
        raise TypingError("setting an array element with a sequence: the nested sequences "
                          "have different lengths (an inhomogeneous shape)")
    return (len(items),) + (shapes.pop() if shapes else ()), tuple(s for _, s in items)


@intrinsic
def array_from_tuple(typingctx, items, dtype):
    """A new C-contiguous array of nested tuples of numbers, in NumPy's dtype for them
    unless `dtype` names one."""
    found = _nested(items) if isinstance(items, t.BaseTuple) else None
    if found is None:
        return None
    shape, sample = found
    dt = dtype_of(dtype, t.from_dtype(np.array(sample).dtype))
    result = t.Array(dt, len(shape), "C")

    def codegen(context, builder, sig, args):
        dims = [ir.Constant(dm.i64, n) for n in shape]
        out = ArrayValue(context, builder, allocate(context, builder, result, dims), result)
        data = out.field(dm.ARRAY_DATA)
        for position, path in enumerate(np.ndindex(*shape)):
            value, ty = args[0], items
            for i in path:
                value, ty = builder.extract_value(value, i), ty.types[i]
            target = builder.gep(data, [ir.Constant(dm.i64, position)],
                                 source_etype=dm.memory_type(dt))
            dm.store_item(builder, dt, context.cast(builder, value, ty, dt), target)
        return out.value
    codegen.new_reference = True
    return result(items, dtype), codegen


# ---- np.array of nested lists, tuples and arrays ---------------------------------------------

def _levels(ty):
    """The levels of a nested sequence np.array takes apart, outermost first: "loop" for a
    list or a tuple of one item type, a tuple's item types for a tuple of mixed ones; then
    the leaf type (a number or an array). None for anything else."""
    if isinstance(ty, (t.Number, t.Array)):
        return [ty]
    if isinstance(ty, t.ListType) and not ty.is_undefined:
        inner = _levels(ty.item_type)
        return None if inner is None else ["loop"] + inner
    if isinstance(ty, t.UniTuple):
        inner = _levels(ty.dtype)
        return None if inner is None else ["loop"] + inner
    if isinstance(ty, t.BaseTuple) and not len(ty):   # (): no items, NumPy's float64
        return [(), t.float64]
    if isinstance(ty, t.BaseTuple):
        items = [_levels(item) for item in ty.types]
        if any(item is None for item in items) or \
                len({len(item) for item in items}) != 1 or \
                len({getattr(item[-1], "ndim", 0) for item in items}) != 1:
            return None
        # each level below: a loop, or the items of a tuple of mixed types where any item
        # has one (read at constant indices, which a list or a uniform tuple takes too)
        inner = [next((level for level in levels if level != "loop"), "loop")
                 for levels in zip(*(item[:-1] for item in items))]
        return [ty.types] + inner + [_leaf_union(item[-1] for item in items)]
    return None


def _leaf_union(leaves):
    """The leaf the items of a mixed tuple share: NumPy's result dtype of theirs."""
    leaves = list(leaves)
    dtypes = [leaf.dtype if isinstance(leaf, t.Array) else leaf for leaf in leaves]
    dt = t.from_dtype(np.result_type(*(d.np_dtype for d in dtypes)))
    return t.Array(dt, leaves[0].ndim, "A") if isinstance(leaves[0], t.Array) else dt


def _nested_sequence(obj, dtype):
    """np.array(obj) of a nested list (or tuple) holding lists or arrays: generated code
    that finds the shape from the first item of each level, checks that every item has it
    (NumPy's 'inhomogeneous shape' ValueError otherwise) and copies the items in."""
    levels = _levels(obj)
    if levels is None or len(levels) < 2:
        return None
    *outer, leaf = levels
    leaf_ndim = leaf.ndim if isinstance(leaf, t.Array) else 0
    dt = dtype_of(dtype, leaf.dtype if isinstance(leaf, t.Array) else leaf)
    depth = len(outer)
    lines = ["def nested_sequence(obj, dtype=None):"]
    # the shape: each level's length, taken from the first item of the level above
    for k in range(depth):
        first = "obj" + "[0]" * k
        known = " and ".join(f"n{j}" for j in range(k))
        lines.append(f"    n{k} = len({first})" + (f" if {known} else 0" if k else ""))
    if leaf_ndim:
        first = "obj" + "[0]" * depth
        known = " and ".join(f"n{j}" for j in range(depth))
        lines.append(f"    leaf = {first}.shape if {known} else {(0,) * leaf_ndim}")
    dims = [f"n{k}" for k in range(depth)] + [f"leaf[{j}]" for j in range(leaf_ndim)]
    lines.append(f"    out = np.empty(({', '.join(dims)},), dt)")
    # the copy: a loop per level of one item type, a statement per item of a mixed tuple
    index = []

    def fill(k, seq, indent):
        if k == depth:
            where = ", ".join(index)
            check = f"{seq}.shape != leaf" if leaf_ndim else None
            if check:
                lines.append(f"{indent}if {check}:")
                lines.append(f"{indent}    raise ValueError(INHOMOGENEOUS)")
            lines.append(f"{indent}out[{where}] = {seq}")
            return
        if k:
            lines.append(f"{indent}if len({seq}) != n{k}:")
            lines.append(f"{indent}    raise ValueError(INHOMOGENEOUS)")
        if outer[k] == "loop":
            lines.append(f"{indent}for i{k} in range(n{k}):")
            index.append(f"i{k}")
            fill(k + 1, f"{seq}[i{k}]", indent + "    ")
            index.pop()
        else:
            for position in range(len(outer[k])):
                index.append(str(position))
                fill(k + 1, f"{seq}[{position}]", indent)
                index.pop()
    fill(0, "obj", "    ")
    lines.append("    return out")
    env = {"np": np, "dt": dt, "INHOMOGENEOUS":
           "setting an array element with a sequence. The requested array has an "
           "inhomogeneous shape"}
    exec("\n".join(lines) + "\n", env)
    return env["nested_sequence"]


def _array_like(copies):
    def ov(obj, dtype=None):
        if not omitted(dtype):
            refuse_dropping_imaginary(t.unliteral(obj), dtype_of(dtype))
        if isinstance(obj, t.Array):
            dt = dtype_of(dtype, obj.dtype)
            if copies or dt != obj.dtype:
                return lambda obj, dtype=None: obj.astype(dt)
            return lambda obj, dtype=None: obj
        if isinstance(obj, t.BaseTuple) and _nested(obj) is not None:
            return lambda obj, dtype=None: array_from_tuple(obj, dtype)
        if isinstance(obj, (t.BaseTuple, t.ListType)) and \
                not (isinstance(obj, t.ListType) and isinstance(obj.item_type, t.Number)):
            return _nested_sequence(obj, dtype)
        if isinstance(obj, t.Number):     # np.asarray(1.5): a 0-d array
            dt = dtype_of(dtype, t.unliteral(obj))

            def zero_dimensional(obj, dtype=None):
                out = np.empty((), dt)
                out[()] = obj
                return out
            return zero_dimensional
        return None
    return ov


overload(np.array)(_array_like(copies=True))
overload(np.asarray)(_array_like(copies=False))


@overload("number_class")
def _number_class_of_sequence(cls, seq):
    """`np.int8((1.0, 2.5))`, `np.float32([(1, 2), (3, 4)])`: a NumPy scalar type makes an
    array of a sequence, np.array(seq, that type)."""
    if not isinstance(seq, (t.BaseTuple, t.ListType)):
        return None
    scalar = cls.instance_type.np_dtype.type
    return lambda cls, seq: np.array(seq, scalar)


@template(np.dtype)
def _np_dtype(tctx, spec):
    """np.dtype('f8'), np.dtype(np.float64), np.dtype(float): a compile-time constant, as
    `a.dtype` is, for a `dtype=` argument or a comparison."""
    try:
        dt = dtype_of(spec)
    except TypingError:
        return None
    if dt is None:
        return None
    rt = t.DType(dt)
    return rt(spec), lambda context, builder, sig, args: dm.null_value(rt)


@template(("attr", "itemsize"))
def _dtype_itemsize(tctx, dtype_ty):
    """`a.dtype.itemsize`, `np.dtype('f8').itemsize`: a constant."""
    if not isinstance(dtype_ty, t.DType):
        return None
    size = ir.Constant(dm.i64, dtype_ty.dtype.np_dtype.itemsize)
    return t.int64(dtype_ty), lambda context, builder, sig, args: size

"""Indexing with arrays: a boolean mask of the array's shape (`x[x > 0]`, `x[mask] = 0`), an
integer array along the first axis (`x[idx]`, `x[idx] = v`), and one integer array (or 1-d
boolean array) among slices, integers, `...` and None (`A[:, cols]`, `A[..., 1, idx]`). As in NumPy the result is a
new array (a copy, not a view), negative indices count from the end, and an index out of
range is an IndexError."""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from .allocation import empty_array, flat_view
from .arrays import check_not_complex_into_real, item_in_range
from .reductions import c_contiguous, in_c_order
from ..typing.registry import intrinsic, overload, register_jitable
from .split import add, by_ranges


def _is_mask(a, index):
    return isinstance(index, t.Array) and isinstance(index.dtype, t.Boolean) and \
        index.ndim == a.ndim


def _is_positions(index):
    return isinstance(index, t.Array) and isinstance(index.dtype, t.Integer) and index.ndim == 1


@intrinsic
def with_first(typingctx, shape, first):
    """`shape` with its first item replaced by `first`."""
    if not (isinstance(shape, t.UniTuple) and shape.dtype == t.int64 and
            isinstance(first, t.Integer)):
        return None

    def codegen(context, builder, sig, args):
        value = context.cast(builder, args[1], first, t.int64)
        return builder.insert_value(args[0], value, 0)
    return shape(shape, first), codegen


@register_jitable
def _check_mask(a, mask):
    if a.shape != mask.shape:
        raise IndexError("boolean index did not match indexed array in shape")


@register_jitable
def _position(i, size):
    """`i` as a position along an axis of `size`, negatives from the end; IndexError outside
    it. As NumPy, an index is cast to intp first: `i + size` of a uint64 would be a float64,
    and a uint64 above int64's range wraps to a negative position."""
    j = np.int64(i)
    if j < 0:
        j += size
    if j < 0 or j >= size:
        raise IndexError("index is out of bounds for axis 0")
    return j


@overload(operator.getitem)
def _getitem(a, index):
    if not isinstance(a, t.Array):
        return None
    dt = a.dtype
    if _is_mask(a, index):
        def select(a, index):
            _check_mask(a, index)
            x, keep = in_c_order(a), in_c_order(index)
            out = empty_array(np.count_nonzero(keep), dt)
            k = 0
            for i in range(x.shape[0]):
                if keep[i]:
                    out[k] = x[i]
                    k += 1
            return out
        return select
    along_one_axis = _one_array_index(a, index)
    if along_one_axis is not None:
        return along_one_axis.getter(dt)
    if _is_positions(index):
        def take(a, index):
            inner = a.size // a.shape[0] if a.shape[0] else 0   # NumPy's reshape(0, -1) fails
            rows = c_contiguous(a).reshape(a.shape[0], inner)
            out = empty_array((index.shape[0], rows.shape[1]), dt)
            for k in range(index.shape[0]):
                out[k] = rows[_position(index[k], a.shape[0])]
            return out.reshape(with_first(a.shape, index.shape[0]))
        return take
    return None


@overload(operator.setitem)
def _setitem(a, index, value):
    if not isinstance(a, t.Array) or a.readonly:
        return None
    if _is_mask(a, index) and a.layout != "C":
        def through_copy(a, index, value):  # written in C order, then copied back
            c = a.copy()
            c[index] = value
            a[:] = c
        return through_copy
    if _is_mask(a, index):
        if isinstance(value, t.Number):
            def fill(a, index, value):
                _check_mask(a, index)
                x, keep = flat_view(a), in_c_order(index)
                for i in range(x.shape[0]):
                    if keep[i]:
                        x[i] = value
            return fill
        if isinstance(value, t.Array):
            def scatter(a, index, value):
                _check_mask(a, index)
                x, keep, source = flat_view(a), in_c_order(index), in_c_order(value)
                if source.shape[0] != np.count_nonzero(keep) and source.shape[0] != 1:
                    raise ValueError("NumPy boolean array indexing assignment cannot assign "
                                     "these values: their size differs from the mask's count")
                k = 0
                for i in range(x.shape[0]):
                    if keep[i]:
                        x[i] = source[k if source.shape[0] > 1 else 0]
                        k += 1
            return scatter
        return None
    along_one_axis = _one_array_index(a, index)
    if along_one_axis is not None:
        return along_one_axis.setter(value)
    if isinstance(value, (t.ListType, t.BaseTuple)) and isinstance(a.dtype, t.Number):
        check_not_complex_into_real(a, value)
        def from_sequence(a, index, value):   # `a2d[i] = [p, q]`, `a[1:3] = (x, y)`
            a[index] = np.array(value)
        return from_sequence
    if _is_positions(index) and a.ndim == 1:
        if isinstance(value, t.Number):
            def put(a, index, value):
                for k in range(index.shape[0]):
                    a[_position(index[k], a.shape[0])] = value
            return put
        if isinstance(value, t.Array) and value.ndim == 1:
            def put_each(a, index, value):
                if value.shape[0] != index.shape[0] and value.shape[0] != 1:
                    raise ValueError("shape mismatch: value array could not be broadcast to "
                                     "indexing result")
                source = value.copy()  # the values may be a view of `a`
                for k in range(index.shape[0]):
                    a[_position(index[k], a.shape[0])] = source[k if source.shape[0] > 1 else 0]
            return put_each
    return None


# ---- one array among slices and integers: `A[:, cols]`, `A[rows, 1]`, `R[mask_of_rows]` --

@register_jitable
def _positions(index, size):
    """The positions a 1-d index array names along an axis of `size`: a boolean one's
    True places (its length must be `size`), an integer one's with negatives from the end."""
    if index.dtype == np.bool_:
        if index.shape[0] != size:
            raise IndexError("boolean index did not match indexed array along the axis")
        return np.nonzero(index)[0]
    out = np.empty(index.shape[0], np.int64)
    for k in range(index.shape[0]):
        out[k] = _position(index[k], size)
    return out


@dataclass(frozen=True)
class _AlongOneAxis:
    """An index of slices, integers, `...` and None with one integer array (of any
    dimensions) or 1-d boolean array: what Numba supports of NumPy's advanced indexing.
    `sub`, `a[index with the array as ':']`, is a view; the selected items of its axis
    `axis` go where that axis was, in the index array's shape, or first when integers stand
    apart from the array (NumPy's rule for advanced indices that are not side by side)."""

    items: tuple          # per item of the index: 'array', 'slice', 'int', 'none', 'ellipsis'
    tuple_index: bool
    ndim: int             # of the indexed array
    array_ndim: int = 1   # of the index array

    @property
    def array_at(self):
        return self.items.index("array")

    @property
    def axis(self):
        """The array's axis in `sub`: the slices, Nones and `...`'s axes before it."""
        before = self.items[:self.array_at]
        return before.count("slice") + before.count("none") + \
            (self.ellipsis_axes if "ellipsis" in before else 0)

    @property
    def ellipsis_axes(self):
        return self.ndim - len([k for k in self.items if k in ("array", "slice", "int")])

    @property
    def sub_ndim(self):
        return self.ndim - self.items.count("int") + self.items.count("none")

    @property
    def apart(self):
        advanced = [q for q, kind in enumerate(self.items) if kind in ("array", "int")]
        return advanced[-1] - advanced[0] + 1 != len(advanced)

    @property
    def front(self):
        return self.apart and self.axis

    def _text(self, name, middle):
        """`name[:, :, middle]`, with `middle` at `axis`."""
        return f"{name}[{', '.join([':'] * self.axis + [middle])}]"

    def _selection_shape(self, count):
        """The shape of the selection, with `count` for the index array's dimensions."""
        if self.front:
            return f"{count} + sub.shape[:{self.axis}] + sub.shape[{self.axis + 1}:]"
        return f"sub.shape[:{self.axis}] + {count} + sub.shape[{self.axis + 1}:]"

    def _source(self, kind, body):
        if self.tuple_index:
            words = {"array": ":", "none": "None", "ellipsis": "..."}
            basic = ", ".join(words.get(kind, f"index[{q}]")
                              for q, kind in enumerate(self.items))
            chosen = f"index[{self.array_at}]"
        else:
            basic, chosen = ":", "index"
        flat = f"np.ravel({chosen})" if self.array_ndim > 1 else chosen
        lines = [f"def {kind}(a, index{', value' if kind == 'put' else ''}):",
                 f"    sub = a[{basic}]",
                 f"    positions = _positions({flat}, sub.shape[{self.axis}])"] + body
        return "\n".join(lines) + "\n"

    def _define(self, source, **names):
        from ..frontend.source import define_generated
        namespace = dict(np=np, _positions=_positions, empty_array=empty_array, **names)
        return define_generated(f"<kiln index {source.split(chr(10))[0]} {self}>", source,
                                namespace)

    def _chosen(self):
        return f"index[{self.array_at}]" if self.tuple_index else "index"

    def getter(self, dtype):
        body = [f"    out = empty_array({self._selection_shape('(positions.shape[0],)')}, dt)",
                "    for j in range(positions.shape[0]):",
                f"        {'out[j]' if self.front else self._text('out', 'j')} = "
                f"{self._text('sub', 'positions[j]')}"]
        if self.array_ndim > 1:
            body.append(f"    return out.reshape("
                        f"{self._selection_shape(self._chosen() + '.shape')})")
        else:
            body.append("    return out")
        return self._define(self._source("take", body), dt=dtype)

    def setter(self, value):
        """The assignment, for a number, or an array of the selection's dimensions (its
        length along the selected axis that of the selection, or 1), or one of fewer
        dimensions that does not reach the selected axis (broadcast to each item), or any
        other array NumPy broadcasts to the selection (through a broadcast copy)."""
        value_axis = 0 if self.front else self.axis
        target = self._text("sub", "positions[j]")
        body = []
        if isinstance(value, t.Number) or (isinstance(value, t.Array) and
                                            value.ndim < self.sub_ndim - value_axis and
                                            self.array_ndim == 1):
            each = "value"
        elif isinstance(value, t.Array) and value.ndim == self.sub_ndim and \
                self.array_ndim == 1:
            middle = "j if value.shape[%d] != 1 else 0" % value_axis
            each = f"source[{', '.join([':'] * value_axis + [middle])}]"
            body += ["    source = value.copy()",
                     f"    if value.shape[{value_axis}] != positions.shape[0] and "
                     f"value.shape[{value_axis}] != 1:",
                     "        raise ValueError('shape mismatch: value array could not be "
                     "broadcast to indexing result')"]
        elif isinstance(value, t.Array):   # any other array NumPy broadcasts to the selection
            shape = self._selection_shape(self._chosen() + ".shape")
            body.append(f"    source = np.ascontiguousarray(np.broadcast_to(value, {shape}))"
                        f".reshape({self._selection_shape('(positions.shape[0],)')})")
            each = f"source[{', '.join([':'] * value_axis + ['j'])}]"
        else:
            return None
        if each == "value" and isinstance(value, t.Array):
            body.append("    value = value.copy()")   # the values may be a view of `a`
        body += ["    for j in range(positions.shape[0]):",
                 f"        {target} = {each}"]
        return self._define(self._source("put", body))


@boxing.unboxer(t.EllipsisType)
def _unbox_ellipsis(unboxer, ty, obj):
    """`...` passed in (an index tuple's): Python's Ellipsis, which has no content."""
    unboxer.require(unboxer.b.icmp_unsigned("==", obj,
                                            unboxer.api.global_object("_Py_EllipsisObject")))
    return dm.null_value(ty)


_KINDS = ((t.Array, "array"), (t.SliceType, "slice"), (t.Integer, "int"),
          (t.NoneType, "none"), (t.EllipsisType, "ellipsis"))


def _kind(ty):
    return next((kind for cls, kind in _KINDS if isinstance(ty, cls)), None)


def _one_array_index(a, index):
    """The _AlongOneAxis an index is, or None."""
    if not isinstance(a, t.Array):
        return None
    items = tuple(index.types) if isinstance(index, t.BaseTuple) else (index,)
    kinds = tuple(map(_kind, items))
    if None in kinds or kinds.count("array") != 1 or kinds.count("ellipsis") > 1 or \
            len([k for k in kinds if k in ("array", "slice", "int")]) > a.ndim:
        return None
    array = items[kinds.index("array")]
    if not (isinstance(array.dtype, t.Integer) and array.ndim >= 1 or
            isinstance(array.dtype, t.Boolean) and array.ndim == 1):
        return None
    if not isinstance(index, t.BaseTuple) and (
            array.ndim == 1 and isinstance(array.dtype, t.Integer) or
            array.ndim == a.ndim and isinstance(array.dtype, t.Boolean)):
        return None     # `a[positions]`, `a[mask]`: above
    return _AlongOneAxis(kinds, isinstance(index, t.BaseTuple), a.ndim, array.ndim)


@register_jitable
def _range_count(x, lo, hi, seed):
    n = 0
    for i in range(lo, hi):
        if item_in_range(x, i):
            n += 1
    return n


_split_count = by_ranges("count_nonzero", _range_count, add)


@overload(np.count_nonzero)
def _count_nonzero(a):
    if not isinstance(a, t.Array):
        return None
    return lambda a: _split_count(in_c_order(a), 0)

"""`a.view(dtype)` and `x.view(dtype)`: the same bytes read as another dtype (bit tricks,
byte-level I/O, `float64 -> int64` to test a sign bit).

An array's view shares its memory; when the itemsize changes, the last axis is resized
(it must be contiguous, and its bytes a multiple of the new itemsize), with NumPy's
ValueErrors otherwise. A number's view is a bit cast, between types of one size."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from .arrays import ArrayValue, make_array
from .creation import dtype_of
from ..typing.registry import template

_CONTIGUOUS = "To change to a dtype of a different size, the last axis must be contiguous"
_ZERO_D = "Changing the dtype of a 0d array is only supported if the itemsize is unchanged"
_LARGER = ("When changing to a larger dtype, its size must be a divisor of the total size "
           "in bytes of the last axis of the array.")


@template(("method", "view"))
def _array_view(tctx, a, dtype):
    if not isinstance(a, t.Array):
        return None
    dt = dtype_of(dtype)
    if not isinstance(dt, t.Number):
        raise TypingError(f"kiln cannot view an array as {dtype}")
    old, new = a.dtype.np_dtype.itemsize, dt.np_dtype.itemsize
    result = a.copy(dtype=dt, layout=a.layout if old == new or a.layout == "C" else "A")

    def codegen(context, builder, sig, args):
        arr = ArrayValue(context, builder, args[0], a)
        shape = [arr.shape(d) for d in range(a.ndim)]
        strides = [arr.stride(d) for d in range(a.ndim)]
        if old != new and a.ndim == 0:
            context.guard(builder, ir.Constant(ir.IntType(1), 1), ValueError, _ZERO_D)
        elif old != new:
            last = shape[-1]
            i64 = lambda n: ir.Constant(dm.i64, n)   # noqa: E731
            strided = builder.and_(builder.icmp_signed("!=", strides[-1], i64(old)),
                                   builder.icmp_signed(">", last, i64(1)))
            context.guard(builder, strided, ValueError, _CONTIGUOUS)
            nbytes = builder.mul(last, i64(old))
            context.guard(builder, builder.icmp_signed("!=", builder.srem(nbytes, i64(new)),
                                                       i64(0)), ValueError, _LARGER)
            shape[-1] = builder.sdiv(nbytes, i64(new))
            strides[-1] = i64(new)
        return make_array(context, builder, result, arr.field(dm.ARRAY_DATA), shape, strides,
                          meminfo=arr.field(dm.ARRAY_MEMINFO),
                          parent=arr.field(dm.ARRAY_PARENT))
    return result(a, dtype), codegen


@template(("method", "view"))
def _number_view(tctx, x, dtype):
    if not isinstance(x, t.Number):
        return None
    x = t.unliteral(x)
    dt = dtype_of(dtype)
    if not all(isinstance(ty, (t.Integer, t.Float)) for ty in (x, dt)):
        raise TypingError(f"{x}.view({dt}): kiln views an integer or a float only as an "
                          f"integer or float type of its size ({x.np_dtype.itemsize} bytes)")
    if dt.np_dtype.itemsize != x.np_dtype.itemsize:   # NumPy's words: a scalar is 0-d here
        raise TypingError("Changing the dtype of a 0d array is only supported if the itemsize "
                          f"is unchanged: {x}.view({dt}) would read {x.np_dtype.itemsize} "
                          f"bytes as {dt.np_dtype.itemsize}")

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], dm.value_type(dt))
    return dt(x, dtype), codegen

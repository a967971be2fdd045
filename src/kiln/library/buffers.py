"""`bytearray`, `memoryview` and `array.array` arguments (types/buffers.py): each is the
array of its items over the exporter's memory, so len, indexing, item assignment,
iteration and a memoryview's attributes are the array's own operations, typed on the
buffer's `as_array` view; np.asarray, np.array and np.frombuffer (of bytes too) make
NumPy's arrays of them.

The entry point takes the buffer with `PyObject_GetBuffer` and keeps it until the call
returns (a meminfo in one of its copy slots, whose destructor releases it, with the GIL the
entry point holds then): while it is held a bytearray or an array.array cannot be resized
under compiled code.
"""
from __future__ import annotations

import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..codegen.ownership import register_parts
from ..errors import TypingError
from ..runtime import nrt
from ..types.buffers import formats_of
from ..typing.registry import (intrinsic, overload, overload_attribute, register_jitable,
                               template)
from .array_boxing import layout_and_writability_ok
from .arrays import make_array
from .bytes_values import raw_bytes
from .creation import dtype_of

dm.register_model(t.Buffer, lambda ty: dm.value_type(ty.as_array))
register_parts(t.Buffer, lambda ty: ((dm.ARRAY_MEMINFO,),))

# Py_buffer's fields (CPython's Include/pybuffer.h, the same on every 64-bit build)
VIEW_BYTES = 80
BUF, READONLY, NDIM, FORMAT, SHAPE, STRIDES = 0, 32, 36, 40, 48, 56
PYBUF_RECORDS_RO = 0x1C   # strides, shape and format; writable or not
RELEASE = "kiln.buffer.release"


def _release_function(module):
    """The destructor of the meminfo holding a Py_buffer: PyBuffer_Release."""
    fn = module.globals.get(RELEASE)
    if fn is None:
        fn = ir.Function(module, nrt.DESTRUCTOR, name=RELEASE)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        release = module.globals.get("PyBuffer_Release") or ir.Function(
            module, ir.FunctionType(ir.VoidType(), [dm.ptr]), name="PyBuffer_Release")
        b.call(release, [nrt.meminfo_data(b, fn.args[0])])
        b.ret_void()
    return fn


@boxing.unboxer(t.Buffer, copies=True)
def _unbox(unboxer, ty, obj):
    """The exporter's memory as `ty.as_array` (`parent` is the object), if `obj` is of the
    buffer's class and its format, dimensions, layout and writability are `ty`'s."""
    b, api = unboxer.b, unboxer.api
    unboxer.require(api.is_type(obj, api.constant_object(ty.pyclass)))
    holder = nrt.emit_allocate(b, ir.Constant(dm.i64, VIEW_BYTES))
    allocated = b.append_basic_block("buffer")
    b.cbranch(b.icmp_unsigned("==", holder, ir.Constant(dm.ptr, None)),
              unboxer.no_memory_block(), allocated)
    b.position_at_end(allocated)
    view = nrt.meminfo_data(b, holder)
    status = api.call("PyObject_GetBuffer", dm.i32,
                      [obj, view, ir.Constant(dm.i32, PYBUF_RECORDS_RO)])
    failed = b.icmp_signed("!=", status, ir.Constant(dm.i32, 0))
    with b.if_else(failed, likely=False) as (no_view, held):
        with no_view:   # not a match: the next specialization may take it
            api.call("PyErr_Clear", ir.VoidType(), [])
            nrt.emit_decref(b, holder)
        with held:
            nrt.set_destructor(b, holder, _release_function(b.module))
            b.store(holder, unboxer.copy_slot())
    unboxer.require(b.not_(failed))
    unboxer.require(b.icmp_signed("==", api.read(view, NDIM, dm.i32),
                                  ir.Constant(dm.i32, ty.ndim)))
    fmt = api.read(view, FORMAT, dm.ptr)
    known = ir.Constant(dm.i1, 0)
    for text in formats_of(ty.dtype):
        same = api.call("strcmp", dm.i32, [fmt, api.context.state.global_string(text)])
        known = b.or_(known, b.icmp_signed("==", same, ir.Constant(dm.i32, 0)))
    unboxer.require(known)
    unboxer.require(_layout_ok(unboxer, ty, view))
    shape_at, strides_at = api.read(view, SHAPE, dm.ptr), api.read(view, STRIDES, dm.ptr)
    shape = [b.load(b.gep(shape_at, [ir.Constant(dm.i64, d)], source_etype=dm.i64),
                    typ=dm.i64) for d in range(ty.ndim)]
    strides = [b.load(b.gep(strides_at, [ir.Constant(dm.i64, d)], source_etype=dm.i64),
                      typ=dm.i64) for d in range(ty.ndim)]
    return make_array(api.context, b, ty.as_array, api.read(view, BUF, dm.ptr), shape,
                      strides, parent=obj)


def _layout_ok(unboxer, ty, view):
    """Whether the view has `ty`'s layout and writability, as for an ndarray."""
    b, api = unboxer.b, unboxer.api

    def contiguous(order):
        found = api.call("PyBuffer_IsContiguous", dm.i32, [view, ir.Constant(dm.i8, ord(order))])
        return b.icmp_signed("!=", found, ir.Constant(dm.i32, 0))
    writable = b.icmp_signed("==", api.read(view, READONLY, dm.i32), ir.Constant(dm.i32, 0))
    return layout_and_writability_ok(b, ty, contiguous("C"), contiguous("F"), writable,
                                     unboxer.exact_layout)


@boxing.boxer(t.Buffer)
def _box(api, ty, value, fail):
    """A bytearray or an array.array is always its whole argument: that object. A
    memoryview (perhaps a slice of one) is a new memoryview of the ndarray viewing its
    items that the array boxer makes."""
    b = api.builder
    parent = b.extract_value(value, dm.ARRAY_PARENT)
    if ty.kind != "memoryview":
        api.incref(parent)
        return parent
    null = ir.Constant(dm.ptr, None)
    view = boxing.box(api, ty.as_array, value, fail)
    with b.if_then(b.icmp_unsigned("==", view, null), likely=False):
        fail(b)
    result = api.call("PyMemoryView_FromObject", dm.ptr, [view])
    api.decref(view)
    with b.if_then(b.icmp_unsigned("==", result, null), likely=False):
        fail(b)
    return result


# ---- operations: the array's, on the buffer's view -----------------------------------------

def _as_buffer(buf, result):
    """The type of an operation's result: a view of a memoryview is a memoryview."""
    if isinstance(result, t.Array) and buf.kind == "memoryview":
        return t.Buffer("memoryview", result.dtype, result.ndim, result.layout,
                        result.readonly)
    return result


def _on_view(key, check=None):
    """Type `key` on a buffer as on its array view (another buffer argument too: an
    assigned memoryview); `check(buf, *rest)` refuses first."""
    @template(key)
    def typer(tctx, buf, *rest):
        if not isinstance(buf, t.Buffer):
            return None
        if check is not None:
            check(buf, *rest)
        views = tuple(r.as_array if isinstance(r, t.Buffer) else r for r in rest)
        found = tctx.resolve(key, (buf.as_array,) + views)
        if found is None or found.signature.args[0] != buf.as_array or any(
                isinstance(r, t.Buffer) and s != r.as_array
                for r, s in zip(rest, found.signature.args[1:])):
            return None
        sig = found.signature

        def codegen(context, builder, _, args):
            return found.lower(context, builder, sig, args)
        codegen.new_reference = found.new_reference
        args = [r if isinstance(r, t.Buffer) else s for r, s in zip(rest, sig.args[1:])]
        return _as_buffer(buf, sig.return_type)(buf, *args), codegen
    return typer


def _check_getitem(buf, index):
    """Integers, and slices of a memoryview: a slice of the others is a copy in Python
    (and assigning to one may resize it); an N-d memoryview takes N integers, as Python's
    has no sub-views."""
    items = index.types if isinstance(index, t.BaseTuple) else (index,)
    if not all(isinstance(i, (t.Integer, t.SliceType)) for i in items):
        raise TypingError(f"a {buf.kind} is indexed by integers and slices, not {index}")
    if buf.ndim > 1 and not (len(items) == buf.ndim and
                             all(isinstance(i, t.Integer) for i in items)):
        raise TypingError(f"a {buf} is indexed by {buf.ndim} integers: Python's "
                          "memoryview has no multi-dimensional sub-views (np.asarray(m) has)")
    sliced = any(isinstance(i, t.SliceType) for i in items)
    if buf.kind != "memoryview" and sliced:
        raise TypingError(f"cannot slice a {buf.kind} in compiled code: Python's slice is "
                          f"a new {buf.kind} (a copy), which compiled code cannot make; "
                          "index its items, or pass a memoryview of it")
    return sliced


def _check_setitem(buf, index, value):
    if buf.readonly:
        raise TypingError(f"cannot assign to an item of a {buf}: its memory is read-only")
    if _check_getitem(buf, index) and not isinstance(value, (t.Array, t.Buffer)):
        raise TypingError(f"cannot assign a {value} to a slice of a memoryview: Python takes "
                          "only a buffer of the slice's shape")


_on_view(len)
_on_view(operator.getitem, _check_getitem)
_on_view(operator.setitem, _check_setitem)


def _memoryview_only(buf):
    if buf.kind != "memoryview":
        raise TypingError(f"a {buf.kind} has no attribute of a memoryview in compiled code")


for _name in ("shape", "strides", "ndim", "itemsize", "nbytes"):
    _on_view(("attr", _name), _memoryview_only)


@template(("attr", "readonly"))
def _readonly(tctx, buf):
    if not isinstance(buf, t.Buffer):
        return None
    _memoryview_only(buf)
    return t.boolean(buf), lambda context, b, sig, args: ir.Constant(dm.i1, int(buf.readonly))


@register_jitable
def _contiguous(m, order_c):
    """CPython's test (PyBuffer_IsContiguous): each axis longer than 1 steps over the
    axes after it (order C) or before it (order F); an empty view is both."""
    if m.nbytes == 0:
        return True
    step = m.itemsize
    for k in range(m.ndim):
        axis = m.ndim - 1 - k if order_c else k
        if m.shape[axis] > 1 and m.strides[axis] != step:
            return False
        step *= m.shape[axis]
    return True


def _contiguity(test):
    def ov(m):
        if isinstance(m, t.Buffer):
            _memoryview_only(m)
            return test
        return None
    return ov


overload_attribute(t.Buffer, "c_contiguous")(
    _contiguity(lambda m: _contiguous(m, True)))
overload_attribute(t.Buffer, "f_contiguous")(
    _contiguity(lambda m: _contiguous(m, False)))
overload_attribute(t.Buffer, "contiguous")(
    _contiguity(lambda m: _contiguous(m, True) or _contiguous(m, False)))


# ---- NumPy's views of a buffer ---------------------------------------------------------------

@intrinsic
def _items(tctx, buf):
    """A buffer's items as its array view (borrowed from the buffer)."""
    if not isinstance(buf, t.Buffer):
        return None
    return buf.as_array(buf), lambda context, b, sig, args: args[0]


@intrinsic
def _raw(tctx, buf):
    """A C-contiguous buffer's memory as a 1-d uint8 array."""
    if not (isinstance(buf, t.Buffer) and buf.layout == "C"):
        return None
    rt = t.Array(t.uint8, 1, "C", readonly=buf.readonly)

    def codegen(context, b, sig, args):
        nbytes = b.mul(b.extract_value(args[0], dm.ARRAY_NITEMS),
                       ir.Constant(dm.i64, buf.dtype.np_dtype.itemsize))
        return make_array(context, b, rt, b.extract_value(args[0], dm.ARRAY_DATA), [nbytes],
                          [ir.Constant(dm.i64, 1)],
                          meminfo=b.extract_value(args[0], dm.ARRAY_MEMINFO),
                          parent=b.extract_value(args[0], dm.ARRAY_PARENT))
    return rt(buf), codegen


def _array_of(make):
    """np.asarray(buf) views the items, np.array(buf) copies them, as of the array view."""
    def ov(obj, dtype=None):
        if isinstance(obj, t.Buffer):
            return lambda obj, dtype=None: make(_items(obj), dtype)
        return None
    return ov


overload(np.asarray)(_array_of(np.asarray))
overload(np.array)(_array_of(np.array))


@overload(np.frombuffer)
def _frombuffer(buffer, dtype=None, count=-1, offset=0):
    """The buffer's bytes read as `dtype` items (float64 by default), sharing its memory
    (read-only for bytes and read-only buffers), with NumPy's ValueErrors."""
    if isinstance(buffer, t.Bytes):
        raw = raw_bytes
    elif isinstance(buffer, t.Buffer):
        if buffer.layout != "C":
            raise TypingError(f"np.frombuffer() takes a C-contiguous buffer, not a {buffer}")
        raw = _raw
    else:
        return None
    dt = dtype_of(dtype, t.float64)
    if not isinstance(dt, t.Number):
        raise TypingError(f"np.frombuffer() reads numbers in compiled code, not {dt}")
    size = dt.np_dtype.itemsize

    def impl(buffer, dtype=None, count=-1, offset=0):
        data = raw(buffer)
        n = len(data)
        if offset < 0 or offset > n:
            raise ValueError(f"offset must be non-negative and no greater than buffer "
                             f"length ({n})")
        items = count
        if items < 0:
            if (n - offset) % size != 0:
                raise ValueError("buffer size must be a multiple of element size")
            items = (n - offset) // size
        elif n - offset < items * size:
            raise ValueError("buffer is smaller than requested size")
        return data[offset:offset + items * size].view(dt)
    return impl

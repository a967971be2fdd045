"""How an array crosses the CPython boundary: unboxing an ndarray argument borrows its
memory (the array struct's `parent` is the ndarray); boxing returns an array that came from
Python as a view of that object, and one made in compiled code as a NumPy array that owns
its meminfo through a capsule."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import boxing
from ..codegen.exceptions import class_cell
from ..runtime import nrt
from ..runtime import pyapi as P
from ..runtime.views import make_view
from .arrays import make_array


@boxing.unboxer(t.Array)
def _unbox(unboxer, ty, obj):
    """The array's own memory (borrowed: `parent` is the NumPy array), if `obj` is an
    ndarray (or a recarray, see types/typeof.py) of exactly this dtype, dimension count and
    layout."""
    b, api = unboxer.b, unboxer.api
    unboxer.require(b.or_(api.is_type(obj, api.constant_object(np.ndarray)),
                          api.is_type(obj, api.constant_object(np.recarray))))
    unboxer.require(b.icmp_signed("==", api.read(obj, P.ARRAY_ND, dm.i32),
                                  ir.Constant(dm.i32, ty.ndim)))
    descr = api.read(obj, P.ARRAY_DESCR, dm.ptr)
    unboxer.require(_dtype_ok(b, api, ty.dtype, descr))
    unboxer.require(b.icmp_unsigned("!=", api.read(descr, P.DESCR_BYTEORDER, dm.i8),
                                    ir.Constant(dm.i8, ord(">"))))
    flags = api.read(obj, P.ARRAY_FLAGS, dm.i32)
    unboxer.require(_layout_ok(b, ty, flags, unboxer.exact_layout))
    data = api.read(obj, P.ARRAY_DATA, dm.ptr)
    dims = api.read(obj, P.ARRAY_DIMS, dm.ptr)
    strides = api.read(obj, P.ARRAY_STRIDES, dm.ptr)
    shape = [b.load(b.gep(dims, [ir.Constant(dm.i64, d)], source_etype=dm.i64), typ=dm.i64)
             for d in range(ty.ndim)]
    steps = [b.load(b.gep(strides, [ir.Constant(dm.i64, d)], source_etype=dm.i64), typ=dm.i64)
             for d in range(ty.ndim)]
    return make_array(api.context, b, ty, data, shape, steps, parent=obj)


_DTYPE_CHECKS = {}   # item type class -> check(b, api, dtype, descr) -> i1


def register_dtype_check(type_class, check):
    """`check(b, api, dtype, descr)`: whether an array's descr is `dtype`, for an item
    family whose dtypes NumPy's type number does not tell apart (datetime64's units)."""
    _DTYPE_CHECKS[type_class] = check


def _dtype_ok(b, api, dtype, descr):
    """Whether an array's descr is `dtype`: by type number, or for a record by NumPy's
    comparison of dtypes (every structured dtype has the type number of void), or as the
    item family registered."""
    family = next((_DTYPE_CHECKS[c] for c in type(dtype).__mro__ if c in _DTYPE_CHECKS), None)
    if family is not None:
        return family(b, api, dtype, descr)
    if isinstance(dtype, t.Record):
        equal = api.call("PyObject_RichCompareBool", dm.i32,
                         [descr, api.constant_object(dtype.np_dtype),
                          ir.Constant(dm.i32, 2)])   # Py_EQ; an error (-1) is no match
        return b.icmp_signed("==", equal, ir.Constant(dm.i32, 1))
    type_num = api.read(descr, P.DESCR_TYPE_NUM, dm.i32)
    ok = ir.Constant(dm.i1, 0)
    for num in P.type_nums(dtype.np_dtype):
        ok = b.or_(ok, b.icmp_signed("==", type_num, ir.Constant(dm.i32, num)))
    return ok


def _layout_ok(b, ty, flags, exact_layout):
    """Whether an array's flags give `ty`'s layout and writability."""

    def has(flag):
        return b.icmp_unsigned("!=", b.and_(flags, ir.Constant(dm.i32, flag)),
                               ir.Constant(dm.i32, 0))
    return layout_and_writability_ok(b, ty, has(P.NPY_C_CONTIGUOUS), has(P.NPY_F_CONTIGUOUS),
                                     has(P.NPY_WRITEABLE), exact_layout)


def layout_and_writability_ok(b, ty, c, f, writeable, exact_layout):
    """Whether memory that is C- (`c`) and F-contiguous (`f`) and `writeable` (i1 values)
    suits `ty` (an array type or a buffer's): exactly the layout typeof gives, or one that
    `ty`'s allows (an explicit signature's)."""
    true = ir.Constant(dm.i1, 1)
    if exact_layout:  # the layout typeof would give: C first, then F, else A
        layout_ok = {"C": c, "F": b.and_(b.not_(c), f) if ty.ndim > 1 else c,
                     "A": b.not_(b.or_(c, f))}[ty.layout]
        write_ok = b.not_(writeable) if ty.readonly else writeable
    else:
        layout_ok = {"C": c, "F": f, "A": true}[ty.layout]
        write_ok = true if ty.readonly else writeable
    return b.and_(layout_ok, write_ok)


@boxing.boxer(t.Array)
def _box(api, ty, value, fail):
    """An array that came from Python is returned as a NumPy view of its original object;
    one made in compiled code becomes a NumPy array that owns the reference."""
    b = api.builder
    parent = b.extract_value(value, dm.ARRAY_PARENT)
    result = b.alloca(dm.ptr)
    with b.if_else(b.icmp_unsigned("==", parent, ir.Constant(dm.ptr, None))) as (owned, view):
        with owned:
            b.store(_box_owned_array(api, ty, value, fail), result)
        with view:
            b.store(_box_view(api, ty, value, fail), result)
            # the view keeps its NumPy array alive; a meminfo that held it (a list's item,
            # library/list_layout.py) is released
            nrt.emit_decref(b, b.extract_value(value, dm.ARRAY_MEMINFO))
    return b.load(result, typ=dm.ptr)


def _box_owned_array(api, ty, value, fail):
    """A NumPy array over memory that compiled code allocated: its base object is a capsule
    whose destructor releases the reference this function takes over."""
    b = api.builder
    meminfo = b.extract_value(value, dm.ARRAY_MEMINFO)
    with b.if_then(b.icmp_unsigned("==", meminfo, ir.Constant(dm.ptr, None)), likely=False):
        api.call("PyErr_SetString", ir.VoidType(),
                 [b.load(class_cell(api.context.state, TypeError), typ=dm.ptr),
                  api.context.state.global_string(
                      "kiln cannot return a global array frozen into compiled code; "
                      "return a copy (.copy())")])
        fail(b)
    dims = ir.ArrayType(dm.i64, max(ty.ndim, 1))
    shape, strides = b.alloca(dims), b.alloca(dims)
    if ty.ndim:
        b.store(b.extract_value(value, dm.ARRAY_SHAPE), shape)
        b.store(b.extract_value(value, dm.ARRAY_STRIDES), strides)
    i32 = dm.i32
    records = isinstance(ty.dtype, t.Record)   # made as void items of the record's size
    text = isinstance(ty.dtype, (t.CharSeq, t.UnicodeCharSeq))   # S/U items of their size
    # a dtype no type number names alone (datetime64[s]): made as int64 items, then viewed
    by_name = not (records or text) and not P.type_nums(ty.dtype.np_dtype)
    array = api.call(nrt.ARRAY_NEW, dm.ptr, [
        api.global_object("PyArray_Type"), ir.Constant(i32, ty.ndim), shape,
        ir.Constant(i32, np.dtype(np.int64).num if by_name else ty.dtype.np_dtype.num),
        strides, b.extract_value(value, dm.ARRAY_DATA),
        ir.Constant(i32, ty.dtype.np_dtype.itemsize if records or text else 0),
        ir.Constant(i32, P.NPY_ALIGNED | (0 if ty.readonly else P.NPY_WRITEABLE)),
        ir.Constant(dm.ptr, None)],
        argtypes=[dm.ptr, i32, dm.ptr, i32, dm.ptr, dm.ptr, i32, i32, dm.ptr])
    with b.if_then(b.icmp_unsigned("==", array, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, meminfo)
        fail(b)
    destructor = api.context.declare_external(nrt.CAPSULE_DESTRUCTOR, ir.VoidType(), [dm.ptr])
    capsule = api.call("PyCapsule_New", dm.ptr, [meminfo, ir.Constant(dm.ptr, None), destructor])
    api.call(nrt.ARRAY_SET_BASE, i32, [array, capsule])
    if records or by_name:   # the raw items seen through the dtype (a view keeping them)
        voids = array
        state = api.context.state
        dtype = [state.global_string("O"), api.constant_object(ty.dtype.np_dtype)] if records \
            else [state.global_string("s"), state.global_string(ty.dtype.np_dtype.str)]
        array = api.call("PyObject_CallMethod", dm.ptr,
                         [voids, state.global_string("view")] + dtype,
                         var_arg=True, argtypes=[dm.ptr, dm.ptr, dm.ptr])
        api.decref(voids)
        with b.if_then(b.icmp_unsigned("==", array, ir.Constant(dm.ptr, None)), likely=False):
            fail(b)
    return array


def _box_view(api, ty, value, fail):
    b = api.builder
    parent = b.extract_value(value, dm.ARRAY_PARENT)
    address = b.ptrtoint(b.extract_value(value, dm.ARRAY_DATA), dm.i64)
    shape_ty = t.UniTuple(t.int64, ty.ndim)
    shape = boxing.box_tuple(api, shape_ty, b.extract_value(value, dm.ARRAY_SHAPE), fail)
    strides = boxing.box_tuple(api, shape_ty, b.extract_value(value, dm.ARRAY_STRIDES), fail)
    address_obj = api.call("PyLong_FromLongLong", dm.ptr, [address])
    typestr = api.call("PyUnicode_FromString", dm.ptr,
                       [api.context.state.global_string(ty.dtype.np_dtype.str)],
                       argtypes=[dm.ptr]) if not isinstance(ty.dtype, t.Record) else \
        api.constant_object(ty.dtype.np_dtype)   # a record's fields, not "|V16"
    readonly = api.global_object("_Py_TrueStruct" if ty.readonly else "_Py_FalseStruct")
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(make_view), parent, address_obj, shape, strides,
                       typestr, readonly, ir.Constant(dm.ptr, None)], var_arg=True,
                      argtypes=[dm.ptr])
    for obj in (address_obj, shape, strides) + (() if isinstance(ty.dtype, t.Record)
                                                 else (typestr,)):
        api.decref(obj)
    return result

"""The CPython entry point of a specialization, generated as LLVM IR.

`PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargsf)` checks that
every argument has exactly the type the specialization was compiled for (reading the
object's type pointer, and an array's ndim, dtype number and flags, without building any
kiln type), unboxes, calls the native function, turns an exception status into a Python
exception, and boxes the result. A mismatch returns `NotImplemented`, which tells the
dispatcher to try its next specialization."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.exceptions import class_cell, emit_set_python_error
from ..errors import TypingError
from ..ccallback import entry_address, function_value
from . import nrt
from . import pyapi as P
from .pyapi import PyAPI

VECTORCALL_OFFSET_MASK = (1 << 63) - 1


def build_entry_point(context, typed, native_fn, name, exact_layout: bool):
    """Add the entry point `name` for `native_fn` to the module; see the module docstring."""
    fnty = ir.FunctionType(dm.ptr, [dm.ptr, dm.ptr, dm.i64])
    fn = ir.Function(context.module, fnty, name=name)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    api = PyAPI(context, builder)
    # one slot per string argument: the copy unboxing makes, released after the call or
    # when a later argument does not match (NULL until made)
    string_slots = []
    for _ in range(sum(map(strings_in, typed.argtypes))):
        string_slots.append(builder.alloca(dm.ptr))
        builder.store(ir.Constant(dm.ptr, None), string_slots[-1])
    unboxer = _Unboxer(api, fn.append_basic_block("mismatch"), exact_layout, string_slots)
    _, args, nargsf = fn.args
    nargs = builder.and_(nargsf, ir.Constant(dm.i64, VECTORCALL_OFFSET_MASK))
    defaults = _constant_defaults(typed)
    required = len(typed.argtypes) - len(defaults)
    wrong_count = builder.or_(
        builder.icmp_unsigned("<", nargs, ir.Constant(dm.i64, required)),
        builder.icmp_unsigned(">", nargs, ir.Constant(dm.i64, len(typed.argtypes))))
    with builder.if_then(wrong_count, likely=False):
        builder.branch(unboxer.mismatch)
    values = []
    for i, ty in enumerate(typed.argtypes):
        def unbox_argument(i=i, ty=ty):
            slot = builder.gep(args, [ir.Constant(dm.i64, i)], source_etype=dm.ptr)
            return unboxer.unbox(ty, builder.load(slot, typ=dm.ptr))
        if i < required:
            values.append(unbox_argument())
            continue
        # An omitted argument takes its default, a constant, without the Python fallback.
        value = builder.alloca(dm.value_type(ty))
        given = builder.icmp_unsigned(">", nargs, ir.Constant(dm.i64, i))
        with builder.if_else(given) as (passed, omitted):
            with passed:
                builder.store(unbox_argument(), value)
            with omitted:
                builder.store(context.get_constant(builder, ty, defaults[i - required]), value)
        values.append(builder.load(value, typ=dm.value_type(ty)))
    retslot = builder.alloca(dm.value_type(typed.return_type))
    excslot = builder.alloca(dm.ptr)
    if typed.options.nogil:  # compiled code touches no Python object: let other threads run
        thread_state = api.call("PyEval_SaveThread", dm.ptr, [])
    status = builder.call(native_fn, [retslot, excslot] + values)
    if typed.options.nogil:
        api.call("PyEval_RestoreThread", ir.VoidType(), [thread_state])
    release_strings(builder, string_slots)
    with builder.if_then(builder.icmp_signed("!=", status, ir.Constant(dm.i32, 0)), likely=False):
        emit_set_python_error(context, builder, builder.load(excslot, typ=dm.ptr))
        builder.ret(ir.Constant(dm.ptr, None))
    result = builder.load(retslot, typ=dm.value_type(typed.return_type))
    builder.ret(box(api, typed.return_type, result))
    builder.position_at_end(unboxer.mismatch)
    release_strings(builder, string_slots)
    builder.ret(api.new_reference("_Py_NotImplementedStruct"))
    if unboxer.no_memory is not None:
        builder.position_at_end(unboxer.no_memory)
        release_strings(builder, string_slots)
        api.call("PyErr_NoMemory", dm.ptr, [])
        builder.ret(ir.Constant(dm.ptr, None))
    return fn


def strings_in(ty) -> int:
    if isinstance(ty, t.UnicodeType):
        return 1
    return sum(map(strings_in, ty.types)) if isinstance(ty, t.BaseTuple) else 0


def release_strings(builder, slots):
    for slot in slots:
        nrt.emit_decref(builder, builder.load(slot, typ=dm.ptr))


def _constant_defaults(typed):
    """The default values of the trailing parameters that the entry point can supply itself
    (numbers, booleans, None: constants of exactly the specialization's argument type)."""
    names, found = typed.ir.arg_names, []
    for name, ty in zip(reversed(names), reversed(typed.argtypes)):
        if name not in typed.ir.defaults:
            break
        value = typed.ir.defaults[name]
        simple = value is None or type(value) in (bool, int, float, complex)
        if not simple or t.typeof(value) != ty:
            break
        found.append(value)
    return found[::-1]


class _Unboxer:
    def __init__(self, api, mismatch, exact_layout, string_slots=()):
        self.api = api
        self.b = api.builder
        self.mismatch = mismatch
        self.exact_layout = exact_layout
        self.string_slots = iter(string_slots)
        self.no_memory = None   # the block that raises MemoryError, made on first need

    def require(self, ok):
        """Continue only if the i1 `ok` holds; otherwise the argument does not match."""
        cont = self.b.append_basic_block("match")
        self.b.cbranch(ok, cont, self.mismatch)
        self.b.position_at_end(cont)

    def any_type(self, obj, type_ptrs):
        ok = ir.Constant(dm.i1, 0)
        for tp in type_ptrs:
            ok = self.b.or_(ok, self.api.is_type(obj, tp))
        return ok

    def unbox(self, ty, obj):
        b, api = self.b, self.api
        if isinstance(ty, t.Literal):   # compiled for this value only (kiln.literally)
            value = self.unbox(ty.type, obj)
            self.require(b.icmp_unsigned("==", value, api.context.get_constant(
                b, ty.type, ty.value)))
            return value
        if isinstance(ty, t.Optional):   # None, or a value of the type
            return self.unbox_optional(ty, obj)
        if isinstance(ty, t.Boolean):
            true, false = api.global_object("_Py_TrueStruct"), api.global_object("_Py_FalseStruct")
            is_py = b.or_(b.icmp_unsigned("==", obj, true), b.icmp_unsigned("==", obj, false))
            np_bool = api.is_type(obj, api.constant_object(np.bool_))
            self.require(b.or_(is_py, np_bool))
            from_np = b.icmp_unsigned("!=", api.read(obj, P.SCALAR_VALUE, dm.i8),
                                      ir.Constant(dm.i8, 0))
            return b.select(is_py, b.icmp_unsigned("==", obj, true), from_np)
        if isinstance(ty, t.Integer):
            return self.unbox_integer(ty, obj)
        if isinstance(ty, (t.Float, t.Complex)):
            classes = [api.constant_object(c) for c in P.scalar_classes(ty.np_dtype)]
            if ty == t.float64:
                classes.append(api.global_object("PyFloat_Type"))
            if ty == t.complex128:
                classes.append(api.global_object("PyComplex_Type"))
            self.require(self.any_type(obj, classes))
            return api.read(obj, P.SCALAR_VALUE, dm.value_type(ty))
        if isinstance(ty, t.NoneType):
            self.require(b.icmp_unsigned("==", obj, api.global_object("_Py_NoneStruct")))
            return dm.null_value(ty)
        if isinstance(ty, t.BaseTuple):
            cls = getattr(ty, "cls", None)     # a named tuple's class, exactly
            self.require(api.is_type(obj, api.global_object("PyTuple_Type") if cls is None
                                     else api.constant_object(cls)))
            self.require(b.icmp_signed("==", api.read(obj, P.TUPLE_SIZE, dm.i64),
                                       ir.Constant(dm.i64, len(ty))))
            value = ir.Constant(dm.value_type(ty), ir.Undefined)
            for i, item_ty in enumerate(ty.types):
                item = api.read(obj, P.TUPLE_ITEMS + 8 * i, dm.ptr)
                value = b.insert_value(value, self.unbox(item_ty, item), i)
            return value
        if isinstance(ty, t.Array):
            return self.unbox_array(ty, obj)
        if isinstance(ty, t.ListType):
            return self.unbox_list(ty, obj)
        if isinstance(ty, t.DictType):
            return self.unbox_dict(ty, obj)
        if isinstance(ty, t.ClassInstanceType):
            return self.unbox_instance(ty, obj)
        if isinstance(ty, t.GeneratorType):
            from ..codegen.generators import has_tag
            from ..typed.generator import MEMINFO_OFFSET, Generator
            return self._unbox_container(ty, obj, Generator, MEMINFO_OFFSET, has_tag)
        if isinstance(ty, t.FunctionType):
            return self.unbox_function(ty, obj)
        if isinstance(ty, t.UnicodeType):
            return self.unbox_string(obj)
        if isinstance(ty, t.Dispatcher):  # exactly this compiled function
            self.require(b.icmp_unsigned("==", obj, api.constant_object(ty.dispatcher)))
            return dm.null_value(ty)
        raise TypingError(f"kiln cannot pass a {ty} from Python to compiled code")

    def unbox_string(self, obj):
        """A copy of a `str` as a kiln string (released by the entry point after the call)."""
        from ..library import strings
        b, api = self.b, self.api
        self.require(api.is_type(obj, api.global_object("PyUnicode_Type")))
        n = api.call("PyUnicode_GetLength", dm.i64, [obj])
        size = b.add(b.mul(n, ir.Constant(dm.i64, 4)), ir.Constant(dm.i64, strings.HEADER_BYTES))
        s = nrt.emit_allocate(b, size)
        if self.no_memory is None:
            self.no_memory = b.append_basic_block("no_memory")
        made = b.append_basic_block("string")
        b.cbranch(b.icmp_unsigned("==", s, ir.Constant(dm.ptr, None)), self.no_memory, made)
        b.position_at_end(made)
        b.store(s, next(self.string_slots))
        strings.fill_header(b, s, n)
        api.call("PyUnicode_AsUCS4", dm.ptr,
                 [obj, strings.code_points(b, s), n, ir.Constant(dm.i32, 0)])
        return s

    def unbox_optional(self, ty, obj):
        b = self.b
        is_none = b.icmp_unsigned("==", obj, self.api.global_object("_Py_NoneStruct"))
        with b.if_else(is_none) as (none, some):
            with none:
                from_none = b.block
            with some:
                value = self.unbox(ty.type, obj)
                from_some = b.block
        present = b.phi(dm.i1)
        present.add_incoming(ir.Constant(dm.i1, 0), from_none)
        present.add_incoming(ir.Constant(dm.i1, 1), from_some)
        item = b.phi(dm.value_type(ty.type))
        item.add_incoming(ir.Constant(dm.value_type(ty.type), None), from_none)
        item.add_incoming(value, from_some)
        result = b.insert_value(ir.Constant(dm.value_type(ty), ir.Undefined), item, 0)
        return b.insert_value(result, present, 1)

    def unbox_function(self, ty, obj):
        """A function's two addresses, from `entry_address` (ccallback.py): None, or a
        failure, means the argument does not match."""
        b, api = self.b, self.api
        name = api.call("PyUnicode_FromString", dm.ptr,
                        [api.context.state.global_string(ty.name)])
        found = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                         [api.constant_object(entry_address), obj, name,
                          ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
        api.decref(name)
        self.mismatch_if(b.icmp_unsigned("==", found, ir.Constant(dm.ptr, None)))
        with b.if_then(b.icmp_unsigned("==", found, api.global_object("_Py_NoneStruct")),
                       likely=False):
            api.decref(found)
            b.branch(self.mismatch)
        addresses = [api.call("PyLong_AsVoidPtr", dm.ptr,
                              [api.read(found, P.TUPLE_ITEMS + 8 * i, dm.ptr)])
                     for i in range(2)]
        api.decref(found)
        return function_value(b, ty, *addresses)

    def unbox_integer(self, ty, obj):
        b, api = self.b, self.api
        lt = dm.value_type(ty)
        numpy_types = [api.constant_object(c) for c in P.scalar_classes(ty.np_dtype)]
        if ty not in (t.int64, t.uint64):
            self.require(self.any_type(obj, numpy_types))
            return api.read(obj, P.SCALAR_VALUE, lt)
        is_numpy = self.any_type(obj, numpy_types)
        is_long = api.is_type(obj, api.global_object("PyLong_Type"))
        self.require(b.or_(is_numpy, is_long))
        slot = b.alloca(lt)
        with b.if_else(is_numpy) as (numpy_path, long_path):
            with numpy_path:
                b.store(api.read(obj, P.SCALAR_VALUE, lt), slot)
            with long_path:
                b.store(self.python_int(ty, obj), slot)
        return b.load(slot, typ=lt)

    def python_int(self, ty, obj):
        """A Python int as int64 (or uint64 only when it does not fit int64, as typeof says)."""
        value, failed = self.convert_long("PyLong_AsLongLong", obj)
        if ty == t.int64:
            self.mismatch_if(failed)
            return value
        self.require(failed)  # uint64 takes only ints beyond int64's range
        self.api.call("PyErr_Clear", ir.VoidType(), [])
        value, failed = self.convert_long("PyLong_AsUnsignedLongLong", obj)
        self.mismatch_if(failed)
        return value

    def convert_long(self, function, obj):
        """Call a PyLong_As* conversion; also say whether it failed (-1 with an error set)."""
        b, api = self.b, self.api
        value = api.call(function, dm.i64, [obj])
        failed = b.and_(b.icmp_signed("==", value, ir.Constant(dm.i64, -1)),
                        b.icmp_unsigned("!=", api.call("PyErr_Occurred", dm.ptr, []),
                                        ir.Constant(dm.ptr, None)))
        return value, failed

    def mismatch_if(self, failed):
        """A failed conversion is a type mismatch, not an error: clear it and move on."""
        with self.b.if_then(failed, likely=False):
            self.api.call("PyErr_Clear", ir.VoidType(), [])
            self.b.branch(self.mismatch)

    def unbox_array(self, ty, obj):
        b, api = self.b, self.api
        self.require(api.is_type(obj, api.constant_object(np.ndarray)))
        self.require(b.icmp_signed("==", api.read(obj, P.ARRAY_ND, dm.i32),
                                   ir.Constant(dm.i32, ty.ndim)))
        descr = api.read(obj, P.ARRAY_DESCR, dm.ptr)
        self.require(self.dtype_ok(ty.dtype, descr))
        self.require(b.icmp_unsigned("!=", api.read(descr, P.DESCR_BYTEORDER, dm.i8),
                                     ir.Constant(dm.i8, ord(">"))))
        flags = api.read(obj, P.ARRAY_FLAGS, dm.i32)
        self.require(self.layout_ok(ty, flags))
        data = api.read(obj, P.ARRAY_DATA, dm.ptr)
        dims = api.read(obj, P.ARRAY_DIMS, dm.ptr)
        strides = api.read(obj, P.ARRAY_STRIDES, dm.ptr)
        shape = [b.load(b.gep(dims, [ir.Constant(dm.i64, d)], source_etype=dm.i64), typ=dm.i64)
                 for d in range(ty.ndim)]
        steps = [b.load(b.gep(strides, [ir.Constant(dm.i64, d)], source_etype=dm.i64), typ=dm.i64)
                 for d in range(ty.ndim)]
        from ..library.arrays import make_array
        return make_array(api.context, b, ty, data, shape, steps, parent=obj)

    def dtype_ok(self, dtype, descr):
        """Whether an array's descr is `dtype`: by type number, or for a record by NumPy's
        comparison of dtypes (every structured dtype has the type number of void)."""
        b, api = self.b, self.api
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

    def unbox_list(self, ty, obj):
        """A kiln.typed.List's list itself (borrowed, not copied), if it has this type."""
        from ..library.lists import has_tag
        from ..typed.typedlist import MEMINFO_OFFSET, List
        return self._unbox_container(ty, obj, List, MEMINFO_OFFSET, has_tag)

    def unbox_dict(self, ty, obj):
        """A kiln.typed.Dict's dict itself (borrowed, not copied), if it has this type."""
        from ..library.dicts import has_tag
        from ..typed.typeddict import MEMINFO_OFFSET, Dict
        return self._unbox_container(ty, obj, Dict, MEMINFO_OFFSET, has_tag)

    def unbox_instance(self, ty, obj):
        """A jitclass instance itself (borrowed), if `obj` is one of exactly this class."""
        from ..experimental import MEMINFO_OFFSET
        from ..library.classes import python_class
        b, api = self.b, self.api
        self.require(api.is_type(obj, api.constant_object(python_class(ty))))
        meminfo = api.call("PyLong_AsVoidPtr", dm.ptr, [api.read(obj, MEMINFO_OFFSET, dm.ptr)])
        self.require(b.icmp_unsigned("!=", meminfo, ir.Constant(dm.ptr, None)))
        return meminfo

    def _unbox_container(self, ty, obj, cls, offset, has_tag):
        b, api = self.b, self.api
        self.require(api.is_type(obj, api.constant_object(cls)))
        meminfo = api.call("PyLong_AsVoidPtr", dm.ptr, [api.read(obj, offset, dm.ptr)])
        self.require(b.icmp_unsigned("!=", meminfo, ir.Constant(dm.ptr, None)))
        self.require(has_tag(b, meminfo, ty))
        return meminfo

    def layout_ok(self, ty, flags):
        b = self.b

        def has(flag):
            return b.icmp_unsigned("!=", b.and_(flags, ir.Constant(dm.i32, flag)),
                                   ir.Constant(dm.i32, 0))
        c, f, writeable = has(P.NPY_C_CONTIGUOUS), has(P.NPY_F_CONTIGUOUS), has(P.NPY_WRITEABLE)
        true = ir.Constant(dm.i1, 1)
        if self.exact_layout:  # the layout typeof would give: C first, then F, else A
            layout_ok = {"C": c, "F": b.and_(b.not_(c), f) if ty.ndim > 1 else c,
                         "A": b.not_(b.or_(c, f))}[ty.layout]
            write_ok = b.not_(writeable) if ty.readonly else writeable
        else:
            layout_ok = {"C": c, "F": f, "A": true}[ty.layout]
            write_ok = true if ty.readonly else writeable
        return b.and_(layout_ok, write_ok)


def _return_null(builder):
    builder.ret(ir.Constant(dm.ptr, None))


def box(api, ty, value, fail=_return_null):
    """A new reference to the Python object for `value`. When boxing an item fails, `fail`
    ends the block (by default: return NULL from an entry point, the exception set)."""
    b = api.builder
    if isinstance(ty, t.Boolean):
        return api.call("PyBool_FromLong", dm.ptr, [b.zext(value, P.C_LONG)])
    if isinstance(ty, t.Integer):
        if ty.signed:
            wide = api.context.cast(b, value, ty, t.int64)
            return api.call("PyLong_FromLongLong", dm.ptr, [wide])
        return api.call("PyLong_FromUnsignedLongLong", dm.ptr,
                        [api.context.cast(b, value, ty, t.uint64)])
    if isinstance(ty, t.Float):
        return api.call("PyFloat_FromDouble", dm.ptr, [api.context.cast(b, value, ty, t.float64)])
    if isinstance(ty, t.Complex):
        value = api.context.cast(b, value, ty, t.complex128)
        return api.call("PyComplex_FromDoubles", dm.ptr,
                        [b.extract_value(value, 0), b.extract_value(value, 1)])
    if isinstance(ty, t.NoneType):
        return api.new_reference("_Py_NoneStruct")
    if isinstance(ty, t.Optional):
        result = b.alloca(dm.ptr)
        with b.if_else(b.extract_value(value, 1)) as (present, absent):
            with present:
                b.store(box(api, ty.type, b.extract_value(value, 0), fail), result)
            with absent:
                b.store(api.new_reference("_Py_NoneStruct"), result)
        return b.load(result, typ=dm.ptr)
    if isinstance(ty, t.BaseTuple):
        return _box_tuple(api, ty, value, fail)
    if isinstance(ty, t.Array):
        return _box_array(api, ty, value, fail)
    if isinstance(ty, t.ListType):
        return _box_list(api, ty, value, fail)
    if isinstance(ty, t.DictType):
        return _box_dict(api, ty, value, fail)
    if isinstance(ty, t.SetType):
        return _box_set(api, ty, value, fail)
    if isinstance(ty, t.ClassInstanceType):
        return _box_instance(api, ty, value, fail)
    if isinstance(ty, t.GeneratorType):  # a Python iterator that takes over the reference
        from ..typed.generator import from_native
        return _box_container(api, ty, value, fail, from_native)
    if isinstance(ty, t.UnicodeType):
        return _box_string(api, value, fail)
    raise TypingError(f"kiln cannot return a value of type {ty} to Python")


def _box_string(api, value, fail):
    """A `str` copied from the code points (UCS-4 is a kind CPython takes as it is)."""
    from ..library import strings
    b = api.builder
    result = api.call("PyUnicode_FromKindAndData", dm.ptr,
                      [ir.Constant(dm.i32, 4), strings.code_points(b, value),
                       strings.length_of(b, value)])
    nrt.emit_decref(b, value)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    return result


def _box_tuple(api, ty, value, fail):
    b = api.builder
    null = ir.Constant(dm.ptr, None)
    tup = api.call("PyTuple_New", dm.ptr, [ir.Constant(dm.i64, len(ty))])
    for i, item_ty in enumerate(ty.types):
        item = box(api, item_ty, b.extract_value(value, i), fail)
        with b.if_then(b.icmp_unsigned("==", item, null), likely=False):
            api.decref(tup)
            fail(b)
        api.call("PyTuple_SetItem", dm.i32, [tup, ir.Constant(dm.i64, i), item])
    cls = getattr(ty, "cls", None)
    if cls is None:
        return tup
    named = api.call("PyObject_CallObject", dm.ptr, [api.constant_object(cls), tup])
    api.decref(tup)     # a named tuple: an instance of its class made from the items
    with b.if_then(b.icmp_unsigned("==", named, null), likely=False):
        fail(b)
    return named


def _box_array(api, ty, value, fail):
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
            # library/lists.py) is released
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
    array = api.call(nrt.ARRAY_NEW, dm.ptr, [
        api.global_object("PyArray_Type"), ir.Constant(i32, ty.ndim), shape,
        ir.Constant(i32, ty.dtype.np_dtype.num), strides, b.extract_value(value, dm.ARRAY_DATA),
        ir.Constant(i32, ty.dtype.size if records else 0),
        ir.Constant(i32, P.NPY_ALIGNED | (0 if ty.readonly else P.NPY_WRITEABLE)),
        ir.Constant(dm.ptr, None)],
        argtypes=[dm.ptr, i32, dm.ptr, i32, dm.ptr, dm.ptr, i32, i32, dm.ptr])
    with b.if_then(b.icmp_unsigned("==", array, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, meminfo)
        fail(b)
    destructor = api.context.declare_external(nrt.CAPSULE_DESTRUCTOR, ir.VoidType(), [dm.ptr])
    capsule = api.call("PyCapsule_New", dm.ptr, [meminfo, ir.Constant(dm.ptr, None), destructor])
    api.call(nrt.ARRAY_SET_BASE, i32, [array, capsule])
    if records:   # the void items seen through the record's dtype (a view keeping them)
        voids = array
        array = api.call("PyObject_CallMethod", dm.ptr,
                         [voids, api.context.state.global_string("view"),
                          api.context.state.global_string("O"),
                          api.constant_object(ty.dtype.np_dtype)],
                         var_arg=True, argtypes=[dm.ptr, dm.ptr, dm.ptr])
        api.decref(voids)
        with b.if_then(b.icmp_unsigned("==", array, ir.Constant(dm.ptr, None)), likely=False):
            fail(b)
    return array


def _box_list(api, ty, value, fail):
    """A kiln.typed.List that takes over the reference; the list is tagged with its type,
    so passing it back in is checked without Python."""
    from ..library.lists import set_tag
    from ..typed.typedlist import from_native
    if ty.is_undefined:
        raise TypingError("kiln cannot return a list whose item type is not known (nothing "
                          "is ever added to it); make it with List.empty_list(item_type)")
    set_tag(api.builder, value, ty)
    return _box_container(api, ty, value, fail, from_native)


def _box_dict(api, ty, value, fail):
    """A kiln.typed.Dict that takes over the reference, tagged as a list is."""
    from ..library.dicts import set_tag
    from ..typed.typeddict import from_native
    if ty.is_undefined:
        raise TypingError("kiln cannot return a dict whose key and value types are not known "
                          "(nothing is ever stored in it); make it with "
                          "Dict.empty(key_type, value_type)")
    set_tag(api.builder, value, ty)
    return _box_container(api, ty, value, fail, from_native)


def _box_set(api, ty, value, fail):
    """A Python set holding a copy of the items (a set has no typed twin in Python): the
    table is handed to Python as the kiln.typed.Dict it is laid out as, whose keys are
    copied into a set, and released with it."""
    from ..library.dicts import set_tag
    from ..typed.typeddict import set_from_native
    if ty.is_undefined:  # `set()` never filled: empty
        nrt.emit_decref(api.builder, value)
        return api.call("PySet_New", dm.ptr, [ir.Constant(dm.ptr, None)])
    table = t.DictType(ty.item_type, t.boolean)
    set_tag(api.builder, value, table)
    return _box_container(api, table, value, fail, set_from_native)


def _box_instance(api, ty, value, fail):
    """The jitclass's Python object, taking over the reference to the instance."""
    from ..experimental import from_native
    from ..library.classes import python_class
    b = api.builder
    address = api.call("PyLong_FromVoidPtr", dm.ptr, [value])
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(from_native), api.constant_object(python_class(ty)),
                       address, ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(address)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, value)
        fail(b)
    return result


def _box_container(api, ty, value, fail, from_native):
    """`from_native(address, type code)`: the Python object owning the container."""
    from ..typed.typedlist import encode_type
    b = api.builder
    address = api.call("PyLong_FromVoidPtr", dm.ptr, [value])
    code = api.call("PyUnicode_FromString", dm.ptr,
                    [api.context.state.global_string(encode_type(ty))], argtypes=[dm.ptr])
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(from_native), address, code,
                       ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(address)
    api.decref(code)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, value)
        fail(b)
    return result


def _box_view(api, ty, value, fail):
    b = api.builder
    parent = b.extract_value(value, dm.ARRAY_PARENT)
    address = b.ptrtoint(b.extract_value(value, dm.ARRAY_DATA), dm.i64)
    shape_ty = t.UniTuple(t.int64, ty.ndim)
    shape = _box_tuple(api, shape_ty, b.extract_value(value, dm.ARRAY_SHAPE), fail)
    strides = _box_tuple(api, shape_ty, b.extract_value(value, dm.ARRAY_STRIDES), fail)
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


class _ViewOf:
    """Describes a view's memory to NumPy and keeps the array it views alive."""

    def __init__(self, parent, address, shape, strides, typestr):
        self.parent = parent
        self.__array_interface__ = {
            "version": 3, "shape": shape, "strides": strides, "typestr": typestr,
            "data": (address, not parent.flags.writeable)}


def make_view(parent, address, shape, strides, typestr, readonly=False):
    """The NumPy array that compiled code returned: `parent` itself, or a view into it
    (`typestr` is its dtype's, `.real` of a complex array viewing floats, or a structured
    dtype itself), read-only where compiled code typed it so (np.broadcast_to's)."""
    if address == parent.ctypes.data and shape == parent.shape and \
            strides == parent.strides and (typestr == parent.dtype.str if
                                           isinstance(typestr, str) else typestr == parent.dtype):
        return parent
    if isinstance(typestr, str):
        view = np.asarray(_ViewOf(parent, address, shape, strides, typestr))
    else:   # a structured dtype: the items as void bytes, seen through it
        voids = np.asarray(_ViewOf(parent, address, shape, strides, f"|V{typestr.itemsize}"))
        view = voids.view(typestr)
    if readonly:
        view.flags.writeable = False
    return view

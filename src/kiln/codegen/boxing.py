"""The CPython entry point of a specialization, generated as LLVM IR, and the registry
through which each type family says how its values cross it.

`PyObject *entry(PyObject *self, PyObject *const *args, Py_ssize_t nargsf)` checks that
every argument has exactly the type the specialization was compiled for (reading the
object's type pointer, and an array's ndim, dtype number and flags, without building any
kiln type), unboxes, calls the native function, turns an exception status into a Python
exception, and boxes the result. A mismatch returns `NotImplemented`, which tells the
dispatcher to try its next specialization.

Numbers, booleans, None, tuples, Optionals and literals are boxed here. Every other family
(arrays, lists, dicts, sets, strings, generators, jitclass instances, functions) registers
its `@boxer` and `@unboxer` in the module that owns its layout, so this module names none
of them."""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..errors import TypingError
from ..runtime import nrt
from ..runtime import pyapi as P
from ..runtime.pyapi import VECTORCALL_OFFSET_MASK, PyAPI
from . import datamodel as dm
from .exceptions import emit_set_python_error

_BOXERS = {}     # type class -> box(api, ty, value, fail)
_UNBOXERS = {}   # type class -> unbox(unboxer, ty, obj)
_COPIED = set()  # type classes whose unboxing makes a copy the entry point releases


def boxer(type_class):
    """Register `box(api, ty, value, fail)`: a new reference to the Python object for a
    value of `type_class` (taking over the value's reference)."""
    def register(fn):
        _BOXERS[type_class] = fn
        return fn
    return register


def unboxer(type_class, copies=False):
    """Register `unbox(unboxer, ty, obj)`: the value of the Python object `obj`, after
    `unboxer.require` checks that it is one of `ty`. A family whose unboxing `copies`
    takes its slot from `unboxer.copy_slot()`; the entry point releases it after the call."""
    def register(fn):
        _UNBOXERS[type_class] = fn
        if copies:
            _COPIED.add(type_class)
        return fn
    return register


def _registered(table, ty):
    for cls in type(ty).__mro__:
        if cls in table:
            return table[cls]
    return None


def build_entry_point(context, typed, native_fn, name, exact_layout: bool):
    """Add the entry point `name` for `native_fn` to the module; see the module docstring."""
    fnty = ir.FunctionType(dm.ptr, [dm.ptr, dm.ptr, dm.i64])
    fn = ir.Function(context.module, fnty, name=name)
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    api = PyAPI(context, builder)
    # one slot per copy unboxing makes (a string's), released after the call or when a
    # later argument does not match (NULL until made)
    copy_slots = []
    for _ in range(sum(map(copies_in, typed.argtypes))):
        copy_slots.append(builder.alloca(dm.ptr))
        builder.store(ir.Constant(dm.ptr, None), copy_slots[-1])
    unboxer = Unboxer(api, fn.append_basic_block("mismatch"), exact_layout, copy_slots)
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
    release_copies(builder, copy_slots)
    with builder.if_then(builder.icmp_signed("!=", status, ir.Constant(dm.i32, 0)), likely=False):
        emit_set_python_error(context, builder, builder.load(excslot, typ=dm.ptr))
        builder.ret(ir.Constant(dm.ptr, None))
    result = builder.load(retslot, typ=dm.value_type(typed.return_type))
    builder.ret(box(api, typed.return_type, result))
    builder.position_at_end(unboxer.mismatch)
    release_copies(builder, copy_slots)
    builder.ret(api.new_reference("_Py_NotImplementedStruct"))
    if unboxer.no_memory is not None:
        builder.position_at_end(unboxer.no_memory)
        release_copies(builder, copy_slots)
        api.call("PyErr_NoMemory", dm.ptr, [])
        builder.ret(ir.Constant(dm.ptr, None))
    return fn


def copies_in(ty) -> int:
    """How many copies unboxing a `ty` makes."""
    if any(cls in _COPIED for cls in type(ty).__mro__):
        return 1
    if isinstance(ty, t.Optional):   # a copy when it is not None
        return copies_in(ty.type)
    return sum(map(copies_in, ty.types)) if isinstance(ty, t.BaseTuple) else 0


def release_copies(builder, slots):
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


class Unboxer:
    """Unboxes an entry point's arguments; each check that fails branches to `mismatch`."""

    def __init__(self, api, mismatch, exact_layout, copy_slots=()):
        self.api = api
        self.b = api.builder
        self.mismatch = mismatch
        self.exact_layout = exact_layout   # an array must have the layout typeof gives
        self.copy_slots = iter(copy_slots)
        self.no_memory = None   # the block that raises MemoryError, made on first need

    def copy_slot(self):
        """The slot for the next copy unboxing makes (see `unboxer(copies=True)`)."""
        return next(self.copy_slots)

    def no_memory_block(self):
        """The block that raises MemoryError."""
        if self.no_memory is None:
            self.no_memory = self.b.append_basic_block("no_memory")
        return self.no_memory

    def require(self, ok):
        """Continue only if the i1 `ok` holds; otherwise the argument does not match."""
        cont = self.b.append_basic_block("match")
        self.b.cbranch(ok, cont, self.mismatch)
        self.b.position_at_end(cont)

    def unbox_literal(self, ty, obj):
        """An argument the function was compiled for one value of: a number is unboxed and
        compared; any other value (a string) must be of its type and equal the value, and
        is passed as the placeholder of a compile-time constant."""
        b, api = self.b, self.api
        plain = t.unliteral(ty)
        if isinstance(plain, t.Number):
            value = self.unbox(plain, obj)
            self.require(b.icmp_unsigned("==", value, api.context.get_constant(
                b, plain, ty.value)))
            return value
        self.require(api.is_type(obj, api.constant_object(type(ty.value))))
        same = api.call("PyObject_RichCompareBool", dm.i32,
                        [obj, api.constant_object(ty.value), ir.Constant(dm.i32, 2)])  # Py_EQ
        self.require(b.icmp_signed("==", same, ir.Constant(dm.i32, 1)))
        return ir.Constant(dm.value_type(ty), None)

    def any_type(self, obj, type_ptrs):
        ok = ir.Constant(dm.i1, 0)
        for tp in type_ptrs:
            ok = self.b.or_(ok, self.api.is_type(obj, tp))
        return ok

    def unbox(self, ty, obj):
        b, api = self.b, self.api
        if isinstance(ty, t.Literal):   # compiled for this value only (kiln.literally)
            return self.unbox_literal(ty, obj)
        if isinstance(ty, t.Optional):   # None, or a value of the type
            return self.unbox_optional(ty, obj)
        family = _registered(_UNBOXERS, ty)   # first: a family may refine a number type
        if family is not None:
            return family(self, ty, obj)
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
        if isinstance(ty, t.Dispatcher):  # exactly this compiled function
            self.require(b.icmp_unsigned("==", obj, api.constant_object(ty.dispatcher)))
            return dm.null_value(ty)
        if isinstance(ty, (t.NumberClass, t.DType, t.EnumClass)):   # exactly this class,
            expected = type_object(api, ty)     # or NumPy's dtype of it: a compile-time constant
            self.require(b.icmp_unsigned("==", obj, expected))
            api.decref(expected)
            return dm.null_value(ty)
        raise TypingError(f"kiln cannot pass a {ty} from Python to compiled code")

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


def _return_null(builder):
    builder.ret(ir.Constant(dm.ptr, None))


def box(api, ty, value, fail=_return_null):
    """A new reference to the Python object for `value`. When boxing an item fails, `fail`
    ends the block (by default: return NULL from an entry point, the exception set)."""
    b = api.builder
    family = _registered(_BOXERS, ty)   # first: a family may refine a number type
    if family is not None:
        return family(api, ty, value, fail)
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
        return box_tuple(api, ty, value, fail)
    if isinstance(ty, (t.NumberClass, t.DType, t.EnumClass)):
        return type_object(api, ty)
    raise TypingError(f"kiln cannot return a value of type {ty} to Python")


def type_object(api, ty):
    """A new reference to the object a NumberClass, DType or EnumClass stands for: the
    class (`np.float32`, an enum), or NumPy's own dtype object of a scalar class
    (`np.dtype(np.float32)`, one object per dtype, made by the call as no importable name
    holds it)."""
    if isinstance(ty, t.EnumClass):
        cls = api.constant_object(ty.module)
    else:
        cls = api.constant_object((ty.instance_type if isinstance(ty, t.NumberClass)
                                   else ty.dtype).np_dtype.type)
    if not isinstance(ty, t.DType):
        api.incref(cls)
        return cls
    return api.call("PyObject_CallOneArg", dm.ptr, [api.constant_object(np.dtype), cls])


def box_tuple(api, ty, value, fail):
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

"""The call that stands for an objmode block (frontend/objmode.py outlines the block):
holding the GIL (compiled code may run without it, in prange threads or under
nogil=True), box the live-in values, call the outlined Python function, then unbox its
outputs, each checked against its declared type first (`coerce_output`, in Python, so a
mismatch is a TypeError or ValueError naming the variable). An exception the block raises
becomes a kiln exception holding the very Python object: `except` in compiled code catches
it, and Python gets it back unchanged."""
from __future__ import annotations

import numbers
import operator

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.exceptions import emit_fetch_python_error, raise_descriptor
from ..codegen.ownership import incref
from ..errors import TypingError
from ..frontend.objmode import objmode_call
from ..typing.registry import template


class ObjModeBlockType(t.Opaque):
    """The outlined block a call runs (a frozen global of the rewritten function)."""

    runs_python = True   # it may change anything Python reaches (codegen/borrowing.py)

    def __init__(self, block):
        self.block = block
        self.name = f"ObjModeBlock({block.where})"

    @property
    def key(self):
        return (id(self.block),)


def _boxable(ty):
    if isinstance(ty, t.Optional):
        return _boxable(ty.type)
    if isinstance(ty, t.BaseTuple):
        return all(map(_boxable, ty.types))
    return isinstance(ty, (t.Boolean, t.Number, t.NoneType, t.Array, t.ListType, t.DictType,
                           t.SetType, t.UnicodeType))


def _unboxable(ty):
    if isinstance(ty, t.BaseTuple):
        return all(map(_unboxable, ty.types))
    return isinstance(ty, (t.Boolean, t.Integer, t.Float, t.Complex, t.NoneType, t.Array,
                           t.ListType, t.DictType, t.UnicodeType))


def check_output_type(name, ty, loc):
    """Refuse, when the block is outlined, an output type that Python values cannot be
    unboxed to."""
    if not _unboxable(ty):
        raise TypingError(f"kiln.objmode(): output {name!r} has type {ty}, which kiln cannot "
                          "unbox from Python (numbers, booleans, None, strings, arrays, "
                          "tuples, typed lists and dicts can)", loc)


def coerce_output(name, ty, value):
    """`value`, an output of a block, as the Python object compiled code unboxes for `ty`:
    a TypeError (wrong kind) or ValueError (out of range) naming the variable otherwise."""
    def fail(why, error=TypeError):
        raise error(f"objmode output {name!r} is declared {ty}, but the block set it to "
                    f"{value!r:.80} ({why})")
    if isinstance(ty, t.Boolean):
        if not isinstance(value, (bool, np.bool_)):
            fail(f"a {type(value).__name__}, not a bool")
        return bool(value)
    if isinstance(ty, t.Integer):
        try:
            number = operator.index(value)
        except TypeError:
            fail(f"a {type(value).__name__}, not an integer")
        info = np.iinfo(ty.np_dtype)
        if not info.min <= number <= info.max:
            fail("out of range", ValueError)
        return ty.np_dtype.type(number)
    if isinstance(ty, (t.Float, t.Complex)):
        kind = numbers.Real if isinstance(ty, t.Float) else numbers.Complex
        if not isinstance(value, kind):
            fail(f"a {type(value).__name__}, not a {'real ' * (kind is numbers.Real)}number")
        return ty.np_dtype.type(value)
    if isinstance(ty, t.NoneType):
        if value is not None:
            fail("not None")
        return None
    if isinstance(ty, t.BaseTuple):
        if not isinstance(value, tuple) or len(value) != len(ty):
            fail(f"not a tuple of {len(ty)} items")
        return tuple(coerce_output(f"{name}[{i}]", item_ty, item)
                     for i, (item_ty, item) in enumerate(zip(ty.types, value)))
    if isinstance(ty, t.Array):
        return _coerce_array(ty, value, fail)
    if isinstance(ty, t.UnicodeType):
        if not isinstance(value, str):
            fail(f"a {type(value).__name__}, not a str")
        return str(value)     # (a str subclass as the plain str compiled code unboxes)
    return _coerce_container(ty, value, fail)


def _coerce_array(ty, value, fail):
    if not isinstance(value, np.ndarray):
        fail(f"a {type(value).__name__}, not a NumPy array")
    if value.ndim != ty.ndim:
        fail(f"{value.ndim} dimensions, not {ty.ndim}")
    if value.dtype != ty.dtype.np_dtype or not value.dtype.isnative:
        fail(f"dtype {value.dtype}")
    flags = value.flags
    if ty.layout == "C" and not flags.c_contiguous or \
            ty.layout == "F" and not flags.f_contiguous:
        fail("not contiguous in that order; declare the layout 'A' (x[:]) or copy it")
    if not ty.readonly and not flags.writeable:
        fail("read-only")
    return value


def _coerce_container(ty, value, fail):
    """A typed List or Dict of exactly `ty`, or a Python list (dict) copied into one."""
    from ..typed import Dict, List
    if isinstance(ty, t.ListType):
        if isinstance(value, List) and value._kiln_typeof_() == ty:
            return value
        if not isinstance(value, list):
            fail(f"a {type(value).__name__}, not a list")
        result = List.empty_list(ty.item_type)
        for i, item in enumerate(value):
            result.append(coerce_output(f"item {i}", ty.item_type, item))
        result._type = ty   # (a t.List has the typed list's layout and tag)
        return result
    if isinstance(value, Dict) and value._kiln_typeof_() == ty:
        return value
    if not isinstance(value, dict):
        fail(f"a {type(value).__name__}, not a dict")
    result = Dict.empty(ty.key_type, ty.value_type)
    for key, item in value.items():
        result[coerce_output("a key", ty.key_type, key)] = \
            coerce_output(f"item {key!r}", ty.value_type, item)
    return result


@template(objmode_call, target="cpu")
def _objmode_call(tctx, block_ty, *args):
    if not isinstance(block_ty, ObjModeBlockType):
        return None
    block = block_ty.block
    for name, ty in zip(block.inputs, args):
        if not _boxable(ty):
            raise TypingError(f"the objmode block at {block.where} reads {name!r}, a {ty}, "
                              "which kiln cannot pass to Python")
    outputs = tuple(block.outputs.values())
    result = t.tuple_of(outputs) if outputs else t.none

    def codegen(context, builder, sig, llargs):
        return _lower(context, builder, block, args, outputs, llargs[1:])
    codegen.new_reference = True
    return result(block_ty, *args), codegen


def _lower(context, b, block, argtypes, outputs, values):
    from ..codegen.ownership import kept_alive
    from ..codegen.boxing import Unboxer, box, copies_in, release_copies
    from ..runtime import pyapi as P
    api = P.PyAPI(context, b)
    null = ir.Constant(dm.ptr, None)
    void = ir.VoidType()
    gil = api.call("PyGILState_Ensure", dm.i32, [])
    error = b.append_basic_block("objmode.error")
    boxed = context.alloca(b, ir.ArrayType(dm.ptr, max(len(values), 1)))

    def slot(i):
        return b.gep(boxed, [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, i)])
    for i in range(len(values)):   # the error path drops whichever are boxed
        b.store(null, slot(i))
    for i, (ty, value) in enumerate(zip(argtypes, values)):
        incref(b, ty, value)   # box takes over a reference; the variable keeps its own
        obj = box(api, ty, value, lambda bb: bb.branch(error))
        b.store(obj, slot(i))
        with b.if_then(b.icmp_unsigned("==", obj, null), likely=False):
            b.branch(error)
    objects = [b.load(slot(i), typ=dm.ptr) for i in range(len(values))]
    found = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                     [api.constant_object(block)] + objects + [null], var_arg=True,
                     argtypes=[dm.ptr])
    for i, obj in enumerate(objects):
        api.decref(obj)
        b.store(null, slot(i))
    with b.if_then(b.icmp_unsigned("==", found, null), likely=False):
        b.branch(error)
    mismatch = b.append_basic_block("objmode.mismatch")
    copy_slots = [context.alloca(b, dm.ptr) for _ in range(sum(map(copies_in, outputs)))]
    for copy_slot in copy_slots:
        b.store(null, copy_slot)
    unboxer = Unboxer(api, mismatch, exact_layout=False, copy_slots=copy_slots)
    result = None
    if outputs:
        result = ir.Constant(dm.value_type(t.tuple_of(outputs)), ir.Undefined)
        for i, ty in enumerate(outputs):
            item = unboxer.unbox(ty, api.read(found, P.TUPLE_ITEMS + 8 * i, dm.ptr))
            item = kept_alive(context, b, ty, item)   # arrays: a meminfo holding NumPy's
            incref(b, ty, item)
            result = b.insert_value(result, item, i)
    release_copies(b, copy_slots)   # the unboxer's copies, now referenced by the outputs
    api.decref(found)
    api.call("PyGILState_Release", void, [gil])
    after = b.block

    if unboxer.no_memory is not None:   # a string output's copy could not be allocated
        b.position_at_end(unboxer.no_memory)
        release_copies(b, copy_slots)
        api.decref(found)
        api.call("PyGILState_Release", void, [gil])
        context.raise_error(b, MemoryError, "no memory for a string output of the objmode "
                                            f"block at {block.where}")

    b.position_at_end(mismatch)   # coerce_output made every output fit: cannot happen
    api.decref(found)
    api.call("PyGILState_Release", void, [gil])
    context.raise_error(b, SystemError, f"an output of the objmode block at {block.where} "
                                        "could not be unboxed")
    b.position_at_end(error)
    for i in range(len(values)):
        api.decref(b.load(slot(i), typ=dm.ptr))
    desc = emit_fetch_python_error(context, b)
    api.call("PyGILState_Release", void, [gil])
    raise_descriptor(context, b, desc)
    b.position_at_end(after)
    return result if outputs else dm.null_value(t.none)

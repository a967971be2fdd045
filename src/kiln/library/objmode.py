"""The call that stands for an objmode block (frontend/objmode.py outlines the block):
holding the GIL (compiled code may run without it, in prange threads or under
nogil=True), box the live-in values, call the outlined Python function, then unbox its
outputs, each checked against its declared type first (frontend/objmode_values.py's
`coerce_output`, in Python, so a mismatch is a TypeError or ValueError naming the
variable). An exception the block raises
becomes a kiln exception holding the very Python object: `except` in compiled code catches
it, and Python gets it back unchanged."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.exceptions import emit_fetch_python_error, raise_descriptor
from ..codegen.ownership import incref
from ..errors import TypingError
from ..frontend.objmode import objmode_call
from ..frontend.objmode_values import ObjModeBlockType, boxable
from ..typing.registry import template


@template(objmode_call, target="cpu")
def _objmode_call(tctx, block_ty, *args):
    if not isinstance(block_ty, ObjModeBlockType):
        return None
    block = block_ty.block
    for name, ty in zip(block.inputs, args):
        if not boxable(ty):
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

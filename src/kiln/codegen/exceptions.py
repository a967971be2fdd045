"""Exceptions in compiled code: what a `raise` hands to its caller, how `try` catches it,
and how it becomes a Python exception at the boundary.

An exception in flight is a pointer to a descriptor `{class_cell, message, make_args,
meminfo, where}`, stored through the function's `excinfo` out-parameter while it returns status 1.
A raise whose arguments are known at compile time points to a constant descriptor. One
with values computed at run time allocates its descriptor from NRT with the values after
the header (`meminfo` is its own allocation), so the leak checks see one that is never
released. `make_args`, generated per list of argument kinds, builds the Python tuple of
the arguments; without it the class is called with `message`, or with nothing when that is
NULL too. `where` (or NULL) names the user's function, file and line that raised it: the
entry point adds that frame to the Python traceback (`_PyTraceback_Add`, as Numba does),
so the traceback ends at the user's `raise`, not in kiln. Whoever holds a descriptor
releases it: the entry point after setting the Python
error, an `except` block that handled it; a bare `raise` takes a reference of its own.

`try` needs no landing pads: every raise and every failed call in a try body branches to
the try's dispatch block (`CodegenContext.unwind_to`) instead of leaving the function. The
dispatch releases the temporaries the body held, tests the raised class against each
handler's classes with `PyType_IsSubtype` (so `except ArithmeticError` catches
ZeroDivisionError, and user classes work alike) and runs the first handler that matches.
A `finally` body is lowered once per way out of the try (falling through, an exception,
each return/break/continue that crosses it), as CPython's compiler does.
"""
from __future__ import annotations

import builtins
import ctypes
import hashlib
from functools import lru_cache

from llvmlite import ir

from ..runtime.symbols import BUILTIN_CLASS_SYMBOL
from ..runtime import nrt
from ..typing.exceptions import Reraise
from ..runtime.threads import callee, struct_field
from . import datamodel as dm
from .context import STATUS_ERROR
from .ownership import decref, has_refs, incref

DESCRIPTOR = ir.LiteralStructType([dm.ptr, dm.ptr, dm.ptr, dm.ptr, dm.ptr])
CLASS_CELL, MESSAGE, MAKE_ARGS, MEMINFO, WHERE = range(5)
WHERE_TYPE = ir.LiteralStructType([dm.ptr, dm.ptr, dm.i32])   # {function, file, line}
MAKE_ARGS_TYPE = ir.FunctionType(dm.ptr, [dm.ptr])   # PyObject *make_args(descriptor*)
SET_PYTHON_ERROR = "kiln.exc.set_python_error"


# -- descriptors -------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _exported(symbol):
    try:
        ctypes.c_char.in_dll(ctypes.pythonapi, symbol)
        return True
    except ValueError:
        return False


def class_cell(state, exc_class):
    """A global holding the address of `exc_class`: CPython's `PyExc_*` for a builtin that
    has one (ExceptionGroup has none); NULL in device code, which has no Python."""
    if state.target == "cuda":  # a kernel ends the thread on an exception (docs/cuda.md)
        return ir.Constant(dm.ptr, None)
    name = exc_class.__name__
    if getattr(builtins, name, None) is not exc_class or not _exported(f"PyExc_{name}"):
        return state.object_cell(exc_class)
    symbol = BUILTIN_CLASS_SYMBOL.format(name)
    cell = state.module.globals.get(symbol)
    if cell is None:
        cell = ir.GlobalVariable(state.module, dm.ptr, name=symbol)
        cell.linkage = "external"
    return cell


def where_constant(state, site):
    """The constant `{function, file, line}` of a raise site (function name, file name,
    line), or NULL (None, or in device code: no Python traceback there)."""
    if site is None or state.target == "cuda":
        return ir.Constant(dm.ptr, None)
    name = ".exc.where." + hashlib.sha1(repr(site).encode()).hexdigest()[:16]
    gv = state.module.globals.get(name)
    if gv is not None:
        return gv
    gv = ir.GlobalVariable(state.module, WHERE_TYPE, name=name)
    gv.global_constant = True
    gv.linkage = "private"
    gv.initializer = ir.Constant(WHERE_TYPE, [state.global_string(site[0]),
                                              state.global_string(site[1]),
                                              ir.Constant(dm.i32, site[2])])
    return gv


def constant_descriptor(state, exc_class, message, make_args=None, where=None):
    """The constant descriptor of `exc_class(message)` (`message` None: no arguments), or
    of `exc_class(*make_args())`, raised at `where` (a raise site, or None)."""
    key = (exc_class, message, make_args and make_args.name, where)
    desc = state.exc_descriptors.get(key)
    if desc is None:
        null = ir.Constant(dm.ptr, None)
        text = null if message is None else state.global_string(message)
        site = where_constant(state, where)
        desc = ir.GlobalVariable(state.module, DESCRIPTOR,
                                 name=f".exc.{len(state.exc_descriptors)}")
        desc.global_constant = True
        desc.linkage = "private"
        desc.initializer = ir.Constant(DESCRIPTOR, [_class_or_code(state, exc_class, message),
                                                    text, make_args or null, null, site])
        state.exc_descriptors[key] = desc
    return desc


def _class_or_code(state, exc_class, message):
    """What a constant descriptor's class cell holds: the class, or in device code (no
    Python there) the code a debug kernel reports it with (cuda/debug.py)."""
    if state.target == "cuda":
        code = state.device_exception_code(exc_class, message)
        return ir.Constant(dm.i64, code).inttoptr(dm.ptr)
    return class_cell(state, exc_class)


def _field(builder, desc, index):
    return struct_field(builder, desc, DESCRIPTOR, index)


def raise_with_args(ctx, builder, exc_class, args):
    """Raise `exc_class(*args)`; each argument is `(kiln type, LLVM value)` or `(None,
    text)` for a constant string. The block ends here. Device code keeps no arguments: its
    exception ends the thread, and no Python sees them."""
    if not args:
        return ctx.raise_error(builder, exc_class, None)
    if len(args) == 1 and args[0][0] is None:
        return ctx.raise_error(builder, exc_class, args[0][1])
    if ctx.state.target == "cuda":
        return ctx.raise_error(builder, exc_class, None)
    values = [(ty, value) for ty, value in args if ty is not None]
    make_args = _args_maker(ctx, [ty if ty is not None else text for ty, text in args])
    if not values:
        return _raise(ctx, builder, constant_descriptor(ctx.state, exc_class, None, make_args,
                                                        ctx.raise_site))
    layout = ir.LiteralStructType([DESCRIPTOR, ir.LiteralStructType(
        [dm.value_type(ty) for ty, _ in values])])
    size = builder.ptrtoint(builder.gep(ir.Constant(dm.ptr, None), [ir.Constant(dm.i32, 1)],
                                        source_etype=layout), dm.i64)
    meminfo = nrt.emit_allocate(builder, size)
    ctx.guard(builder, builder.icmp_unsigned("==", meminfo, ir.Constant(dm.ptr, None)),
              MemoryError, None)
    desc = nrt.meminfo_data(builder, meminfo)
    for index, value in ((CLASS_CELL, class_cell(ctx.state, exc_class)),
                         (MESSAGE, ir.Constant(dm.ptr, None)), (MAKE_ARGS, make_args),
                         (MEMINFO, meminfo), (WHERE, where_constant(ctx.state, ctx.raise_site))):
        builder.store(value, _field(builder, desc, index))
    payload = struct_field(builder, desc, layout, 1)
    for i, (ty, value) in enumerate(values):
        incref(builder, ty, value)   # the descriptor's own (strings), released by its destructor
        builder.store(value, struct_field(builder, payload, layout.elements[1], i))
    if any(has_refs(ty) for ty, _ in values):
        nrt.set_destructor(builder, meminfo, _payload_destructor(ctx, [ty for ty, _ in values]))
    _raise(ctx, builder, desc)


def _payload_destructor(ctx, types_):
    """`void destroy(meminfo)` of a descriptor whose run-time arguments own references."""
    module = ctx.module
    name = "kiln.exc.destroy." + hashlib.sha1(repr(types_).encode()).hexdigest()[:16]
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, nrt.DESTRUCTOR, name=name)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        layout = ir.LiteralStructType([DESCRIPTOR, ir.LiteralStructType(
            [dm.value_type(ty) for ty in types_])])
        payload = struct_field(b, nrt.meminfo_data(b, fn.args[0]), layout, 1)
        for i, ty in enumerate(types_):
            address = struct_field(b, payload, layout.elements[1], i)
            decref(b, ty, b.load(address, typ=dm.value_type(ty)))
        b.ret_void()
    return fn


def _raise(ctx, builder, desc):
    builder.store(desc, builder.function.args[1])
    ctx.propagate(builder, STATUS_ERROR)


def _args_maker(ctx, kinds):
    """`make_args` for arguments of `kinds` (a kiln type: a value read from the payload; a
    str: that constant), one per module and list of kinds."""
    from .boxing import box
    from ..runtime.pyapi import PyAPI
    module = ctx.module
    name = "kiln.exc.args." + hashlib.sha1(repr(kinds).encode()).hexdigest()[:16]
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(module, MAKE_ARGS_TYPE, name=name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    api = PyAPI(ctx, b)
    null = ir.Constant(dm.ptr, None)
    values = [k for k in kinds if not isinstance(k, str)]
    layout = ir.LiteralStructType([DESCRIPTOR, ir.LiteralStructType(
        [dm.value_type(ty) for ty in values])])
    payload = struct_field(b, fn.args[0], layout, 1)
    result = api.call("PyTuple_New", dm.ptr, [ir.Constant(dm.i64, len(kinds))])
    with b.if_then(b.icmp_unsigned("==", result, null), likely=False):
        b.ret(null)

    def fail(b):
        api.decref(result)
        b.ret(null)
    position = 0
    for i, kind in enumerate(kinds):
        if isinstance(kind, str):
            item = api.call("PyUnicode_FromString", dm.ptr,
                            [ctx.state.global_string(kind)], argtypes=[dm.ptr])
        else:
            address = struct_field(b, payload, layout.elements[1], position)
            value = b.load(address, typ=dm.value_type(kind))
            incref(b, kind, value)   # boxing takes a reference; the descriptor keeps its own
            item = box(api, kind, value, fail)
            position += 1
        with b.if_then(b.icmp_unsigned("==", item, null), likely=False):
            fail(b)
        api.call("PyTuple_SetItem", dm.i32, [result, ir.Constant(dm.i64, i), item])
    b.ret(result)
    return fn


def emit_release(builder, desc):
    """Drop the holder's reference to a descriptor (constant ones own nothing)."""
    nrt.emit_decref(builder, builder.load(_field(builder, desc, MEMINFO), typ=dm.ptr))


def emit_retain(builder, desc):
    nrt.emit_incref(builder, builder.load(_field(builder, desc, MEMINFO), typ=dm.ptr))


def emit_set_python_error(context, builder, desc):
    """Set the Python error a descriptor stands for and release it (the GIL held)."""
    module = context.module
    fn = module.globals.get(SET_PYTHON_ERROR)
    if fn is None:
        from ..runtime.pyapi import PyAPI
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [dm.ptr]),
                         name=SET_PYTHON_ERROR)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        api = PyAPI(context, b)
        d = fn.args[0]
        null = ir.Constant(dm.ptr, None)
        cls = b.load(b.load(_field(b, d, CLASS_CELL), typ=dm.ptr), typ=dm.ptr)
        make_args = b.load(_field(b, d, MAKE_ARGS), typ=dm.ptr)
        message = b.load(_field(b, d, MESSAGE), typ=dm.ptr)
        with b.if_else(b.icmp_unsigned("!=", make_args, null)) as (with_args, plain):
            with with_args:
                args = b.call(callee(b, make_args, MAKE_ARGS_TYPE), [d])
                with b.if_then(b.icmp_unsigned("!=", args, null)):  # else its error is set
                    api.call("PyErr_SetObject", ir.VoidType(), [cls, args])
                    api.decref(args)
            with plain:
                with b.if_else(b.icmp_unsigned("!=", message, null)) as (text, bare):
                    with text:
                        api.call("PyErr_SetString", ir.VoidType(), [cls, message])
                    with bare:
                        api.call("PyErr_SetNone", ir.VoidType(), [cls])
        where = b.load(_field(b, d, WHERE), typ=dm.ptr)
        with b.if_then(b.icmp_unsigned("!=", where, null)):   # the user's frame, last
            site = [b.load(struct_field(b, where, WHERE_TYPE, i), typ=ty)
                    for i, ty in enumerate(WHERE_TYPE.elements)]
            api.call("_PyTraceback_Add", ir.VoidType(), site)
        emit_release(b, d)
        b.ret_void()
    builder.call(fn, [desc])


FROM_PYTHON = "kiln.exc.from_python"
# A descriptor made from a Python exception: {exception object, its class, descriptor}.
_FROM_PYTHON = ir.LiteralStructType([dm.ptr, dm.ptr, DESCRIPTOR])


def emit_fetch_python_error(context, builder):
    """The Python exception that is set (the GIL held) as a descriptor, the error cleared:
    how an exception raised by Python code that compiled code called (an objmode block)
    travels on. The descriptor holds the exception object itself (released, with the GIL,
    by nrt's Python-owner destructor), so `except` matches its class and Python gets the
    very same object back (`make_args` returns it; PyErr_SetObject keeps an instance)."""
    module = context.module
    fn = module.globals.get(FROM_PYTHON)
    if fn is None:
        from ..runtime.pyapi import PyAPI
        fn = ir.Function(module, ir.FunctionType(dm.ptr, []), name=FROM_PYTHON)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        api = PyAPI(context, b)
        slots = [b.alloca(dm.ptr) for _ in range(3)]
        api.call("PyErr_Fetch", ir.VoidType(), slots)
        api.call("PyErr_NormalizeException", ir.VoidType(), slots)
        kind, value, tb = (b.load(s, typ=dm.ptr) for s in slots)
        with b.if_then(b.icmp_unsigned("!=", tb, ir.Constant(dm.ptr, None))):
            api.call("PyException_SetTraceback", dm.i32, [value, tb])
        api.decref(kind)
        api.decref(tb)
        size = b.ptrtoint(b.gep(ir.Constant(dm.ptr, None), [ir.Constant(dm.i32, 1)],
                                source_etype=_FROM_PYTHON), dm.i64)
        meminfo = nrt.emit_allocate(b, size)
        with b.if_then(b.icmp_unsigned("==", meminfo, ir.Constant(dm.ptr, None)),
                       likely=False):
            api.decref(value)
            b.ret(constant_descriptor(context.state, MemoryError, None))
        data = nrt.meminfo_data(b, meminfo)
        b.store(value, struct_field(b, data, _FROM_PYTHON, 0))
        b.store(api.type_of(value), struct_field(b, data, _FROM_PYTHON, 1))
        nrt.set_destructor(b, meminfo, context.declare_external(
            nrt.RELEASE_PYTHON, ir.VoidType(), [dm.ptr]))
        desc = struct_field(b, data, _FROM_PYTHON, 2)
        for index, field in ((CLASS_CELL, struct_field(b, data, _FROM_PYTHON, 1)),
                             (MESSAGE, ir.Constant(dm.ptr, None)),
                             (MAKE_ARGS, _same_object(context)), (MEMINFO, meminfo),
                             (WHERE, ir.Constant(dm.ptr, None))):
            b.store(field, _field(b, desc, index))
        b.ret(desc)
    return builder.call(fn, [])


def _same_object(context):
    """`make_args` of a descriptor from Python: a new reference to the exception object."""
    name = FROM_PYTHON + ".object"
    fn = context.module.globals.get(name)
    if fn is None:
        fn = ir.Function(context.module, MAKE_ARGS_TYPE, name=name)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        # the descriptor is _FROM_PYTHON's third field, after two pointers
        obj = b.load(b.gep(fn.args[0], [ir.Constant(dm.i64, -2)], source_etype=dm.ptr),
                     typ=dm.ptr)
        b.call(context.declare_external("Py_IncRef", ir.VoidType(), [dm.ptr]), [obj])
        b.ret(obj)
    return fn


RERAISE_HANDLED = "kiln.exc.reraise_handled"


def _reraise_handled(context):
    """`make_args` of a bare `raise` outside any `except` of the compiled function: sets
    the exception the calling Python code is handling (PyErr_GetExcInfo), as CPython's bare
    `raise` in a function called from an except block does, or Python's RuntimeError when
    there is none; returns NULL (the error is set)."""
    fn = context.module.globals.get(RERAISE_HANDLED)
    if fn is None:
        from ..runtime.pyapi import PyAPI
        fn = ir.Function(context.module, MAKE_ARGS_TYPE, name=RERAISE_HANDLED)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        api = PyAPI(context, b)
        null = ir.Constant(dm.ptr, None)
        slots = [b.alloca(dm.ptr) for _ in range(3)]
        api.call("PyErr_GetExcInfo", ir.VoidType(), slots)
        kind, value, tb = (b.load(s, typ=dm.ptr) for s in slots)
        none = api.global_object("_Py_NoneStruct")
        missing = b.or_(b.icmp_unsigned("==", value, null), b.icmp_unsigned("==", value, none))
        with b.if_else(missing) as (nothing, handled):
            with nothing:
                for obj in (kind, value, tb):
                    api.call("Py_DecRef", ir.VoidType(), [obj])   # (NULL-safe)
                api.call("PyErr_SetString", ir.VoidType(),
                         [b.load(class_cell(context.state, RuntimeError), typ=dm.ptr),
                          context.state.global_string("No active exception to reraise")])
            with handled:
                api.call("PyErr_Restore", ir.VoidType(), [kind, value, tb])   # steals them
        b.ret(null)
    return fn


def reraise_handled(ctx, builder):
    """A bare `raise` with no `except` around it in compiled code (see _reraise_handled);
    in device code, a RuntimeError."""
    if ctx.state.target == "cuda":
        return ctx.raise_error(builder, RuntimeError, None)
    desc = constant_descriptor(ctx.state, RuntimeError, None, _reraise_handled(ctx),
                               ctx.raise_site)
    _raise(ctx, builder, desc)


def raise_descriptor(ctx, builder, desc):
    """Raise the exception `desc` stands for (the block ends here)."""
    _raise(ctx, builder, desc)


def emit_matches(ctx, builder, desc, classes):
    """Whether the raised exception is an instance of one of `classes` (an i1)."""
    if any(cls is BaseException for cls in classes):
        return ir.Constant(dm.i1, 1)
    raised = builder.load(builder.load(_field(builder, desc, CLASS_CELL), typ=dm.ptr),
                          typ=dm.ptr)
    subtype = ctx.declare_external("PyType_IsSubtype", dm.i32, [dm.ptr, dm.ptr])
    found = ir.Constant(dm.i1, 0)
    for cls in classes:
        handled = builder.load(class_cell(ctx.state, cls), typ=dm.ptr)
        found = builder.or_(found, builder.icmp_signed(
            "!=", builder.call(subtype, [raised, handled]), ir.Constant(dm.i32, 0)))
    return found


# -- raise and try in a function's lowering ---------------------------------------------------
class _Frame:
    """Code that a return/break/continue leaving a try (or an except block) runs first,
    with the error target, enclosing frames and loops in force outside it."""

    def __init__(self, lowerer, emit):
        self.emit = emit
        self.unwind_to = lowerer.ctx.unwind_to
        self.depth = len(lowerer.cleanups)
        self.loops = len(lowerer.loops)


def unwind(lowerer, depth):
    """Run the frames above `depth`, innermost first, before a jump out of them; stops
    where one ends the block itself (a return in a `finally`)."""
    ctx, cleanups, loops, target = lowerer.ctx, lowerer.cleanups, lowerer.loops, \
        lowerer.ctx.unwind_to
    for frame in reversed(cleanups[depth:]):
        if lowerer.builder.block.is_terminated:
            break
        lowerer.cleanups, lowerer.loops = cleanups[:frame.depth], loops[:frame.loops]
        ctx.unwind_to = frame.unwind_to
        frame.emit()
    lowerer.cleanups, lowerer.loops, ctx.unwind_to = cleanups, loops, target


def _goto_error(ctx, builder, target):
    """Hand the exception in flight to `target` (None: out of the function)."""
    saved, ctx.unwind_to = ctx.unwind_to, target
    ctx.propagate(builder, STATUS_ERROR)
    ctx.unwind_to = saved


def lower_raise(lowerer, node):
    """`raise` as typing resolved it (typing/exceptions.py)."""
    what = lowerer.typed.constants[node]
    b = lowerer.builder
    if isinstance(what, Reraise) and what.handler is None:
        return reraise_handled(lowerer.ctx, b)
    if isinstance(what, Reraise):
        desc = b.load(lowerer.caught[what.handler], typ=dm.ptr)
        emit_retain(b, desc)
        return _raise(lowerer.ctx, b, desc)
    args = []
    for arg, text in zip(what.arg_nodes, what.texts):
        if text is not None:
            args.append((None, text))
        else:   # a value that owns memory (a string) stays held: the exit releases it
            args.append((lowerer.type_of(arg), lowerer.expr(arg)))
    raise_with_args(lowerer.ctx, b, what.exc_class, args)


class TryLowering:
    """One `try` statement; see the module docstring."""

    def __init__(self, lowerer, node):
        self.lw = lowerer
        self.node = node
        self.ctx = lowerer.ctx
        self.outer = lowerer.ctx.unwind_to

    def new_block(self, name):
        return self.lw.new_block(name)

    def lower(self):
        lw, node, ctx = self.lw, self.node, self.ctx
        end = self.new_block("try.end")
        self.finally_block = self.new_block("try.finally") if node.finalbody else end
        self.escape = self.new_block("try.finally.raised") if node.finalbody else None
        self.after_body = self.escape or self.outer  # where the handlers' exceptions go
        if node.finalbody:
            lw.cleanups.append(_Frame(lw, self.inline_finally))
        dispatch = self.new_block("try.except") if node.handlers else None
        self.first_slot = len(lw.owning_slots)
        ctx.unwind_to = dispatch or self.after_body
        lw.block(node.body)
        body_slots = len(lw.owning_slots)
        ctx.unwind_to = self.after_body
        if not lw.builder.block.is_terminated:
            lw.block(node.orelse)
        self.fall_to(self.finally_block)
        if dispatch is not None:
            lw.builder.position_at_end(dispatch)
            self.release_temporaries(self.first_slot, body_slots)
            self.dispatch()
        if node.finalbody:
            lw.cleanups.pop()
            ctx.unwind_to = self.outer
            lw.builder.position_at_end(self.finally_block)
            lw.block(node.finalbody)
            self.fall_to(end)
            self.lower_escape()
        ctx.unwind_to = self.outer
        lw.builder.position_at_end(end)

    def fall_to(self, block):
        if not self.lw.builder.block.is_terminated:
            self.lw.builder.branch(block)

    def release_temporaries(self, first, last):
        """Drop what the temporaries made since slot `first` still hold: an exception left
        their expressions half done (each slot holds a reference or NULL)."""
        b = self.lw.builder
        for slot, ty in self.lw.owning_slots[first:last]:
            lltype = dm.value_type(ty)
            decref(b, ty, b.load(slot, typ=lltype))
            b.store(ir.Constant(lltype, None), slot)

    def dispatch(self):
        lw, b = self.lw, self.lw.builder
        desc = b.load(lw.fn.args[1], typ=dm.ptr)
        for handler in self.node.handlers:
            classes = lw.typed.constants[(handler, "classes")]
            run, nxt = self.new_block("except.run"), self.new_block("except.next")
            b.cbranch(emit_matches(self.ctx, b, desc, classes), run, nxt)
            b.position_at_end(run)
            self.handle(handler, desc)
            b.position_at_end(nxt)
        _goto_error(self.ctx, b, self.after_body)  # no handler matched: it goes on

    def handle(self, handler, desc):
        """Run an except block holding the caught descriptor, released on every way out."""
        lw, ctx = self.lw, self.ctx
        b = lw.builder
        caught = ctx.alloca(b, dm.ptr, name="caught")
        b.store(desc, caught)
        lw.caught[handler] = caught
        lw.cleanups.append(_Frame(lw, lambda: emit_release(lw.builder, b.load(caught,
                                                                             typ=dm.ptr))))
        raised = self.new_block("except.raised")
        ctx.unwind_to = raised
        lw.block(handler.body)
        lw.cleanups.pop()
        ctx.unwind_to = self.after_body
        if not b.block.is_terminated:
            emit_release(b, b.load(caught, typ=dm.ptr))
            b.branch(self.finally_block)
        b.position_at_end(raised)  # a new exception (or this one re-raised) leaves the block
        emit_release(b, b.load(caught, typ=dm.ptr))
        _goto_error(ctx, b, self.after_body)

    def inline_finally(self):
        """The `finally` body on the way out of a return/break/continue."""
        self.lw.block(self.node.finalbody)

    def lower_escape(self):
        """The `finally` body on the way out of an exception, which then goes on unless the
        body returns or breaks (which drops it, as in CPython)."""
        lw, ctx = self.lw, self.ctx
        b = lw.builder
        b.position_at_end(self.escape)
        self.release_temporaries(self.first_slot, len(lw.owning_slots))
        pending = ctx.alloca(b, dm.ptr, name="pending")
        b.store(b.load(lw.fn.args[1], typ=dm.ptr), pending)
        raised = self.new_block("finally.raised")
        lw.cleanups.append(_Frame(lw, lambda: emit_release(lw.builder, b.load(pending,
                                                                              typ=dm.ptr))))
        ctx.unwind_to = raised
        lw.block(self.node.finalbody)
        lw.cleanups.pop()
        ctx.unwind_to = self.outer
        if not b.block.is_terminated:
            b.store(b.load(pending, typ=dm.ptr), lw.fn.args[1])
            _goto_error(ctx, b, self.outer)
        b.position_at_end(raised)
        emit_release(b, b.load(pending, typ=dm.ptr))
        _goto_error(ctx, b, self.outer)

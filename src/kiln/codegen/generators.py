"""Generators as LLVM coroutines (switch-resumed lowering).

A generator function compiles to two LLVM functions. Its body is lowered by the ordinary
`FunctionLowerer` into a coroutine: each `yield` is a `llvm.coro.suspend`, and LLVM's
coroutine passes (CoroEarly/CoroSplit/CoroCleanup, part of the O3 pipeline the engine
runs) move every local, temporary and SSA value live across a suspension into a frame
on the heap. So the lowerer needs no state machine of its own: loops, ifs, iterations
and owning slots work across a `yield` as they do elsewhere. The function with the
generator's own symbol is its ramp: it allocates the generator, a meminfo whose data is
a header `{coroutine handle, excinfo, status, tag, last yielded value}` (the tag
names the generator's type, checked when Python passes the generator back in), and calls the body,
which takes its own references to the arguments (the caller's borrow ends with the call;
an array that NumPy owns is first given a meminfo that holds it, as a list item is) and
suspends before the first statement, as Python does.

The body's `ret*` argument is the header and its `excinfo**` the header's excinfo field,
stable across suspensions: a raise inside the body stores its descriptor there, and the
body leaves through its exit block (releasing what its slots hold), records the status
and suspends for the last time. Resuming (`resume`: a `for` loop's step, `next()`)
releases the previous item, resumes the coroutine, and hands an exception on to the
caller. The header owns the last yielded value until the next resume, so an item is
borrowed from the generator like a list's item from the list. The meminfo's destructor
destroys the coroutine (`llvm.coro.destroy`): a generator dropped at a `yield` releases
every owning slot of the frame before the frame is freed.
"""
from __future__ import annotations

import hashlib

from llvmlite import ir

from .. import types as t
from ..runtime import nrt
from . import datamodel as dm
from .context import STATUS_ERROR, STATUS_OK
from .ownership import decref, kept_alive, meminfo_family

HANDLE, EXCINFO, STATUS, TAG, VALUE = range(5)
RUNNING = ir.Constant(dm.i32, 2)   # the status while resumed: a resume from inside raises

meminfo_family(t.GeneratorType)   # a generator is the meminfo of its header


class _Token(ir.Type):
    def _to_string(self):
        return "token"


TOKEN = _Token()
NO_TOKEN = ir.FormattedConstant(TOKEN, "none")


def header_type(yield_type):
    return ir.LiteralStructType([dm.ptr, dm.ptr, dm.i32, dm.i64, dm.value_type(yield_type)])


def _field(b, header, yield_type, index):
    return b.gep(header, [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, index)],
                 source_etype=header_type(yield_type))


def _declare(module, name, ret, args):
    return module.globals.get(name) or ir.Function(module, ir.FunctionType(ret, args),
                                                   name=name)


class Coroutine:
    """The coroutine parts of a generator body being lowered by `lowerer`."""

    def __init__(self, lowerer):
        self.lowerer = lowerer
        self.yield_type = lowerer.typed.return_type.yield_type
        b, module = lowerer.builder, lowerer.fn.module
        self.header = lowerer.fn.args[0]
        self.id = b.call(_declare(module, "llvm.coro.id", TOKEN, [dm.i32, dm.ptr, dm.ptr, dm.ptr]),
                         [ir.Constant(dm.i32, 0)] + [ir.Constant(dm.ptr, None)] * 3)
        size = b.call(_declare(module, "llvm.coro.size.i64", dm.i64, []), [])
        frame = b.call(_declare(module, "malloc", dm.ptr, [dm.i64]), [size])
        self.handle = b.call(_declare(module, "llvm.coro.begin", dm.ptr, [TOKEN, dm.ptr]),
                             [self.id, frame])
        b.store(self.handle, self.field(b, HANDLE))
        self.suspended = lowerer.new_block("coro.suspended")
        self.dropped = lowerer.new_block("coro.dropped")
        self.cleanup = lowerer.new_block("coro.cleanup")

    def field(self, b, index):
        return _field(b, self.header, self.yield_type, index)

    def suspend(self, final=False):
        """Suspend here; code generation goes on where a resume continues."""
        b = self.lowerer.builder
        suspend = _declare(b.module, "llvm.coro.suspend", dm.i8, [TOKEN, dm.i1])
        state = b.call(suspend, [NO_TOKEN, ir.Constant(dm.i1, int(final))])
        resumed = self.lowerer.new_block("coro.final" if final else "coro.resumed")
        switch = b.switch(state, self.suspended)
        switch.add_case(ir.Constant(dm.i8, 0), resumed)
        switch.add_case(ir.Constant(dm.i8, 1), self.cleanup if final else self.dropped)
        b.position_at_end(resumed)
        if final:  # a finished coroutine is never resumed
            b.unreachable()

    def lower_yield(self, node):
        """`yield v`: the header takes a reference to v, then the body suspends."""
        lowerer, b = self.lowerer, self.lowerer.builder
        if node.value is None:
            value, ty = dm.null_value(t.none), t.none
        else:
            value, ty = lowerer.expr(node.value), lowerer.type_of(node.value)
        b.store(lowerer.ctx.cast(b, value, ty, self.yield_type), self.field(b, VALUE))
        lowerer.take(value)
        self.suspend()
        return dm.null_value(t.none)

    def finish(self, release_slots):
        """The blocks every way out of the body reaches: the exit block (the body ended:
        record its status, suspend for the last time), a drop at a `yield` (release what
        the slots hold) and the frame's release."""
        lowerer, b = self.lowerer, self.lowerer.builder
        b.position_at_end(lowerer.exit_block)
        release_slots(b)
        b.store(b.load(lowerer.status_slot, typ=dm.i32), self.field(b, STATUS))
        self.suspend(final=True)
        b.position_at_end(self.dropped)
        release_slots(b)
        b.branch(self.cleanup)
        b.position_at_end(self.cleanup)
        free = _declare(b.module, "llvm.coro.free", dm.ptr, [TOKEN, dm.ptr])
        b.call(_declare(b.module, "free", ir.VoidType(), [dm.ptr]),
               [b.call(free, [self.id, self.handle])])
        b.branch(self.suspended)
        b.position_at_end(self.suspended)
        b.call(_declare(b.module, "llvm.coro.end", ir.VoidType(), [dm.ptr, dm.i1, TOKEN]),
               [self.handle, ir.Constant(dm.i1, 0), NO_TOKEN])
        b.ret(STATUS_OK)


def lower_generator_function(state, typed, fn):
    """`fn`, the generator function's symbol: the ramp that makes the generator; its body
    is the coroutine `<symbol>.body`."""
    from .context import CodegenContext
    from .lower import FunctionLowerer
    module = fn.module
    body = ir.Function(module, fn.function_type, name=typed.symbol + ".body")
    body.linkage = "internal"
    set.add(body.attributes, "presplitcoroutine")  # llvmlite does not list this attribute
    FunctionLowerer(CodegenContext(state, typed.options), typed, body).lower()
    ctx = CodegenContext(state, typed.options)
    yield_type = typed.return_type.yield_type
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    size = b.ptrtoint(b.gep(ir.Constant(dm.ptr, None), [ir.Constant(dm.i32, 1)],
                            source_etype=header_type(yield_type)), dm.i64)
    meminfo = nrt.emit_allocate(b, size)
    ctx.guard(b, b.icmp_unsigned("==", meminfo, ir.Constant(dm.ptr, None)), MemoryError,
              "cannot allocate a generator")
    nrt.set_destructor(b, meminfo, _destructor(module, yield_type))
    header = nrt.meminfo_data(b, meminfo)
    b.store(ir.Constant(header_type(yield_type), None), header)
    b.store(ir.Constant(dm.i64, dm.type_tag(typed.return_type)), _field(b, header, yield_type, TAG))
    # an array NumPy owns (an argument from Python, or a view of one) gets a meminfo that
    # holds it, as a list item does: the generator may outlive the caller's borrow
    args = [kept_alive(ctx, b, ty, arg) for ty, arg in zip(typed.argtypes, fn.args[2:])]
    b.call(body, [header, _field(b, header, yield_type, EXCINFO)] + args)
    b.store(meminfo, fn.args[0])
    b.ret(STATUS_OK)


def has_tag(b, generator, ty):
    """Whether the generator is of type `ty` (unboxing a kiln Generator from Python)."""
    tag = _field(b, nrt.meminfo_data(b, generator), ty.yield_type, TAG)
    return b.icmp_signed("==", b.load(tag, typ=dm.i64), ir.Constant(dm.i64, dm.type_tag(ty)))


def _destructor(module, yield_type):
    """`void destroy(meminfo)`: destroy the coroutine (its frame releases what its slots
    hold), then release the last yielded value."""
    name = f"kiln.generator.destroy.{hashlib.sha1(str(yield_type).encode()).hexdigest()[:12]}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    fn = ir.Function(module, nrt.DESTRUCTOR, name=name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    header = nrt.meminfo_data(b, fn.args[0])
    handle = b.load(_field(b, header, yield_type, HANDLE), typ=dm.ptr)
    b.call(_declare(module, "llvm.coro.destroy", ir.VoidType(), [dm.ptr]), [handle])
    value_ty = dm.value_type(yield_type)
    decref(b, yield_type, b.load(_field(b, header, yield_type, VALUE), typ=value_ty))
    b.ret_void()
    return fn


def resume(context, b, generator, yield_type):
    """Run the generator to its next `yield`: an i1, whether it gave an item (`item`).
    An exception raised in the generator propagates from here, once; a finished generator
    gives nothing; resuming it from inside itself is CPython's ValueError."""
    module = b.module
    header = nrt.meminfo_data(b, generator)
    handle = b.load(_field(b, header, yield_type, HANDLE), typ=dm.ptr)
    done = _declare(module, "llvm.coro.done", dm.i1, [dm.ptr])
    with b.if_then(b.not_(b.call(done, [handle]))):
        status_slot = _field(b, header, yield_type, STATUS)
        context.guard(b, b.icmp_signed("==", b.load(status_slot, typ=dm.i32), RUNNING),
                      ValueError, "generator already executing")
        value_ty = dm.value_type(yield_type)
        slot = _field(b, header, yield_type, VALUE)
        decref(b, yield_type, b.load(slot, typ=value_ty))  # the previous item
        b.store(ir.Constant(value_ty, None), slot)
        b.store(RUNNING, status_slot)
        b.call(_declare(module, "llvm.coro.resume", ir.VoidType(), [dm.ptr]), [handle])
        failed = b.icmp_signed("==", b.load(status_slot, typ=dm.i32), STATUS_ERROR)
        b.store(STATUS_OK, status_slot)   # a yield leaves RUNNING there
        with b.if_then(failed, likely=False):
            excinfo = b.load(_field(b, header, yield_type, EXCINFO), typ=dm.ptr)
            b.store(excinfo, b.function.args[1])
            context.propagate(b, STATUS_ERROR)
    return b.not_(b.call(done, [handle]))


def item(b, generator, yield_type):
    """The last yielded value, borrowed from the generator."""
    header = nrt.meminfo_data(b, generator)
    return b.load(_field(b, header, yield_type, VALUE), typ=dm.value_type(yield_type))

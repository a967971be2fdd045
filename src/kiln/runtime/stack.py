"""The stack guard: a recursive compiled function raises RecursionError before its frames
overflow the thread's C stack (which would kill the interpreter with SIGSEGV).

Each function in a cycle of calls (typing marks it) checks that its frame lies in the
window of the current thread's stack it may use: from the stack's lowest address, as the C
library reports it, plus a margin for the library code and C calls a frame may still make,
up to the stack's top. A stack of over 1 GiB counts as its top 1 GiB: with
`ulimit -s unlimited` the C library reports the main thread's stack as reaching down to the
next mapping (terabytes away), and deep recursion would exhaust memory before it raised.
The check inline is two loads and two compares against the window
of the thread that checked last (a global pointer to a per-thread window); another thread,
or a frame outside the window, takes a call that finds this thread's window (once per
thread: for the main thread glibc reads /proc/self/maps), keeps it in a pthread key (the
JIT cannot allocate thread-local storage) and makes it the global one. A window is 16
bytes that live as long as the process. Linux only: elsewhere no check is emitted and deep
recursion stays unguarded.
"""
from __future__ import annotations

import ctypes
import functools
import sys

from llvmlite import ir

from . import irtypes as ll
from .loaded import STACK, STACK_KEY, STACK_SYMBOL, STACK_WINDOW

SYMBOL, WINDOW, KEY = STACK_SYMBOL, STACK_WINDOW, STACK_KEY
WINDOW_TYPE = ir.ArrayType(ll.i64, 2)
MARGIN = 1 << 20       # at most this much stack is kept back ...
MARGIN_FRACTION = 4    # ... and at most a quarter of a small thread's stack
MAX_STACK = 1 << 30    # an unlimited stack (ulimit -s unlimited) is guarded as 1 GiB
PTHREAD_ATTR_BYTES = 256  # more than any libc's pthread_attr_t (56 or 64 bytes today)


@functools.cache
def supported() -> bool:
    return sys.platform.startswith("linux") and \
        hasattr(ctypes.CDLL(None), "pthread_getattr_np")


def _in_window(builder, window, address):
    """Whether `address` lies in the {low, high} window that `window` points to."""
    low, high = (builder.load(builder.gep(window, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, i)],
                                          source_etype=WINDOW_TYPE), typ=ll.i64)
                 for i in (0, 1))
    return builder.and_(builder.icmp_unsigned(">=", address, low),
                        builder.icmp_unsigned("<", address, high))


def _at_most(builder, value, limit: int):
    limit = ir.Constant(ll.i64, limit)
    return builder.select(builder.icmp_unsigned("<", value, limit), value, limit)


def _guard_ir() -> str:
    module = ir.Module(name="kiln.stack")
    key = ir.GlobalVariable(module, ll.i32, name=KEY)
    key.initializer = ir.Constant(ll.i32, 0)
    nowhere = ir.GlobalVariable(module, WINDOW_TYPE, name="kiln_stack_nowhere")
    nowhere.initializer = ir.Constant(WINDOW_TYPE, [1, 0])  # contains no address
    window = ir.GlobalVariable(module, ll.ptr, name=WINDOW)
    window.initializer = nowhere

    def libc(name, ret, *args):
        return ir.Function(module, ir.FunctionType(ret, list(args)), name=name)
    get_specific = libc("pthread_getspecific", ll.ptr, ll.i32)
    set_specific = libc("pthread_setspecific", ll.i32, ll.i32, ll.ptr)
    thread_self = libc("pthread_self", ll.i64)
    get_attr = libc("pthread_getattr_np", ll.i32, ll.i64, ll.ptr)
    get_stack = libc("pthread_attr_getstack", ll.i32, ll.ptr, ll.ptr, ll.ptr)
    destroy_attr = libc("pthread_attr_destroy", ll.i32, ll.ptr)
    malloc = libc("malloc", ll.ptr, ll.i64)

    fn = ir.Function(module, ir.FunctionType(ll.i1, [ll.i64]), name=SYMBOL)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    attr = b.alloca(ir.ArrayType(ll.i8, PTHREAD_ATTR_BYTES))
    attr.align = 16
    base, size, mine = b.alloca(ll.ptr), b.alloca(ll.i64), b.alloca(ll.ptr)
    thread_key = b.load(key, typ=ll.i32)
    b.store(b.call(get_specific, [thread_key]), mine)
    with b.if_then(b.icmp_unsigned("==", b.load(mine, typ=ll.ptr), ir.Constant(ll.ptr, None)),
                   likely=False):
        # First check on this thread: ask the C library where its stack is. If it cannot
        # say (or memory is exhausted) the thread runs unguarded, as it did before.
        new = b.call(malloc, [ir.Constant(ll.i64, 16)])
        with b.if_then(b.icmp_unsigned("==", new, ir.Constant(ll.ptr, None)), likely=False):
            b.ret(ir.Constant(ll.i1, 1))
        low = b.gep(new, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, 0)], source_etype=WINDOW_TYPE)
        high = b.gep(new, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, 1)], source_etype=WINDOW_TYPE)
        b.store(ir.Constant(ll.i64, 0), low)
        b.store(ir.Constant(ll.i64, -1), high)
        failed = b.call(get_attr, [b.call(thread_self, []), attr])
        with b.if_then(b.icmp_signed("==", failed, ir.Constant(ll.i32, 0))):
            b.call(get_stack, [attr, base, size])
            b.call(destroy_attr, [attr])
            stack_bytes = b.load(size, typ=ll.i64)
            top = b.add(b.ptrtoint(b.load(base, typ=ll.ptr), ll.i64), stack_bytes)
            usable = _at_most(b, stack_bytes, MAX_STACK)
            margin = _at_most(b, b.udiv(usable, ir.Constant(ll.i64, MARGIN_FRACTION)), MARGIN)
            b.store(b.add(b.sub(top, usable), margin), low)
            b.store(top, high)
        b.call(set_specific, [thread_key, new])
        b.store(new, mine)
    current = b.load(mine, typ=ll.ptr)
    b.atomic_rmw("xchg", window, current, "release")
    b.ret(_in_window(b, current, fn.args[0]))
    return str(module)


def bind_symbols(library=None):
    """Load the guard once per process (runtime/loaded.py): from `library` when it is the
    first to ask, else compiled into the JIT; without `library` the caller is the JIT,
    whose symbol table gets the guard's addresses."""
    STACK.load(library, _compile)


def _compile():
    from .engine import get_engine
    return get_engine().compile_internal("stack", _guard_ir).engine.engine \
        .get_global_value_address


def emit_check(ctx, builder, qualname):
    """Raise RecursionError if this frame lies outside the thread's usable stack."""
    module = builder.module
    slow = module.globals.get(SYMBOL) or \
        ir.Function(module, ir.FunctionType(ll.i1, [ll.i64]), name=SYMBOL)
    window = module.globals.get(WINDOW)
    if window is None:
        window = ir.GlobalVariable(module, ll.ptr, name=WINDOW)
    frame_address = module.globals.get("llvm.frameaddress.p0") or \
        ir.Function(module, ir.FunctionType(ll.ptr, [ll.i32]), name="llvm.frameaddress.p0")
    here = builder.ptrtoint(builder.call(frame_address, [ir.Constant(ll.i32, 0)]), ll.i64)
    current = builder.load_atomic(window, "acquire", 8, typ=ll.ptr)
    inside = _in_window(builder, current, here)
    checked = builder.block
    with builder.if_then(builder.not_(inside), likely=False):
        slow_inside = builder.call(slow, [here])
        slow_block = builder.block
    ok = builder.phi(ll.i1)
    ok.add_incoming(inside, checked)
    ok.add_incoming(slow_inside, slow_block)
    ctx.guard(builder, builder.not_(ok), RecursionError,
              f"maximum recursion depth exceeded in compiled function {qualname!r} (its "
              "frames would overflow the thread's stack)")

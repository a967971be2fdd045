"""The thread layer that parallel code runs on: `kiln_parallel_for(chunk, env, n)` calls
`chunk(env, k, n')` once for each k < n' on n' threads (n' <= n, the team it got) and
returns when all have returned.

The layer is GNU OpenMP (`GOMP_parallel`, from the system's libgomp or the `intel-openmp`
wheel's libiomp5, which exports the same entry points): a well-kept pool whose threads
wait between regions, safe when several Python threads open regions at once (each gets its
own team). GNU OpenMP hangs in a child process forked after its threads exist, so a fork
handler switches the child to kiln's own layer, which starts one POSIX thread per chunk and
joins them: slower to open, always correct. The same layer runs everything, with a warning,
where no OpenMP runtime can be loaded; KILN_THREADING_LAYER=omp|posix chooses.

Compiled code reads the thread count from a global (`set_num_threads` writes it), so a
region costs one load, the runtime call and OpenMP's own fork/join. The layer is compiled
from the IR below into the process once, like NRT.
"""
from __future__ import annotations

import operator

from llvmlite import ir

from . import irtypes as ll
from .loaded import (MAX_THREADS, OMP, POSIX, THREAD_ID, THREADS, THREADS_COUNT,  # noqa: F401
                     THREADS_KEY, THREADS_LAUNCHED, THREADS_LAYER, THREADS_SYMBOL, LAYER_NAMES,
                     chosen_layer, initial_threads as _initial_threads,
                     openmp_library as _openmp_library)

SYMBOL, COUNT = THREADS_SYMBOL, THREADS_COUNT
CHUNK_TYPE = ir.FunctionType(ir.VoidType(), [ll.ptr, ll.i64, ll.i64])
MIN_PARALLEL_ITEMS = 1 << 14   # elementwise loops shorter than this stay on one thread
_LAYER, _LAUNCHED, _KEY = THREADS_LAYER, THREADS_LAUNCHED, THREADS_KEY
_OMP, _POSIX = OMP, POSIX


def _layer_ir(openmp: bool) -> str:
    """The layer's module; without `openmp` it has no OpenMP branch (nothing to bind)."""
    module = ir.Module(name="kiln.threads")
    void = ir.VoidType()

    def global_(name, ty, value):
        gv = ir.GlobalVariable(module, ty, name=name)
        gv.initializer = ir.Constant(ty, value)
        return gv

    count = global_(COUNT, ll.i64, 1)
    layer = global_(_LAYER, ll.i32, _OMP)
    launched = global_(_LAUNCHED, ll.i32, 0)
    key = global_(_KEY, ll.i32, 0)

    def extern(name, ret, *args):
        return ir.Function(module, ir.FunctionType(ret, list(args)), name=name)
    if openmp:
        gomp_parallel = extern("GOMP_parallel", void, ll.ptr, ll.ptr, ll.i32, ll.i32)
        omp_thread_num = extern("omp_get_thread_num", ll.i32)
        omp_num_threads = extern("omp_get_num_threads", ll.i32)
    pthread_create = extern("pthread_create", ll.i32, ll.ptr, ll.ptr, ll.ptr, ll.ptr)
    pthread_join = extern("pthread_join", ll.i32, ll.i64, ll.ptr)
    get_specific = extern("pthread_getspecific", ll.ptr, ll.i32)
    set_specific = extern("pthread_setspecific", ll.i32, ll.i32, ll.ptr)

    # A chunk's call: {chunk, env, k, n}. OpenMP's threads share one and read k and n from
    # the runtime; each POSIX thread gets its own.
    task = ir.LiteralStructType([ll.ptr, ll.ptr, ll.i64, ll.i64])

    def field(b, ptr, i):
        return struct_field(b, ptr, task, i)

    def run_chunk(b, ptr, k, n):
        chunk = b.load(field(b, ptr, 0), typ=ll.ptr)
        b.call(callee(b, chunk), [b.load(field(b, ptr, 1), typ=ll.ptr), k, n])

    if openmp:
        omp_body = ir.Function(module, ir.FunctionType(void, [ll.ptr]),
                               name="kiln_threads_omp_body")
        omp_body.linkage = "internal"
        b = ir.IRBuilder(omp_body.append_basic_block("entry"))
        run_chunk(b, omp_body.args[0], b.sext(b.call(omp_thread_num, []), ll.i64),
                  b.sext(b.call(omp_num_threads, []), ll.i64))
        b.ret_void()

    posix_body = ir.Function(module, ir.FunctionType(ll.ptr, [ll.ptr]),
                             name="kiln_threads_posix_body")
    posix_body.linkage = "internal"
    b = ir.IRBuilder(posix_body.append_basic_block("entry"))
    arg = posix_body.args[0]
    k = b.load(field(b, arg, 2), typ=ll.i64)
    b.call(set_specific, [b.load(key, typ=ll.i32), b.inttoptr(k, ll.ptr)])
    run_chunk(b, arg, k, b.load(field(b, arg, 3), typ=ll.i64))
    b.ret(ir.Constant(ll.ptr, None))

    fn = ir.Function(module, ir.FunctionType(void, [ll.ptr, ll.ptr, ll.i64]), name=SYMBOL)
    chunk, env, n = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    one = ir.Constant(ll.i64, 1)
    with b.if_then(b.icmp_signed("<=", n, one), likely=False):
        b.call(callee(b, chunk), [env, ir.Constant(ll.i64, 0), one])
        b.ret_void()
    shared = b.alloca(task)
    b.store(chunk, field(b, shared, 0))
    b.store(env, field(b, shared, 1))
    use_omp = b.icmp_signed("==", b.load(layer, typ=ll.i32), ir.Constant(ll.i32, _OMP))
    with b.if_else(use_omp if openmp else ir.Constant(ll.i1, 0)) as (omp, posix):
        with omp:
            if openmp:
                b.store(ir.Constant(ll.i32, 1), launched)
                b.call(gomp_parallel, [omp_body, shared, b.trunc(n, ll.i32),
                                       ir.Constant(ll.i32, 0)])
        with posix:
            # One thread per chunk but the first, which the caller runs. A chunk whose
            # thread cannot start runs in the caller too.
            tasks = b.alloca(task, size=n)
            handles = b.alloca(ll.i64, size=n)
            with for_range(b, one, n) as k:
                mine = b.gep(tasks, [k], source_etype=task)
                b.store(chunk, field(b, mine, 0))
                b.store(env, field(b, mine, 1))
                b.store(k, field(b, mine, 2))
                b.store(n, field(b, mine, 3))
                handle = b.gep(handles, [k], source_etype=ll.i64)
                failed = b.call(pthread_create, [handle, ir.Constant(ll.ptr, None), posix_body,
                                                 mine])
                with b.if_then(b.icmp_signed("!=", failed, ir.Constant(ll.i32, 0)),
                               likely=False):
                    b.store(ir.Constant(ll.i64, 0), handle)
                    run_chunk(b, mine, k, n)
            run_chunk(b, shared, ir.Constant(ll.i64, 0), n)
            with for_range(b, one, n) as k:
                handle = b.load(b.gep(handles, [k], source_etype=ll.i64), typ=ll.i64)
                with b.if_then(b.icmp_signed("!=", handle, ir.Constant(ll.i64, 0))):
                    b.call(pthread_join, [handle, ir.Constant(ll.ptr, None)])
    b.ret_void()

    tid = ir.Function(module, ir.FunctionType(ll.i64, []), name=THREAD_ID)
    b = ir.IRBuilder(tid.append_basic_block("entry"))
    if openmp:
        with b.if_then(b.icmp_signed("==", b.load(layer, typ=ll.i32),
                                     ir.Constant(ll.i32, _OMP))):
            b.ret(b.sext(b.call(omp_thread_num, []), ll.i64))
    b.ret(b.ptrtoint(b.call(get_specific, [b.load(key, typ=ll.i32)]), ll.i64))
    return str(module)


def struct_field(builder, pointer, aggregate_type, i):
    """The address of field (or element) `i` of the `aggregate_type` at `pointer`, opaque or
    not (llvmlite types the GEP of its own allocas by their pointee)."""
    index = i if isinstance(i, ir.Value) else ir.Constant(ll.i32, i)
    indices = [ir.Constant(ll.i32, 0), index]
    if pointer.type.is_opaque:
        return builder.gep(pointer, indices, source_etype=aggregate_type)
    return builder.gep(pointer, indices)


def chunk_bounds(builder, k, parts, count):
    """[lo, hi) of the k-th of `parts` near-equal contiguous shares of range(count)."""
    b = builder
    share, extra = b.sdiv(count, parts), b.srem(count, parts)
    before = b.icmp_signed("<", k, extra)
    lo = b.add(b.mul(k, share), b.select(before, k, extra))
    hi = b.add(b.add(lo, share), b.zext(before, ll.i64))
    # told to LLVM, 0 <= lo <= hi lets a chunk's `a[i]` drop the negative-index select
    # (so its loop vectorizes as the serial loop over range(n) does)
    assume = b.module.declare_intrinsic("llvm.assume", fnty=ir.FunctionType(ir.VoidType(),
                                                                            [ir.IntType(1)]))
    b.call(assume, [b.icmp_signed(">=", lo, ir.Constant(ll.i64, 0))])
    b.call(assume, [b.icmp_signed("<=", lo, hi)])
    return lo, hi


def callee(builder, pointer, fnty=CHUNK_TYPE):
    """`pointer` as a function of type `fnty` that `builder.call` can call."""
    return builder.inttoptr(builder.ptrtoint(pointer, ll.i64), ir.PointerType(fnty))


class for_range:
    """`with for_range(b, start, stop) as i:` emits `for i in range(start, stop)`."""

    def __init__(self, builder, start, stop):
        self.b, self.start, self.stop = builder, start, stop

    def __enter__(self):
        b = self.b
        self.before = b.block
        self.head = b.append_basic_block("range.head")
        self.body = b.append_basic_block("range.body")
        self.end = b.append_basic_block("range.end")
        b.branch(self.head)
        b.position_at_end(self.head)
        self.i = b.phi(ll.i64)
        self.i.add_incoming(self.start, self.before)
        b.cbranch(b.icmp_signed("<", self.i, self.stop), self.body, self.end)
        b.position_at_end(self.body)
        return self.i

    def __exit__(self, *exc):
        b = self.b
        if exc[0] is None:
            self.i.add_incoming(b.add(self.i, ir.Constant(ll.i64, 1)), b.block)
            b.branch(self.head)
            b.position_at_end(self.end)


def layer_ir(name: str) -> str:
    """The IR of the layer `name` ("omp" or "posix")."""
    return _layer_ir(name == LAYER_NAMES[_OMP])


def ensure_runtime(library=None):
    """The thread layer, loaded once per process (runtime/loaded.py): from `library` when
    it is the first to ask, else compiled into the JIT; without `library` the caller is
    the JIT, whose symbol table gets the layer's addresses (and OpenMP's)."""
    return THREADS.load(library, _compile)


def _compile():
    from .engine import get_engine
    name = chosen_layer()
    return get_engine().compile_internal(f"threads-{name}", lambda: layer_ir(name)) \
        .engine.engine.get_global_value_address


# ---- the Python API ------------------------------------------------------------------------

def set_num_threads(n):
    """How many threads the next parallel regions use (1 to the process's maximum,
    KILN_NUM_THREADS or NUMBA_NUM_THREADS, by default every core this process may use)."""
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise TypeError(f"set_num_threads() takes an integer, not {type(n).__name__}")
    n = operator.index(n)
    if not 1 <= n <= MAX_THREADS:
        raise ValueError(f"the number of threads must be between 1 and {MAX_THREADS} "
                         f"(KILN_NUM_THREADS), not {n}")
    ensure_runtime().count.value = int(n)


def get_num_threads() -> int:
    """How many threads the next parallel region uses."""
    return ensure_runtime().count.value


def get_thread_id() -> int:
    """This thread's number in its parallel region's team (0 outside a region)."""
    return 0


def threading_layer() -> str:
    """The layer parallel regions run on: 'omp' (OpenMP) or 'posix' (kiln's own)."""
    return LAYER_NAMES[ensure_runtime().layer.value]


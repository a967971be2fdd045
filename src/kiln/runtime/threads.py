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

import ctypes
import ctypes.util
import glob
import operator
import os
import sys
import threading
import warnings

from llvmlite import ir

from . import irtypes as ll
from ..errors import PerformanceWarning
from ..options import env_flag, env_value

SYMBOL = "kiln_parallel_for"     # void (ptr chunk, ptr env, i64 n)
COUNT = "kiln_threads_count"     # i64: threads a region asks for
THREAD_ID = "kiln_thread_id"     # i64 (): this thread's number in its team
CHUNK_TYPE = ir.FunctionType(ir.VoidType(), [ll.ptr, ll.i64, ll.i64])
MIN_PARALLEL_ITEMS = 1 << 14   # elementwise loops shorter than this stay on one thread

_LAYER = "kiln_threads_layer"    # i32: 0 OpenMP, 1 POSIX threads
_LAUNCHED = "kiln_threads_omp_started"  # i32: set once OpenMP has made a team
_KEY = "kiln_threads_key"        # i32: the pthread key holding a POSIX worker's number
_OMP, _POSIX = 0, 1
_LAYER_NAMES = {_OMP: "omp", _POSIX: "posix"}

_lock = threading.Lock()
_runtime = None


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _configured_threads() -> int:
    value = env_value("NUM_THREADS")
    if value is None:
        return _default_threads()
    try:
        count = int(value)
    except ValueError:
        raise ValueError(f"KILN_NUM_THREADS (or NUMBA_NUM_THREADS) must be an integer, "
                         f"not {value!r}") from None
    if count < 1:
        raise ValueError(f"KILN_NUM_THREADS (or NUMBA_NUM_THREADS) must be at least 1, "
                         f"not {count}")
    return count


MAX_THREADS = _configured_threads()   # the most threads a region may use in this process


def _initial_threads() -> int:
    """The count regions start with: all of MAX_THREADS, or fewer where OMP_NUM_THREADS
    asks (as Dask's worker processes do, so workers × threads stay within the machine)."""
    try:
        wanted = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
    except ValueError:
        return MAX_THREADS
    return max(1, min(wanted, MAX_THREADS))


def _openmp_library():
    """The loaded OpenMP runtime (RTLD_GLOBAL), or None."""
    candidates = []
    found = ctypes.util.find_library("gomp")
    candidates += [found] if found else []
    candidates += ["libgomp.so.1", "libgomp.dylib"]
    for prefix in {sys.prefix, sys.base_prefix}:   # the intel-openmp wheel's runtime
        candidates += sorted(glob.glob(os.path.join(prefix, "lib", "libiomp5.*")))
    for name in candidates:
        try:
            lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        if all(hasattr(lib, f) for f in ("GOMP_parallel", "omp_get_thread_num",
                                          "omp_get_num_threads")):
            return lib
    return None


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


class _Runtime:
    def __init__(self, compiled, layer):
        engine = compiled.engine.engine
        self.addresses = {name: compiled.address(name) for name in (SYMBOL, THREAD_ID)}
        self.addresses[COUNT] = engine.get_global_value_address(COUNT)
        self.count = ctypes.c_int64.from_address(self.addresses[COUNT])
        self.layer = ctypes.c_int32.from_address(engine.get_global_value_address(_LAYER))
        self.launched = ctypes.c_int32.from_address(engine.get_global_value_address(_LAUNCHED))
        key = ctypes.c_uint(0)
        if ctypes.CDLL(None).pthread_key_create(ctypes.byref(key), None) != 0:
            raise MemoryError("kiln could not create a pthread key for its thread layer")
        ctypes.c_uint32.from_address(engine.get_global_value_address(_KEY)).value = key.value
        self.layer.value = layer
        self.count.value = _initial_threads()


def _chosen_layer() -> int:
    wanted = (env_value("THREADING_LAYER") or "default").strip().lower()
    if wanted in ("posix", "workqueue"):
        return _POSIX
    if wanted not in ("default", "omp", "safe", "threadsafe", "forksafe"):
        raise ValueError(f"unknown threading layer {wanted!r} in KILN_THREADING_LAYER "
                         "(or NUMBA_THREADING_LAYER): choose 'omp' or 'posix'")
    library = _openmp_library()
    if library is None:
        if not env_flag("DISABLE_PERFORMANCE_WARNINGS"):
            warnings.warn("kiln found no OpenMP runtime (libgomp, or `pip install "
                          "intel-openmp`): parallel code runs on a thread per chunk started "
                          "for each region, which is correct but slower to start",
                          PerformanceWarning, stacklevel=3)
        return _POSIX
    import llvmlite.binding as llvm
    for name in ("GOMP_parallel", "omp_get_thread_num", "omp_get_num_threads"):
        llvm.add_symbol(name, ctypes.cast(getattr(library, name), ctypes.c_void_p).value)
    return _OMP


def ensure_runtime() -> _Runtime:
    """Compile and bind the thread layer, once per process."""
    global _runtime
    with _lock:
        if _runtime is None:
            import llvmlite.binding as llvm
            from ..cpu.engine import get_engine
            layer = _chosen_layer()
            compiled = get_engine().compile_internal(f"threads-{_LAYER_NAMES[layer]}",
                                                     lambda: _layer_ir(layer == _OMP))
            _runtime = _Runtime(compiled, layer)
            for name, address in _runtime.addresses.items():
                llvm.add_symbol(name, address)
        return _runtime


def _after_fork_in_child():
    """GNU OpenMP's threads do not exist in a forked child, and its next region would wait
    for them forever: a child of a process that used OpenMP runs on POSIX threads."""
    if _runtime is not None and _runtime.launched.value:
        _runtime.layer.value = _POSIX


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
    return _LAYER_NAMES[ensure_runtime().layer.value]


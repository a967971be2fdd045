"""The runtime's parts as loaded in this process, each once: NRT (with its allocation
statistics), the stack guard (with its pthread key) and the thread layer (with its
thread count, layer and pthread key). A part comes from the runtime's shared library
(cpu/nativelib.py) when code loaded without LLVM asks for it first, else it is compiled
into the JIT from the IR of nrt.py, stack.py or threads.py; when the JIT asks, its symbol
table gets the part's addresses, wherever the part came from. Apart from the IR so that a
process that only loads cached code imports no llvmlite."""
from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
import warnings
from typing import NamedTuple

from ..errors import PerformanceWarning
from ..options import env_flag, env_value


class Part:
    """One part of the runtime. `start(address)` makes its state once its code is loaded
    (`address(name)`: where its symbol `name` is); the state's `symbols` are what the JIT
    binds."""

    def __init__(self, start):
        self._start = start
        self.state = None
        self._in_jit = False
        self._lock = threading.Lock()

    def load(self, library=None, compile=None):
        """The part's state, loaded from `library` (an opened shared library) when it is
        the first to ask; without `library` the caller is the JIT: `compile()` loads the
        part into it (and gives the address lookup) unless it is loaded already, and the
        JIT's symbol table gets its addresses."""
        with self._lock:
            if self.state is None and library is not None:
                self.state = self._start(library.address)
            if library is None and not self._in_jit:
                import llvmlite.binding as llvm
                if self.state is None:
                    self.state = self._start(compile())
                for symbol, address in self.state.symbols.items():
                    llvm.add_symbol(symbol, address)
                self._in_jit = True
            return self.state


def _pthread_key(what) -> int:
    key = ctypes.c_uint(0)
    if ctypes.CDLL(None).pthread_key_create(ctypes.byref(key), None) != 0:
        raise MemoryError(f"kiln could not create a pthread key for its {what}")
    return key.value


# ---- NRT ---------------------------------------------------------------------------------------

FREE, CAPSULE_DESTRUCTOR, ALLOCATE, DECREF, RELEASE_PYTHON = "kiln_nrt_free", \
    "kiln_nrt_capsule_destructor", "kiln_nrt_allocate", "kiln_nrt_decref", \
    "kiln_nrt_release_python_object"
NRT_STATS = "kiln_nrt_stats"
# NumPy's C API, reached through its function table (the indices are NumPy's stable ABI).
ARRAY_NEW, ARRAY_SET_BASE = "kiln_PyArray_New", "kiln_PyArray_SetBaseObject"
NUMPY_API_INDEX = {ARRAY_NEW: 93, ARRAY_SET_BASE: 282}


def numpy_api() -> dict:
    """Addresses of the NumPy C API functions boxing calls, and of `PyArray_Type`."""
    import numpy as np
    try:
        from numpy._core import _multiarray_umath as multiarray
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as multiarray
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    table = ctypes.cast(get_pointer(multiarray._ARRAY_API, None),
                        ctypes.POINTER(ctypes.c_void_p))
    found = {name: table[index] for name, index in NUMPY_API_INDEX.items()}
    found["PyArray_Type"] = id(np.ndarray)
    return found


def _keep_freed_memory():
    """Tune glibc's malloc for compiled code that frees a temporary and then allocates the
    next one. By default glibc hands the top of its heap back to the OS on such a free (its
    trim threshold follows the mmap threshold it raises as arrays are freed), so the next
    array page-faults all its memory again: a 700 KB temporary made a kernel 20 times
    slower. Arrays up to 32 MiB come from the heap (glibc's own ceiling for that threshold)
    and up to 256 MiB of freed memory stay with the process. glibc's fast bins are turned
    off: they keep freed chunks of up to 128 bytes unmerged until a larger request merges
    them all at once, and compiled code frees small objects by the million (a string per
    word of a split text: with its strings in chunks of at most 128 bytes, runtime/nrt.py's
    small allocations, a loop over 100,000 words ran 1.5 times slower; the tcache still
    serves each size's last few frees). Not glibc: left as it is."""
    if not sys.platform.startswith("linux"):
        return
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        m_mxfast, m_trim_threshold, m_mmap_threshold = 1, -1, -3
        mallopt(m_mmap_threshold, 32 << 20)
        mallopt(m_trim_threshold, 256 << 20)
        mallopt(m_mxfast, 0)


class _Nrt:
    def __init__(self, address):
        self.stats = (ctypes.c_int64 * 3).from_address(address(NRT_STATS))
        self.addresses = {name: address(name)
                          for name in (FREE, CAPSULE_DESTRUCTOR, ALLOCATE, DECREF,
                                       RELEASE_PYTHON)}
        self.decref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.addresses[DECREF])
        _keep_freed_memory()

    @property
    def symbols(self):
        return {**self.addresses, **numpy_api()}


NRT = Part(_Nrt)


@functools.cache
def _allocation_stats_type():
    """AllocationStats, made when first asked for (a NamedTuple class costs a cached hit,
    which imports this module, a fifth of a millisecond)."""
    class AllocationStats(NamedTuple):
        allocations: int
        frees: int
        bytes_live: int

        @property
        def live(self) -> int:
            return self.allocations - self.frees
    AllocationStats.__module__, AllocationStats.__qualname__ = __name__, "AllocationStats"
    return AllocationStats


def __getattr__(name):
    if name == "AllocationStats":
        return _allocation_stats_type()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def allocation_stats():
    """Counts of the runtime's allocations and frees so far in this process, and the bytes
    still held (an AllocationStats): equal before and after a piece of code means it
    leaked nothing."""
    allocations, frees, live = NRT.state.stats if NRT.state is not None else (0, 0, 0)
    return _allocation_stats_type()(allocations, frees, live)


# ---- the stack guard ---------------------------------------------------------------------------

STACK_SYMBOL = "kiln_stack_in_window"   # slow path: i1 (i64 address)
STACK_WINDOW = "kiln_stack_window"      # ptr to this or the last checking thread's {low, high}
STACK_KEY = "kiln_stack_key"


class _Stack:
    def __init__(self, address):
        ctypes.c_uint.from_address(address(STACK_KEY)).value = _pthread_key("stack guard")
        self.symbols = {STACK_SYMBOL: address(STACK_SYMBOL),
                        STACK_WINDOW: address(STACK_WINDOW)}


STACK = Part(_Stack)


# ---- the thread layer --------------------------------------------------------------------------

THREADS_SYMBOL = "kiln_parallel_for"     # void (ptr chunk, ptr env, i64 n)
THREADS_COUNT = "kiln_threads_count"     # i64: threads a region asks for
THREAD_ID = "kiln_thread_id"             # i64 (): this thread's number in its team
THREADS_LAYER = "kiln_threads_layer"     # i32: 0 OpenMP, 1 POSIX threads
THREADS_LAUNCHED = "kiln_threads_omp_started"  # i32: set once OpenMP has made a team
THREADS_KEY = "kiln_threads_key"         # i32: the pthread key holding a POSIX worker's number
OMP, POSIX = 0, 1
LAYER_NAMES = {OMP: "omp", POSIX: "posix"}
OPENMP_SYMBOLS = ("GOMP_parallel", "omp_get_thread_num", "omp_get_num_threads")


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


def initial_threads() -> int:
    """The count regions start with: all of MAX_THREADS, or fewer where OMP_NUM_THREADS
    asks (as Dask's worker processes do, so workers × threads stay within the machine)."""
    try:
        wanted = int(os.environ.get("OMP_NUM_THREADS", "").split(",")[0])
    except ValueError:
        return MAX_THREADS
    return max(1, min(wanted, MAX_THREADS))


def openmp_library():
    """The loaded OpenMP runtime (RTLD_GLOBAL), or None."""
    for name in _openmp_candidates():
        try:
            lib = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        if all(hasattr(lib, f) for f in OPENMP_SYMBOLS):
            return lib
    return None


def _openmp_candidates():
    yield from ("libgomp.so.1", "libgomp.dylib")
    import ctypes.util   # (slow to import, and find_library may run ldconfig: only now)
    import glob
    found = ctypes.util.find_library("gomp")
    if found:
        yield found
    for prefix in {sys.prefix, sys.base_prefix}:   # the intel-openmp wheel's runtime
        yield from sorted(glob.glob(os.path.join(prefix, "lib", "libiomp5.*")))


_chosen = None   # the layer, chosen once per process
_choice_lock = threading.Lock()


def chosen_layer() -> str:
    """The layer parallel regions of this process run on, "omp" or "posix" (chosen once;
    OpenMP's runtime is loaded with its symbols global when it is the one)."""
    global _chosen
    with _choice_lock:
        if _chosen is None:
            _chosen = _choose_layer()
        return LAYER_NAMES[_chosen]


def _choose_layer() -> int:
    wanted = (env_value("THREADING_LAYER") or "default").strip().lower()
    if wanted in ("posix", "workqueue"):
        return POSIX
    if wanted not in ("default", "omp", "safe", "threadsafe", "forksafe"):
        raise ValueError(f"unknown threading layer {wanted!r} in KILN_THREADING_LAYER "
                         "(or NUMBA_THREADING_LAYER): choose 'omp' or 'posix'")
    if openmp_library() is None:
        if not env_flag("DISABLE_PERFORMANCE_WARNINGS"):
            warnings.warn("kiln found no OpenMP runtime (libgomp, or `pip install "
                          "intel-openmp`): parallel code runs on a thread per chunk started "
                          "for each region, which is correct but slower to start",
                          PerformanceWarning, stacklevel=5)
        return POSIX
    return OMP


class _Threads:
    def __init__(self, address):
        self.addresses = {name: address(name)
                          for name in (THREADS_SYMBOL, THREAD_ID, THREADS_COUNT)}
        self.count = ctypes.c_int64.from_address(self.addresses[THREADS_COUNT])
        self.layer = ctypes.c_int32.from_address(address(THREADS_LAYER))
        self.launched = ctypes.c_int32.from_address(address(THREADS_LAUNCHED))
        ctypes.c_uint32.from_address(address(THREADS_KEY)).value = \
            _pthread_key("thread layer")
        self.layer.value = OMP if chosen_layer() == LAYER_NAMES[OMP] else POSIX
        self.count.value = initial_threads()

    @property
    def symbols(self):
        found = dict(self.addresses)
        if _chosen == OMP:   # (the layer's code calls OpenMP's entry points)
            openmp = openmp_library()
            found.update({name: ctypes.cast(getattr(openmp, name), ctypes.c_void_p).value
                          for name in OPENMP_SYMBOLS})
        return found


THREADS = Part(_Threads)


def _after_fork_in_child():
    """GNU OpenMP's threads do not exist in a forked child, and its next region would wait
    for them forever: a child of a process that used OpenMP runs on POSIX threads."""
    state = THREADS.state
    if state is not None and state.launched.value:
        state.layer.value = POSIX


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

"""NRT: reference-counted memory for arrays (and later containers) made in compiled code.

A *meminfo* is the header of one allocation, `{i64 refcount, i64 size, ptr data, ptr
destructor}`, with the data 64-byte aligned (the widest vector unit) in the same block.
The destructor (NULL for arrays) is what a container sets so that freeing it first releases
what it holds: a list's items and its item buffer (a dict can reuse the same hook). Counts change
with atomic instructions, so parallel code can share arrays. The runtime's own functions
(allocate, free, the NumPy base-object destructor) are compiled once per process from the
IR below; generated code increments and decrements counts inline (`incref`/`decref`) and
calls `kiln_nrt_free` when a count reaches zero. Statistics (allocations, frees, bytes
live) are atomic counters that `allocation_stats()` reads, so tests can prove nothing
leaked.
"""
from __future__ import annotations

import ctypes
import sys
import threading
from typing import NamedTuple

from llvmlite import ir

from . import irtypes as ll

# The meminfo's four words and one spare: a write just before the data (index -1 of an
# empty array, undefined but done by code such as Dask's probing of a kernel with empty
# blocks) lands in the spare word, never in the destructor.
HEADER_BYTES = 40
ALIGNMENT = 64
MEMINFO_REFCOUNT, MEMINFO_SIZE, MEMINFO_DATA, MEMINFO_DESTRUCTOR = range(4)
MEMINFO = ir.LiteralStructType([ll.i64, ll.i64, ll.ptr, ll.ptr])
MAX_ALLOCATION = 1 << 62  # beyond this no malloc can succeed; refuse before size arithmetic
STATS = ir.ArrayType(ll.i64, 3)  # allocations, frees, bytes live
PAGE, HUGE_PAGES_FROM, MADV_HUGEPAGE = 4096, 4 << 20, 14  # Linux's madvise advice

FREE, CAPSULE_DESTRUCTOR, ALLOCATE, DECREF, RELEASE_PYTHON = "kiln_nrt_free", \
    "kiln_nrt_capsule_destructor", "kiln_nrt_allocate", "kiln_nrt_decref", \
    "kiln_nrt_release_python_object"
DESTRUCTOR = ir.FunctionType(ir.VoidType(), [ll.ptr])  # void destructor(ptr meminfo)
# NumPy's C API, reached through its function table (the indices are NumPy's stable ABI).
ARRAY_NEW, ARRAY_SET_BASE = "kiln_PyArray_New", "kiln_PyArray_SetBaseObject"
_NUMPY_API_INDEX = {ARRAY_NEW: 93, ARRAY_SET_BASE: 282}


def _field(builder, meminfo, index):
    return builder.gep(meminfo, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, index)],
                       source_etype=MEMINFO)


def _count(builder, stats, index, delta):
    slot = builder.gep(stats, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, index)],
                       source_etype=STATS)
    builder.atomic_rmw("add", slot, delta, "monotonic")


def _runtime_ir() -> str:
    module = ir.Module(name="kiln.nrt")
    stats = ir.GlobalVariable(module, STATS, name="kiln_nrt_stats")
    stats.initializer = ir.Constant(STATS, None)
    malloc = ir.Function(module, ir.FunctionType(ll.ptr, [ll.i64]), name="malloc")
    free = ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name="free")
    one = ir.Constant(ll.i64, 1)

    allocate = ir.Function(module, ir.FunctionType(ll.ptr, [ll.i64]), name=ALLOCATE)
    b = ir.IRBuilder(allocate.append_basic_block("entry"))
    size = allocate.args[0]
    too_big = b.icmp_unsigned(">", size, ir.Constant(ll.i64, MAX_ALLOCATION))
    with b.if_then(too_big, likely=False):
        b.ret(ir.Constant(ll.ptr, None))
    block = b.call(malloc, [b.add(size, ir.Constant(ll.i64, HEADER_BYTES + ALIGNMENT - 1))])
    with b.if_then(b.icmp_unsigned("==", block, ir.Constant(ll.ptr, None)), likely=False):
        b.ret(ir.Constant(ll.ptr, None))
    if sys.platform.startswith("linux"):
        # As NumPy does: ask for transparent huge pages, so touching a large new array
        # takes hundreds of times fewer page faults.
        madvise = ir.Function(module, ir.FunctionType(ll.i32, [ll.ptr, ll.i64, ll.i32]),
                              name="madvise")
        with b.if_then(b.icmp_unsigned(">=", size, ir.Constant(ll.i64, HUGE_PAGES_FROM))):
            first = b.and_(b.add(b.ptrtoint(block, ll.i64), ir.Constant(ll.i64, PAGE - 1)),
                           ir.Constant(ll.i64, -PAGE))
            b.call(madvise, [b.inttoptr(first, ll.ptr), b.and_(size, ir.Constant(ll.i64, -PAGE)),
                             ir.Constant(ll.i32, MADV_HUGEPAGE)])
    start = b.add(b.ptrtoint(block, ll.i64), ir.Constant(ll.i64, HEADER_BYTES + ALIGNMENT - 1))
    data = b.inttoptr(b.and_(start, ir.Constant(ll.i64, -ALIGNMENT)), ll.ptr)
    b.store(one, _field(b, block, MEMINFO_REFCOUNT))
    b.store(size, _field(b, block, MEMINFO_SIZE))
    b.store(data, _field(b, block, MEMINFO_DATA))
    b.store(ir.Constant(ll.ptr, None), _field(b, block, MEMINFO_DESTRUCTOR))
    _count(b, stats, 0, one)
    _count(b, stats, 2, size)
    b.ret(block)

    release = ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name=FREE)
    b = ir.IRBuilder(release.append_basic_block("entry"))
    meminfo = release.args[0]
    destroy = b.load(_field(b, meminfo, MEMINFO_DESTRUCTOR), typ=DESTRUCTOR.as_pointer())
    with b.if_then(b.icmp_unsigned("!=", destroy, ir.Constant(DESTRUCTOR.as_pointer(), None))):
        b.call(destroy, [meminfo])
    _count(b, stats, 1, one)
    _count(b, stats, 2, b.neg(b.load(_field(b, meminfo, MEMINFO_SIZE), typ=ll.i64)))
    b.call(free, [meminfo])
    b.ret_void()

    # Python's side of a container (kiln.typed.List) releases its reference through this.
    decref = ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name=DECREF)
    b = ir.IRBuilder(decref.append_basic_block("entry"))
    emit_decref(b, decref.args[0])
    b.ret_void()

    # The destructor of a meminfo that holds a Python object (emit_python_owner).
    release_python = ir.Function(module, DESTRUCTOR, name=RELEASE_PYTHON)
    b = ir.IRBuilder(release_python.append_basic_block("entry"))
    obj = b.load(meminfo_data(b, release_python.args[0]), typ=ll.ptr)
    _with_gil(b, lambda: b.call(ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]),
                                            name="Py_DecRef"), [obj]))
    b.ret_void()

    destructor = ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]),
                             name=CAPSULE_DESTRUCTOR)
    b = ir.IRBuilder(destructor.append_basic_block("entry"))
    get_pointer = ir.Function(module, ir.FunctionType(ll.ptr, [ll.ptr, ll.ptr]),
                              name="PyCapsule_GetPointer")
    emit_decref(b, b.call(get_pointer, [destructor.args[0], ir.Constant(ll.ptr, None)]))
    b.ret_void()
    return str(module)


# ---- inline reference counting in generated code ------------------------------------------

def _helper(module, name, body):
    """An internal function `void name(ptr meminfo)` of `module`, made on first use; LLVM
    inlines it. A NULL meminfo (memory that NumPy owns) is left alone."""
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name=name)
        fn.linkage = "internal"
        fn.attributes.add("alwaysinline")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        with b.if_then(b.icmp_unsigned("!=", fn.args[0], ir.Constant(ll.ptr, None))):
            body(module, b, fn.args[0])
        b.ret_void()
    return fn


def _incref_body(module, b, meminfo):
    b.atomic_rmw("add", _field(b, meminfo, MEMINFO_REFCOUNT), ir.Constant(ll.i64, 1),
                 "monotonic")


def _decref_body(module, b, meminfo):
    old = b.atomic_rmw("sub", _field(b, meminfo, MEMINFO_REFCOUNT), ir.Constant(ll.i64, 1),
                       "acq_rel")
    with b.if_then(b.icmp_signed("==", old, ir.Constant(ll.i64, 1)), likely=False):
        free = module.globals.get(FREE) or \
            ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name=FREE)
        b.call(free, [meminfo])


def emit_incref(builder, meminfo):
    builder.call(_helper(builder.module, "kiln.nrt.incref", _incref_body), [meminfo])


def emit_decref(builder, meminfo):
    builder.call(_helper(builder.module, "kiln.nrt.decref", _decref_body), [meminfo])


def emit_allocate(builder, nbytes):
    """A new meminfo holding `nbytes` (count 1), or NULL when memory is exhausted. Device
    code has no NRT: there it is refused where it is generated, so the error names the line
    that needed it (a library function may allocate a temporary)."""
    module = builder.module
    if getattr(module, "kiln_device", False):
        from ..errors import UnsupportedError
        raise UnsupportedError("device code cannot allocate memory (this makes a new array, "
                               "string or object, or a temporary copy of one): use "
                               "cuda.local.array or cuda.shared.array, or pass an output array")
    fn = module.globals.get(ALLOCATE) or \
        ir.Function(module, ir.FunctionType(ll.ptr, [ll.i64]), name=ALLOCATE)
    return builder.call(fn, [nbytes])


def _with_gil(builder, body):
    """Run `body` holding the GIL, from any thread (PyGILState_Ensure nests)."""
    module = builder.module
    ensure = module.globals.get("PyGILState_Ensure") or \
        ir.Function(module, ir.FunctionType(ll.i32, []), name="PyGILState_Ensure")
    release = module.globals.get("PyGILState_Release") or \
        ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.i32]), name="PyGILState_Release")
    state = builder.call(ensure, [])
    body()
    builder.call(release, [state])


def emit_python_owner(builder, obj):
    """A meminfo holding a reference to the Python object `obj` (released, with the GIL, when
    the meminfo is freed): how a container keeps alive an array that NumPy owns. Its count is
    0, for the caller's first incref; NULL when memory is exhausted."""
    module = builder.module
    meminfo = emit_allocate(builder, ir.Constant(ll.i64, 8))
    with builder.if_then(builder.icmp_unsigned("!=", meminfo, ir.Constant(ll.ptr, None))):
        builder.store(obj, meminfo_data(builder, meminfo))
        incref = module.globals.get("Py_IncRef") or \
            ir.Function(module, ir.FunctionType(ir.VoidType(), [ll.ptr]), name="Py_IncRef")
        _with_gil(builder, lambda: builder.call(incref, [obj]))
        destroy = module.globals.get(RELEASE_PYTHON) or \
            ir.Function(module, DESTRUCTOR, name=RELEASE_PYTHON)
        set_destructor(builder, meminfo, destroy)
        builder.store(ir.Constant(ll.i64, 0), _field(builder, meminfo, MEMINFO_REFCOUNT))
    return meminfo


def set_destructor(builder, meminfo, destructor):
    """Make freeing `meminfo` call `destructor` (a `DESTRUCTOR` function) first."""
    builder.store(destructor, _field(builder, meminfo, MEMINFO_DESTRUCTOR))


def release_from_python(address: int):
    """Drop one reference to the meminfo at `address` (a Python object that owned it died)."""
    ensure_runtime().decref(address)


def meminfo_data(builder, meminfo):
    return builder.load(_field(builder, meminfo, MEMINFO_DATA), typ=ll.ptr)


# ---- loading the runtime -------------------------------------------------------------------

class _Runtime:
    def __init__(self, compiled):
        self.stats = (ctypes.c_int64 * 3).from_address(
            compiled.engine.engine.get_global_value_address("kiln_nrt_stats"))
        self.addresses = {name: compiled.address(name)
                          for name in (FREE, CAPSULE_DESTRUCTOR, ALLOCATE, DECREF,
                                       RELEASE_PYTHON)}
        self.decref = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.addresses[DECREF])


_runtime = None
_lock = threading.Lock()


def _keep_freed_memory():
    """Tune glibc's malloc for compiled code that frees a temporary and then allocates the
    next one. By default glibc hands the top of its heap back to the OS on such a free (its
    trim threshold follows the mmap threshold it raises as arrays are freed), so the next
    array page-faults all its memory again: a 700 KB temporary made a kernel 20 times
    slower. Arrays up to 32 MiB come from the heap (glibc's own ceiling for that threshold)
    and up to 256 MiB of freed memory stay with the process. Not glibc: left as it is."""
    if not sys.platform.startswith("linux"):
        return
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        m_trim_threshold, m_mmap_threshold = -1, -3
        mallopt(m_mmap_threshold, 32 << 20)
        mallopt(m_trim_threshold, 256 << 20)


def ensure_runtime() -> _Runtime:
    """Compile (or load from the internal cache) and bind the runtime, once per process."""
    global _runtime
    with _lock:
        if _runtime is None:
            import llvmlite.binding as llvm
            from ..cpu.engine import get_engine
            compiled = get_engine().compile_internal("nrt", _runtime_ir)
            _runtime = _Runtime(compiled)
            for name, address in _runtime.addresses.items():
                llvm.add_symbol(name, address)
            for name, address in _numpy_api().items():
                llvm.add_symbol(name, address)
            _keep_freed_memory()
        return _runtime


def _numpy_api() -> dict:
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
    found = {name: table[index] for name, index in _NUMPY_API_INDEX.items()}
    found["PyArray_Type"] = id(np.ndarray)
    return found


class AllocationStats(NamedTuple):
    allocations: int
    frees: int
    bytes_live: int

    @property
    def live(self) -> int:
        return self.allocations - self.frees


def allocation_stats() -> AllocationStats:
    """Counts of the runtime's allocations and frees so far in this process, and the bytes
    still held: equal before and after a piece of code means it leaked nothing."""
    if _runtime is None:
        return AllocationStats(0, 0, 0)
    allocations, frees, live = _runtime.stats
    return AllocationStats(allocations, frees, live)

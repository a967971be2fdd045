"""NRT: reference-counted memory for arrays (and later containers) made in compiled code.

A *meminfo* is the header of one allocation, `{i64 refcount, i64 size, ptr data, ptr
destructor}`, with the data in the same block: 64-byte aligned (the widest vector unit)
from 64 bytes up, else 16-byte aligned right after the header (`SMALL_DATA_AT`), so that a
small object (a jitclass instance, a short string) takes one malloc chunk of 80 bytes, not
144, and its header and fields share cache lines (a loop over a million of them waited on
twice the memory).
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

import sys

from llvmlite import ir

from . import irtypes as ll
from .loaded import (ALLOCATE, ARRAY_NEW, ARRAY_SET_BASE, CAPSULE_DESTRUCTOR, DECREF,  # noqa: F401
                     FREE, NRT, NRT_STATS, NUMPY_API_INDEX, RELEASE_PYTHON, AllocationStats,
                     allocation_stats, numpy_api)

# The meminfo's four words and one spare: a write just before the data (index -1 of an
# empty array, undefined but done by code such as Dask's probing of a kernel with empty
# blocks) lands in the spare word, never in the destructor.
HEADER_BYTES = 40
ALIGNMENT = 64
SMALL_DATA_AT = 48   # the data of an allocation below ALIGNMENT bytes: malloc's 16-byte grid
MEMINFO_REFCOUNT, MEMINFO_SIZE, MEMINFO_DATA, MEMINFO_DESTRUCTOR = range(4)
MEMINFO = ir.LiteralStructType([ll.i64, ll.i64, ll.ptr, ll.ptr])
MAX_ALLOCATION = 1 << 62  # beyond this no malloc can succeed; refuse before size arithmetic
STATS = ir.ArrayType(ll.i64, 3)  # allocations, frees, bytes live
PAGE, HUGE_PAGES_FROM, MADV_HUGEPAGE = 4096, 4 << 20, 14  # Linux's madvise advice

DESTRUCTOR = ir.FunctionType(ir.VoidType(), [ll.ptr])  # void destructor(ptr meminfo)


def _field(builder, meminfo, index):
    return builder.gep(meminfo, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, index)],
                       source_etype=MEMINFO)


def _count(builder, stats, index, delta):
    slot = builder.gep(stats, [ir.Constant(ll.i32, 0), ir.Constant(ll.i32, index)],
                       source_etype=STATS)
    builder.atomic_rmw("add", slot, delta, "monotonic")


def _runtime_ir() -> str:
    module = ir.Module(name="kiln.nrt")
    stats = ir.GlobalVariable(module, STATS, name=NRT_STATS)
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
    small = b.icmp_unsigned("<", size, ir.Constant(ll.i64, ALIGNMENT))
    padding = b.select(small, ir.Constant(ll.i64, SMALL_DATA_AT),
                       ir.Constant(ll.i64, HEADER_BYTES + ALIGNMENT - 1))
    block = b.call(malloc, [b.add(size, padding)])
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
    start = b.add(b.ptrtoint(block, ll.i64), padding)
    data = b.inttoptr(b.select(small, start, b.and_(start, ir.Constant(ll.i64, -ALIGNMENT))),
                      ll.ptr)
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


# ---- loading the runtime (runtime/loaded.py holds it, apart from llvmlite) -----------------

def ensure_runtime(library=None):
    """The runtime, loaded once per process (runtime/loaded.py): from `library` when it
    is the first to ask, else compiled into the JIT; without `library` the caller is the
    JIT, whose symbol table gets the runtime's addresses."""
    return NRT.load(library, _compile)


def _compile():
    from .engine import get_engine
    return get_engine().compile_internal("nrt", _runtime_ir).engine.engine \
        .get_global_value_address

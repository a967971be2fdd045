"""The in-kernel API: thread geometry, barriers, fences, shared/local/const arrays, atomics
and warp functions.

Each name is a stub with Numba's spelling. The compiled back-end maps the stubs (tagged
`_kiln_intrinsic`) to device instructions; a kernel run as Python (the simulator) reaches
the running thread's context through `kernelcontext` (see its docstring for the protocol).
"""
from __future__ import annotations

import sys

from .kernelcontext import _tls, current

warpsize = 32


def _tag(stub, name, doc):
    stub.__name__ = name.rsplit(".", 1)[-1]
    stub.__qualname__ = name
    stub.__module__ = "kiln.cuda"
    stub.__doc__ = doc
    stub._kiln_intrinsic = name
    return stub


def _context(what):
    try:
        return _tls.context
    except AttributeError:
        return current(what)


class _Dim3Register:
    """`cuda.threadIdx` and its kin: `.x`, `.y`, `.z` of the running thread."""

    __slots__ = ("_name", "_what")

    def __init__(self, name):
        self._name = name
        self._what = f"cuda.{name}"

    @property
    def x(self):
        return getattr(_context(self._what), self._name).x

    @property
    def y(self):
        return getattr(_context(self._what), self._name).y

    @property
    def z(self):
        return getattr(_context(self._what), self._name).z

    def __repr__(self):
        return f"cuda.{self._name}"

    def __str__(self):   # print(cuda.threadIdx) in a simulated kernel: its (x, y, z)
        if not hasattr(_tls, "context"):
            return repr(self)
        return str(tuple(getattr(_tls.context, self._name)))

    def _kiln_typeof_(self):  # compiled code reads .x/.y/.z (cuda/nvvm.py)
        from .nvvm import Dim3
        return Dim3(self._name)


threadIdx = _Dim3Register("threadIdx")
blockIdx = _Dim3Register("blockIdx")
blockDim = _Dim3Register("blockDim")
gridDim = _Dim3Register("gridDim")


def _forward(name, method, doc):
    what = f"cuda.{name}()"

    def stub(*args):
        return getattr(_context(what), method)(*args)
    return _tag(stub, name, doc)


def _forward_op(name, method, op, doc):
    what = f"cuda.{name}()"

    def stub(*args):
        return getattr(_context(what), method)(op, *args)
    return _tag(stub, name, doc)


grid = _forward("grid", "grid", "grid(ndim): the thread's absolute position in the grid "
                "(an int for ndim=1, else a tuple).")
gridsize = _forward("gridsize", "gridsize", "gridsize(ndim): the number of threads in the "
                    "grid along each of the first ndim axes.")
grid._kiln_literal_args = gridsize._kiln_literal_args = ("args",)  # the number of axes
syncthreads = _forward("syncthreads", "syncthreads", "Wait until every thread of the block "
                       "gets here; shared memory written before is then visible to all.")
syncthreads_count = _forward("syncthreads_count", "syncthreads_count",
                             "syncthreads(), returning how many threads passed a true predicate.")
syncthreads_and = _forward("syncthreads_and", "syncthreads_and",
                           "syncthreads(), returning 1 if every thread's predicate is true.")
syncthreads_or = _forward("syncthreads_or", "syncthreads_or",
                          "syncthreads(), returning 1 if any thread's predicate is true.")
threadfence = _forward("threadfence", "threadfence", "Order memory writes device-wide.")
threadfence_block = _forward("threadfence_block", "threadfence_block",
                             "Order memory writes within the block.")
threadfence_system = _forward("threadfence_system", "threadfence_system",
                              "Order memory writes for the device and the host.")
activemask = _forward("activemask", "activemask", "The mask of the warp's active lanes.")
lanemask_lt = _forward("lanemask_lt", "lanemask_lt", "The mask of lanes below this one.")

def _selp(predicate, if_true, if_false):
    return if_true if predicate else if_false


def _nanosleep(ns):
    pass   # (the simulator runs threads as Python: nothing to wait for)


selp = _tag(_selp, "selp", "selp(predicate, a, b): a where the predicate holds, else b, both "
            "of one type (PTX's selp, without a branch).")
nanosleep = _tag(_nanosleep, "nanosleep", "nanosleep(ns): suspend the thread for about ns "
                 "nanoseconds, up to 1 ms (sm_70 and later; the simulator does not wait).")


def _warp(name, op, doc):
    return _forward_op(name, "warp", op, doc)


all_sync = _warp("all_sync", "all", "all_sync(mask, predicate): true if it holds on every lane.")
any_sync = _warp("any_sync", "any", "any_sync(mask, predicate): true if it holds on any lane.")
eq_sync = _warp("eq_sync", "eq", "eq_sync(mask, predicate): true if all lanes agree on it.")
ballot_sync = _warp("ballot_sync", "ballot",
                    "ballot_sync(mask, predicate): a bit per lane whose predicate holds.")
shfl_sync = _warp("shfl_sync", "shfl", "shfl_sync(mask, value, src_lane): value from src_lane.")
shfl_up_sync = _warp("shfl_up_sync", "shfl_up",
                     "shfl_up_sync(mask, value, delta): value from lane - delta.")
shfl_down_sync = _warp("shfl_down_sync", "shfl_down",
                       "shfl_down_sync(mask, value, delta): value from lane + delta.")
shfl_xor_sync = _warp("shfl_xor_sync", "shfl_xor",
                      "shfl_xor_sync(mask, value, lane_mask): value from lane ^ lane_mask.")
match_any_sync = _warp("match_any_sync", "match_any",
                       "match_any_sync(mask, value): the lanes holding the same value.")
match_all_sync = _warp("match_all_sync", "match_all",
                       "match_all_sync(mask, value): (mask, True) if all lanes agree, "
                       "else (0, False).")


def _syncwarp(mask=0xFFFFFFFF):
    return _context("cuda.syncwarp()").warp("sync", mask)


syncwarp = _tag(_syncwarp, "syncwarp",
                "syncwarp(mask=0xffffffff): a barrier for the lanes in mask.")


class _Namespace:
    """`cuda.shared`, `cuda.local`, `cuda.const`, `cuda.atomic`."""

    def __init__(self, name, **members):
        self._name = name
        self.__name__ = f"kiln.cuda.{name}"
        self.__dict__.update(members)

    def __repr__(self):
        return f"<cuda.{self._name}>"

    def _kiln_typeof_(self):  # compiled code reads its members as frozen globals
        from .. import types
        return types.Module(self)


def _shared_array(shape, dtype, alignment=None):
    caller = sys._getframe(1)
    return _context("cuda.shared.array()").shared_array(shape, dtype,
                                                        (caller.f_code, caller.f_lasti))


def _local_array(shape, dtype, alignment=None):
    return _context("cuda.local.array()").local_array(shape, dtype)


def _const_array_like(ary):
    return _context("cuda.const.array_like()").const_array_like(ary)


_shared_array._kiln_literal_args = _local_array._kiln_literal_args = ("shape", "dtype",
                                                                     "alignment")
shared = _Namespace("shared", array=_tag(
    _shared_array, "shared.array", "shared.array(shape, dtype): an array shared by the "
    "threads of a block; shape 0 gives the dynamic shared memory set at launch."))
local = _Namespace("local", array=_tag(
    _local_array, "local.array", "local.array(shape, dtype): an array private to the thread."))
const = _Namespace("const", array_like=_tag(
    _const_array_like, "const.array_like", "const.array_like(ary): a read-only copy of a "
    "host array in constant memory."))

class _GridGroup:
    """`cuda.cg.this_grid()`: every thread of the launch. `sync()` is a barrier for all of
    them, which needs all blocks resident at once: a kernel that calls it is launched
    cooperatively (at most `kernel.max_cooperative_grid_blocks(blockdim)` blocks)."""

    __slots__ = ()

    def sync(self):
        _context("cuda.cg.this_grid().sync()").grid_sync()

    def __repr__(self):
        return "<cuda.cg grid group>"

    def _kiln_typeof_(self):
        from .gridsync import GridGroup
        return GridGroup()


_GRID_GROUP = _GridGroup()


def _this_grid():
    _context("cuda.cg.this_grid()")
    return _GRID_GROUP


cg = _Namespace("cg", this_grid=_tag(
    _this_grid, "cg.this_grid", "cg.this_grid(): the grid group, whose sync() is a barrier "
    "for every thread of the launch (cooperative groups)."))

_ATOMICS = {
    "add": "add(ary, idx, val): ary[idx] += val; returns the old value.",
    "sub": "sub(ary, idx, val): ary[idx] -= val; returns the old value.",
    "and_": "and_(ary, idx, val): ary[idx] &= val; returns the old value.",
    "or_": "or_(ary, idx, val): ary[idx] |= val; returns the old value.",
    "xor": "xor(ary, idx, val): ary[idx] ^= val; returns the old value.",
    "max": "max(ary, idx, val): ary[idx] = max(ary[idx], val); a NaN on either side leaves "
           "ary[idx] as it is (Numba's rule).",
    "min": "min(ary, idx, val): ary[idx] = min(ary[idx], val); a NaN on either side leaves "
           "ary[idx] as it is (Numba's rule).",
    "nanmax": "nanmax(ary, idx, val): max that treats NaN as missing.",
    "nanmin": "nanmin(ary, idx, val): min that treats NaN as missing.",
    "exch": "exch(ary, idx, val): ary[idx] = val; returns the old value.",
    "inc": "inc(ary, idx, val): ary[idx] = 0 if ary[idx] >= val else ary[idx] + 1.",
    "dec": "dec(ary, idx, val): ary[idx] = val if ary[idx] in (0, > val) else ary[idx] - 1.",
    "cas": "cas(ary, idx, old, val): ary[idx] = val if ary[idx] == old; returns the old value.",
}
atomic = _Namespace("atomic", **{
    name: _forward_op(f"atomic.{name}", "atomic", name.rstrip("_"), doc)
    for name, doc in _ATOMICS.items()})


def _compare_and_swap(ary, old, val):
    return _context("cuda.atomic.compare_and_swap()").atomic("cas", ary, 0, old, val)


atomic.compare_and_swap = _tag(_compare_and_swap, "atomic.compare_and_swap",
                               "compare_and_swap(ary, old, val): cas on ary[0].")

"""The in-kernel API compiled for the GPU: typing templates (target "cuda") for the stubs of
intrinsics.py, whose codegen emits NVVM intrinsics, address-space-3 globals, atomic
instructions and warp votes and shuffles. The LLVM NVPTX back-end turns them into PTX (`%tid.x`, `bar.sync`,
`atom.global.add.f32`, `.shared`); cuda/ptx.py drives it.

Thread geometry is int32 (`threadIdx.x`), positions and sizes from `grid`/`gridsize` are
int64, as in Numba. Shared and local arrays are C-contiguous arrays with no meminfo: device
code never owns memory."""
from __future__ import annotations

import inspect
import math

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import Template, registry, template
from . import bitmath as cu_bits
from . import intrinsics as cu
from .dtypes import as_numpy_dtype

SHARED, LOCAL = 3, 5   # NVPTX address spaces (global is 1; generic 0)


class Dim3(t.Opaque):
    """`cuda.threadIdx` & co.: compile-time objects whose `.x/.y/.z` are special registers."""

    def __init__(self, register):
        self.register = register
        self.name = f"Dim3({register})"

    @property
    def key(self):
        return (self.register,)


_SREG = {"threadIdx": "tid", "blockIdx": "ctaid", "blockDim": "ntid", "gridDim": "nctaid"}


def _sreg(builder, name, axis):
    fn = builder.module.globals.get(f"llvm.nvvm.read.ptx.sreg.{name}.{axis}") or ir.Function(
        builder.module, ir.FunctionType(dm.i32, []), f"llvm.nvvm.read.ptx.sreg.{name}.{axis}")
    return builder.call(fn, [])


def _call_intrinsic(builder, name, restype, args):
    fn = builder.module.globals.get(name) or ir.Function(
        builder.module, ir.FunctionType(restype, [a.type for a in args]), name)
    return builder.call(fn, args)


def _register_axis(axis):
    @template(("attr", axis), target="cuda")
    def _typer(tctx, obj):
        if not isinstance(obj, Dim3):
            return None

        def codegen(context, builder, sig, args):
            return _sreg(builder, _SREG[obj.register], axis)
        return t.Signature(t.int32, (obj,)), codegen


for _axis in "xyz":
    _register_axis(_axis)


def _literal(arg, what, check):
    """The value of a `Literal` argument, checked by `check` (else a TypingError)."""
    if not isinstance(arg, t.Literal) or not check(arg.value):
        raise TypingError(f"{what}, not {getattr(arg, 'value', arg)!r}")
    return arg.value


def _ndim(arg, fname):
    return _literal(arg, f"cuda.{fname}() takes the number of axes as a constant 1, 2 or 3",
                    lambda v: type(v) is int and v in (1, 2, 3))


def _per_axis(fname, per_axis):
    """`grid(n)`/`gridsize(n)`: an int64 for n == 1, else a UniTuple of n."""
    @template(getattr(cu, fname), target="cuda")
    def _typer(tctx, ndim):
        n = _ndim(ndim, fname)
        restype = t.int64 if n == 1 else t.UniTuple(t.int64, n)

        def codegen(context, builder, sig, args):
            items = [per_axis(builder, axis) for axis in "xyz"[:n]]
            return items[0] if n == 1 else context.make_tuple(builder, restype, items)
        return t.Signature(restype, (ndim.type,)), codegen


def _wide(builder, name, axis):
    return builder.zext(_sreg(builder, name, axis), dm.i64)


_per_axis("grid", lambda b, axis: b.add(b.mul(_wide(b, "ctaid", axis), _wide(b, "ntid", axis)),
                                        _wide(b, "tid", axis)))
_per_axis("gridsize", lambda b, axis: b.mul(_wide(b, "nctaid", axis), _wide(b, "ntid", axis)))


# -- barriers and fences -------------------------------------------------------------------
def _void_intrinsic(stub, name):
    @template(stub, target="cuda")
    def _typer(tctx):
        def codegen(context, builder, sig, args):
            _call_intrinsic(builder, name, ir.VoidType(), [])
            return dm.null_value(t.none)
        return t.Signature(t.none, ()), codegen


_void_intrinsic(cu.syncthreads, "llvm.nvvm.barrier0")
_void_intrinsic(cu.threadfence, "llvm.nvvm.membar.gl")
_void_intrinsic(cu.threadfence_block, "llvm.nvvm.membar.cta")
_void_intrinsic(cu.threadfence_system, "llvm.nvvm.membar.sys")


@template(cu.nanosleep, target="cuda")
def _nanosleep(tctx, ns):
    if not isinstance(ns, (t.Integer, t.Boolean)):
        return None

    def codegen(context, builder, sig, args):
        _call_intrinsic(builder, "llvm.nvvm.nanosleep", ir.VoidType(),
                        [context.cast(builder, args[0], ns, t.uint32)])
        return dm.null_value(t.none)
    return t.Signature(t.none, (ns,)), codegen


@template(cu.selp, target="cuda")
def _selp(tctx, predicate, a, b):
    if not isinstance(a, (t.Number, t.Boolean)) or not isinstance(
            predicate, (t.Integer, t.Boolean, t.Float)):
        return None
    if a != b:
        raise TypingError(f"cuda.selp() takes two values of one type, not {a} and {b}; "
                          "convert one of them")

    def codegen(context, builder, sig, args):
        return builder.select(context.is_true(builder, args[0], predicate), args[1], args[2])
    return t.Signature(a, (predicate, a, b)), codegen


def _barrier_predicate(stub, name):
    """syncthreads_count/and/or(predicate): a barrier that also reduces an int32 over the
    block."""
    @template(stub, target="cuda")
    def _typer(tctx, predicate):
        if not isinstance(predicate, (t.Integer, t.Boolean, t.Float)):
            return None

        def codegen(context, builder, sig, args):
            flag = builder.zext(context.is_true(builder, args[0], predicate), dm.i32)
            return _call_intrinsic(builder, name, dm.i32, [flag])
        return t.Signature(t.int32, (predicate,)), codegen


_barrier_predicate(cu.syncthreads_count, "llvm.nvvm.barrier0.popc")
_barrier_predicate(cu.syncthreads_and, "llvm.nvvm.barrier0.and")
_barrier_predicate(cu.syncthreads_or, "llvm.nvvm.barrier0.or")


# -- warps -----------------------------------------------------------------------------------
def _mask(context, builder, mask, maskty):
    return context.cast(builder, mask, maskty, t.uint32)


def _vote(stub, mode, restype):
    """all/any/eq/ballot_sync(mask, predicate): `vote.sync` over the lanes in mask."""
    @template(stub, target="cuda")
    def _typer(tctx, mask, predicate):
        if not isinstance(mask, t.Integer) or \
                not isinstance(predicate, (t.Integer, t.Boolean, t.Float)):
            return None

        def codegen(context, builder, sig, args):
            flag = context.is_true(builder, args[1], predicate)
            out = _call_intrinsic(builder, f"llvm.nvvm.vote.{mode}.sync",
                                  dm.i32 if mode == "ballot" else dm.i1,
                                  [_mask(context, builder, args[0], mask), flag])
            return out if mode == "ballot" else builder.zext(out, dm.i32)
        return t.Signature(restype, (mask, predicate)), codegen


_vote(cu.all_sync, "all", t.int32)
_vote(cu.any_sync, "any", t.int32)
_vote(cu.eq_sync, "uni", t.int32)
_vote(cu.ballot_sync, "ballot", t.uint32)

# shfl.sync's mode and its `c` operand for a whole warp (clamp at the last lane, or at lane 0
# for `up`): a lane whose source is outside the warp gets its own value back.
_SHUFFLES = {cu.shfl_sync: ("idx", 0x1F), cu.shfl_up_sync: ("up", 0),
             cu.shfl_down_sync: ("down", 0x1F), cu.shfl_xor_sync: ("bfly", 0x1F)}


def _shuffle(stub, mode, clamp):
    @template(stub, target="cuda")
    def _typer(tctx, mask, value, lane):
        if not isinstance(mask, t.Integer) or not isinstance(lane, t.Integer) or \
                not isinstance(value, (t.Integer, t.Float)) or value.bitwidth not in (32, 64):
            return None

        def codegen(context, builder, sig, args):
            member = _mask(context, builder, args[0], mask)
            source = context.cast(builder, args[2], lane, t.int32)
            bits = builder.bitcast(args[1], ir.IntType(value.bitwidth))
            words = [bits] if value.bitwidth == 32 else \
                [builder.trunc(bits, dm.i32), builder.trunc(builder.lshr(bits, ir.Constant(
                    dm.i64, 32)), dm.i32)]
            moved = [_call_intrinsic(builder, f"llvm.nvvm.shfl.sync.{mode}.i32", dm.i32,
                                     [member, w, source, ir.Constant(dm.i32, clamp)])
                     for w in words]
            if value.bitwidth == 64:
                high = builder.shl(builder.zext(moved[1], dm.i64), ir.Constant(dm.i64, 32))
                moved = [builder.or_(builder.zext(moved[0], dm.i64), high)]
            return builder.bitcast(moved[0], dm.value_type(value))
        return t.Signature(value, (mask, value, lane)), codegen


for _stub, (_mode, _clamp) in _SHUFFLES.items():
    _shuffle(_stub, _mode, _clamp)


def _match(stub, mode, restype):
    """match_any/all_sync(mask, value): the lanes holding the same bits (sm_70 on)."""
    @template(stub, target="cuda")
    def _typer(tctx, mask, value):
        if not isinstance(mask, t.Integer) or not isinstance(value, (t.Integer, t.Float)) or \
                value.bitwidth not in (32, 64):
            return None

        def codegen(context, builder, sig, args):
            width = value.bitwidth
            operands = [_mask(context, builder, args[0], mask),
                        builder.bitcast(args[1], ir.IntType(width))]
            if mode == "any":
                return _call_intrinsic(builder, f"llvm.nvvm.match.any.sync.i{width}", dm.i32,
                                       operands)
            pair = _call_intrinsic(builder, f"llvm.nvvm.match.all.sync.i{width}p",
                                   ir.LiteralStructType([dm.i32, dm.i1]), operands)
            return context.make_tuple(builder, restype, [builder.extract_value(pair, 0),
                                                         builder.extract_value(pair, 1)])
        return t.Signature(restype, (mask, value)), codegen


_match(cu.match_any_sync, "any", t.uint32)
_match(cu.match_all_sync, "all", t.Tuple((t.uint32, t.boolean)))


@template(cu.syncwarp, target="cuda")
def _syncwarp(tctx, mask=None):
    if mask is not None and not isinstance(mask, t.Integer):
        return None

    def codegen(context, builder, sig, args):
        member = _mask(context, builder, args[0], mask) if args else \
            ir.Constant(dm.i32, 0xFFFFFFFF)
        _call_intrinsic(builder, "llvm.nvvm.bar.warp.sync", ir.VoidType(), [member])
        return dm.null_value(t.none)
    return t.Signature(t.none, () if mask is None else (mask,)), codegen


@template(cu.activemask, target="cuda")
def _activemask(tctx):
    def codegen(context, builder, sig, args):
        return builder.asm(ir.FunctionType(dm.i32, []), "activemask.b32 $0;", "=r", [],
                           side_effect=True)
    return t.Signature(t.uint32, ()), codegen


@template(cu.lanemask_lt, target="cuda")
def _lanemask_lt(tctx):
    def codegen(context, builder, sig, args):
        return _call_intrinsic(builder, "llvm.nvvm.read.ptx.sreg.lanemask.lt", dm.i32, [])
    return t.Signature(t.uint32, ()), codegen


@template(("attr", "laneid"), target="cuda")
def _laneid(tctx, module):
    """`cuda.laneid`: the thread's lane in its warp (int32, `%laneid`)."""
    if not (isinstance(module, t.Module) and module.label == "kiln.cuda"):
        return None

    def codegen(context, builder, sig, args):
        return _call_intrinsic(builder, "llvm.nvvm.read.ptx.sreg.laneid", dm.i32, [])
    return t.Signature(t.int32, (module,)), codegen


@template(cu.const.array_like, target="cuda")
def _const_array_like(tctx, ary):
    """`cuda.const.array_like(A)` of a global array A: the copy of A the module already
    holds in constant memory (codegen's device_constant), read-only."""
    if not isinstance(ary, t.Array):
        return None
    if not ary.readonly:
        raise TypingError("cuda.const.array_like() takes a global array (its contents go "
                          "into the kernel's constant memory), not a kernel argument")

    def codegen(context, builder, sig, args):
        return args[0]
    return t.Signature(ary, (ary,)), codegen


# -- bits and fused arithmetic (cuda/bitmath.py gives their meaning) -------------------------
def _integer_op(stub, emit, result=None):
    """`stub(x)` of an integer, at its width: `emit(builder, x)`; the result has x's type,
    or `result`."""
    @template(stub, target="cuda")
    def _typer(tctx, x):
        if not isinstance(x, t.Integer):
            return None
        out = result or (t.integer_of(x.bitwidth, False) if stub is cu_bits.brev else x)

        def codegen(context, builder, sig, args):
            return emit(builder, args[0], dm.value_type(x))
        return t.Signature(out, (x,)), codegen


def _bit_intrinsic(name):
    return lambda builder, x, ty: _call_intrinsic(builder, f"llvm.{name}.i{ty.width}", ty,
                                                  [x])


def _leading_zeros(builder, x, ty):
    return _call_intrinsic(builder, f"llvm.ctlz.i{ty.width}", ty,
                           [x, ir.Constant(ir.IntType(1), 0)])


def _first_set(builder, x, ty):
    """1 + the index of the lowest set bit, 0 for 0 (as a uint32)."""
    trailing = _call_intrinsic(builder, f"llvm.cttz.i{ty.width}", ty,
                               [x, ir.Constant(ir.IntType(1), 0)])
    position = builder.add(trailing, ir.Constant(ty, 1))
    position = builder.select(builder.icmp_unsigned("==", x, ir.Constant(ty, 0)),
                              ir.Constant(ty, 0), position)
    return builder.zext(position, dm.i32) if ty.width < 32 else \
        builder.trunc(position, dm.i32) if ty.width > 32 else position


_integer_op(cu_bits.popc, _bit_intrinsic("ctpop"))
_integer_op(cu_bits.brev, _bit_intrinsic("bitreverse"))
_integer_op(cu_bits.clz, _leading_zeros)
_integer_op(cu_bits.ffs, _first_set, t.uint32)


@template(cu_bits.fma, target="cuda")
def _fma(tctx, a, b, c):
    """One rounding (`fma.rn`), float32 when every argument is one, else float64."""
    if not all(isinstance(v, (t.Integer, t.Float, t.Boolean)) for v in (a, b, c)):
        return None
    ty = t.float32 if all(v == t.float32 for v in (a, b, c)) else t.float64

    def codegen(context, builder, sig, args):
        return _call_intrinsic(builder, f"llvm.fma.f{ty.bitwidth}", dm.value_type(ty),
                               list(args))
    return t.Signature(ty, (ty, ty, ty)), codegen


@template(cu_bits.cbrt, target="cuda")
def _cbrt(tctx, x):
    """libdevice's cbrt (a float32 for a float32)."""
    if not isinstance(x, (t.Integer, t.Float, t.Boolean)):
        return None
    ty = t.float32 if x == t.float32 else t.float64

    def codegen(context, builder, sig, args):
        return _call_intrinsic(builder, "cbrtf" if ty == t.float32 else "cbrt",
                               dm.value_type(ty), list(args))
    return t.Signature(ty, (ty,)), codegen


# -- shared and local arrays -----------------------------------------------------------------
def _array_typer(fname, place, dynamic):
    """shared.array/local.array(shape, dtype, alignment=None): constant arguments; shape 0
    means dynamic shared memory where `dynamic` allows it."""
    @template(getattr(getattr(cu, fname.split(".")[0]), "array"), target="cuda")
    def _typer(tctx, shape, dtype, alignment=None):
        what = f"cuda.{fname}()"
        dims = _literal(shape, f"{what} takes its shape as a constant positive int or tuple "
                        "of them" + (" (0: dynamic shared memory)" if dynamic else ""),
                        lambda v: (type(v) is int and (v > 0 or dynamic and v == 0)) or (
                            type(v) is tuple and v and all(type(d) is int and d > 0
                                                           for d in v)))
        align = 16 if alignment is None else _literal(
            alignment, f"{what} takes its alignment as a constant power of two",
            lambda v: type(v) is int and v > 0 and v & (v - 1) == 0)
        try:
            dt = t.from_dtype(as_numpy_dtype(_literal(dtype, f"{what} takes a constant dtype",
                                                      lambda v: True)))
        except TypeError as e:
            raise TypingError(f"{what}: {e}") from None
        dims = (dims,) if type(dims) is int else dims
        restype = t.Array(dt, len(dims), "C")
        argtypes = (shape.type, dtype.type) + (() if alignment is None else (alignment.type,))

        def codegen(context, builder, sig, args):
            return place(context, builder, restype, dims, max(align, dt.bitwidth // 8))
        return t.Signature(restype, argtypes), codegen


def _array_value(builder, ty, data, dims):
    """The array struct of a C-contiguous `ty` over `data` (no meminfo, no parent)."""
    itemsize = as_numpy_dtype(ty.dtype).itemsize
    strides, step = [], itemsize
    for d in reversed(dims):
        strides.insert(0, step)
        step *= d
    const = lambda v: ir.Constant(dm.i64, v)  # noqa: E731
    value = dm.null_value(ty)
    value = builder.insert_value(value, const(math.prod(dims)), dm.ARRAY_NITEMS)
    value = builder.insert_value(value, const(itemsize), dm.ARRAY_ITEMSIZE)
    value = builder.insert_value(value, data, dm.ARRAY_DATA)
    for i, (d, s) in enumerate(zip(dims, strides)):
        value = builder.insert_value(value, const(d), [dm.ARRAY_SHAPE, i])
        value = builder.insert_value(value, const(s), [dm.ARRAY_STRIDES, i])
    return value


def _shared_array(context, builder, ty, dims, align):
    """A block's shared array: a global in address space 3, one per call site. Shape 0 is
    the dynamic shared memory sized at launch, which all such arrays alias."""
    module = builder.module
    elem = dm.memory_type(ty.dtype)
    if dims == (0,):
        gv = module.globals.get("kiln_dynamic_shared")
        if gv is None:
            gv = ir.GlobalVariable(module, ir.ArrayType(elem, 0), "kiln_dynamic_shared",
                                   addrspace=SHARED)
            gv.linkage = "external"
            gv.align = 16   # whatever the arrays that alias it ask for, at most 16
        size = builder.zext(_call_intrinsic(builder, "llvm.nvvm.read.ptx.sreg.dynamic_smem_size",
                                            dm.i32, []), dm.i64)
        value = _array_value(builder, ty, builder.addrspacecast(gv, dm.ptr), (0,))
        n = builder.udiv(size, ir.Constant(dm.i64, as_numpy_dtype(ty.dtype).itemsize))
        value = builder.insert_value(value, n, dm.ARRAY_NITEMS)
        return builder.insert_value(value, n, [dm.ARRAY_SHAPE, 0])
    name = f"kiln_shared_{len([g for g in module.globals if g.startswith('kiln_shared_')])}"
    gv = ir.GlobalVariable(module, ir.ArrayType(elem, math.prod(dims)), name,
                           addrspace=SHARED)
    gv.linkage = "internal"
    gv.initializer = ir.Constant(gv.value_type, ir.Undefined)
    gv.align = align
    return _array_value(builder, ty, builder.addrspacecast(gv, dm.ptr), dims)


def _local_array(context, builder, ty, dims, align):
    """A thread's private array: a stack slot (PTX local memory unless LLVM keeps it in
    registers)."""
    slot = context.alloca(builder, ir.ArrayType(dm.memory_type(ty.dtype), math.prod(dims)))
    slot.align = align
    return _array_value(builder, ty, slot, dims)


_array_typer("shared.array", _shared_array, dynamic=True)
_array_typer("local.array", _local_array, dynamic=False)


# -- atomics ---------------------------------------------------------------------------------
def _element_pointer(builder, array, indices):
    """The address of `array[indices]` (indices int64, already wrapped if negative)."""
    offset = ir.Constant(dm.i64, 0)
    for axis, index in enumerate(indices):
        stride = builder.extract_value(array, [dm.ARRAY_STRIDES, axis])
        offset = builder.add(offset, builder.mul(index, stride))
    data = builder.extract_value(array, dm.ARRAY_DATA)
    return builder.gep(data, [offset], source_etype=dm.i8)


_INT_OPS = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
            "exch": "xchg", "max": "max", "min": "min", "inc": "uinc_wrap",
            "dec": "udec_wrap"}
# float sub adds the negation; nanmax/nanmin let a NaN lose; float max/min leave the element
# as it is when either side is NaN (Numba's rule): a compare-and-swap loop (_float_minmax)
_FLOAT_OPS = {"add": "fadd", "sub": "fadd", "exch": "xchg", "max": "olt",
              "min": "ogt", "nanmax": "fmax", "nanmin": "fmin"}
_UNSIGNED = {"max": "umax", "min": "umin"}


def _rmw_op(name, dtype):
    if isinstance(dtype, t.Float) and dtype.bitwidth in (32, 64):
        return _FLOAT_OPS.get(name)
    if isinstance(dtype, t.Integer) and dtype.bitwidth in (32, 64):
        if name in ("inc", "dec") and dtype.signed:
            return None
        if name in ("nanmax", "nanmin"):
            name = name[3:]
        return _UNSIGNED.get(name, _INT_OPS.get(name)) if not dtype.signed else \
            _INT_OPS.get(name)
    return None


def _index_ok(arrty, idx):
    if isinstance(idx, t.Integer):
        return arrty.ndim == 1
    return isinstance(idx, t.BaseTuple) and len(idx.types) == arrty.ndim and \
        all(isinstance(i, t.Integer) for i in idx.types)


def _atomic_typer(name):
    public = {"and": "and_", "or": "or_"}.get(name, name)

    @template(getattr(cu.atomic, public), target="cuda")
    def _typer(tctx, ary, idx, val):
        if not isinstance(ary, t.Array) or not _index_ok(ary, idx):
            return None
        op = _rmw_op(name, ary.dtype)
        if op is None:
            raise TypingError(f"cuda.atomic.{public}() does not support arrays of "
                              f"{ary.dtype}")
        if ary.readonly:
            raise TypingError(f"cuda.atomic.{public}() cannot write to a read-only array")

        def codegen(context, builder, sig, args):
            array, index, value = args
            if op == "fadd" and name == "sub":   # atom.add exists for floats, atom.sub not
                value = builder.fneg(value)
            address = _element_pointer(builder, array,
                                       _wrapped(context, builder, array, idx, index))
            if op in ("olt", "ogt"):
                return _float_minmax(builder, op, address, value)
            return builder.atomic_rmw(op, address, value, "monotonic")
        return t.Signature(ary.dtype, (ary, idx, ary.dtype)), codegen


def _float_minmax(builder, cmp, address, value):
    """Float atomic max (cmp 'olt') or min ('ogt'): swap `value` in while the element
    compares `cmp` to it, so a NaN on either side changes nothing; returns the old value."""
    bits = ir.IntType(32 if value.type == ir.FloatType() else 64)
    entry = builder.block
    first = builder.load(address, typ=value.type, align=bits.width // 8)
    loop = builder.append_basic_block("atomic_minmax.loop")
    attempt = builder.append_basic_block("atomic_minmax.attempt")
    done = builder.append_basic_block("atomic_minmax.done")
    builder.branch(loop)
    builder.position_at_end(loop)
    old = builder.phi(value.type)
    old.add_incoming(first, entry)
    builder.cbranch(builder.fcmp_ordered("<" if cmp == "olt" else ">", old, value),
                    attempt, done)
    builder.position_at_end(attempt)
    result = builder.cmpxchg(address, builder.bitcast(old, bits), builder.bitcast(value, bits),
                             "monotonic", "monotonic")
    seen = builder.bitcast(builder.extract_value(result, 0), value.type)
    old.add_incoming(seen, attempt)
    builder.cbranch(builder.extract_value(result, 1), done, loop)
    builder.position_at_end(done)
    final = builder.phi(value.type)
    final.add_incoming(old, loop)
    final.add_incoming(old, attempt)
    return final


def _wrapped(context, builder, array, idxty, idx):
    """int64 indices of `idx` (an integer or a tuple), negative ones counted from the end."""
    items = [(idxty, idx)] if isinstance(idxty, t.Integer) else \
        [(it, builder.extract_value(idx, i)) for i, it in enumerate(idxty.types)]
    out = []
    for axis, (ity, value) in enumerate(items):
        value = context.cast(builder, value, ity, t.int64)
        if ity.signed:
            extent = builder.extract_value(array, [dm.ARRAY_SHAPE, axis])
            negative = builder.icmp_signed("<", value, ir.Constant(dm.i64, 0))
            value = builder.select(negative, builder.add(value, extent), value)
        out.append(value)
    return out


for _name in ("add", "sub", "and", "or", "xor", "max", "min", "nanmax", "nanmin", "exch",
              "inc", "dec"):
    _atomic_typer(_name)


def _cas(context, builder, ary, array, index, old, new):
    """Compare-and-swap on an element (floats compared by their bits); returns the old
    value."""
    address = _element_pointer(builder, array, index)
    lt = dm.value_type(ary.dtype)
    if isinstance(ary.dtype, t.Float):
        bits = ir.IntType(ary.dtype.bitwidth)
        result = builder.cmpxchg(address, builder.bitcast(old, bits), builder.bitcast(new, bits),
                                 "monotonic", "monotonic")
        return builder.bitcast(builder.extract_value(result, 0), lt)
    result = builder.cmpxchg(address, old, new, "monotonic", "monotonic")
    return builder.extract_value(result, 0)


def _cas_supported(ary):
    return isinstance(ary, t.Array) and isinstance(ary.dtype, (t.Integer, t.Float)) and \
        ary.dtype.bitwidth in (32, 64) and not ary.readonly


@template(cu.atomic.cas, target="cuda")
def _atomic_cas(tctx, ary, idx, old, val):
    if not _cas_supported(ary) or not _index_ok(ary, idx):
        return None

    def codegen(context, builder, sig, args):
        array, index, old, new = args
        return _cas(context, builder, ary, array,
                    _wrapped(context, builder, array, idx, index), old, new)
    return t.Signature(ary.dtype, (ary, idx, ary.dtype, ary.dtype)), codegen


@template(cu.atomic.compare_and_swap, target="cuda")
def _compare_and_swap(tctx, ary, old, val):
    if not _cas_supported(ary) or ary.ndim != 1:
        return None

    def codegen(context, builder, sig, args):
        array, old, new = args
        return _cas(context, builder, ary, array, [ir.Constant(dm.i64, 0)], old, new)
    return t.Signature(ary.dtype, (ary, ary.dtype, ary.dtype)), codegen


# -- device functions ------------------------------------------------------------------------
class CalledDeviceFunction:
    """A `@cuda.jit(device=True)` function as typing/context.py's `resolve_dispatcher` sees
    a compiled function called from compiled code: typed for the device (converting to its
    declared signatures when it has some), its source and what it does checked as device
    code, called in kiln's internal convention."""

    # Device code counts no references, and an array a device function returns is a view of
    # what it was given (what it would allocate, its own check_typed refuses at its line).
    returns_new_reference = False

    def __init__(self, devfn):
        from .ptx import device_options
        self.devfn = devfn
        self.typed_func = devfn.py_func
        self.explicit_signatures = devfn.signatures
        self.options = device_options(devfn.options.get("fastmath", False),
                                      devfn.options.get("debug", False))

    def bind_types(self, args, kws):
        from ..typing.context import bind_types
        params = list(inspect.signature(self.devfn.py_func).parameters.values())
        if any(p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY) for p in params):
            return None   # (*args, **kwargs: not for device functions)
        if not self.devfn._checked:   # what CUDA code cannot do, refused at its line
            self.devfn._check()
        return bind_types(params, args, kws)

    def packed_argtypes(self, argtypes):
        return tuple(argtypes), len(argtypes)

    def check_typed(self, typed):
        from ..typing.results import TypedFunction
        from .ptx import check_device_code
        if isinstance(typed, TypedFunction):   # (a recursive call's function is still being
            check_device_code(typed)           # typed: checked when its typing ends)


class _DeviceFunctionTemplate(Template):
    """A call of a device function from device code."""

    targets = frozenset({"cuda"})

    def __init__(self, devfn):
        self.devfn = devfn

    def resolve(self, tctx, args, kws):
        return tctx.resolve_dispatcher(CalledDeviceFunction(self.devfn), args, kws)


def device_function_type(devfn):
    """The type of a device function seen by device code (registering how to call it)."""
    if not registry.has(devfn):
        registry.register(devfn, _DeviceFunctionTemplate(devfn))
    return t.Function(devfn)

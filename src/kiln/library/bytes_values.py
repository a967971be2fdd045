"""`bytes` in compiled code, as Numba has them: an argument or a constant `b"..."`, its
length, its items (ints), slices (new bytes values), iteration, `==` and
`isinstance(x, bytes)`; a bytes value returned to Python is a new `bytes` with the same
contents.

A bytes value is a pointer to an NRT meminfo whose data is `{i64 length, i8 bytes[length]}`.
It is immutable, so an argument is a copy (as a string is) and a constant of the code is a
global meminfo whose count never reaches zero.
"""
from __future__ import annotations

import hashlib
import operator

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..codegen.context import register_constant
from ..codegen.ownership import meminfo_family
from ..runtime import nrt
from ..typing.registry import intrinsic, overload
from .arrays import make_array
from .list_layout import _slice_indices
from .strings import _STATIC_COUNT

HEADER_BYTES = 8   # the length; the bytes follow


def length_of(b, value):
    return b.load(nrt.meminfo_data(b, value), typ=dm.i64)


def data_of(b, value):
    return b.gep(nrt.meminfo_data(b, value), [ir.Constant(dm.i64, HEADER_BYTES)],
                 source_etype=dm.i8)


def byte_at(b, value, index):
    """The byte at `index` (no bounds check) as an int64, as Python gives it."""
    return b.zext(b.load(b.gep(data_of(b, value), [index], source_etype=dm.i8), typ=dm.i8),
                  dm.i64)


def _constant(context, b, ty, value: bytes):
    """The constant `value`: a global meminfo (borrowed, never freed) whose data is a second
    global, as a string constant's (library/strings.py)."""
    module = context.module
    name = "kiln.bytes." + hashlib.sha1(value).hexdigest()
    gv = module.globals.get(name)
    if gv is None:
        body = ir.LiteralStructType([dm.i64, ir.ArrayType(dm.i8, len(value))])
        data = ir.GlobalVariable(module, body, name=name + ".data")
        data.linkage = "internal"
        data.initializer = ir.Constant(body, [ir.Constant(dm.i64, len(value)),
                                              ir.Constant(body.elements[1], bytearray(value))])
        data.align = 16
        gv = ir.GlobalVariable(module, nrt.MEMINFO, name=name)
        gv.linkage = "internal"
        gv.initializer = ir.Constant(nrt.MEMINFO, [
            ir.Constant(dm.i64, _STATIC_COUNT), ir.Constant(dm.i64, 0),
            data.bitcast(dm.ptr), ir.Constant(dm.ptr, None)])
        gv.align = 16
    return gv


meminfo_family(t.Bytes)   # a bytes value is its meminfo
register_constant(t.Bytes, _constant)


@boxing.unboxer(t.Bytes, copies=True)
def _unbox(unboxer, ty, obj):
    """A copy of a `bytes` (released by the entry point after the call)."""
    b, api = unboxer.b, unboxer.api
    unboxer.require(api.is_type(obj, api.global_object("PyBytes_Type")))
    n = api.call("PyBytes_Size", dm.i64, [obj])
    value = nrt.emit_allocate(b, b.add(n, ir.Constant(dm.i64, HEADER_BYTES)))
    no_memory = unboxer.no_memory_block()
    made = b.append_basic_block("bytes")
    b.cbranch(b.icmp_unsigned("==", value, ir.Constant(dm.ptr, None)), no_memory, made)
    b.position_at_end(made)
    b.store(value, unboxer.copy_slot())
    b.store(n, nrt.meminfo_data(b, value))
    source = api.call("PyBytes_AsString", dm.ptr, [obj])
    b.call(b.module.declare_intrinsic("llvm.memcpy", [dm.ptr, dm.ptr, dm.i64]),
           [data_of(b, value), source, n, ir.Constant(ir.IntType(1), 0)])
    return value


@boxing.boxer(t.Bytes)
def _box(api, ty, value, fail):
    """A new `bytes` with the same contents."""
    b = api.builder
    result = api.call("PyBytes_FromStringAndSize", dm.ptr,
                      [data_of(b, value), length_of(b, value)])
    nrt.emit_decref(b, value)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    return result


@intrinsic
def _bytes_len(tctx, value):
    if not isinstance(value, t.Bytes):
        return None
    return t.int64(value), lambda context, b, sig, args: length_of(b, args[0])


@intrinsic
def _bytes_get(tctx, value, i):
    """The byte at i as an int (no bounds check)."""
    if not isinstance(value, t.Bytes):
        return None
    return t.int64(value, t.int64), \
        lambda context, b, sig, args: byte_at(b, args[0], args[1])


@intrinsic
def _bytes_new(tctx, n):
    """A new bytes value of n bytes, for the caller to fill (MemoryError when exhausted)."""
    if not isinstance(n, t.Integer):
        return None

    def codegen(context, b, sig, args):
        value = nrt.emit_allocate(b, b.add(args[0], ir.Constant(dm.i64, HEADER_BYTES)))
        context.guard(b, b.icmp_unsigned("==", value, ir.Constant(dm.ptr, None)),
                      MemoryError, "cannot allocate a bytes value")
        b.store(args[0], nrt.meminfo_data(b, value))
        return value
    codegen.new_reference = True
    return t.bytes_type(t.int64), codegen


@intrinsic
def _bytes_set(tctx, value, i, byte):
    """Store the int `byte` at i of a bytes value being made (no bounds check)."""
    if not isinstance(value, t.Bytes):
        return None

    def codegen(context, b, sig, args):
        b.store(b.trunc(args[2], dm.i8), b.gep(data_of(b, args[0]), [args[1]],
                                                source_etype=dm.i8))
        return dm.null_value(t.none)
    return t.none(value, t.int64, t.int64), codegen


@intrinsic
def raw_bytes(tctx, value):
    """The bytes as a read-only 1-d uint8 array sharing the value's memory (its meminfo
    keeps them: np.frombuffer's view)."""
    if not isinstance(value, t.Bytes):
        return None
    rt = t.Array(t.uint8, 1, "C", readonly=True)

    def codegen(context, b, sig, args):
        return make_array(context, b, rt, data_of(b, args[0]), [length_of(b, args[0])],
                          [ir.Constant(dm.i64, 1)], meminfo=args[0])
    return rt(value), codegen


@overload(len)
def _len(value):
    if isinstance(value, t.Bytes):
        return lambda value: _bytes_len(value)
    return None


@overload(operator.getitem)
def _getitem(value, index):
    if not isinstance(value, t.Bytes):
        return None
    if isinstance(index, t.SliceType):   # a new bytes value, as Python's
        def impl_slice(value, index):
            start, step, count = _slice_indices(index, _bytes_len(value))
            result = _bytes_new(count)
            for k in range(count):
                _bytes_set(result, k, _bytes_get(value, start + k * step))
            return result
        return impl_slice
    if not isinstance(index, (t.Integer, t.Boolean)):
        return None

    def impl(value, index):
        n = _bytes_len(value)
        i = index + 0
        if i < 0:
            i += n
        if i < 0 or i >= n:
            raise IndexError("index out of range")
        return _bytes_get(value, i)
    return impl


@overload(operator.eq)
def _eq(a, b):
    if not (isinstance(a, t.Bytes) and isinstance(b, t.Bytes)):
        return None

    def impl(a, b):
        n = _bytes_len(a)
        if n != _bytes_len(b):
            return False
        for i in range(n):
            if _bytes_get(a, i) != _bytes_get(b, i):
                return False
        return True
    return impl


@overload(operator.ne)
def _ne(a, b):
    if isinstance(a, t.Bytes) and isinstance(b, t.Bytes):
        return lambda a, b: not a == b
    return None


def bytes_iteration(context, b, value):
    """`for x in some_bytes`: each byte as an int."""
    from .iteration import ONE, IndexIteration
    return IndexIteration(context, b, ir.Constant(dm.i64, 0), ONE,
                          lambda b, index: b.icmp_signed("<", index, length_of(b, value)),
                          lambda b, index: byte_at(b, value, index), t.int64)


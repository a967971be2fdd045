"""A NumPy ufunc's inner loop around a compiled scalar function, and the ufunc itself.

NumPy calls `void loop(char **args, npy_intp const *dims, npy_intp const *steps, void *data)`
once per stretch of elements: the loop loads each input at `args[k] + i * steps[k]`,
calls the kernel (inlined by LLVM, so the contiguous case vectorizes like a hand-written
loop) and stores the result. A stretch whose steps are all the items' sizes takes a
separate copy of the loop with constant strides. The `parallel` target splits a long
stretch across the thread layer (runtime/threads.py), each chunk running the same loop.

An exception raised by the kernel stops the loop and is set as the Python exception (the
GIL taken for it); NumPy reports it when the loop returns. The real ufunc is built by
NumPy's own `PyUFunc_FromFuncAndData(AndSignature)`, reached through its C-API capsule.
"""
from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir

from ..codegen import datamodel as dm
from ..codegen.exceptions import emit_release, emit_set_python_error
from ..runtime import threads
from ..runtime.threads import for_range, struct_field
from . import no_loop

LOOP_TYPE = ir.FunctionType(ir.VoidType(), [dm.ptr, dm.ptr, dm.ptr, dm.ptr])

# {args, dims, steps, n, the first exception a chunk raised} for the chunks
_ENV = ir.LiteralStructType([dm.ptr, dm.ptr, dm.ptr, dm.i64, dm.ptr])
_RAISED = 4


def compile_loop(py_func, argtypes, declared_return, options, parallel, stretch_of,
                 cache=None):
    """Compile `py_func` as a (generalized) ufunc kernel for `argtypes`, with NumPy's inner
    loop around it, whose iterations `stretch_of(context, native kernel, typed kernel)`
    emits (compiler.compile_wrapped). Returns the loop's address, the typed kernel and what
    the code needs kept alive (the machine code comes from the on-disk `cache` when it
    holds it)."""
    from ..compiler import compile_wrapped

    def symbol(typed):
        return f"{typed.symbol}.ufunc_loop{'.parallel' if parallel else ''}"

    def wrap(context, native, typed):
        build_loop(context, symbol(typed), parallel, stretch_of(context, native, typed))
    compiled, typed, keepalive = compile_wrapped(py_func, argtypes, declared_return, options,
                                                 wrap, cache)
    keepalive.append(compiled)
    return compiled.address(symbol(typed)), typed, keepalive


def build_loop(context, name, parallel, stretch):
    """Generate `name`, a NumPy inner loop. `stretch(builder, args, dims, steps, lo, hi,
    on_error)` emits the iterations lo..hi of the outer dimension (dims[0] of them)."""
    module = context.module
    fn = ir.Function(module, LOOP_TYPE, name=name)
    args, dims, steps, _ = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    n = b.load(dims, typ=dm.i64)
    if parallel:
        chunk = _chunk(context, name, stretch)
        env = b.alloca(_ENV)
        for i, value in enumerate((args, dims, steps, n, ir.Constant(dm.ptr, None))):
            b.store(value, struct_field(b, env, _ENV, i))
        wanted = module.globals.get(threads.COUNT) or \
            ir.GlobalVariable(module, dm.i64, name=threads.COUNT)
        run = context.declare_external(threads.SYMBOL, ir.VoidType(), [dm.ptr, dm.ptr, dm.i64])
        with b.if_then(b.icmp_signed(">=", n, ir.Constant(dm.i64, threads.MIN_PARALLEL_ITEMS))):
            b.call(run, [chunk, env, b.load(wanted, typ=dm.i64)])
            raised = b.load(struct_field(b, env, _ENV, _RAISED), typ=dm.ptr)
            with b.if_then(b.icmp_unsigned("!=", raised, ir.Constant(dm.ptr, None)),
                           likely=False):   # raised here, in the thread NumPy called
                _set_python_error(context, b, raised)
            b.ret_void()
    stretch(b, args, dims, steps, ir.Constant(dm.i64, 0), n,
            lambda b, desc: _set_python_error(context, b, desc))
    b.ret_void()
    return fn


def _chunk(context, name, stretch):
    """`void chunk(env*, k, n)`: the loop over the k-th of n shares of the stretch."""
    fn = ir.Function(context.module, threads.CHUNK_TYPE, name=f"{name}.chunk")
    fn.linkage = "internal"
    env, k, parts = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    args, dims, steps, n = (b.load(struct_field(b, env, _ENV, i), typ=ty)
                            for i, ty in enumerate((dm.ptr, dm.ptr, dm.ptr, dm.i64)))
    lo, hi = threads.chunk_bounds(b, k, parts, n)
    first = struct_field(b, env, _ENV, _RAISED)

    def keep_first(b, desc):  # a worker thread has no Python thread state to raise in
        kept = b.cmpxchg(first, ir.Constant(dm.ptr, None), desc, "monotonic", "monotonic")
        with b.if_then(b.not_(b.extract_value(kept, 1))):  # another chunk raised first
            emit_release(b, desc)
    stretch(b, args, dims, steps, lo, hi, keep_first)
    b.ret_void()
    return fn


def elementwise_stretch(context, native, typed):
    """The iterations of a scalar ufunc loop: one call of the kernel per element."""
    def stretch(b, args, dims, steps, lo, hi, on_error):
        _stretch(context, b, native, typed.argtypes, typed.return_type, args, steps, lo, hi,
                 on_error)
    return stretch


def _stretch(context, b, native, argtypes, result, args, steps, lo, hi, on_error):
    """Elements lo..hi: a constant-stride copy when every step is its item's size;
    `on_error(builder, exception descriptor)` reports the first raise (see _elements)."""
    operands = list(argtypes) + [result]
    bases = [b.load(b.gep(args, [ir.Constant(dm.i32, k)], source_etype=dm.ptr), typ=dm.ptr)
             for k in range(len(operands))]
    strides = [b.load(b.gep(steps, [ir.Constant(dm.i32, k)], source_etype=dm.i64), typ=dm.i64)
               for k in range(len(operands))]
    sizes = [ir.Constant(dm.i64, ty.np_dtype.itemsize) for ty in operands]
    contiguous = ir.Constant(dm.i1, 1)
    for stride, size in zip(strides, sizes):
        contiguous = b.and_(contiguous, b.icmp_signed("==", stride, size))
    with b.if_else(contiguous, likely=True) as (dense, strided):
        with dense:
            _elements(context, b, native, operands, bases, sizes, lo, hi, on_error)
        with strided:
            _elements(context, b, native, operands, bases, strides, lo, hi, on_error)


def _elements(context, b, native, operands, bases, strides, lo, hi, on_error):
    """As Numba's loops: an element whose kernel raises keeps its output as it was, the
    other elements are computed, and the first exception is reported after the loop (an
    object-mode kernel must not run with a Python error already set)."""
    *inputs, result = operands
    retslot = context.alloca(b, dm.value_type(result))
    excslot = context.alloca(b, dm.ptr)
    first = context.alloca(b, dm.ptr)
    null = ir.Constant(dm.ptr, None)
    b.store(null, first)
    with for_range(b, lo, hi) as i:
        def address(k):
            return b.gep(bases[k], [b.mul(i, strides[k])], source_etype=dm.i8)
        values = [dm.load_item(b, ty, address(k)) for k, ty in enumerate(inputs)]
        status = b.call(native, [retslot, excslot] + values)
        with b.if_else(b.icmp_signed("!=", status, ir.Constant(dm.i32, 0)),
                       likely=False) as (failed, computed):
            with failed:
                descriptor = b.load(excslot, typ=dm.ptr)
                with b.if_else(b.icmp_unsigned("==", b.load(first, typ=dm.ptr), null)) \
                        as (kept, dropped):
                    with kept:
                        b.store(descriptor, first)
                    with dropped:
                        emit_release(b, descriptor)
            with computed:
                dm.store_item(b, result, b.load(retslot, typ=dm.value_type(result)),
                              address(len(inputs)))
    raised = b.load(first, typ=dm.ptr)
    with b.if_then(b.icmp_unsigned("!=", raised, null), likely=False):
        on_error(b, raised)


def _set_python_error(context, b, descriptor):
    """Raise the kernel's exception in Python (NumPy checks for one after the loop)."""
    ensure = context.declare_external("PyGILState_Ensure", dm.i32, [])
    release = context.declare_external("PyGILState_Release", ir.VoidType(), [dm.i32])
    state = b.call(ensure, [])
    emit_set_python_error(context, b, descriptor)
    b.call(release, [state])


# ---- the ufunc object ----------------------------------------------------------------------

_LOOP_C_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_void_p)
_keepalive = []   # what each ufunc's C arrays point at; ufuncs live as long as the process


def _ufunc_api():
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(get_pointer(umath._UFUNC_API, None), ctypes.POINTER(ctypes.c_void_p))


_FROM_FUNC_AND_DATA, _FROM_FUNC_AND_DATA_AND_SIGNATURE = 1, 31
_IDENTITIES = {0: 0, 1: 1, -1: 2, None: -1, "reorderable": -2}
# NumPy's C identity codes under Numba's names (numba.np.ufunc.PyUFunc_One, ...):
# `identity=PyUFunc_One` is `identity=1`, as in Numba
PyUFunc_Zero, PyUFunc_One, PyUFunc_None, PyUFunc_ReorderableNone = 0, 1, -1, -2
# PyUFuncObject.op_flags (npy_uint32 *, one per operand; NumPy 1.x and 2.x alike on 64-bit
# builds): an input flagged READWRITE|UPDATEIFCOPY is passed writable and a cast copy of it
# is written back, as Numba's writable_args does.
_OP_FLAGS_OFFSET = 176
_READWRITE_UPDATEIFCOPY = 0x00010000 | 0x00800000


def check_identity(identity):
    """ValueError for an identity NumPy's C API cannot take (checked before the function)."""
    if identity not in _IDENTITIES:
        raise ValueError(f"identity must be 0, 1, -1, None or 'reorderable', not {identity!r}")


def make_ufunc(name, doc, loops, nin, nout, identity=None, signature=None, writable=()):
    """A real `numpy.ufunc` from `loops`: (loop address, [NumPy dtypes of inputs+outputs]);
    the inputs in `writable` are writable operands."""
    check_identity(identity)
    count = len(loops)
    funcs = (ctypes.c_void_p * count)(*[address for address, _ in loops])
    data = (ctypes.c_void_p * count)()
    types = (ctypes.c_char * (count * (nin + nout)))(
        *[np.dtype(d).num for _, dtypes in loops for d in dtypes])
    name_c, doc_c = ctypes.c_char_p(name.encode()), ctypes.c_char_p((doc or "").encode())
    api = _ufunc_api()
    common = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
              ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    args = [ctypes.cast(funcs, ctypes.c_void_p), ctypes.cast(data, ctypes.c_void_p),
            ctypes.cast(types, ctypes.c_void_p), count, nin, nout, _IDENTITIES[identity],
            name_c, doc_c, 0]
    if signature is None:
        make = ctypes.PYFUNCTYPE(ctypes.py_object, *common)(api[_FROM_FUNC_AND_DATA])
        ufunc = make(*args)
    else:
        signature_c = ctypes.c_char_p(signature.encode())
        make = ctypes.PYFUNCTYPE(ctypes.py_object, *common, ctypes.c_char_p)(
            api[_FROM_FUNC_AND_DATA_AND_SIGNATURE])
        ufunc = make(*args, signature_c)
        _keepalive.append(signature_c)
    _keepalive.append((funcs, data, types, name_c, doc_c))
    no_loop.install(ufunc, name, nin, count)
    if writable:
        if ctypes.c_int.from_address(id(ufunc) + 16).value != nin or \
                ctypes.c_int.from_address(id(ufunc) + 104).value != (ufunc.signature is not None):
            raise NotImplementedError("writable_args: this NumPy's ufunc object is laid out "
                                      "differently from the one kiln knows")
        op_flags = ctypes.cast(ctypes.c_void_p.from_address(id(ufunc) + _OP_FLAGS_OFFSET).value,
                               ctypes.POINTER(ctypes.c_uint32))
        for k in writable:
            op_flags[k] |= _READWRITE_UPDATEIFCOPY
    return ufunc

"""The call the parallel stage puts in place of a prange loop:
`parallel_run(body, combine, count, captured)` runs the nested function `body(lo, hi,
*captured)` over chunks of range(count) on the thread layer and combines the chunks'
results, in chunk order, with `combine`.

Each chunk runs through a generated function `void chunk(env*, k, n)` that computes its
share of the iterations, calls `body` and records its status, its exception and its result
in slot k. After the region the first failing chunk's exception is raised (once, in the
caller; the results of the chunks that finished are released), or the results are folded.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.context import STATUS_ERROR, STATUS_OK
from ..codegen.exceptions import emit_release
from ..codegen.ownership import decref
from ..errors import TypingError
from ..typing.registry import intrinsic, template
from ..options import CompileOptions
from ..runtime import threads
from ..runtime.threads import for_range, struct_field

# env: {count, captured*, results*, statuses*, exceptions*, chunks that ran}
_ENV = ir.LiteralStructType([dm.i64, dm.ptr, dm.ptr, dm.ptr, dm.ptr, dm.i64])
_COUNT, _CAPTURED, _RESULTS, _STATUSES, _EXCEPTIONS, _CHUNKS = range(6)


def _filled_like(x, value):
    return np.full_like(x, value)


def _identity(value):
    """A reduction's starting value in each chunk, of the variable's own type: a number, or
    a new array of the variable's shape (each chunk its own)."""
    def typer(typingctx, x):
        if isinstance(x, t.Array) and isinstance(x.dtype, t.Number):
            fill = typingctx.type_function(_filled_like, (x, t.int64))

            def fill_codegen(context, builder, sig, args):
                return context.call_function(
                    builder, fill, [args[0], ir.Constant(dm.i64, value)])
            fill_codegen.new_reference = True
            return fill.return_type(x), fill_codegen
        if not isinstance(x, t.Number):
            raise TypingError(f"a prange loop reduces into a value of type {x}; kiln's "
                              "parallel reductions combine numbers and arrays of numbers "
                              "(+, -, *, |, &, ^; min and max of numbers): accumulate into "
                              "one of those, or write each iteration's result to its own "
                              "element")

        def codegen(context, builder, sig, args):
            # a number of x's kind; a datetime64's is its count of units (an int)
            python_type = next((py for c, py in ((t.Boolean, bool), (t.Integer, int),
                                                  (t.Float, float), (t.Complex, complex))
                                if isinstance(x, c)), int)
            return context.get_constant(builder, x, python_type(value))
        return x(x), codegen
    return intrinsic(typer)


IDENTITIES = {"+": _identity(0), "*": _identity(1), "|": _identity(0), "^": _identity(0),
              "&": _identity(-1)}


@intrinsic
def parallel_run(typingctx, body, combine, count, captured):
    if not (isinstance(body, t.InnerFunction) and isinstance(combine, t.InnerFunction)
            and isinstance(captured, t.BaseTuple)):
        return None
    argtypes = (t.int64, t.int64) + tuple(captured.types)
    result = typingctx.typed_inner(body, argtypes, CompileOptions()).return_type

    def codegen(context, builder, sig, args):
        tctx = context.state.tctx
        typed = tctx.typed_inner(body, argtypes, context.options)
        captured_struct = dm.value_type(captured)
        name = f"{typed.symbol}.chunk"
        chunk = context.module.globals.get(name) or _chunk_function(
            context, context.lower_function(typed), name, typed.return_type, captured_struct)
        return _run(context, builder, chunk, typed.return_type,
                    None if result == t.none else
                    tctx.typed_inner(combine, (result, result), context.options),
                    args[2], args[3], captured_struct)
    codegen.new_reference = True   # the chunks' combined results (arrays too) are owned
    return result(body, combine, count, captured), codegen


def split_loop(context, builder, count, values, emit):
    """Run iterations 0..count split across the thread layer: `emit(context, builder, lo,
    hi, values)` generates iterations lo..hi into a function of the internal convention
    (so what it calls may raise), which gets `values` (LLVM values of the caller) as
    arguments. The first exception a chunk raises is raised here."""
    module = context.module
    struct = ir.LiteralStructType([v.type for v in values])
    body = ir.Function(module, ir.FunctionType(dm.i32, [dm.ptr, dm.ptr, dm.i64, dm.i64] +
                                               [v.type for v in values]),
                       name=f"{builder.function.name}.split.{len(module.globals)}")
    body.linkage = "internal"
    from ..codegen.context import CodegenContext
    b = ir.IRBuilder(body.append_basic_block("entry"))
    emit(CodegenContext(context.state, context.options), b, body.args[2], body.args[3],
         list(body.args[4:]))
    if not b.block.is_terminated:
        b.ret(STATUS_OK)
    chunk = _chunk_function(context, body, f"{body.name}.chunk", t.none, struct)
    packed = ir.Constant(struct, ir.Undefined)
    for i, value in enumerate(values):
        packed = builder.insert_value(packed, value, i)
    _run(context, builder, chunk, t.none, None, count, packed, struct)


def _chunk_function(context, body, name, result, captured_struct):
    """`void chunk(env*, k, n)`: body(lo, hi, *captured) over the k-th of n shares, its
    status, exception and result kept in slot k."""
    module = context.module
    fn = ir.Function(module, threads.CHUNK_TYPE, name=name)
    fn.linkage = "internal"
    env, k, n = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def field(i):
        return struct_field(b, env, _ENV, i)
    lo, hi = threads.chunk_bounds(b, k, n, b.load(field(_COUNT), typ=dm.i64))
    values = b.load(b.load(field(_CAPTURED), typ=dm.ptr), typ=captured_struct)
    result_type = dm.value_type(result)
    result_slot = b.alloca(result_type)
    exception = b.alloca(dm.ptr)
    b.store(ir.Constant(dm.ptr, None), exception)
    status = b.call(body, [result_slot, exception, lo, hi] +
                    [b.extract_value(values, i) for i in range(len(captured_struct.elements))])
    b.store(status, b.gep(b.load(field(_STATUSES), typ=dm.ptr), [k], source_etype=dm.i32))
    b.store(b.load(exception, typ=dm.ptr),
            b.gep(b.load(field(_EXCEPTIONS), typ=dm.ptr), [k], source_etype=dm.ptr))
    if result != t.none:
        with b.if_then(b.icmp_signed("==", status, STATUS_OK)):
            b.store(b.load(result_slot, typ=result_type),
                    b.gep(b.load(field(_RESULTS), typ=dm.ptr), [k], source_etype=result_type))
    with b.if_then(b.icmp_signed("==", k, ir.Constant(dm.i64, 0))):
        b.store(n, field(_CHUNKS))
    b.ret_void()
    return fn


def _threads_wanted(builder):
    """The thread count regions ask for (the layer's global, which set_num_threads sets)."""
    module = builder.module
    count = module.globals.get(threads.COUNT) or \
        ir.GlobalVariable(module, dm.i64, name=threads.COUNT)
    return builder.load(count, typ=dm.i64)


def _without_gil(context, builder, body):
    """Run `body` with the GIL released if this thread holds it, so that chunks which take
    it (an objmode block, print) can run on the other threads meanwhile."""
    b, null = builder, ir.Constant(dm.ptr, None)
    held = b.icmp_signed("!=", b.call(context.declare_external("PyGILState_Check", dm.i32, []),
                                      []), ir.Constant(dm.i32, 0))
    state = context.alloca(b, dm.ptr)
    b.store(null, state)
    with b.if_then(held):
        b.store(b.call(context.declare_external("PyEval_SaveThread", dm.ptr, []), []), state)
    body()
    saved = b.load(state, typ=dm.ptr)
    with b.if_then(b.icmp_unsigned("!=", saved, null)):
        b.call(context.declare_external("PyEval_RestoreThread", ir.VoidType(), [dm.ptr]),
               [saved])


def _run(context, builder, chunk, result, combine, count, captured_value, captured_struct):
    b = builder
    slots = threads.MAX_THREADS
    result_type = dm.value_type(result)
    results = context.alloca(b, ir.ArrayType(result_type, slots))
    statuses = context.alloca(b, ir.ArrayType(dm.i32, slots))
    exceptions = context.alloca(b, ir.ArrayType(dm.ptr, slots))
    captured_slot = context.alloca(b, captured_struct)
    env = context.alloca(b, _ENV)
    b.store(captured_value, captured_slot)
    for i, value in ((_COUNT, count), (_CAPTURED, captured_slot), (_RESULTS, results),
                     (_STATUSES, statuses), (_EXCEPTIONS, exceptions)):
        b.store(value, struct_field(b, env, _ENV, i))
    run = context.declare_external(threads.SYMBOL, ir.VoidType(), [dm.ptr, dm.ptr, dm.i64])
    _without_gil(context, b, lambda: b.call(run, [chunk, env, _threads_wanted(b)]))
    chunks = b.load(struct_field(b, env, _ENV, _CHUNKS), typ=dm.i64)

    def slot(array, element_type, k):
        return struct_field(b, array, ir.ArrayType(element_type, slots), k)
    failed = context.alloca(b, dm.i64)
    b.store(ir.Constant(dm.i64, -1), failed)
    with for_range(b, ir.Constant(dm.i64, 0), chunks) as k:
        status = b.load(slot(statuses, dm.i32, k), typ=dm.i32)
        first = b.icmp_signed("<", b.load(failed, typ=dm.i64), ir.Constant(dm.i64, 0))
        with b.if_then(b.and_(b.icmp_signed("!=", status, STATUS_OK), first)):
            b.store(k, failed)
    k_failed = b.load(failed, typ=dm.i64)
    with b.if_then(b.icmp_signed(">=", k_failed, ir.Constant(dm.i64, 0)), likely=False):
        if combine is not None:
            with for_range(b, ir.Constant(dm.i64, 0), chunks) as k:
                ok = b.icmp_signed("==", b.load(slot(statuses, dm.i32, k), typ=dm.i32),
                                   STATUS_OK)
                with b.if_then(ok):
                    decref(b, result, b.load(slot(results, result_type, k), typ=result_type))
        with for_range(b, b.add(k_failed, ir.Constant(dm.i64, 1)), chunks) as k:
            others = b.icmp_signed("!=", b.load(slot(statuses, dm.i32, k), typ=dm.i32),
                                   STATUS_OK)
            with b.if_then(others):  # raised once: the later chunks' exceptions are dropped
                emit_release(b, b.load(slot(exceptions, dm.ptr, k), typ=dm.ptr))
        b.store(b.load(slot(exceptions, dm.ptr, k_failed), typ=dm.ptr), b.function.args[1])
        context.propagate(b, STATUS_ERROR)
    if combine is None:
        return dm.null_value(t.none)
    total = context.alloca(b, result_type)
    b.store(b.load(slot(results, result_type, ir.Constant(dm.i64, 0)), typ=result_type), total)
    with for_range(b, ir.Constant(dm.i64, 1), chunks) as k:
        so_far = b.load(total, typ=result_type)
        part = b.load(slot(results, result_type, k), typ=result_type)
        merged = context.cast(b, context.call_function(b, combine, [so_far, part]),
                              combine.return_type, result)
        decref(b, result, so_far)
        decref(b, result, part)
        b.store(merged, total)
    return b.load(total, typ=result_type)


@template(threads.get_thread_id)
def _get_thread_id(tctx):
    """This thread's number in its region's team (0 outside a region), in compiled code."""
    def codegen(context, builder, sig, args):
        return builder.call(context.declare_external(threads.THREAD_ID, dm.i64, []), [])
    return t.int64(), codegen


@template(threads.get_num_threads)
def _get_num_threads(tctx):
    """How many threads the next region asks for, in compiled code."""
    def codegen(context, builder, sig, args):
        return _threads_wanted(builder)
    return t.int64(), codegen

"""The compilation pipeline, one stage per line:

    Python function ─frontend─▶ AST ─typing─▶ TypedFunction ─codegen─▶ LLVM IR ─cpu─▶ machine code

Each stage is a function from the previous stage's output; set KILN_DUMP=typed,llvm,asm
to print a stage's result for every function compiled (and KILN_DUMP=fusion for the array
expressions codegen computed in one loop)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from llvmlite import ir

from .codegen.context import CodegenContext, ModuleState
from .errors import KilnError
from .options import dump
from .typing.context import TypingContext

_typing_contexts = {}


def typing_context(target: str) -> TypingContext:
    """The one typing context per target (it caches every typed function)."""
    if target not in _typing_contexts:
        from . import library
        library.load()
        _typing_contexts[target] = TypingContext(target)
    return _typing_contexts[target]


@dataclass
class CompileResult:
    typed: object           # the TypedFunction
    llvm_ir: str            # the module as generated (before optimization)
    compiled: object        # the CPU engine's CompiledModule
    entry_symbol: str       # the CPython entry point's symbol
    native_symbol: str      # the native function's symbol
    keepalive: list         # Python objects the machine code refers to
    fusion: list            # what codegen fused: one line per array expression
    split_reductions: list  # the whole-array reductions split across threads, by name
    cacheable: bool = False   # the code embeds no process address (it may be cached)


def compile_cpu(py_func, argtypes, options, declared_return=None, exact_layout=True,
                cache=None, load=True):
    """Compile one specialization of `py_func` for the CPU: frontend, typing, codegen, JIT
    (or the on-disk `cache`, when given and the code does not embed process addresses).
    Without `load`, stop before the JIT: the machine code is already loaded, from a cache
    entry that holds no IR (cpu/precompiled.py), and only the stages are wanted."""
    from .codegen.boxing import build_entry_point
    from .library.linking import compile_linked
    from .runtime.engine import get_engine

    tctx = typing_context("cpu")
    typed = tctx.type_function(py_func, argtypes, declared_return, options)      # frontend+typing
    dump("typed", f"{typed.ir.qualname}{argtypes} -> {typed.return_type}: {typed.locals}")
    state = ModuleState(typed.symbol, tctx, "cpu")
    if cache is None and load:   # cached code must stand alone: it copies its callees
        state.load_alone = _load_alone
    context = CodegenContext(state, options)
    native = context.lower_function(typed)                                          # codegen
    native.linkage = "external"
    entry_symbol = f"{typed.symbol}.entry"
    try:
        build_entry_point(context, typed, native, entry_symbol, exact_layout)
    except KilnError as e:   # a result Python cannot receive: point at a return
        raise e.with_location(typed.ir.loc(_first_return(typed.ir.node)))
    llvm_ir = str(state.module)
    dump("llvm", llvm_ir)
    if options.parallel and load:
        _warn_if_serial(typed, state)
    if load:
        compiled = compile_linked(llvm_ir, state.object_refs,                       # cpu
                                  cache if state.cacheable else None)
        dump("asm", lambda: compiled.assembly)
    else:
        compiled = get_engine().unloaded(llvm_ir)
    return CompileResult(typed, llvm_ir, compiled, entry_symbol, typed.symbol, state.keepalive,
                         state.fusion, state.split_reductions, state.cacheable)


def _load_alone(state, symbol):
    """Load the module of a large callee that later modules call by `symbol`
    (codegen/sharing.py)."""
    from .library.linking import compile_linked
    from .runtime.engine import get_engine
    compile_linked(str(state.module), state.object_refs)
    get_engine().export(symbol)


def _warn_if_serial(typed, state):
    """Numba's NumbaPerformanceWarning for a parallel=True function in which nothing runs
    on several threads: no prange loop split, no array expression or whole-array
    reduction (KILN_DISABLE_PERFORMANCE_WARNINGS=1 turns it off, as Numba's setting)."""
    import warnings
    from .errors import PerformanceWarning
    from .options import env_flag
    if any(loop.parallel for loop in typed.prange_loops) or state.fusion or \
            state.split_reductions or env_flag("DISABLE_PERFORMANCE_WARNINGS"):
        return
    ir_ = typed.ir
    why = "; ".join(f"the prange loop at line {loop.line} runs serially: {loop.reason}"
                    for loop in typed.prange_loops) or \
        "it has no prange loop, array expression or whole-array reduction"
    warnings.warn_explicit(PerformanceWarning(
        f"The keyword argument 'parallel=True' was specified but no transformation for "
        f"parallel execution was possible: in {ir_.qualname}, {why} (its "
        "parallel_diagnostics() says the same)"), PerformanceWarning, ir_.filename,
        ir_.node.lineno)


def compile_ufunc_loop(py_func, argtypes, declared_return, options, parallel, stretch_of,
                       cache=None):
    """Compile `py_func` as a (generalized) ufunc kernel for `argtypes`: frontend, typing,
    codegen of the kernel and of NumPy's inner loop around it, whose iterations
    `stretch_of(context, native kernel, typed kernel)` emits (ufunc/loops.py), JIT.
    Returns the loop's address, the typed kernel and what the code needs kept alive (the
    machine code comes from the on-disk `cache` when it holds it)."""
    from .library.linking import compile_linked
    from .ufunc.loops import build_loop

    tctx = typing_context("cpu")
    typed = tctx.type_function(py_func, argtypes, declared_return, options)          # typing
    state = ModuleState(typed.symbol, tctx, "cpu")
    context = CodegenContext(state, options)
    native = context.lower_function(typed)                                            # codegen
    loop_symbol = f"{typed.symbol}.ufunc_loop{'.parallel' if parallel else ''}"
    build_loop(context, loop_symbol, parallel, stretch_of(context, native, typed))
    llvm_ir = str(state.module)
    dump("llvm", llvm_ir)
    compiled = compile_linked(llvm_ir, state.object_refs,                             # cpu
                              cache if state.cacheable else None)
    state.keepalive.append(compiled)
    return compiled.address(loop_symbol), typed, state.keepalive


def compile_cfunc(py_func, sig, options, owner, symbol, cache=None):
    """Compile `py_func` for the signature `sig` as a C function named `symbol`
    (ccallback.py): frontend, typing, codegen of the function, of its C wrapper (which
    reports an exception in the name of `owner`) and of `symbol.kiln`, the function in
    kiln's own convention, JIT (or the on-disk `cache`). Returns the compiled module and
    what the code needs kept alive."""
    from .ccallback import build_c_wrapper
    from .library.linking import compile_linked

    tctx = typing_context("cpu")
    typed = tctx.type_function(py_func, tuple(sig.args), sig.return_type, options)  # typing
    state = ModuleState(typed.symbol, tctx, "cpu")
    context = CodegenContext(state, options)
    native = context.lower_function(typed)                                            # codegen
    build_c_wrapper(context, sig, native, symbol, owner)
    kiln_entry = ir.Function(state.module, native.function_type, name=f"{symbol}.kiln")
    builder = ir.IRBuilder(kiln_entry.append_basic_block())
    builder.ret(builder.call(native, kiln_entry.args))
    llvm_ir = str(state.module)
    dump("llvm", llvm_ir)
    compiled = compile_linked(llvm_ir, state.object_refs,                             # cpu
                              cache if state.cacheable else None)
    return compiled, state.keepalive


def _first_return(fn):
    """The function's first `return` with a value (not one of a nested function's), or
    the def itself."""
    pending = list(fn.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Return) and node.value is not None:
            return node
        if not isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            pending[:0] = [child for child in ast.iter_child_nodes(node)
                           if isinstance(child, ast.stmt)]
    return fn

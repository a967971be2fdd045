"""The compilation pipeline, one stage per line:

    Python function ─frontend─▶ AST ─typing─▶ TypedFunction ─codegen─▶ LLVM IR ─cpu─▶ machine code

Each stage is a function from the previous stage's output; set KILN_DUMP=typed,llvm,asm
to print a stage's result for every function compiled (and KILN_DUMP=fusion for the array
expressions codegen computed in one loop)."""
from __future__ import annotations

import ast
from dataclasses import dataclass

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


def compile_wrapped(py_func, argtypes, declared_return, options, wrap, cache=None):
    """Compile `py_func` for `argtypes` with code around it that the caller emits: frontend,
    typing, codegen of the function and `wrap(context, native function, typed function)`
    (NumPy's inner loop of a ufunc: ufunc/loops.py; a C function's wrapper: ccallback.py),
    JIT (or the on-disk `cache`, when the code does not embed process addresses). Returns
    the compiled module, the typed function and what the code needs kept alive."""
    from .library.linking import compile_linked

    tctx = typing_context("cpu")
    typed = tctx.type_function(py_func, argtypes, declared_return, options)          # typing
    state = ModuleState(typed.symbol, tctx, "cpu")
    context = CodegenContext(state, options)
    native = context.lower_function(typed)                                            # codegen
    wrap(context, native, typed)
    llvm_ir = str(state.module)
    dump("llvm", llvm_ir)
    compiled = compile_linked(llvm_ir, state.object_refs,                             # cpu
                              cache if state.cacheable else None)
    return compiled, typed, state.keepalive


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

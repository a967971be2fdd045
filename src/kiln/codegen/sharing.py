"""Large functions compiled once per process and called from every module that needs them.

A compiled function carries a copy of each function it calls, and LLVM optimizes every
copy again: a function calling `np.median` spent seconds optimizing the same selection code
that the function compiled before it had already optimized. In the JIT (not in cached or
ahead-of-time code, whose object code must stand alone, nor on the GPU) a callee whose code
is large is instead compiled alone the first time it is called, loaded, and declared in
later modules, as Numba compiles each implementation once. Small callees stay copies: LLVM
inlines them, and a call would cost more than it saves.

The loader comes from the target (ModuleState.load_alone), which this layer cannot import.
"""
from __future__ import annotations

import threading

from llvmlite import ir

# A callee whose code (with the copies of its own callees) has fewer LLVM instructions is
# copied into its callers. Measured: bench/'s kernels run as fast at 400 as at 1,000 (ratios
# to Numba within noise), and library-heavy test files take 25% less time (200 is slower:
# more modules, each with its own fixed cost).
MIN_INSTRUCTIONS = 400

_symbols = {}          # id(typed) -> (typed, exported symbol or None: copy it)
_in_progress = set()   # id(typed) of callees being compiled alone (a cycle copies instead)
_keepalive = []        # what the loaded modules' code embeds
_lock = threading.RLock()


def shared_symbol(state, typed):
    """The symbol of `typed`'s loaded code when callers call it there, else None (the
    caller lowers its own copy)."""
    if state.load_alone is None or typed.generator or typed.recursive or \
            typed.options.parallel:
        return None
    key = id(typed)
    with _lock:
        if key in _symbols:
            return _symbols[key][1]
        if key in _in_progress:
            return None
        _in_progress.add(key)
        try:
            symbol = _compile_alone(state, typed)
        finally:
            _in_progress.discard(key)
        _symbols[key] = (typed, symbol)
        return symbol


def _compile_alone(state, typed):
    """Lower `typed` into a module of its own to measure it; load it and return its
    exported symbol if it is large, else None (a small callee's module is dropped: the
    callers copy it, at the price of lowering it once more per process)."""
    from .context import CodegenContext, ModuleState
    alone = ModuleState(f"{typed.symbol}.alone", state.tctx, state.target)
    alone.load_alone = state.load_alone
    context = CodegenContext(alone, typed.options)
    native = context.lower_function(typed)
    if _instructions(alone.module) < MIN_INSTRUCTIONS:
        return None
    symbol = f"{typed.symbol}.shared"
    wrapper = ir.Function(alone.module, native.function_type, name=symbol)
    builder = ir.IRBuilder(wrapper.append_basic_block())
    builder.ret(builder.call(native, wrapper.args))
    state.load_alone(alone, symbol)
    _keepalive.append(alone.keepalive)
    return symbol


def _instructions(module) -> int:
    return sum(len(block.instructions) for fn in module.functions for block in fn.blocks)

"""The runtime pieces that compiled code calls: NRT, BLAS and LAPACK, the random
state, the stack guard, the thread layer. Which ones a module needs is read from its IR
when it is compiled and stored with its cache entry, so that a cached hit binds them
without the IR (and without loading the parts it does not call). It sits in the library,
whose random state and BLAS calls are parts too, and binds them for the JIT
(runtime/engine.py), which knows none of them."""
from __future__ import annotations

import re

from ..runtime.engine import get_engine, lock

_PARTS = ("nrt", "random", "stack", "threads")   # any other need is a BLAS/LAPACK symbol


def runtime_needs(llvm_ir: str) -> tuple:
    """What `llvm_ir` calls: names of runtime parts, and each BLAS/LAPACK symbol."""
    from . import linalg, random
    from ..runtime import stack
    needs = ["nrt"] if "kiln_nrt_" in llvm_ir else []
    needs += sorted(set(re.findall(linalg.SYMBOL_PREFIX + r"\w+", llvm_ir)))
    if random.SYMBOL in llvm_ir:
        needs.append("random")
    if stack.SYMBOL in llvm_ir:
        needs.append("stack")
    if "kiln_thread" in llvm_ir:
        needs.append("threads")
    return tuple(needs)


def bind_runtime(needs):
    """Load and bind the parts of the runtime in `needs` (runtime_needs)."""
    if "nrt" in needs:
        from ..runtime.nrt import ensure_runtime
        ensure_runtime()
    routines = [n for n in needs if n not in _PARTS]
    if routines:
        from . import linalg
        linalg.bind_symbols(" ".join(routines))
    if "random" in needs:
        from . import random
        random.bind_symbols()
    if "stack" in needs:
        from ..runtime import stack
        stack.bind_symbols()
    if "threads" in needs:
        from ..runtime import threads
        threads.ensure_runtime()


def compile_linked(llvm_ir: str, object_refs, cache=None):
    """Compile `llvm_ir` into the JIT with the runtime parts it calls bound first; the
    module records them (`runtime_needs`) for its cache entry."""
    with lock:
        needs = runtime_needs(llvm_ir)
        bind_runtime(needs)
        compiled = get_engine().compile(llvm_ir, object_refs=object_refs, cache=cache)
    compiled.runtime_needs = needs
    return compiled

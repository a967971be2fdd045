"""The runtime pieces that compiled code calls: NRT, BLAS and LAPACK, the random
state, the stack guard, the thread layer. Which ones a module needs is read from its IR
when it is compiled and stored with its cache entry, so that a cached hit binds them
without the IR (and without loading the parts it does not call)."""
from __future__ import annotations

import re

_PARTS = ("nrt", "random", "stack", "threads")   # any other need is a BLAS/LAPACK symbol


def runtime_needs(llvm_ir: str) -> tuple:
    """What `llvm_ir` calls: names of runtime parts, and each BLAS/LAPACK symbol."""
    from ..library import linalg, random
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
        from ..library import linalg
        linalg.bind_symbols(" ".join(routines))
    if "random" in needs:
        from ..library import random
        random.bind_symbols()
    if "stack" in needs:
        from ..runtime import stack
        stack.bind_symbols()
    if "threads" in needs:
        from ..runtime import threads
        threads.ensure_runtime()

"""What codegen asks of the type families that live above it, in library/: the value of a
list, set or dict display, and the iteration of a `for` loop over a value. Each family
answers in the module that owns it (library/list_layout.py, sets.py, dicts.py,
iteration.py), which `library.load()` imports before any compiling, so codegen names no
library module (typing/families.py is typing's side of the same)."""
from __future__ import annotations

DISPLAYS = {}     # "list", "set": build(context, b, ty, items, item types);
                  # "dict": build(context, b, ty, [(key, key type, value, value type)...])
_ITERATION = []   # [iteration_for(context, builder, value, ty)]


def display(kind):
    """Register the decorated function as the lowering of the `kind` display."""
    def register(fn):
        DISPLAYS[kind] = fn
        return fn
    return register


def iteration(iteration_for):
    """Register `iteration_for(context, builder, value, ty)`: the iteration of a `for` loop
    over `value` (library/iteration.py's protocol)."""
    _ITERATION[:] = [iteration_for]
    return iteration_for


def iteration_for(context, builder, value, ty):
    return _ITERATION[0](context, builder, value, ty)

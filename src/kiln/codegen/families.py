"""What codegen asks of the type families that live above it, in library/: the value of a
list, set or dict display, the iteration of a `for` loop over a value, and an array
expression computed in one loop. Each family answers in the module that owns it
(library/list_layout.py, sets.py, dicts.py, iteration.py, fusion.py), which
`library.load()` imports before any compiling, so codegen names no library module
(typing/families.py is typing's side of the same)."""
from __future__ import annotations

from ..questions import Questions

_QUESTIONS = Questions(
    "iteration_for",  # (context, builder, value, ty) -> the iteration of a `for` loop over
                      # value (library/iteration.py's protocol)
    "evaluate",       # (context, builder, Tree) -> the array expression computed into a
                      # new array (a new reference)
)
answers, ask = _QUESTIONS.answers, _QUESTIONS.ask

# the value of a display: build_display("list" or "set", context, b, ty, items, item types),
# build_display("dict", context, b, ty, [(key, key type, value, value type)...])
_DISPLAYS = Questions("list", "set", "dict")
display, build_display = _DISPLAYS.answers, _DISPLAYS.ask

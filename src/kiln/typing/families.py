"""What typing asks of the type families that live above it, in library/: the type of a
display (`[a, b]`, `{k: v}`, `{a, b}`), the item types that an operation fixes for an
empty container (`l = []; l.append(x)`) and whether an operation must wait for them, and
single questions answered by one module each (`ask`): the item type a `for` loop over a
value gives (library/iteration.py), a tuple indexed or sliced by constants
(library/tuples.py), an `is` that the types answer (library/optional.py), and the parallel
stage's rewriting of a parallel=True function before typing (parallel/outline.py), an
operation on fixed-width strings done on their text (library/charseq.py). Each
answers in the module that owns it, which `library.load()` imports before any typing, so
typing names no module above it."""
from __future__ import annotations

from ..questions import Questions

ITEM_FIXERS = []   # (implied(receiver, method, args) -> type or None, reads(...) -> bool)

_QUESTIONS = Questions(
    "item_type_of",      # (ty) -> the type of a `for` loop's items over ty, or None
    "static_getitem",    # (tuple type, int) -> the Resolution of `tup[k]`
    "static_getslice",   # (tuple type, slice type, slice) -> the Resolution of `tup[a:b:c]`
    "known_identity",    # (bool, a, b) -> the Resolution of an `a is b` known from types
    "optional_attribute",  # (Optional type, name, Resolution of the value's) -> `opt.name`
    "sequence_unpacker",  # (ty, n) -> a function making the n-tuple `a, b, c = seq` takes
    "isinstance",        # (ty, class or tuple of classes) -> whether a ty value is one
    "python_classes",    # (ty) -> the classes a ty value may be in Python, or None
    "getattr_call",      # (arg types, name, the read of x.name or None) -> getattr's
    "outline_prange_loops",  # (FunctionIR) -> a report per prange loop, outlined in place
    "decayed",           # (tctx, key, args, kws) -> the Resolution of a call no template
                         # takes, with fixed-width strings as their text, or None
)
answers, ask = _QUESTIONS.answers, _QUESTIONS.ask

# "list", "dict", "set" -> the type of the display: display_type(kind, items' types...)
_DISPLAYS = Questions("list", "dict", "set")
display, display_type = _DISPLAYS.answers, _DISPLAYS.ask


def item_fixer(implied, reads):
    """`implied(receiver, method, args)`: the container type that `receiver.method(*args)`
    fixes for a container whose item types are not known yet, or None; `reads(receiver,
    method, args)`: whether that operation needs them (the typer retries it later)."""
    ITEM_FIXERS.append((implied, reads))


def implied_type(receiver, method, args):
    for implied, _ in ITEM_FIXERS:
        fixed = implied(receiver, method, args)
        if fixed is not None:
            return fixed
    return None


def reads_items(receiver, method, args) -> bool:
    return any(reads(receiver, method, args) for _, reads in ITEM_FIXERS)

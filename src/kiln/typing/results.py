"""What typing produces, a TypedFunction, and the exceptions by which a pass of the
fixpoint waits: for a local's type (Deferred) or for a recursive call's (RecursionPending)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import types as t
from ..frontend import FunctionIR


@dataclass
class TypedFunction:
    """A function with every expression typed and every operation resolved: codegen's input."""

    ir: FunctionIR
    argtypes: tuple
    return_type: t.Type
    options: object
    locals: dict = field(default_factory=dict)
    typemap: dict = field(default_factory=dict)    # expression node -> type
    calls: dict = field(default_factory=dict)      # node or (node, role) -> Resolution
    constants: dict = field(default_factory=dict)  # node -> compile-time value
    symbol: str = ""
    recursive: bool = False   # in a cycle of calls: its frames need a stack guard
    generator: bool = False   # its body yields: codegen makes it a coroutine
    callees: frozenset = frozenset()  # keys of the functions typed for its calls
    #   (TypingContext.callees: what codegen/borrowing.py reads to see all it runs)
    prange_loops: list = field(default_factory=list)  # the parallel stage's LoopReports
    unassigned: dict = field(default_factory=dict)  # statement or branch of a conditional
    #   expression -> (local, free) it reads that no compiled path assigns: it raises
    #   UnboundLocalError (NameError) instead

    def resolved(self):
        return self

    def type_of(self, node):
        return self.typemap[node]


class RecursionPending(Exception):
    """A call reached a function still being typed whose return type is not known yet
    (recursion without a signature). The statement with the call is skipped for this
    pass; a typing that ends with such statements raises it again, with `partial`, the
    type its other returns give, so the function waited on (one of `keys`) is typed again
    with that as its return type (TypingContext.type_function), as Numba infers it from a
    base case."""

    def __init__(self, keys, partial=None, where=None):
        self.keys = frozenset(keys)
        self.partial = partial
        self.where = where      # the first statement that waited


class Deferred(Exception):
    """A local was read before this pass gave it a type; retried on the next pass. One
    still untyped when typing ends is assigned on no path kiln compiles, so its statement
    raises what CPython raises there (`free`: a nested function's free variable). `items`:
    the local is assigned but is a dict whose key and value types no pass has fixed yet."""

    def __init__(self, name, node, free=False, items=False):
        self.name = name
        self.node = node
        self.free = free
        self.items = items

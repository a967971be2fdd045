"""Which reads of a local may find it unassigned, where Python raises UnboundLocalError.

A forward pass over the function's statements tracks the set of locals assigned on every
path so far (locals are never deleted, so the set at a loop's head is the set on entry).
A read of a local outside that set may run before any assignment: codegen gives such a
local a flag, set by each assignment and tested at those reads only. Most functions have
none, and where LLVM proves a flag set it folds the test away.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field


@dataclass
class Unbound:
    reads: set = field(default_factory=set)   # Name (or AugAssign) nodes to test
    calls: dict = field(default_factory=dict)  # Call node -> locals assigned on every path

    def at_call(self, call, name):
        """Whether a nested function called at `call` may find `name` unassigned."""
        return name not in self.calls.get(call, ())


def unbound_reads(fn: ast.FunctionDef, arg_names, local_names, truth,
                  fold_constants=True) -> Unbound:
    """`truth(test)` is a test's truth as typing found it (True/False), or None; constant
    tests are taken as they read unless `fold_constants` is false (then code after
    `if True: raise` counts as reachable, for callers that must see every read)."""
    flow = _Flow(frozenset(local_names), truth, fold_constants)
    flow.block(fn.body, frozenset(arg_names))
    return flow.found


def _meet(states):
    reachable = [s for s in states if s is not None]
    return frozenset.intersection(*reachable) if reachable else None


class _Flow:
    def __init__(self, local_names, truth, fold_constants):
        self.local_names = local_names
        self.typed_truth = truth
        self.fold_constants = fold_constants
        self.found = Unbound()
        self.breaks = []  # per enclosing loop: the states at its `break`s

    def truth(self, test):
        if isinstance(test, ast.Constant) and self.fold_constants:
            return bool(test.value)
        return self.typed_truth(test)

    def block(self, stmts, state):
        """The state after `stmts`; None where no path falls through."""
        for stmt in stmts:
            if state is None:
                return None
            state = getattr(self, "stmt_" + type(stmt).__name__, self.stmt_other)(stmt, state)
        return state

    def reads(self, node, state):
        """Record the reads in an expression evaluated in `state` (it assigns nothing)."""
        if node is None:
            return
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) \
                    and n.id in self.local_names and n.id not in state:
                self.found.reads.add(n)
            elif isinstance(n, ast.Call):
                self.found.calls[n] = state

    def assigned(self, target, state):
        """`state` after storing to `target` (its index expressions are read first)."""
        if isinstance(target, ast.Name):
            return state | {target.id}
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                state = self.assigned(elt, state)
            return state
        self.reads(target, state)
        return state

    def stmt_other(self, node, state):  # Expr, Pass, Assert: reads only
        for child in ast.iter_child_nodes(node):
            self.reads(child, state)
        return state

    def stmt_Assign(self, node, state):
        self.reads(node.value, state)
        for target in node.targets:
            state = self.assigned(target, state)
        return state

    def stmt_AnnAssign(self, node, state):
        if node.value is None:
            return state
        self.reads(node.value, state)
        return self.assigned(node.target, state)

    def stmt_AugAssign(self, node, state):
        if isinstance(node.target, ast.Name) and node.target.id in self.local_names \
                and node.target.id not in state:
            self.found.reads.add(node)
        self.reads(node.value, state)
        return self.assigned(node.target, state)

    def stmt_FunctionDef(self, node, state):
        return state | {node.name}

    def stmt_Return(self, node, state):
        self.reads(node.value, state)
        return None

    def stmt_Raise(self, node, state):
        self.reads(node.exc, state)
        return None

    def stmt_Break(self, node, state):
        self.breaks[-1].append(state)
        return None

    def stmt_Continue(self, node, state):
        return None

    def stmt_If(self, node, state):
        self.reads(node.test, state)
        taken = self.truth(node.test)
        if taken is not None:
            return self.block(node.body if taken else node.orelse, state)
        return _meet([self.block(node.body, state), self.block(node.orelse, state)])

    def stmt_While(self, node, state):
        self.reads(node.test, state)
        exits = self.loop(node.body, state)
        if self.truth(node.test):  # `while True`: left only by `break`
            return _meet(exits)
        return _meet(exits + [self.block(node.orelse, state)])

    def stmt_For(self, node, state):
        self.reads(node.iter, state)
        exits = self.loop(node.body, self.assigned(node.target, state))
        return _meet(exits + [self.block(node.orelse, state)])

    def stmt_Try(self, node, state):
        """An except block may start after any statement of the body, so it sees the state
        on entry (states only grow); so does a `finally` body, which also runs on the way
        out of an exception or a jump."""
        body = self.block(node.body, state)
        ends = [self.block(node.orelse, body)] + [self.block(h.body, state)
                                                   for h in node.handlers]
        after = _meet(ends)
        if not node.finalbody:
            return after
        self.block(node.finalbody, state)
        return None if after is None else self.block(node.finalbody, after)

    def loop(self, body, state):
        """Walk a loop's body; returns the states at its `break`s."""
        self.breaks.append([])
        self.block(body, state)
        return self.breaks.pop()


def unbound_error(name, free):
    """CPython's exception for reading a local (or, from a nested function, a free
    variable) that has no value, worded as the running Python words it."""
    if sys.version_info >= (3, 11):
        if free:
            return NameError, (f"cannot access free variable {name!r} where it is not "
                               "associated with a value in enclosing scope")
        return UnboundLocalError, (f"cannot access local variable {name!r} where it is not "
                                   "associated with a value")
    if free:
        return NameError, (f"free variable {name!r} referenced before assignment in "
                           "enclosing scope")
    return UnboundLocalError, f"local variable {name!r} referenced before assignment"

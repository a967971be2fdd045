"""`nonlocal` in compiled code. A variable of the compiled function that a function nested
in it declares `nonlocal` is a cell, as in CPython: one storage that the function and
every nested function reading it share, so an assignment in a nested function is seen by
the caller after the call. Kiln passes a nested function the values of the locals it
reads, so such a variable becomes a one-item list (`z` is read and assigned as
`__kiln_cell_z[0]`), made where the variable is first bound: the list is what they share.

The variable must be a parameter or first bound by a plain `z = value` statement of the
function's body, before any other statement mentions it, and assigned only by `z = ...`
and `z += ...` (no loop or unpacking target, no `del`). It holds values of one type, as a
list does: a nested function assigning another type is a TypingError (an int stored where
a float is held becomes a float). `nonlocal` of a nested function's own variable, and
`global`, are refused."""
from __future__ import annotations

import ast

from ..errors import UnsupportedError

PREFIX = "__kiln_cell_"


def make_cells(fn: ast.FunctionDef, loc) -> None:
    """Rewrite `fn` (the compiled function) so that each of its variables that a nested
    function declares `nonlocal` is a cell; `loc(node)` locates an error."""
    from . import _own_scope
    nested = [n for n in _own_scope(fn) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
    declared = {}
    for node in (s for g in nested for s in ast.walk(g)):
        if isinstance(node, ast.Nonlocal):
            for name in node.names:
                declared.setdefault(name, node)
    for name, where in declared.items():
        if not _binds(fn, name, _own_scope) or not _refers_to(fn, name, _own_scope):
            raise UnsupportedError(f"kiln supports 'nonlocal {name}' for a variable of the "
                                   "compiled function itself, not of a function nested in "
                                   "it", loc(where))
        _make_cell(fn, name, loc, _own_scope)


def _declares(fn, name, own_scope):
    return any(isinstance(s, ast.Nonlocal) and name in s.names for s in own_scope(fn))


def _binds(fn, name, own_scope):
    """Whether the function `fn` has a variable `name` of its own."""
    args = fn.args
    if name in {a.arg for a in args.args + args.kwonlyargs} | \
            {a.arg for a in (args.vararg, args.kwarg) if a is not None}:
        return True
    return not _declares(fn, name, own_scope) and \
        any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
            for n in own_scope(fn))


def _refers_to(fn, name, own_scope):
    """Whether every `nonlocal name` nested in `fn` means `fn`'s variable (no function
    between them has a variable `name` of its own)."""
    def check(scope, owner):
        for node in own_scope(scope):
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                if _declares(node, name, own_scope) and owner is not fn:
                    return False
                if not check(node, node if _binds(node, name, own_scope) else owner):
                    return False
        return True
    return check(fn, fn)


def _make_cell(fn, name, loc, own_scope):
    cell = PREFIX + name
    if name in {a.arg for a in fn.args.args + fn.args.kwonlyargs}:
        first = ast.parse(f"{cell} = [{name}]").body[0]
        for node in ast.walk(first):
            ast.copy_location(node, fn.body[0])
        fn.body.insert(0, first)
    else:
        first = next(s for s in fn.body if any(isinstance(n, ast.Name) and n.id == name
                                               for n in ast.walk(s)))
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1 and
                isinstance(first.targets[0], ast.Name) and first.targets[0].id == name):
            raise UnsupportedError(f"kiln supports a nonlocal variable ({name!r}) first "
                                   f"bound by a `{name} = value` statement of the function's "
                                   "body, before any other statement mentions it",
                                   loc(first))
        first.targets[0].id = cell
        first.value = ast.copy_location(ast.List([first.value], ast.Load()), first.value)
    _Cell(name, cell, own_scope, first).generic_visit(fn)
    allowed = {id(s.targets[0]) for s in ast.walk(fn) if isinstance(s, ast.Assign) and
               len(s.targets) == 1} | \
        {id(s.target) for s in ast.walk(fn) if isinstance(s, ast.AugAssign)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and \
                node.value.id == cell and not isinstance(node.ctx, ast.Load) and \
                id(node) not in allowed:
            raise UnsupportedError(f"kiln supports a nonlocal variable ({name!r}) assigned "
                                   f"by `{name} = ...` and `{name} += ...` only", loc(node))


class _Cell(ast.NodeTransformer):
    """Every `name` that means the cell's variable (in the function and in the nested
    functions without a variable `name` of their own) as `cell[0]`; `nonlocal name`
    dropped. The statement that makes the cell (`first`) is left as it is."""

    def __init__(self, name, cell, own_scope, first):
        self.name, self.cell, self.own_scope, self.first = name, cell, own_scope, first

    def visit(self, node):
        return node if node is self.first else super().visit(node)

    def visit_FunctionDef(self, node):
        return node if _binds(node, self.name, self.own_scope) else self.generic_visit(node)

    visit_Lambda = visit_FunctionDef

    def visit_Nonlocal(self, node):
        node.names = [n for n in node.names if n != self.name]
        return node if node.names else ast.copy_location(ast.Pass(), node)

    def visit_Name(self, node):
        if node.id != self.name:
            return node
        read = ast.Subscript(ast.Name(self.cell, ast.Load()), ast.Constant(0), node.ctx)
        for part in (read, read.value, read.slice):
            ast.copy_location(part, node)
        return read

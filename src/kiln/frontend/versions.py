"""A name rebound in the function's top-level statements becomes a new local at each binding
(`a = a[0, :, ::-1]`, `x = x.ravel()`, `n = float(n)`), so that each may have its own type.

Typing gives a local one type for the whole function (the types assigned to it unified),
so without this an array rebound to another rank could not be compiled. Numba gets the
same effect from SSA form. Only bindings in the straight-line statements of the body are
versioned: such a statement runs before every statement after it and no loop returns
above it, so each later read sees exactly the newest version. Bindings inside loops,
branches, `try` and `with` bodies keep the version current there, as do augmented
assignments (`a += 1` updates the value in place).

Names that a nested function or lambda reads, that are deleted, that a comprehension
binds for itself, or that are bound other than by a name node (`except E as e`, a `match`
pattern, `import`) are left alone.
"""
from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def version_rebound_locals(fn: ast.FunctionDef) -> dict:
    """Rename, in place, each later top-level binding of a name bound more than once;
    returns {new name: the name in the source}."""
    params = {a.arg for a in fn.args.args} | ({fn.args.vararg.arg} if fn.args.vararg else set())
    counts = dict.fromkeys(params, 1)
    for stmt in fn.body:
        for name in _bound_names(stmt):
            counts[name] = counts.get(name, 0) + 1
    versioned = {name for name, n in counts.items() if n > 1} - _unversionable(fn)
    if not versioned:
        return {}
    taken = {node.id for node in ast.walk(fn) if isinstance(node, ast.Name)} | params
    current = {name: name for name in versioned}
    seen = set(params)
    renamed = {}
    for stmt in fn.body:
        bound = [name for name in _bound_names(stmt) if name in versioned]
        if isinstance(stmt, ast.Assign):
            _Renamer(current).visit(stmt.value)
            for target in stmt.targets:
                _rename_target_reads(target, current)
        elif isinstance(stmt, ast.AnnAssign):
            _Renamer(current).visit(stmt.value)
        else:
            _Renamer(current).visit(stmt)
            continue
        fresh = {}
        for name in bound:
            if name in seen:   # a rebinding: a new local
                fresh[name] = _new_name(name, taken)
                renamed[fresh[name]] = name
            seen.add(name)
        current.update(fresh)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and \
                        node.id in current:
                    node.id = current[node.id]
    return renamed


def _bound_names(stmt):
    """The names a top-level `=` statement binds (None of other statements)."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and \
            isinstance(stmt.target, ast.Name):
        targets = [stmt.target]
    else:
        return []
    return [node.id for target in targets for node in ast.walk(target)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)]


def _unversionable(fn):
    names = set()
    for node in ast.walk(fn):
        if node is not fn and isinstance(node, _SCOPES):
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Delete):
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, _COMPREHENSIONS):
            names |= {n.id for g in node.generators for n in ast.walk(g.target)
                      if isinstance(n, ast.Name)}
        elif isinstance(node, ast.NamedExpr):
            names.add(node.target.id)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            names.add(node.name)     # bound by a string, not a Name node
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _new_name(name, taken):
    version = 2
    while f"{name}_v{version}" in taken:
        version += 1
    taken.add(f"{name}_v{version}")
    return f"{name}_v{version}"


def _rename_target_reads(target, current):
    """`a[i] = ...`, `a.x = ...`: the object written into is read, in its current version."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            _rename_target_reads(item, current)
    elif isinstance(target, ast.Starred):
        _rename_target_reads(target.value, current)
    elif not isinstance(target, ast.Name):
        _Renamer(current).visit(target)


class _Renamer(ast.NodeVisitor):
    """Every name (read or bound) in the current version."""

    def __init__(self, current):
        self.current = current

    def visit_Name(self, node):
        node.id = self.current.get(node.id, node.id)

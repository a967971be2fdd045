"""A name rebound in the function's top-level statements becomes a new local at each binding
(`a = a[0, :, ::-1]`, `x = x.ravel()`, `n = float(n)`), so that each may have its own type.

Typing gives a local one type for the whole function (the types assigned to it unified),
so without this an array rebound to another rank could not be compiled. Numba gets the
same effect from SSA form. Only bindings in the straight-line statements of the body are
versioned: such a statement runs before every statement after it and no loop returns
above it, so each later read sees exactly the newest version. So are those of an `if`
branch that ends in `return` or `raise` (its own straight line, which never falls
through: `if a == 0: v = np.int64(-7); raise ValueError(v)` keeps `v` an int64 when a
later `v = np.uint64(...)` would make both a float64). Bindings inside loops,
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
    _count_bindings(fn.body, counts)
    versioned = {name for name, n in counts.items() if n > 1} - _unversionable(fn)
    if not versioned:
        return {}
    versions = _Versions(versioned, {node.id for node in ast.walk(fn)
                                     if isinstance(node, ast.Name)} | params)
    versions.block(fn.body, {name: name for name in versioned}, set(params))
    return versions.renamed


def _exiting_branches(stmt):
    """The branches of an `if` that end in `return` or `raise`: they never fall through,
    so what they bind is seen only inside them (`if a == 0: v = np.int64(-7); raise
    ValueError(v)` then `v = np.uint64(...)`), and each is versioned as the body is."""
    if not isinstance(stmt, ast.If):
        return []
    return [b for b in (stmt.body, stmt.orelse) if b and isinstance(b[-1], (ast.Return,
                                                                            ast.Raise))]


def _count_bindings(stmts, counts, straight=True):
    """Count the bindings of the straight-line statements of `stmts` (when `straight`) and
    of the exiting branches in it, and in the other branches of its `if`s (an `elif`)."""
    for stmt in stmts:
        if straight:
            for name in _bound_names(stmt):
                counts[name] = counts.get(name, 0) + 1
        if isinstance(stmt, ast.If):
            exiting = _exiting_branches(stmt)
            for branch in (stmt.body, stmt.orelse):
                _count_bindings(branch, counts, any(branch is b for b in exiting))


class _Versions:
    """Gives the versioned names a new local at each binding of a straight-line block."""

    def __init__(self, versioned, taken):
        self.versioned = versioned
        self.taken = taken
        self.renamed = {}

    def block(self, stmts, current, seen):
        """Version `stmts`, run in order; `current` maps each versioned name to its version
        now, `seen` holds the names bound already (a binding of one is a new local)."""
        for stmt in stmts:
            if isinstance(stmt, ast.If):
                self.branches(stmt, current, seen)
                continue
            bound = [name for name in _bound_names(stmt) if name in self.versioned]
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
                    fresh[name] = _new_name(name, self.taken)
                    self.renamed[fresh[name]] = name
                seen.add(name)
            current.update(fresh)
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and \
                            node.id in current:
                        node.id = current[node.id]

    def branches(self, stmt, current, seen):
        """An `if`: a branch that exits is a straight-line block whose every binding is a
        new local; the others see the versions current here (and may hold an `elif`)."""
        _Renamer(current).visit(stmt.test)
        exiting = _exiting_branches(stmt)
        for branch in (stmt.body, stmt.orelse):
            if any(branch is b for b in exiting):
                self.block(branch, dict(current), seen | self.versioned)
                continue
            for inner in branch:
                if isinstance(inner, ast.If):
                    self.branches(inner, current, seen)
                else:
                    _Renamer(current).visit(inner)


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

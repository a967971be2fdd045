"""Delta debugging of a failing program: remove statements and replace expressions by their
parts for as long as the program still fails the same way on the same input, so what is left
is a few lines that show the bug."""
from __future__ import annotations

import ast
import copy

from tests.fuzz.generator import Program
from tests.fuzz.runner import Child, Outcome


def _signature(outcome: Outcome):
    """What must stay the same while reducing: the kind of failure and the two outcomes (so
    a reduction cannot drift into another failure, such as a NameError or an int64 wrap)."""
    return outcome.kind, outcome.detail.split("\n")[0]


def _statement_lists(tree):
    """Every list of statements in the module, innermost last."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _blocks(statement):
    """The blocks of a compound statement (an if's or a loop's body and else)."""
    if isinstance(statement, ast.FunctionDef):
        return []
    return [b for b in (getattr(statement, "body", None), getattr(statement, "orelse", None)) if b]


def _candidates(tree):
    """Smaller variants of `tree`: a statement removed or replaced by one of its blocks
    (flattening an if or a loop), then an expression replaced by one of its parts."""
    lists = list(_statement_lists(tree))
    for li, body in enumerate(lists):
        for i in range(len(body)):
            if _keep(body[i]):
                continue
            for choice in range(1 + len(_blocks(body[i]))):
                variant = copy.deepcopy(tree)
                target = list(_statement_lists(variant))[li]
                target[i:i + 1] = ([[]] + _blocks(target[i]))[choice]
                if not target:
                    target.append(ast.Pass())
                yield variant
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.expr)]
    for ni, node in enumerate(nodes):
        for part in _parts(node):
            variant = copy.deepcopy(tree)
            old = [n for n in ast.walk(variant) if isinstance(n, ast.expr)][ni]
            new = [n for n in ast.walk(variant) if isinstance(n, ast.expr)][nodes.index(part)]
            if _replace(variant, old, new):
                yield variant


def _keep(statement):
    """Statements never removed: function definitions, and the counter increment that
    bounds a while loop."""
    return isinstance(statement, ast.FunctionDef) or (
        isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
        and statement.target.id.startswith("w"))


def _parts(node):
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Mod) and isinstance(node.right, (ast.Constant, ast.Call)):
            return []    # keeps indices in range and loops bounded
        return [node.left, node.right]
    if isinstance(node, (ast.UnaryOp,)):
        return [node.operand]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "range"):
        return [a for a in node.args if not isinstance(a, ast.Name) or a.id not in ("arr", "iarr")]
    if isinstance(node, ast.Compare):
        return [node.left] + list(node.comparators)
    return []


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return True
    return False


def reduce(program: Program, outcome: Outcome, plant=None, max_runs=400, cuda=False) -> str:
    """The smallest source found that fails like `outcome` on the input that failed."""
    inputs = (program.inputs[outcome.case],) if outcome.case >= 0 else program.inputs
    want = _signature(outcome)
    child = Child(plant, timeout=20.0, cuda=cuda)
    runs = 0
    tree = ast.parse(program.source)
    try:
        tried = {ast.unparse(tree) + "\n"}
        position = 0    # candidates before it failed in the last pass: not tried again at once
        while runs < max_runs:
            improved = False
            for index, variant in enumerate(_candidates(tree)):
                if index < position:
                    continue
                if runs >= max_runs:
                    break
                source = ast.unparse(variant) + "\n"
                if source in tried:
                    continue
                tried.add(source)
                runs += 1
                got = child.run(Program(program.seed, source, inputs))
                if got.kind != "ok" and _signature(got) == want:
                    tree, position, improved = variant, index, True
                    break
            if not improved:
                if position == 0:
                    break
                position = 0
    finally:
        child.stop()
    return ast.unparse(_without_unused_helpers(tree)) + "\n"


def _without_unused_helpers(tree):
    """The module without the helper functions nothing calls any more (defining one has no
    effect of its own: kiln compiles a function when it is first called)."""
    while True:
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        unused = [d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name != "f"
                  and d.name not in used]
        if not unused:
            return tree
        tree.body = [d for d in tree.body if d not in unused]

"""Shrinking a failing program: drop statements and returned values, replace expressions by
their parts and drop keyword arguments, for as long as the program still fails the same way
on the same arguments, so what is left is the few lines that show the bug."""
from __future__ import annotations

import ast
import copy
import re

from tests.fuzz_numpy.generator import Program, flatten
from tests.fuzz_numpy.runner import Child


def signature(outcome):
    """What must stay the same: the kind of failure and its reason without positions and
    values (which change as the program shrinks)."""
    detail = re.sub(r"\[\d+\]: ", "", outcome.detail.split("\n")[0])
    detail = detail.split(";")[0]
    if outcome.kind == "exception":
        detail = re.sub(r"\(.*?\)", "", detail)
    return outcome.kind, detail[:120]


def _function(tree):
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef))


def _candidates(tree, ulps):
    """(smaller tree, its ulps) variants of `tree`."""
    body = _function(tree).body
    returned = body[-1].value.elts
    for i in range(len(returned)):
        variant = copy.deepcopy(tree)
        del _function(variant).body[-1].value.elts[i]
        yield variant, ulps[:i] + ulps[i + 1:]
    for i in range(len(body) - 1):
        variant = copy.deepcopy(tree)
        del _function(variant).body[i]
        yield variant, ulps
    nodes = [n for n in ast.walk(body_module(tree)) if isinstance(n, ast.expr)]
    for index, node in enumerate(nodes):
        parts = []
        if isinstance(node, ast.BinOp):
            parts = [node.left, node.right]
        elif isinstance(node, (ast.UnaryOp,)):
            parts = [node.operand]
        elif isinstance(node, ast.Call):
            parts = list(node.args)
            if node.keywords:
                variant = copy.deepcopy(tree)
                target = _nth_expr(variant, index)
                target.keywords = target.keywords[1:]
                yield variant, ulps
        elif isinstance(node, ast.Compare):
            parts = [node.left] + node.comparators
        for part in parts:
            if isinstance(part, (ast.Starred, ast.keyword)):
                continue
            variant = copy.deepcopy(tree)
            old = _nth_expr(variant, index)
            new = _nth_expr(variant, nodes.index(part))
            if _replace(variant, old, new):
                yield variant, ulps


def body_module(tree):
    """The statements of f but its return (whose values are dropped, not replaced)."""
    return ast.Module(_function(tree).body[:-1], [])


def _nth_expr(tree, index):
    return [n for n in ast.walk(body_module(tree)) if isinstance(n, ast.expr)][index]


def _replace(tree, old, new):
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
                return True
            if isinstance(value, list) and any(v is old for v in value):
                value[[i for i, v in enumerate(value) if v is old][0]] = new
                return True
    return False


def reduce(program: Program, outcome, max_runs=300, plant=None) -> str:
    """The smallest source found that fails like `outcome` (the program's source if none)."""
    want = signature(outcome)
    child = Child(plant, timeout=60.0)
    tree, ulps = ast.parse(program.source), tuple(program.ulps)
    tried, runs = set(), 0
    try:
        improved = True
        while improved and runs < max_runs:
            improved = False
            for variant, variant_ulps in _candidates(tree, ulps):
                source = ast.unparse(variant) + "\n"
                if source in tried:
                    continue
                tried.add(source)
                runs += 1
                got = child.run(Program(program.seed, source, flatten(source), program.inputs,
                                        variant_ulps, program.judge))
                if got.kind == outcome.kind and signature(got) == want:
                    tree, ulps, improved = variant, variant_ulps, True
                    break
                if runs >= max_runs:
                    break
    finally:
        child.stop()
    return ast.unparse(tree) + "\n"

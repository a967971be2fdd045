"""`kiln.literal_unroll`: a `for` loop over a tuple of mixed types, typed once per item.

A compiled local has one type, so `for x in literal_unroll(t)` is rewritten, for the tuple
type of this specialization, into a loop over the item numbers whose body picks the item's
own copy of the original body:

    for x in literal_unroll(t):          for __unroll_0 in range(len(t)):
        y = x * 2                            if __unroll_0 == 0:
        if y > 3:                                x__0 = t[0]; y__0 = x__0 * 2
            break                                if y__0 > 3: break
                                             elif __unroll_0 == 1:
                                                 x__1 = t[1]; ...

so `break`, `continue` and `else` keep their meaning. The names the body assigns get a
copy per item (they may take each item's type) unless the rest of the function uses them,
in which case they keep one type, as any local. The tree is parsed anew for each typing
(frontend), so the rewrite belongs to this specialization.
"""
from __future__ import annotations

import ast
import copy

from .. import types as t
from ..errors import TypingError
from .registry import template


RANGE = "__kiln_range"   # the name the rewritten loop calls `range` by (a free value)


def literal_unroll(container):
    """In Python, the container itself; in compiled code, see the module's docstring."""
    return container


@template(literal_unroll)
def _outside_a_loop(tctx, *args):
    raise TypingError("literal_unroll() is for the iterable of a for loop: "
                      "`for x in literal_unroll(t):`")


def unroll(loop: ast.For, tuple_ty, function: ast.FunctionDef, number: int,
           strings=None) -> set:
    """Rewrite `loop` (its iterable `literal_unroll(<tuple>)` of type `tuple_ty`) in place;
    returns the names it adds. `strings`: the strings of a tuple frozen into the code; it
    is unrolled although its items share one type, and each copy of the body reads its item
    as that constant (a record's field name: Numba's documented use)."""
    container = loop.iter.args[0]
    if not isinstance(tuple_ty, (t.BaseTuple, t.LiteralList)) or \
            isinstance(tuple_ty, t.UniTuple) and strings is None:
        loop.iter = container                        # one item type: an ordinary loop
        return set()
    counter = f"__unroll_{number}"
    renamed = _assigned([loop.target] + loop.body) - _used_outside(function, loop)
    added = {counter}
    branches = []
    for k in range(len(tuple_ty)):
        names = {name: f"{name}__{number}_{k}" for name in renamed}
        added |= set(names.values())
        item = ast.Subscript(value=copy.deepcopy(container), slice=ast.Constant(k),
                             ctx=ast.Load())
        body = [ast.Assign(targets=[copy.deepcopy(loop.target)], value=item)]
        body += copy.deepcopy(loop.body)
        if strings is not None and isinstance(loop.target, ast.Name) and \
                loop.target.id not in _assigned(loop.body):
            body[1:] = [_Constant(loop.target.id, strings[k]).visit(s) for s in body[1:]]
        for stmt in body:
            _rename(stmt, names)
        test = ast.Compare(left=ast.Name(counter, ast.Load()), ops=[ast.Eq()],
                           comparators=[ast.Constant(k)])
        branches.append(ast.If(test=test, body=body, orelse=[]))
    for outer, inner in zip(branches, branches[1:]):
        outer.orelse = [inner]
    loop.target = ast.Name(counter, ast.Store())
    loop.iter = ast.Call(func=ast.Name(RANGE, ast.Load()), args=[
        ast.Constant(len(tuple_ty))], keywords=[])
    loop.body = branches[:1] or [ast.Pass()]
    ast.fix_missing_locations(loop)   # new nodes point at the line of what holds them
    return added


class _Constant(ast.NodeTransformer):
    """Each read of `name` becomes the constant `value`."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(self.value), node)
        return node


def _assigned(stmts) -> set:
    return {n.id for stmt in stmts for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _used_outside(function, loop) -> set:
    inside = {id(n) for n in ast.walk(loop)}
    return {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and id(n) not in inside}


def _rename(tree, names):
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            node.id = names[node.id]

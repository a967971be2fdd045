"""How the lowerer folds elementwise operations on arrays into array expressions: an
argument that a callee can take as an expression (its `Resolution.fusion`) is lowered as a
`Tree` of operations whose leaves are evaluated, so `a * 2 + b` in `np.sum(...)` runs as one
loop with no temporary arrays. Python's order of evaluation is kept: a tree is computed
before an operand that may write the arrays it reads. Computing a tree in a loop is
library/fusion.py's (`families.ask("evaluate", ...)`)."""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import types as t
from ..options import dump
from . import families

# what writes the arrays it is given, besides compiled functions (see may_write_arrays)
_WRITING_METHODS = frozenset({"fill", "sort", "partition", "put", "itemset"})
_WRITING_FUNCTIONS = frozenset({np.copyto, np.put, np.place, np.putmask, np.fill_diagonal,
                                np.random.shuffle})


def dtype_of(ty):
    return ty.dtype if isinstance(ty, t.Array) else ty


@dataclass
class Tree:
    """An array expression not computed yet: the type it evaluates to, its leaves (lowered
    values and their types), and how one element is computed from the leaves' elements."""

    ty: t.Type
    leaves: list        # [(llvm value, type)]
    compute: Callable   # (context, builder, [leaf element values]) -> value of ty's dtype
    operations: int = 0  # how many elementwise operations it fused

    @staticmethod
    def leaf(value, ty):
        return Tree(ty, [(value, ty)], lambda context, builder, values: values[0])

    @property
    def arrays(self):
        return [ty for _, ty in self.leaves if isinstance(ty, t.Array)]


@dataclass(frozen=True)
class Elementwise:
    """One elementwise operation: each operand converted to its type in `loops`,
    `element` applied, the result converted to `result`'s dtype."""

    result: t.Type     # an Array type (or a scalar for all-scalar operands)
    element: object    # the Resolution of the scalar operation
    loops: tuple

    def apply(self, trees):
        def compute(context, builder, values):
            args, i = [], 0
            params = self.element.signature.args
            for tree, loop, param in zip(trees, self.loops, params):
                n = len(tree.leaves)
                value = tree.compute(context, builder, values[i:i + n])
                value = context.cast(builder, value, dtype_of(tree.ty), loop)
                args.append(context.cast(builder, value, loop, param))  # as the element takes it
                i += n
            value = self.element.lower(context, builder, self.element.signature, args)
            return context.cast(builder, value, self.element.signature.return_type,
                                dtype_of(self.result))
        leaves = [leaf for tree in trees for leaf in tree.leaves]
        return Tree(self.result, leaves, compute, 1 + sum(tree.operations for tree in trees))


@dataclass(frozen=True)
class Consumer:
    """Attached to a resolution (`Resolution.fusion`) whose code accepts `Tree`s for the
    arguments at `positions`. An `elementwise` consumer is itself folded into the tree of
    an operation that consumes it."""

    positions: frozenset
    elementwise: Elementwise | None = None


def leaf_values(tree):
    return [value for value, _ in tree.leaves]


def as_trees(args, types):
    """The arguments as trees: those the lowerer did not fuse become leaves."""
    return [a if isinstance(a, Tree) else Tree.leaf(a, ty) for a, ty in zip(args, types)]


class ArrayExpressions:
    """The FunctionLowerer's part that builds array expressions (`self.fused` records them
    per consumer)."""

    def operand(self, res, position, node, consumer, before=None):
        """The argument at `position` of `consumer`, a call to `res`: an array expression
        (a `Tree`, its leaves evaluated) when the callee can take one and `node` is
        elementwise, else the value of `node`. `before` holds the arguments evaluated so
        far: array expressions among them are computed now if `node` may write arrays, as
        Python would have computed them already."""
        if before and self.may_write_arrays(node):
            before[:] = [self.computed(v) if isinstance(v, Tree) else v for v in before]
        fusion = res.fusion
        if fusion is None or position not in fusion.positions or self.elementwise(node) is None:
            return self.expr(node)
        tree = self.tree(node)
        if tree.operations:
            operations, arrays = self.fused.get(consumer, (0, 0))
            self.fused[consumer] = (operations + tree.operations, arrays + len(tree.arrays))
        return tree

    def report_fusion(self):
        """A line per consumer of array expressions, for inspect_fusion() and KILN_DUMP."""
        for consumer, (operations, arrays) in self.fused.items():
            note = f"{self.typed.ir.qualname}, line {self.typed.ir.loc(consumer).line}: " \
                   f"{ast.unparse(consumer)}: {operations} elementwise operation(s) on " \
                   f"{arrays} array operand(s) fused into its loop"
            self.ctx.state.fusion.append(note)
            dump("fusion", note)

    def elementwise(self, node):
        """(operation, operand nodes) when `node` is an elementwise operation on arrays that
        can be folded into an array expression, else None."""
        if node in self.typed.constants or not isinstance(node, (ast.BinOp, ast.UnaryOp,
                                                                 ast.Call, ast.Compare)):
            return None
        single_compare = isinstance(node, ast.Compare) and len(node.ops) == 1
        res = self.typed.calls.get((node, 0) if single_compare else node)
        if res is None or res.fusion is None or res.fusion.elementwise is None:
            return None
        if isinstance(node, ast.BinOp):
            return res.fusion.elementwise, [node.left, node.right]
        if isinstance(node, ast.UnaryOp):
            return res.fusion.elementwise, [node.operand]
        if isinstance(node, ast.Compare):
            return res.fusion.elementwise, [node.left, node.comparators[0]]
        if node.keywords or isinstance(self.type_of(node.func), (t.BoundMethod, t.NumberClass,
                                                                   t.InnerFunction)):
            return None
        return res.fusion.elementwise, node.args

    def tree(self, node):
        found = self.elementwise(node)
        if found is None:
            return Tree.leaf(self.expr(node), self.type_of(node))
        operation, operands = found
        trees = []
        for operand in operands:
            if trees and self.may_write_arrays(operand):
                # Python computes the operations before this operand runs: they must not
                # read arrays it may write (`a[:-1] * 2 + g(a)`, g writing a)
                trees = [self.computed(tree) for tree in trees]
            trees.append(self.tree(operand))
        return operation.apply(trees)

    def computed(self, tree):
        """`tree` as a leaf: its operations over arrays evaluated now, into a new array."""
        if not (tree.operations and tree.arrays):
            return tree   # nothing deferred reads memory (a bare array is read when used)
        value = self.owned(families.ask("evaluate", self.ctx, self.builder, tree), tree.ty)
        return Tree.leaf(value, tree.ty)

    def may_write_arrays(self, node) -> bool:
        """Whether evaluating `node` may write an array: it calls compiled code (which may
        write its array arguments or globals' views) or an operation that writes arrays."""
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            callee = self.typed.typemap.get(call.func)
            if isinstance(callee, (t.Dispatcher, t.InnerFunction, t.FunctionType)) or \
                    isinstance(callee, t.BoundMethod) and callee.method in _WRITING_METHODS or \
                    isinstance(callee, t.Function) and callee.pyfunc in _WRITING_FUNCTIONS:
                return True
        return False

"""Which Python operator each AST operator node means, the symbols error messages show,
and the syntax typing refuses (with the words it refuses it in)."""
from __future__ import annotations

import ast
import operator

BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
    ast.MatMult: operator.matmul,
}
INPLACE = {
    operator.add: operator.iadd, operator.sub: operator.isub, operator.mul: operator.imul,
    operator.truediv: operator.itruediv, operator.floordiv: operator.ifloordiv,
    operator.mod: operator.imod, operator.pow: operator.ipow, operator.lshift: operator.ilshift,
    operator.rshift: operator.irshift, operator.and_: operator.iand, operator.or_: operator.ior,
    operator.xor: operator.ixor, operator.matmul: operator.imatmul,
}
BINARY_OF = {inplace: binary for binary, inplace in INPLACE.items()}
UNARYOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}
CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: operator.contains, ast.NotIn: operator.contains,
}
OP_SYMBOLS = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.lshift: "<<",
    operator.rshift: ">>", operator.and_: "&", operator.or_: "|", operator.xor: "^",
    operator.matmul: "@", operator.neg: "-", operator.pos: "+", operator.invert: "~",
    operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.le: "<=",
    operator.gt: ">", operator.ge: ">=", operator.contains: "in", operator.getitem: "[]",
    operator.setitem: "[]=",
}

UNSUPPORTED_STATEMENTS = {
    "TryStar": "try/except*", "With": "'with' blocks",
    "AsyncWith": "'async with' blocks",
    "AsyncFunctionDef": "nested async functions",
    "ClassDef": "class definitions", "Import": "'import'",
    "ImportFrom": "'import'", "Match": "'match'", "AsyncFor": "'async for'",
}
UNSUPPORTED_EXPRS = {
    ast.ListComp: "list comprehensions", ast.DictComp: "dict comprehensions",
    ast.SetComp: "set comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.NamedExpr: "':=' assignment expressions",
    ast.Await: "await",
    ast.Starred: "'*' unpacking",
}

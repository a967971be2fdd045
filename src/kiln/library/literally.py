"""`kiln.literally(x)` (Numba's `literally`): the function is compiled once per value of its
argument x, so that `literally(x)` is a compile-time constant, typed `IntegerLiteral` (or
`BooleanLiteral`), that an `@overload` can dispatch on (`arg.literal_value`).

The dispatcher types such an argument as `Literal(value, type)` (`literal_parameters`
says which); the entry point unboxes it as the plain type and goes on to the next
specialization when the value differs (runtime/boxing.py). Typing holds the parameter as
its plain type, each read of it a constant (typing/infer.py), which `literally` turns into
the literal type; an implementation is compiled for plain types (`unliteral`).
"""
from __future__ import annotations

import ast

import numpy as np

from .. import types as t
from ..errors import TypingError
from .registry import template


def literally(obj):
    """`obj` itself; in compiled code, `obj` as a compile-time constant (see the module)."""
    return obj


literally._kiln_literal_args = ("obj",)   # typing hands the template the constant


@template(literally)
def _literally(tctx, x):
    if not isinstance(x, t.Literal) or type(x.value) not in (bool, int):
        return None
    literal = t.BooleanLiteral(x.value) if type(x.value) is bool else t.IntegerLiteral(x.value)

    def codegen(context, builder, sig, args):
        return args[0]
    return literal(t.unliteral(literal)), codegen


def literal_parameters(pyfunc) -> tuple:
    """The parameters of `pyfunc` that a `literally(name)` call in it names (parsed only
    when the function mentions a name `literally`)."""
    if "literally" not in getattr(getattr(pyfunc, "__code__", None), "co_names", ()):
        return ()
    from ..frontend import build_function_ir
    ir = build_function_ir(pyfunc)
    found = []
    for node in ast.walk(ir.node):
        if not (isinstance(node, ast.Call) and len(node.args) == 1 and
                isinstance(node.args[0], ast.Name)):
            continue
        func = node.func
        value = ir.free_values.get(func.id) if isinstance(func, ast.Name) else \
            getattr(ir.free_values.get(func.value.id), func.attr, None) \
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        name = ir.renamed.get(node.args[0].id, node.args[0].id)  # a parameter rebound
        if value is literally and name in ir.arg_names and name not in found:
            found.append(name)
    for node in ast.walk(ir.node):
        name = ir.renamed.get(getattr(node, "id", None), getattr(node, "id", None))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and name in found:
            raise TypingError(f"kiln.literally({name}): {name!r} is compiled in as a "
                              "constant, so the function cannot assign it", ir.loc(node))
    return tuple(found)


def literal_argument(name, value, ty):
    """The type of argument `name` when the function is compiled for its value."""
    if type(value) not in (bool, int) and not isinstance(value, (np.integer, np.bool_)):
        raise TypeError(f"kiln.literally({name}) takes an integer or a bool, not "
                        f"{type(value).__name__}")
    return t.Literal(value.item() if hasattr(value, "item") else value, ty)

"""Function signatures and their string spelling: "f8(i4, i4)", "void(f4[:])", "(f8[:, ::1],)"."""
from __future__ import annotations

import ast
from dataclasses import dataclass

from . import core


@dataclass(frozen=True)
class Signature:
    """Return type (None when left to inference) and argument types."""

    return_type: object
    args: tuple

    def __str__(self):
        ret = "?" if self.return_type is None else str(self.return_type)
        return f"{ret}({', '.join(map(str, self.args))})"

    def __repr__(self):
        return f"Signature({self})"


def _type_names():
    from . import __dict__ as ns  # the kiln.types namespace, aliases included
    return {k: v for k, v in ns.items() if isinstance(v, core.Type)}


def _evaluate(node, names, text):
    def fail(msg):
        raise TypeError(f"invalid signature {text!r}: {msg}")

    if isinstance(node, ast.Name):
        if node.id not in names:
            fail(f"unknown type name {node.id!r}")
        return names[node.id]
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id in ("types", "kiln", "nb", "numba"):
        return _evaluate(ast.Name(node.attr), names, text)
    if isinstance(node, ast.Tuple):
        return tuple(_evaluate(e, names, text) for e in node.elts)
    if isinstance(node, ast.Subscript):
        base = _evaluate(node.value, names, text)
        return base[_evaluate(node.slice, names, text)]
    if isinstance(node, ast.Slice):
        def bound(n):
            return None if n is None else ast.literal_eval(n)
        return slice(bound(node.lower), bound(node.upper), bound(node.step))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("CPointer", "FunctionType") and len(node.args) == 1:
        from . import functions  # type constructors: CPointer(float64), FunctionType(f8(f8))
        return getattr(functions, node.func.id)(_evaluate(node.args[0], names, text))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("optional", "Optional") and len(node.args) == 1:
        from .containers import Optional     # optional(float32[:]): the type or None
        return Optional(_evaluate(node.args[0], names, text))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("NPDatetime", "NPTimedelta") and len(node.args) == 1:
        from . import datetimes    # NPDatetime('us'): a datetime64 of that unit
        return getattr(datetimes, node.func.id)(ast.literal_eval(node.args[0]))
    if isinstance(node, ast.Call):
        ret = _evaluate(node.func, names, text)
        args = tuple(_evaluate(a, names, text) for a in node.args)
        return Signature(ret, args)
    fail(f"unexpected {ast.unparse(node)!r}")


def parse_signature(sig) -> Signature:
    """Accept a Signature, a string, or a bare tuple of argument types."""
    if isinstance(sig, Signature):
        return sig
    if isinstance(sig, tuple):
        return Signature(None, tuple(sig))
    if not isinstance(sig, str):
        raise TypeError(f"a signature must be a string, a Signature or a tuple of types, "
                        f"not {sig!r}")
    try:
        tree = ast.parse(sig.strip(), mode="eval").body
    except SyntaxError:
        raise TypeError(f"invalid signature {sig!r}: not of the form 'ret(arg, ...)'") from None
    value = _evaluate(tree, _type_names(), sig)
    if isinstance(value, Signature):
        return value
    if isinstance(value, tuple):
        return Signature(None, value)
    if isinstance(value, core.Type):
        return Signature(None, (value,))
    raise TypeError(f"invalid signature {sig!r}")

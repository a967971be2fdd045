"""`isinstance`, `hasattr` and `getattr` in compiled code: Python's introspection builtins,
answered from the argument's type when compiling, as Numba does.

A value's kiln type fixes its Python class, or the few it may be (library/instance_checks.py
answers families' "python_classes"), so whether it is an instance of a class, or has an
attribute, is known then (where those classes agree): `isinstance` and `hasattr` are constants that prune the branch they test
(`if hasattr(x, "shape"):` types its body only for values that have it). `getattr(x,
"name")` is the attribute `x.name`, `getattr(x, "name", default)` the default where Python
has no such attribute (or AttributeError, at run time, without one). The name must be known
when compiling: a string constant, a local assigned one, or a parameter (compiled for its
value, typing/literals.py). Where the type does not tell (the class of a value that may be
None; an attribute Python has but kiln does not compile), it is a TypingError, never a
guess."""
from __future__ import annotations

import ast

from .. import types as t
from ..errors import TypingError, UnsupportedError
from . import families
from .literals import _NOTHING, assigned_before, constant_locals, known_value, literal_of, \
    pure_parameters


class IntrospectionCalls:
    """The Typer's calls of isinstance, hasattr and getattr."""

    def known_isinstance(self, node, args, kws):
        """`isinstance(x, C)`: known from x's type, a constant that prunes the branch it
        tests (x is still evaluated)."""
        if len(args) != 2 or kws:
            raise self.error("isinstance() takes two arguments", node)
        classes = node.args[1]
        classinfo = tuple(self.constants.get(e) for e in classes.elts) \
            if isinstance(classes, ast.Tuple) else self.constants.get(classes)
        try:
            value = families.ask("isinstance", args[0], classinfo,
                                 _display_class(self, node.args[0]))
        except TypingError as e:
            raise self.error(str(e), node) from None
        self.constants[node] = value
        self.calls[node] = families.ask("known_identity", value, *args)
        return t.boolean

    def known_hasattr(self, node, args, kws):
        """`hasattr(x, "name")`: Python's answer for x's class, or, where the type does not
        fix the class (a record), whether kiln compiles `x.name`."""
        name = self.attribute_name(node, args, kws, "hasattr", (2,))
        value = _python_has(args[0], name)
        if value is None:
            if self.tctx.resolve(("attr", name), (args[0],)) is None:
                raise self.error(f"hasattr(): kiln cannot tell whether a {args[0]} has the "
                                 f"attribute {name!r} (its type does not fix its Python "
                                 "class)", node)
            value = True
        self.constants[node] = value
        self.calls[node] = families.ask("known_identity", value, *args)
        return t.boolean

    def known_getattr(self, node, args, kws):
        """`getattr(x, "name"[, default])`: `x.name`, or, where x's Python class has no
        such attribute, the default (AttributeError at run time without one)."""
        name = self.attribute_name(node, args, kws, "getattr", (2, 3))
        if _python_has(args[0], name) is False:
            res = families.ask("getattr_call", args, name, None)
        else:
            read = node._kiln_attribute_read = getattr(node, "_kiln_attribute_read", None) \
                or ast.copy_location(ast.Attribute(node.args[0], name, ast.Load()), node)
            ty = self.expr(read)   # a method: a call of it reads `x.name` (method_read)
            res = families.ask("getattr_call", args, name,
                               (self.calls.get(read), ty, self.constants.get(read)))
        self.calls[node] = res
        return res.signature.return_type

    def attribute_name(self, node, args, kws, what, counts):
        """The attribute name that `what(x, name, ...)` reads, known when compiling."""
        if kws or len(args) not in counts:
            raise self.error(f"{what}() takes {' or '.join(map(str, counts))} positional "
                             "arguments", node)
        arg = node.args[1]
        if isinstance(arg, ast.Name) and known_value(self, arg) is _NOTHING and \
                _constant_strings_only(self.ir.node, arg.id):   # (Numba's words)
            raise self.error(f'{what}() cannot determine the type of variable "{arg.id}" '
                             "due to a branch. It is assigned more than one string: the "
                             "attribute name must be one constant known when compiling", node)
        name = literal_of(self, arg, f"{what}()'s argument 'name'")
        if not isinstance(name, t.StringLiteral):
            raise self.error(f"{what}(): attribute name must be a string, not {args[1]}",
                             node)
        return name.value

    def method_read(self, func):
        """The `x.name` that a call of a method reads: the callee itself, or the
        `getattr(x, "name")` that gave the method."""
        if isinstance(func, ast.Attribute):
            return func
        read = getattr(func, "_kiln_attribute_read", None)
        if read is not None and len(func.args) == 2:
            return read
        read = self.method_of_local(func)
        if read is not None:
            return read
        raise self.error("kiln calls a method where it reads it (`x.name(...)`), or through "
                         "a local assigned `x.name` once, x a local bound once: "
                         f"{ast.unparse(func)} is a method to call later, which compiled "
                         "code does not hold", func, UnsupportedError)

    def method_of_local(self, func):
        """`m = x.name` (or `getattr(x, "name")`) assigned once, then `m(...)`: the call
        reads `x.name` again, the same method while x is bound once too (a parameter the
        body never assigns, or a local assigned once)."""
        if not isinstance(func, ast.Name):
            return None
        stmt = constant_locals(self.ir).get(func.id)
        value = None if stmt is None else stmt.value
        if isinstance(value, ast.Call) and len(value.args) == 2:   # getattr(x, "name")
            value = getattr(value, "_kiln_attribute_read", None)
        if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
            return None
        receiver = value.value.id
        if receiver not in constant_locals(self.ir) and \
                receiver not in pure_parameters(self.ir):
            return None
        read = ast.copy_location(ast.Attribute(
            ast.copy_location(ast.Name(receiver, ast.Load()), func), value.attr, ast.Load()),
            func)
        self.expr(read)
        return read


def _display_class(typer, expr):
    """dict where `expr` is a dict display (`{...}`, `dict()`) or a local assigned one once
    before: a dict made here is a dict in Python, though its type is a kiln.typed.Dict
    argument's too. None where the expression does not say."""
    if isinstance(expr, ast.Name):
        expr = assigned_before(typer.ir, expr)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
            expr.func.id == "dict" and "dict" not in typer.ir.local_names:
        return dict if typer.ir.free_values.get("dict") is dict else None
    return dict if isinstance(expr, ast.Dict) else None


def _python_has(ty, name):
    """Whether a value of type `ty` has the attribute `name` in Python, or None when its
    type does not say."""
    if isinstance(ty, t.Module):
        return hasattr(ty.module, name)
    found = {hasattr(cls, name) for cls in families.ask("python_classes", ty) or ()}
    return found.pop() if len(found) == 1 else None   # (the classes it may be agree)


def _constant_strings_only(fn, name):
    """Whether every assignment of the local `name` in `fn` is of a string constant."""
    values = [n.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
              for target in n.targets if isinstance(target, ast.Name) and target.id == name]
    stores = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id == name and
              isinstance(n.ctx, ast.Store)]
    return bool(values) and len(values) == len(stores) and \
        all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values)

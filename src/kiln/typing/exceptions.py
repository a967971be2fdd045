"""Typing of `raise` and `try`: what each raise raises and which classes each `except`
catches, recorded in the typed function's constants for codegen/exceptions.py.

A raise names its class at compile time; its arguments are constant strings or values of
types that own no memory (numbers, booleans, None, tuples of them), boxed when the
exception reaches Python. The caught exception is not a value in compiled code: `except E
as e` binds `e` for `raise e` only (strings, and so `str(e)` and `e.args`, are not
compiled yet), and a bare `raise` re-raises the exception its `except` block handles (one
outside any `except` re-raises what the calling Python code handles, as in CPython).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .. import types as t
from ..errors import UnsupportedError

_SCALARS = (t.Boolean, t.Integer, t.Float, t.Complex, t.NoneType)


def _passable(ty):
    """Whether a value of `ty` can be an exception's argument (kept in its descriptor)."""
    if isinstance(ty, t.Optional):
        return _passable(ty.type)
    if isinstance(ty, t.BaseTuple):
        return all(map(_passable, ty.types))
    return isinstance(ty, (*_SCALARS, t.UnicodeType))


@dataclass(frozen=True, eq=False)
class Raise:
    """`raise exc_class(*args)`: per argument, its constant text or None (a value)."""
    exc_class: type
    arg_nodes: tuple
    texts: tuple


@dataclass(frozen=True, eq=False)
class Reraise:
    """A bare `raise` (or `raise e`) in the except block `handler`."""
    handler: ast.ExceptHandler


_FINALLY = object()  # on the stack of handlers while typing a `finally` body


def type_raise(typer, node):
    if node.cause is not None and not (isinstance(node.cause, ast.Constant)
                                       and node.cause.value is None):
        raise typer.error("kiln supports 'raise ... from None' only (an exception is not a "
                          "value in compiled code)", node.cause, UnsupportedError)
    exc = node.exc
    if exc is None or isinstance(exc, ast.Name) and _handler_named(typer, exc.id):
        handler = _handler_named(typer, exc.id) if exc is not None else \
            (typer.handlers[-1] if typer.handlers else None)
        if handler is None and exc is None:   # re-raises what the Python caller handles
            typer.constants[node] = Reraise(None)
            return
        if handler is _FINALLY:  # CPython re-raises the exception passing through, if any
            raise typer.error("a bare 'raise' in a 'finally' block is not supported in "
                              "compiled code", node, UnsupportedError)
        typer.constants[node] = Reraise(handler)
        return
    call_args = []
    if isinstance(exc, ast.Call):
        if exc.keywords:
            raise typer.error("a compiled raise takes positional arguments only", exc,
                              UnsupportedError)
        call_args, exc = exc.args, exc.func
    cls_ty = typer.expr(exc)
    if not isinstance(cls_ty, t.ExceptionClass):
        value = typer.constants.get(exc)
        if isinstance(value, str):
            raise typer.error("Directly raising a string constant as an exception is not "
                              "supported: kiln can raise only exception classes and instances "
                              f"(raise ValueError({value!r}))", exc, UnsupportedError)
        what = f"{value!r} is not one" if value is not None else f"a value of type {cls_ty}" \
            " is not one"
        raise typer.error("kiln can raise only exception classes and instances, and "
                          f"{what} (Encountered unsupported constant type used for "
                          "exception)", exc, UnsupportedError)
    texts = []
    for arg in call_args:
        ty = typer.expr(arg)
        value = typer.constants.get(arg)
        if isinstance(value, str):
            texts.append(value)
            continue
        if not _passable(ty):
            raise typer.error(f"kiln cannot pass a value of type {ty} to an exception raised "
                              "in compiled code (numbers, booleans, None, strings and tuples "
                              "of them only)", arg, UnsupportedError)
        texts.append(None)
    typer.constants[node] = Raise(cls_ty.exc_class, tuple(call_args), tuple(texts))


def _handler_named(typer, name):
    for handler in reversed(typer.handlers):
        if handler is not _FINALLY and handler.name == name:
            return handler
    return None


def type_try(typer, node):
    typer.block(node.body)
    for handler in node.handlers:
        typer.constants[(handler, "classes")] = \
            (BaseException,) if handler.type is None else _classes(typer, handler.type)
        if handler.name is not None:
            _check_uses(typer, handler)
        typer.handlers.append(handler)
        typer.block(handler.body)
        typer.handlers.pop()
    typer.block(node.orelse)
    typer.handlers.append(_FINALLY)
    typer.block(node.finalbody)
    typer.handlers.pop()


def _classes(typer, node):
    """The exception classes an `except` clause names (a class or a tuple of them)."""
    typer.expr(node)
    value = typer.constants.get(node)
    if isinstance(node, ast.Tuple):
        return tuple(cls for elt in node.elts for cls in _classes(typer, elt))
    found = value if isinstance(value, tuple) else (value,)
    for cls in found:
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise typer.error(f"catching {cls!r} is not allowed: an except clause takes "
                              "exception classes (classes that inherit from BaseException)",
                              node)
    return found


def _check_uses(typer, handler):
    """`e` of `except E as e` may only be re-raised (see the module docstring)."""
    reraised = {id(n.exc) for n in ast.walk(handler) if isinstance(n, ast.Raise)}
    for n in ast.walk(handler):
        if isinstance(n, ast.Name) and n.id == handler.name and id(n) not in reraised:
            raise typer.error(f"kiln cannot use the caught exception {handler.name!r} in "
                              f"compiled code except to re-raise it ('raise {handler.name}')",
                              n, UnsupportedError)


def always_returns(stmt, returns) -> bool:
    """Whether no path falls off the end of a `try` (`returns` judges a statement)."""
    def ends(body):
        return bool(body) and returns(body[-1])
    if ends(stmt.finalbody):
        return True
    return (ends(stmt.body) or ends(stmt.orelse)) and all(ends(h.body) for h in stmt.handlers)


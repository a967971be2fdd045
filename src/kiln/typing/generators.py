"""Typing of generator functions: a function whose body holds `yield` returns a
`GeneratorType` of the common type of every yielded value (codegen/generators.py makes
it a coroutine). The frontend has already turned `yield from x` into a loop of yields and
each generator expression into a nested generator function."""
from __future__ import annotations

import ast

from .. import types as t
from ..errors import TypingError, UnsupportedError
from .unify import unify

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def yields_in(fn_node) -> list:
    """The `yield` expressions of this function's own body (not of nested functions)."""
    found, todo = [], list(fn_node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            found.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return found


def yields_in_try(fn_node) -> dict:
    """The yields inside `try` statements: yield -> the `try`s around it. A suspension
    inside one needs nothing more (the coroutine keeps the dispatch's state like any
    other), except where closing the generator there would run code in CPython: a
    `finally`, or an `except` that catches GeneratorExit (codegen/generators.py drops a
    closed generator without running its code), which kiln refuses."""
    inside = {}
    for node in ast.walk(fn_node):
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            for name in ("body", "handlers", "orelse", "finalbody"):
                for stmt in getattr(node, name):
                    for y in yields_in(ast.Module([stmt], [])):
                        inside.setdefault(y, []).append((node, name))
    return inside


def type_yield(typer, node):
    """`yield v` as a statement: record the type of v (None for a bare `yield`)."""
    for try_, part in typer.yields_in_try.get(node, ()):
        if try_.finalbody and part != "finalbody":
            raise typer.error("kiln does not support 'yield' inside a try statement with a "
                              "'finally' yet (closing the generator there would not run the "
                              "finally block)", node, UnsupportedError)
        for handler in try_.handlers if part == "body" else ():
            if _catches_generator_exit(typer, handler):
                raise typer.error("kiln does not support 'yield' inside a try statement whose "
                                  "'except' catches GeneratorExit (a bare except, "
                                  "BaseException) yet: closing the generator there would not "
                                  "run it; catch Exception", node, UnsupportedError)
    ty = t.none if node.value is None else typer.expr(node.value)
    typer.typemap[node] = t.none
    typer.yield_types.append((ty, node))


def refuse_yield_value(typer, node):
    """`x = yield v` (a value sent in) and `x = yield from g` (the generator's return value)."""
    raise typer.error("kiln generators do not receive values: use 'yield' as a statement "
                      "(send() and the value of 'yield from' are not supported)", node,
                      UnsupportedError)


def generator_type(typer):
    """The type a call of the generator function gives; its `return` statements end the
    generator and may not carry a value (StopIteration.value is not supported)."""
    for ty, node in typer.returns:
        if ty != t.none:
            raise TypingError(f"generator {typer.ir.qualname!r} returns a value; kiln "
                              "generators end with a bare 'return'", typer.ir.loc(node))
    result = None
    for ty, node in typer.yield_types:
        merged = ty if result is None else unify(result, ty)
        if merged is None:
            raise TypingError(f"generator {typer.ir.qualname!r} yields {result} and {ty}, "
                              "which have no common type", typer.ir.loc(node))
        result = merged
    result = t.GeneratorType(t.none if result is None else result)
    declared = typer.declared_return
    if declared is not None and declared != result:
        raise TypingError(f"generator {typer.ir.qualname!r} is declared to return {declared}, "
                          f"but calling it gives a {result}", typer.ir.loc(typer.ir.node))
    return result


def _catches_generator_exit(typer, handler):
    if handler.type is None:
        return True
    from .exceptions import _classes
    return any(issubclass(GeneratorExit, cls) for cls in _classes(typer, handler.type))

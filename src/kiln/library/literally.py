"""`kiln.literally(x)` (Numba's `literally`): the function is compiled once per value of its
argument x, so that `literally(x)` is a compile-time constant, typed `IntegerLiteral`,
`BooleanLiteral` or `StringLiteral` (Numba's `types.literal(value)`), that an `@overload`
can dispatch on (`arg.literal_value`).

The dispatcher types such an argument as that literal type (`literal_parameters` says which
parameters, read from the source; typing asks for more through typing/literals.py's
LiteralRequest, when `literally` reads a parameter or a call passes one to a function that
needs it); the entry point checks the value and goes on to the next specialization when it
differs (codegen/boxing.py). Typing holds the parameter as its plain type, each read of it
a constant (typing/infer.py). `SentryLiteralArgs` is Numba's way for an `@overload` to ask
for some of its arguments as literals.
"""
from __future__ import annotations

import ast
import inspect

from .. import types as t
from ..errors import TypingError
from ..typing.literals import CALL, LiteralRequest, literal_type
from ..typing.registry import Resolution, Template, registry


def literally(obj):
    """`obj` itself; in compiled code, `obj` as a compile-time constant (see the module)."""
    return obj


literally._kiln_literal_args = ("obj",)   # typing hands the template the constant
literally._kiln_requests_literal = True   # ... or asks for the parameter it reads


class _Literally(Template):
    """`literally(x)`: typing gives x's literal type (statements.literally_args), or a
    list's type with its display's items (`initial_value`), as Numba's."""

    def resolve(self, tctx, args, kws):
        if len(args) != 1 or kws or not (isinstance(args[0], t.Literal) or isinstance(
                args[0], t.List) and args[0].initial_value is not None):
            return None

        def codegen(context, builder, sig, llargs):
            return llargs[0]
        return Resolution(t.Signature(args[0], (args[0],)), codegen)


registry.register(literally, _Literally())


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
    restated = {id(n.targets[0]) for n in ast.walk(ir.node) if _restates_literally(n, ir)}
    for node in ast.walk(ir.node):
        name = ir.renamed.get(getattr(node, "id", None), getattr(node, "id", None))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and name in found \
                and id(node) not in restated:
            raise TypingError(f"kiln.literally({name}): {name!r} is compiled in as a "
                              "constant, so the function cannot assign it", ir.loc(node))
    return tuple(found)


def _restates_literally(node, ir) -> bool:
    """`x = literally(x)` (Numba's spelling): x keeps its value, so it stays the constant."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and
            isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) and
            len(node.value.args) == 1 and isinstance(node.value.args[0], ast.Name)):
        return False
    func = node.value.func
    return isinstance(func, ast.Name) and ir.free_values.get(func.id) is literally and \
        ir.renamed.get(node.targets[0].id, node.targets[0].id) == \
        ir.renamed.get(node.value.args[0].id, node.value.args[0].id)


def literal_argument(name, value, ty):
    """The type of argument `name` when the function is compiled for its value: Numba's
    `types.literal(value)` (a LiteralTypingError for a value that cannot be one)."""
    return literal_type(value, f"the argument {name!r} (kiln.literally)")


class SentryLiteralArgs:
    """Numba's `SentryLiteralArgs(["x"]).for_function(ov).bind(*args, **kws)`, in an
    `@overload`: the arguments named must be literal types; when one is not, typing asks
    for its value (the caller's constant, or its caller's argument: typing/literals.py)."""

    def __init__(self, literal_args):
        self.literal_args = tuple(literal_args)

    def for_function(self, fn):
        return self.for_pysig(inspect.signature(fn))

    def for_pysig(self, pysig):
        return _BoundSentry(self.literal_args, pysig)


class _BoundSentry:
    def __init__(self, literal_args, pysig):
        self.literal_args = literal_args
        self.pysig = pysig

    def bind(self, *args, **kwargs):
        """Check the argument types the overload was given (raises LiteralRequest)."""
        bound = self.pysig.bind(*args, **kwargs)
        positions = {name: i for i, name in enumerate(self.pysig.parameters)}
        wanted = set()
        for name in self.literal_args:
            if name not in bound.arguments:
                raise TypingError(f"Cannot request literal type: the argument {name!r} is "
                                  "not given")
            if not isinstance(bound.arguments[name], t.Literal):
                given_by_keyword = name in kwargs
                wanted.add(name if given_by_keyword else positions[name])
        if wanted:
            raise LiteralRequest(CALL, wanted, "an @overload needs a literal argument "
                                 "(SentryLiteralArgs)")
        return bound


def sentry_literal_args(pysig, literal_args, args, kwargs):
    """Numba's function form of SentryLiteralArgs."""
    return SentryLiteralArgs(literal_args).for_pysig(pysig).bind(*args, **kwargs)

"""Source checks for kernels and device functions: the Python a CUDA kernel cannot use.

The simulator could run any Python, but code developed under it must also compile for the
GPU, so kiln rejects up front what no CUDA target supports (heap containers, exceptions
handling, generators, calls to plain Python functions...) and kernels that return values.
Errors name the kernel and quote the line.
"""
from __future__ import annotations

import ast
import builtins
import textwrap
import types

from kiln.errors import Location, SourceUnavailableError, TypingError, UnsupportedError
from kiln.frontend.source import source_lines

_CONSTRUCTS = {
    ast.Try: "try/except", ast.With: "a with statement", ast.AsyncWith: "async code",
    ast.AsyncFor: "async code", ast.AsyncFunctionDef: "async code", ast.Await: "async code",
    ast.Yield: "yield (generators)", ast.YieldFrom: "yield (generators)",
    ast.ClassDef: "a class definition", ast.Global: "a global statement",
    ast.Nonlocal: "a nonlocal statement", ast.Delete: "del", ast.Import: "an import",
    ast.ImportFrom: "an import", ast.Lambda: "a lambda", ast.JoinedStr: "an f-string",
    ast.List: "a list", ast.Dict: "a dict", ast.Set: "a set",
    ast.ListComp: "a list comprehension", ast.SetComp: "a set comprehension",
    ast.DictComp: "a dict comprehension", ast.GeneratorExp: "a generator expression",
}
_NO_HEAP = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
            ast.GeneratorExp)
if hasattr(ast, "TryStar"):
    _CONSTRUCTS[ast.TryStar] = "try/except*"

# Modules whose plain Python functions kernels may call (the back-end provides them).
_LIBRARY_MODULES = ("math", "cmath", "numpy", "kiln")


def _source_tree(func):
    """(function node, first line number, column shift) or None when there is no source."""
    try:   # source_lines trusts a text only if it compiles to this function's code
        lines, first, _ = source_lines(func)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (SourceUnavailableError, SyntaxError):
        return None
    node = tree.body[0] if tree.body else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    shift = len(lines[0]) - len(lines[0].lstrip())
    return node, first - 1, shift


def _is_plain_python_function(value) -> bool:
    """A Python function kernels cannot call: neither the library's, nor one given an
    implementation for CUDA code (`@overload`, `@register_jitable`)."""
    if not isinstance(value, types.FunctionType) or hasattr(value, "_kiln_intrinsic"):
        return False
    module = (getattr(value, "__module__", None) or "").split(".")[0]
    if module in _LIBRARY_MODULES:
        return False
    from kiln.typing.registry import registry
    return not registry.templates(value, "cuda")


class _Checker(ast.NodeVisitor):
    def __init__(self, func, kind, line_offset, col_shift):
        self.func, self.kind = func, kind
        self.line_offset, self.col_shift = line_offset, col_shift
        self.name = func.__name__
        code = func.__code__
        self.locals = set(code.co_varnames) | set(code.co_cellvars)
        closure = func.__closure__ or ()
        self.closure = {n: c for n, c in zip(code.co_freevars, closure)}
        self.depth = 0

    def location(self, node):
        col = node.col_offset + self.col_shift
        end = node.end_col_offset + self.col_shift \
            if node.end_lineno == node.lineno and node.end_col_offset is not None else None
        return Location(self.name, self.func.__code__.co_filename,
                        node.lineno + self.line_offset, col, end)

    def generic_visit(self, node):
        what = _CONSTRUCTS.get(type(node))
        if what is not None and not (isinstance(node, ast.List) and
                                     isinstance(node.ctx, ast.Store)):
            hint = " (the GPU has no heap: use a tuple or cuda.local.array)" \
                if isinstance(node, _NO_HEAP) else ""
            raise UnsupportedError(f"{self.kind} '{self.name}' uses {what}, which CUDA code "
                                   f"does not support{hint}", self.location(node))
        super().generic_visit(node)

    def visit_FunctionDef(self, node):
        # The body only: decorators and defaults run in Python, not on the device.
        self.depth += 1
        for statement in node.body:
            self.visit(statement)
        self.depth -= 1

    def visit_Return(self, node):
        returns_value = node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None)
        if self.kind == "kernel" and self.depth == 1 and returns_value:
            raise TypingError(f"kernel '{self.name}' returns a value; CUDA kernels return "
                              "nothing: write results into an array argument",
                              self.location(node))
        self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id not in self.locals:
            value = self.resolve(node.func.id)
            if _is_plain_python_function(value):
                raise UnsupportedError(
                    f"{self.kind} '{self.name}' calls '{node.func.id}', a plain Python "
                    "function; kernels can call only device functions: decorate it with "
                    "@cuda.jit(device=True)", self.location(node))
        self.generic_visit(node)

    def resolve(self, name):
        if name in self.closure:
            try:
                return self.closure[name].cell_contents
            except ValueError:
                return None
        return self.func.__globals__.get(name, getattr(builtins, name, None))


def check_source(func, kind: str) -> None:
    """Raise UnsupportedError/TypingError if `func` (a kernel or device function) uses
    Python that CUDA code cannot. Functions without readable source are not checked."""
    found = _source_tree(func)
    if found is None:
        return
    node, line_offset, col_shift = found
    _Checker(func, kind, line_offset, col_shift).visit(node)


def uses_grid_sync(func, _seen=None) -> bool:
    """Whether `func` or a device function it calls reaches `cuda.cg.this_grid()` (by the
    names its code uses): such a kernel is launched cooperatively."""
    from .kernel import DeviceFunction
    seen = set() if _seen is None else _seen
    seen.add(func)
    codes = [func.__code__]
    while codes:
        code = codes.pop()
        if "this_grid" in code.co_names:
            return True
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for name in code.co_names:
            value = func.__globals__.get(name)
            if isinstance(value, DeviceFunction) and value.py_func not in seen and \
                    uses_grid_sync(value.py_func, seen):
                return True
    return False

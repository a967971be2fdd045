"""Object-mode blocks: `with kiln.objmode(out='float64'):` inside a compiled function.

The frontend outlines each block's body into an ordinary Python function, compiled by
CPython from the block's own AST (so tracebacks quote the real lines), and puts a call in
place of the `with` statement:

    with objmode(y='float64'):          y, = <objmode>(<block 12>, x, n)
        y = statistics.median(x)

The call's arguments are the block's live-in variables (the function's locals that the
block reads); its results are the declared outputs, assigned after the block.
library/objmode.py types the call and generates it: the arguments are boxed, the outlined
function runs holding the GIL, and each output is checked against its declared type and
unboxed. Globals, closure values and builtins are read by the block as Python reads them.
"""
from __future__ import annotations

import ast
import builtins
import itertools
from collections import Counter

from ..errors import TypingError, UnsupportedError


class ObjModeContext:
    """`kiln.objmode` (Numba's `numba.objmode`): `with objmode(name=type, ...):` runs its
    block as Python inside compiled code. Called from plain Python it does nothing, so
    `py_func` and `forceobj=True` run the same code."""

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "kiln.objmode"


objmode = ObjModeContext()


def objmode_call(block, *args):
    """Stands in for a block in the rewritten AST (typed by library/objmode.py); in Python
    it runs the block."""
    return block(*args)


class ObjModeBlock:
    """One outlined block: the Python function, its parameter names and its outputs (name →
    kiln type); calling it runs the block and returns the outputs checked and converted."""

    def __init__(self, func, inputs, outputs, where):
        self.func = func
        self.inputs = inputs
        self.outputs = outputs
        self.where = where

    def __call__(self, *args):
        from .objmode_values import coerce_output   # (not on `import kiln`'s path)
        values = self.func(*args)
        return tuple(coerce_output(name, ty, value)
                     for (name, ty), value in zip(self.outputs.items(), values))

    def _kiln_typeof_(self):
        from .objmode_values import ObjModeBlockType
        return ObjModeBlockType(self)

    def __repr__(self):
        return f"<objmode block {self.where}>"


_CALL, _BLOCK = "<objmode>", "<objmode block {}>"
_counter = itertools.count()


def outline_objmode_blocks(ir) -> dict:
    """Rewrite every objmode block of `ir.node` (and of the functions nested in it) into a
    call; returns the free names the calls use (name → value) for `ir.free_values`."""
    rewriter = _Rewriter(ir)
    rewriter.visit_function(ir.node, frozenset())
    return rewriter.free


class _Rewriter:
    def __init__(self, ir):
        self.ir = ir
        self.pyfunc = ir.pyfunc
        self.free = {}

    def visit_function(self, fn, enclosing_locals):
        from . import assigned_names
        blocks, nested = [], []
        self.rewrite_body(fn, blocks, nested)
        local_names = assigned_names(fn) | enclosing_locals
        for inner in nested:
            self.visit_function(inner, local_names)
        stores = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and
                         isinstance(n.ctx, ast.Store))
        stores.update(a.arg for a in fn.args.args)
        for with_node, call, outputs in blocks:
            self.outline(with_node, call, outputs, local_names, stores)

    def rewrite_body(self, node, blocks, nested):
        """Replace each objmode `with` in the statement lists under `node`; nested functions
        are collected for visit_function, which knows their locals."""
        for _, value in ast.iter_fields(node):
            for i, child in enumerate(value if isinstance(value, list) else [value]):
                if isinstance(child, ast.With) and self.is_objmode(child):
                    value[i] = self.placeholder(child, blocks)
                elif isinstance(child, ast.FunctionDef):
                    nested.append(child)
                elif isinstance(child, ast.AST) and not isinstance(child, (ast.Lambda,
                                                                            ast.ClassDef)):
                    self.rewrite_body(child, blocks, nested)

    def is_objmode(self, node):
        found = [self.objmode_of(item.context_expr) is not None for item in node.items]
        if any(found) and len(found) > 1:
            raise UnsupportedError("'with kiln.objmode(...)' must be the only context "
                                   "manager of its 'with' statement", self.ir.loc(node))
        return found[0]

    def objmode_of(self, expr):
        """The objmode call's keyword nodes if `expr` is `objmode` or `objmode(...)`."""
        call = expr if isinstance(expr, ast.Call) else None
        target = call.func if call else expr
        if self.resolve(target) is not objmode:
            return None
        if call and call.args:
            raise TypingError("kiln.objmode() takes the outputs as keyword arguments "
                              "(name='type'), not positional ones", self.ir.loc(expr))
        return call.keywords if call else []

    def resolve(self, expr):
        """The value a `Name` or `a.b.c` means in the function's globals or closure."""
        if isinstance(expr, ast.Name):
            return self.namespace().get(expr.id, getattr(builtins, expr.id, None))
        if isinstance(expr, ast.Attribute):
            base = self.resolve(expr.value)
            return getattr(base, expr.attr, None) if base is not None else None
        return None

    def namespace(self):
        """The function's globals with its closure values over them."""
        pyfunc = self.pyfunc
        names = dict(pyfunc.__globals__)
        for name, cell in zip(pyfunc.__code__.co_freevars, pyfunc.__closure__ or ()):
            try:
                names[name] = cell.cell_contents
            except ValueError:  # an empty cell
                pass
        return names

    def placeholder(self, node, blocks):
        """`outputs = <objmode>(<block>, ...)`: its arguments are filled in by `outline`."""
        loc = self.ir.loc(node)
        keywords = self.objmode_of(node.items[0].context_expr)
        if node.items[0].optional_vars is not None:
            raise UnsupportedError("'with kiln.objmode(...) as name' binds nothing; drop "
                                   "the 'as'", loc)
        _check_body(node.body, self.ir)
        outputs = {}
        for kw in keywords:
            if kw.arg is None:
                raise UnsupportedError("kiln.objmode() takes no '**' arguments", loc)
            outputs[kw.arg] = self.output_type(kw, loc)
        call = ast.Call(ast.Name(_CALL, ast.Load()), [], [])
        targets = [ast.Name(name, ast.Store()) for name in outputs]
        stmt = ast.Assign([ast.Tuple(targets, ast.Store())], call) if targets else \
            ast.Expr(call)
        for n in ast.walk(stmt):
            ast.copy_location(n, node)
        blocks.append((node, call, outputs))
        return stmt

    def output_type(self, kw, loc):
        from .objmode_values import check_output_type
        from .. import types as t
        try:
            spec = eval(compile(ast.Expression(kw.value), self.ir.filename, "eval"),
                        self.namespace())
            if isinstance(spec, str):   # a type expression of kiln.types: 'int64[:, ::1]'
                spec = eval(spec, {"__builtins__": {}}, vars(t))
        except Exception as e:
            raise TypingError(f"kiln.objmode(): the type of output {kw.arg!r} is not a kiln "
                              f"type ({e})", loc) from None
        if not isinstance(spec, t.Type):
            raise TypingError(f"kiln.objmode(): the type of output {kw.arg!r} must be a kiln "
                              f"type or its name as a string, not {spec!r}", loc)
        check_output_type(kw.arg, spec, loc)
        return spec

    def outline(self, node, call, outputs, local_names, stores):
        """Compile the block and give its call the live-in arguments: the locals it reads,
        but not those only it (and its own outputs' assignment) sets."""
        loc = self.ir.loc(node)
        stored = {n.id for n in ast.walk(ast.Module(node.body, [])) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        for name in outputs:
            if name not in stored:
                raise TypingError(f"objmode output {name!r} is never assigned in the block",
                                  loc)
        read = []
        for n in ast.walk(ast.Module(node.body, [])):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and \
                    n.id in local_names and n.id not in read and \
                    (n.id not in stored or stores[n.id] > (n.id in outputs)):
                read.append(n.id)
        block = ObjModeBlock(self.compile_block(node, read, outputs), tuple(read),
                             dict(outputs), f"{self.ir.qualname}:{node.lineno}")
        name = _BLOCK.format(next(_counter))
        self.free[_CALL] = objmode_call
        self.free[name] = block
        call.args = [ast.copy_location(ast.Name(name, ast.Load()), node)] + \
            [ast.copy_location(ast.Name(n, ast.Load()), node) for n in read]

    def compile_block(self, node, inputs, outputs):
        """The block's body as a Python function of `inputs` returning the outputs; the
        function's closure values are bound as a factory's parameters."""
        def arguments(names):
            return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names],
                                 vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                 defaults=[])
        result = ast.Return(ast.Tuple([ast.Name(n, ast.Load()) for n in outputs], ast.Load()))
        block = ast.FunctionDef(name="objmode_block", args=arguments(inputs),
                                body=list(node.body) + [result], decorator_list=[],
                                returns=None, type_comment=None, type_params=[])
        closure = {k: v for k, v in self.namespace().items()
                   if k in self.pyfunc.__code__.co_freevars}
        factory = ast.FunctionDef(name="objmode_factory", args=arguments(list(closure)),
                                  body=[block, ast.Return(ast.Name("objmode_block",
                                                                   ast.Load()))],
                                  decorator_list=[], returns=None, type_comment=None,
                                  type_params=[])
        module = ast.Module([factory], type_ignores=[])
        for n in ast.walk(module):
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                ast.copy_location(n, node)
        namespace = {}
        exec(compile(module, self.ir.filename, "exec"), self.pyfunc.__globals__, namespace)
        func = namespace["objmode_factory"](*closure.values())
        func.__qualname__ = f"{self.ir.qualname}.<objmode block>"
        return func


def _check_body(body, ir, in_loop=False):
    """Refuse what cannot leave an outlined block: return, yield, and break/continue of a
    loop outside it."""
    for stmt in body:
        for node in _walk_local(stmt):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
                what = type(node).__name__.lower().replace("yieldfrom", "yield from")
                raise TypingError(f"'{what}' cannot be used inside a 'with kiln.objmode()' "
                                  "block (the block runs as a separate Python function)",
                                  ir.loc(node))
            if isinstance(node, (ast.Break, ast.Continue)) and not _in_loop(stmt, node):
                raise TypingError(f"'{type(node).__name__.lower()}' cannot leave a 'with "
                                  "kiln.objmode()' block", ir.loc(node))


def _walk_local(node):
    """ast.walk without entering nested functions, lambdas or classes."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                      ast.ClassDef)):
                todo.append(child)


def _in_loop(root, target):
    """Whether `target` (a break/continue under `root`) sits in a loop body under `root`."""
    def search(node, looping):
        if node is target:
            return looping
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            inner = looping or (isinstance(node, (ast.For, ast.While)) and field == "body")
            for child in children:
                if isinstance(child, ast.AST) and not isinstance(
                        child, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
                    found = search(child, inner)
                    if found is not None:
                        return found
        return None
    return bool(search(root, False))

"""The frontend: a Python function → its AST, with every free name resolved and frozen.

kiln compiles from the AST (not bytecode): it is stable across Python versions and every
node carries the line and column that error messages quote.
"""
from __future__ import annotations

import ast
import builtins
import copy
import functools
import linecache
import textwrap
import weakref
from dataclasses import dataclass, field

from ..errors import Location, SourceUnavailableError, UnsupportedError
from .cells import make_cells
from .objmode import outline_objmode_blocks
from .source import source_lines, which_lambda
from .number_attributes import check_number_attributes
from .versions import version_rebound_locals


@dataclass
class FunctionIR:
    """A function ready for typing: its `ast.FunctionDef` and the values of its free names."""

    pyfunc: object
    node: ast.FunctionDef
    filename: str
    arg_names: tuple
    defaults: dict
    free_values: dict = field(default_factory=dict)   # global/closure/builtin name → value
    local_names: frozenset = frozenset()
    renamed: dict = field(default_factory=dict)   # a rebound local's new name → its name

    @property
    def name(self):
        return self.pyfunc.__name__

    @property
    def qualname(self):
        return getattr(self.pyfunc, "__qualname__", self.name)

    def loc(self, node) -> Location:
        return Location(self.qualname, self.filename, getattr(node, "lineno", self.node.lineno),
                        getattr(node, "col_offset", 0), getattr(node, "end_col_offset", None))


def _function_node(pyfunc, tree, filename) -> ast.FunctionDef:
    """Find the def (or lambda) for `pyfunc` in the parsed source of its first lines."""
    name = pyfunc.__name__
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            if isinstance(node, ast.AsyncFunctionDef):
                raise UnsupportedError(f"kiln cannot compile async function {name!r}",
                                       Location(pyfunc.__qualname__, filename, node.lineno,
                                                node.col_offset))
            return node
    return _lambda_node(pyfunc, [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)])


def _lambda_node(pyfunc, lambdas) -> ast.FunctionDef:
    """The `def` for the lambda `pyfunc` among the `lambdas` of its source."""
    if pyfunc.__name__ == "<lambda>" and lambdas:
        found = lambdas[0] if len(lambdas) == 1 else which_lambda(pyfunc.__code__, lambdas)
        if found is not None:
            return inner_function_node(found)
    raise SourceUnavailableError(
        f"kiln could not tell which lambda in its source is {pyfunc.__qualname__!r}; "
        "define it with 'def'")


@functools.lru_cache(maxsize=8)
def _lambdas_in(text):
    """Every lambda of a file's text, or None where it does not parse: a file is parsed
    once however many of its lambdas compile (a test file passes hundreds)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)]


_PARSED = weakref.WeakKeyDictionary()   # code object -> (its definition's node, file name)


def _parse(pyfunc):
    """A fresh copy of the definition's tree (the passes below rewrite it). The source is
    found and parsed once per code object: a library function is compiled for many types,
    and finding a lambda parses its whole file."""
    code = getattr(pyfunc, "__code__", None)
    found = _PARSED.get(code) if code is not None else None
    if found is None:
        found = _parse_source(pyfunc)
        if code is not None:
            _PARSED[code] = found
    node, filename = found
    return copy.deepcopy(node), filename


def _parse_source(pyfunc):
    lines, firstline, filename = source_lines(pyfunc)
    if pyfunc.__name__ == "<lambda>":   # the whole text: a lambda may sit in any statement
        lambdas = _lambdas_in("".join(linecache.getlines(filename)))
        if lambdas is not None:
            return _lambda_node(pyfunc, lambdas), filename
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != source else 0
    shift = 0  # columns cut from the start of the first line to make it parse
    if dedented.lstrip().startswith(("@", "def ", "async ")):
        tree = ast.parse(dedented)
    else:  # a lambda inside an expression: parse the line(s) as they are
        tree, shift = _parse_fragment(dedented)
    for node in ast.walk(tree):
        if shift and getattr(node, "lineno", None) == 1 and hasattr(node, "col_offset"):
            node.col_offset += shift
            if getattr(node, "end_lineno", None) == 1:
                node.end_col_offset += shift
    ast.increment_lineno(tree, firstline - 1)
    if indent:
        for node in ast.walk(tree):
            if hasattr(node, "col_offset"):
                node.col_offset += indent
                if getattr(node, "end_col_offset", None) is not None:
                    node.end_col_offset += indent
    return _function_node(pyfunc, tree, filename), filename


def _parse_fragment(text):
    """Parse source lines holding a lambda that may sit inside a larger expression; returns
    the tree and how many columns were cut from the start of the first line."""
    stripped = text.strip()
    cut = len(text) - len(text.lstrip())
    if stripped.startswith("return "):
        stripped, cut = stripped[len("return "):], cut + len("return ")
    after_equals = stripped.split("=", 1)[-1]
    candidates = [(stripped, cut), (stripped.rstrip(",)"), cut),
                  (after_equals.strip(), cut + len(stripped) - len(after_equals.lstrip()))]
    for candidate, shift in candidates:
        try:
            return ast.parse(candidate), shift
        except SyntaxError:
            continue
    raise SourceUnavailableError("kiln could not parse the source of this lambda; "
                                 "define it with 'def'")


def _own_scope(fn):
    """The nodes of `fn`'s own scope: the functions and lambdas in it, not their bodies."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def defines(fn, node) -> bool:
    """Whether the def `node` (or the lambda it stands for) is defined in `fn`'s own scope."""
    return any(n is node or getattr(n, "kiln_def", None) is node for n in _own_scope(fn))


def assigned_names(fn) -> set:
    """The locals of `fn` (a def or a lambda): its parameters, the names it assigns and
    the functions it defines; a name assigned only in a nested function is that one's."""
    names = {a.arg for a in fn.args.args} | ({fn.args.vararg.arg} if fn.args.vararg else set())
    for node in _own_scope(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names


def free_names(fn) -> set:
    """The names `fn` reads without binding them, those its nested functions read included."""
    used = set()
    for node in _own_scope(fn):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            used |= free_names(node)
    return used - assigned_names(fn)


def inner_function_node(node) -> ast.FunctionDef:
    """A nested `def` as it is, or a lambda written as the `def` it stands for (made once
    per lambda, so the function keeps one identity)."""
    if not isinstance(node, ast.Lambda):
        return node
    if not hasattr(node, "kiln_def"):
        ret = ast.copy_location(ast.Return(node.body), node.body)
        fn = ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[],
                             returns=None, type_comment=None, type_params=[])
        node.kiln_def = ast.copy_location(fn, node)
    return node.kiln_def


def captured_names(node: ast.FunctionDef, outer: FunctionIR) -> tuple:
    """The outer function's locals that a nested function reads (passed to it as hidden
    trailing arguments at each call, so it sees their current values, as a closure does),
    and those that the outer's nested functions it calls read (a comprehension calling
    `inner`, which reads `y`, passes `y` on at that call), by name or as an argument the
    outer passes it (`apply(inner, x)`: `apply` calls its parameter `f`, which reads `y`)."""
    names = free_names(node)
    functions = _local_functions(outer.node)
    _add_reads(functions, [n for n in names if n in functions], names)
    passed = set()   # what those passed read, but for the names it binds itself
    _add_reads(functions, _functions_passed(node, outer, functions), passed)
    return tuple(sorted((names | passed - assigned_names(node)) & outer.local_names))


def _add_reads(functions, pending, names):
    """Add to `names` what the nested functions named in `pending` read, and what those
    they read by name read."""
    while pending:
        for fn in functions[pending.pop()]:
            for name in free_names(fn) - names:
                names.add(name)
                if name in functions:
                    pending.append(name)


def _functions_passed(node, outer, functions) -> list:
    """The outer's nested functions that its own calls of `node` (by name) pass as
    arguments."""
    return [arg.id for call in _own_scope(outer.node) if isinstance(call, ast.Call) and
            isinstance(call.func, ast.Name) and call.func.id == node.name
            for arg in call.args if isinstance(arg, ast.Name) and arg.id in functions]


def _local_functions(fn) -> dict:
    """name -> the nested functions (defs, lambdas assigned to a name) bound to it in
    `fn`'s own scope."""
    found = {}
    for node in _own_scope(fn):
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
    return found


class _InnerFunction:
    """Stands for a nested function's Python function object, which does not exist yet."""

    def __init__(self, node, outer):
        self.__name__ = node.name
        self.__qualname__ = f"{outer.qualname}.<locals>.{node.name}"
        self.__module__ = outer.pyfunc.__module__
        self.__defaults__ = None
        self.__globals__ = outer.pyfunc.__globals__
        self.__code__ = outer.pyfunc.__code__
        self.__closure__ = outer.pyfunc.__closure__


def build_nested_ir(node: ast.FunctionDef, outer: FunctionIR, captured: tuple) -> FunctionIR:
    """The FunctionIR of a function nested in `outer`, taking `captured` as extra arguments."""
    loc = outer.loc(node)
    _check_signature(node, loc)
    if node.args.vararg:
        raise UnsupportedError("kiln compiles *args in @njit functions, not yet in functions "
                               "nested in them", loc)
    if node.decorator_list:
        raise UnsupportedError("nested functions in compiled code cannot have decorators", loc)
    nested_defaults(node, outer)
    pyfunc = _InnerFunction(node, outer)
    ir = FunctionIR(pyfunc, node, outer.filename,
                    tuple(a.arg for a in node.args.args) + captured, {})
    ir.local_names = frozenset(assigned_names(node) | set(captured))
    ir.free_values = _free_values(outer.pyfunc, node, ir.local_names)
    for name, value in outer.free_values.items():  # names the outer's own stages bound
        if name not in ir.local_names:
            ir.free_values.setdefault(name, value)
    return ir


def nested_defaults(node: ast.FunctionDef, outer: FunctionIR) -> tuple:
    """The default values of a nested function's last parameters. Python evaluates them
    when the `def` runs; kiln takes constants only (numbers, strings, None, tuples of
    them), whose value does not depend on when."""
    values = []
    for default in node.args.defaults:
        try:
            values.append(ast.literal_eval(default))
        except ValueError:
            raise UnsupportedError("a default argument of a function nested in compiled code "
                                   "must be a constant (a number, a string, None or a tuple "
                                   "of them)", outer.loc(default)) from None
    return tuple(values)


def _check_signature(fn: ast.FunctionDef, loc):
    a = fn.args
    if a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise UnsupportedError("kiln compiles functions with positional parameters, *args, "
                               "and keyword-only parameters without *args only (no **kwargs "
                               "or positional-only parameters)", loc)


def _keyword_only_last(fn: ast.FunctionDef) -> int:
    """Keyword-only parameters (of a function without `*args`) become the last positional
    ones: the dispatcher binds calls by Python's rules and passes them all in order.
    Returns how many parameters were positional."""
    a = fn.args
    count = len(a.args)
    if not a.vararg:
        a.args += a.kwonlyargs
        a.kwonlyargs, a.kw_defaults = [], []
    return count


def _mangling_class(qualname):
    """The name of the class whose body holds the function `qualname` (directly or in a
    function nested there), or None: in a qualified name a class is followed by its member,
    a function by `<locals>`."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if "<locals>" not in (parts[i], parts[i + 1]):
            return parts[i]
    return None


def _mangle_private_attributes(node, qualname):
    """`obj.__x` written in a class's body means `obj._Cls__x`, as CPython compiles it."""
    owner = (_mangling_class(qualname) or "").lstrip("_")
    if not owner:
        return
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr.startswith("__") and \
                not sub.attr.endswith("__"):
            sub.attr = f"_{owner}{sub.attr}"


def build_function_ir(pyfunc) -> FunctionIR:
    """Parse `pyfunc` and resolve its free names (frozen at compile time, as in Numba)."""
    node, filename = _parse(pyfunc)
    node.decorator_list = []
    _mangle_private_attributes(node, getattr(pyfunc, "__qualname__", ""))
    positional_count = _keyword_only_last(node)
    # `*args` is one more parameter, a tuple of the extra arguments (cpu/dispatcher.py)
    star = (node.args.vararg.arg,) if node.args.vararg else ()
    ir = FunctionIR(pyfunc, node, filename, tuple(a.arg for a in node.args.args) + star, {})
    make_cells(node, ir.loc)   # `nonlocal` variables (frontend/cells.py)
    blocks = outline_objmode_blocks(ir)   # first: a block's comprehensions stay Python
    ir.renamed = version_rebound_locals(node)   # before comprehensions become functions
    _Comprehensions(lambda name: _is_builtin(pyfunc, node, name)).visit(node)
    _check_signature(node, ir.loc(node))
    for stmt in ast.walk(node):
        if isinstance(stmt, (ast.Global, ast.Nonlocal)):
            raise UnsupportedError("kiln does not support 'global' or 'nonlocal' statements",
                                   ir.loc(stmt))
    ir.local_names = frozenset(assigned_names(node))
    defaults = pyfunc.__defaults__ or ()
    positional = ir.arg_names[:positional_count]
    ir.defaults = dict(zip(positional[len(positional) - len(defaults):], defaults))
    ir.defaults.update(getattr(pyfunc, "__kwdefaults__", None) or {})
    ir.free_values = _free_values(pyfunc, node, ir.local_names)
    ir.free_values.update(blocks)
    check_number_attributes(ir)
    return ir


class _Comprehensions(ast.NodeTransformer):
    """The one lowering pass: a list (dict, set) comprehension becomes a call of a nested
    function (defined first in the function that holds it) that builds the list with
    `append` (the dict with `result[key] = value`, the set with `add`):

        def <listcomp>():          # reads the outer locals as any nested function does
            result = []
            for x in xs:
                if x > 0:
                    result.append(x * x)
            return result

    Its loop variables stay its own, as in Python 3. A generator expression becomes a
    nested generator function the same way (its body yields each item), and the statement
    `yield from xs` the loop `for <item> in xs: yield <item>`. Comprehensions in lambdas
    stay as they are (a lambda has no body to hold the def) and are refused by typing.

    `dict(k=v)` becomes the display `{"k": v}`, and
    `map(f, xs, ys)` and `filter(f, xs)` of the builtins are first written as the list
    comprehensions they equal (`[f(x, y) for x, y in zip(xs, ys)]`, `[x for x in xs if
    f(x)]`): compiled code gets their items, as a list instead of a lazy iterator."""

    def __init__(self, is_builtin=lambda name: False):
        self.hoisted = None
        self.is_builtin = is_builtin

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func
        named = [k for k in node.keywords if k.arg is not None]
        if isinstance(fn, ast.Name) and fn.id == "dict" and not node.args and named and \
                len(named) == len(node.keywords) and self.is_builtin("dict"):
            return ast.copy_location(ast.Dict([ast.Constant(k.arg) for k in named],
                                              [k.value for k in named]), node)
        if not (isinstance(fn, ast.Name) and fn.id in ("map", "filter") and len(node.args) >= 2
                and not node.keywords and self.is_builtin(fn.id)):
            return node
        iterables = node.args[1:]
        if fn.id == "filter" and len(iterables) > 1:
            return node
        if any(isinstance(a, ast.Starred) for a in node.args):
            if fn.id == "filter" or isinstance(node.args[0], ast.Starred):
                return node
            # `map(f, *its)`: `[f(*<map>) for <map> in zip(*its)]` (typing spreads tuples)
            loaded = ast.Name("<map>", ast.Load())
            comp = ast.ListComp(
                ast.Call(node.args[0], [ast.Starred(loaded, ast.Load())], []),
                [ast.comprehension(ast.Name("<map>", ast.Store()),
                                   ast.Call(ast.Name("zip", ast.Load()), iterables, []),
                                   [], 0)])
            for n in ast.walk(comp):
                if "lineno" in n._attributes and not hasattr(n, "lineno"):
                    ast.copy_location(n, node)
            return self.visit_ListComp(comp)
        items = [f"<{fn.id}{i}>" for i in range(len(iterables))]
        loads = [ast.Name(n, ast.Load()) for n in items]
        target = ast.Name(items[0], ast.Store()) if len(items) == 1 else \
            ast.Tuple([ast.Name(n, ast.Store()) for n in items], ast.Store())
        source = iterables[0] if len(items) == 1 else \
            ast.Call(ast.Name("zip", ast.Load()), iterables, [])
        if fn.id == "map":
            element, tests = ast.Call(node.args[0], loads, []), []
        else:
            none = isinstance(node.args[0], ast.Constant) and node.args[0].value is None
            element, tests = loads[0], [loads[0] if none else ast.Call(node.args[0], loads, [])]
        comp = ast.ListComp(element, [ast.comprehension(target, source, tests, 0)])
        for n in ast.walk(comp):
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                ast.copy_location(n, node)
        return self.visit_ListComp(comp)

    def visit_FunctionDef(self, node):
        outer, self.hoisted = self.hoisted, []
        self.generic_visit(node)
        node.body[:0] = self.hoisted
        self.hoisted = outer
        return node

    def visit_Lambda(self, node):
        return node

    def visit_ListComp(self, node):
        result = "<result>"
        add = ast.Expr(ast.Call(ast.Attribute(ast.Name(result, ast.Load()), "append",
                                              ast.Load()), [node.elt], []))
        return self._hoist(node, "listcomp", ast.List([], ast.Load()), add)

    def visit_SetComp(self, node):
        add = ast.Expr(ast.Call(ast.Attribute(ast.Name("<result>", ast.Load()), "add",
                                              ast.Load()), [node.elt], []))
        return self._hoist(node, "setcomp", ast.Set([]), add)   # `{}` with no items: set()

    def visit_GeneratorExp(self, node):
        return self._hoist(node, "genexpr", None, ast.Expr(ast.Yield(node.elt)))

    def visit_Expr(self, node):
        self.generic_visit(node)
        if not isinstance(node.value, ast.YieldFrom):
            return node
        item = f"<yield from:{node.lineno}:{node.col_offset}>"
        loop = ast.For(ast.Name(item, ast.Store()), node.value.value,
                       [ast.Expr(ast.Yield(ast.Name(item, ast.Load())))], [])
        for n in ast.walk(loop):
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                ast.copy_location(n, node)
        return loop

    def visit_DictComp(self, node):
        target = ast.Subscript(ast.Name("<result>", ast.Load()), node.key, ast.Store())
        return self._hoist(node, "dictcomp", ast.Dict([], []),
                           ast.Assign([target], node.value))

    def _hoist(self, node, kind, empty, body):
        """`node` as a call of a nested function that starts from `empty` and runs `body`
        for each item of the comprehension's loops (a generator when `empty` is None)."""
        if self.hoisted is None:
            return node
        name = f"<{kind}:{node.lineno}:{node.col_offset}:{len(self.hoisted)}>"
        result = "<result>"
        _unshadow_first_iterable(node, name)
        for gen in reversed(node.generators):
            if gen.is_async:
                return node
            for test in reversed(gen.ifs):
                body = ast.If(test, [body], [])
            body = ast.For(gen.target, gen.iter, [body], [])
        fn = ast.FunctionDef(
            name=name, args=ast.arguments(posonlyargs=[], args=[], vararg=None,
                                          kwonlyargs=[], kw_defaults=[], kwarg=None,
                                          defaults=[]),
            body=[body] if empty is None else [
                ast.Assign([ast.Name(result, ast.Store())], empty), body,
                ast.Return(ast.Name(result, ast.Load()))],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
        for n in ast.walk(fn):  # errors point at the comprehension
            if "lineno" in n._attributes and not hasattr(n, "lineno"):
                ast.copy_location(n, node)
        self.hoisted.append(self.visit_FunctionDef(fn))
        return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), [], []), node)


def _unshadow_first_iterable(node, name):
    """In Python the first iterable of a comprehension is read in the enclosing scope: in
    `[x for x in f(x)]` the `x` of `f(x)` is the outer one. The nested function reads it
    from its own body, so the names the comprehension binds are renamed inside it (only
    when that first iterable reads one of them)."""
    bound = {n.id for gen in node.generators for n in ast.walk(gen.target)
             if isinstance(n, ast.Name)}
    first = node.generators[0].iter
    shadowed = bound & {n.id for n in ast.walk(first) if isinstance(n, ast.Name)}
    if not shadowed:
        return
    inside = [node.generators[0].target, *node.generators[0].ifs,
              *(part for gen in node.generators[1:] for part in (gen.target, gen.iter, *gen.ifs))]
    inside += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for part in inside:
        for n in ast.walk(part):
            if isinstance(n, ast.Name) and n.id in shadowed:
                n.id = f"{n.id}{name}"


_MISSING = object()


def _is_builtin(pyfunc, node, name) -> bool:
    """Whether `name` in `pyfunc` means Python's builtin of that name."""
    if name in assigned_names(node) or name in pyfunc.__code__.co_freevars:
        return False
    builtin = getattr(builtins, name, _MISSING)
    return pyfunc.__globals__.get(name, builtin) is builtin


def _free_values(pyfunc, node, local_names) -> dict:
    """Resolve names that are not locals: closure cells, then globals, then builtins."""
    code = pyfunc.__code__
    closure = dict(zip(code.co_freevars, [c.cell_contents if _cell_full(c) else _MISSING
                                          for c in (pyfunc.__closure__ or ())]))
    values = {}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id not in local_names and n.id not in values:
            if n.id in closure:
                value = closure[n.id]
            else:
                value = pyfunc.__globals__.get(n.id, _MISSING)
                if value is _MISSING:
                    value = getattr(builtins, n.id, _MISSING)
            if value is not _MISSING:
                values[n.id] = value
    return values


def _cell_full(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True

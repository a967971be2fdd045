"""Arguments that a callee needs as compile-time values (Numba's literal dispatch).

`kiln.literally(x)` in a function, `SentryLiteralArgs` in an `@overload`, or a call that
passes a parameter on to a function needing it as a constant, asks for some parameter of
the function being typed to be a compile-time value: typing raises `LiteralRequest` naming
them (Numba's ForceLiteralArg). Whoever chose the argument types answers it:

- the dispatcher of a function called from Python compiles it again for the values of
  those arguments (cpu/dispatcher.py), remembering the parameters for later calls;
- a call in compiled code (`call_with_literals` below) passes its argument as a literal
  type when its value is known (a constant, a local assigned one constant once, or a
  parameter that is itself a literal) and otherwise asks in turn for the parameter of its
  own function that it passes along; any other argument is a TypingError, "Cannot request
  literal type", as in Numba;
- an `@overload`'s template compiles its implementation again with the literal types the
  call gave (typing/registry.py).

A request that comes back for parameters already granted is Numba's "Repeated literal
typing request" (a CompilerError): typing failed for the literal values too.
"""
from __future__ import annotations

import ast
import inspect

from .. import types as t
from ..errors import CompilerError, LiteralTypingError, TypingError, UnsupportedError
from .results import Deferred

CALL = "call"   # the owner of a request about the arguments of the call being resolved


class LiteralRequest(TypingError):
    """Typing needs the parameters `params` of `owner` (a Python function, or a nested
    function's `ast.FunctionDef`; CALL: the arguments of the call being resolved, by
    position or keyword) as compile-time values."""

    def __init__(self, owner, params, why="", loc=None):
        self.owner = owner
        self.params = frozenset(params)
        self.why = why
        shown = ", ".join(sorted(map(str, self.params)))
        super().__init__(f"{why or 'a compile-time value is needed'}: the argument(s) {shown} "
                         "must be known at compile time (Numba: Cannot request literal type)",
                         loc)


def owner_of(ir):
    """Who answers a request for the parameters of the function `ir` is typed from."""
    from ..frontend import _InnerFunction
    return ir.node if isinstance(ir.pyfunc, _InnerFunction) else ir.pyfunc


def literal_type(value, what="a value"):
    """Numba's `types.literal(value)` for an argument the function is compiled for: an
    int, bool or str; anything else is a LiteralTypingError naming its class."""
    import numpy as np
    if isinstance(value, (np.integer, np.bool_)):
        value = value.item()
    if type(value) in (bool, int, str, slice):
        return t.literal(value)
    cls = type(value)
    name = cls.__qualname__ if cls.__module__ == "builtins" else \
        f"{cls.__module__}.{cls.__qualname__}"
    raise LiteralTypingError(f"{name} cannot be used as a literal: {what} must be an int, a "
                             "bool or a str to compile a function for its value")


def repeated(owner, params, loc=None):
    name = getattr(owner, "__qualname__", getattr(owner, "name", owner))
    return CompilerError(f"Repeated literal typing request: {name}() was already compiled "
                         f"for the value of {', '.join(sorted(map(str, params)))} and typing "
                         "failed again; the error is in typing with those values", loc)


# -- what a function knows about its own names ----------------------------------------------

def pure_parameters(ir) -> frozenset:
    """The parameters of `ir` that its body never assigns: a read of one is the argument."""
    cached = getattr(ir, "_kiln_pure_parameters", None)
    if cached is None:
        stored = {n.id for n in ast.walk(ir.node)
                  if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        cached = ir._kiln_pure_parameters = frozenset(ir.arg_names) - stored
    return cached


def constant_locals(ir) -> dict:
    """Locals assigned once, by a top-level `name = <expression>` of the body: name -> the
    assignment. A read after that statement is the expression's value when typing knows
    it (Numba infers such a local as a literal; `v = 1000; literally(v)`, `f = tup[1]` of a
    global tuple)."""
    cached = getattr(ir, "_kiln_constant_locals", None)
    if cached is not None:
        return cached
    stores = {}
    for n in ast.walk(ir.node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.FunctionDef, ast.ExceptHandler)) and n is not ir.node:
            stores[n.name] = stores.get(n.name, 0) + 2
    found = {}
    for stmt in ir.node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name) and \
                stores.get(stmt.targets[0].id) == 1 and stmt.targets[0].id not in ir.arg_names:
            found[stmt.targets[0].id] = stmt
    ir._kiln_constant_locals = found
    return found


def assigned_before(ir, name):
    """The expression a local assigned once was given, where the ast.Name `name` reads it
    after that assignment; else None."""
    stmt = constant_locals(ir).get(name.id)
    if stmt is None or not hasattr(name, "lineno") or \
            (name.lineno, name.col_offset) <= (stmt.end_lineno, stmt.end_col_offset):
        return None
    return stmt.value


_NOTHING = object()


def known_tuple(typer, node):
    """The tuple `node` is if typing knows it at compile time, else None: a frozen one, or
    a local assigned a display of constants once before (`fs = ('a', 'b')`, as Numba
    infers it: `fs[1]` and `literal_unroll(fs)` then name record fields)."""
    value = typer.constants.get(node)
    if isinstance(value, tuple):
        return value
    assigned = assigned_before(typer.ir, node) if isinstance(node, ast.Name) else None
    if isinstance(assigned, ast.Tuple) and all(isinstance(e, ast.Constant) and
                                               type(e.value) in (bool, int, str)
                                               for e in assigned.elts):
        return tuple(e.value for e in assigned.elts)
    return None


def known_value(typer, node):
    """The value of the expression `node` if typing knows it at compile time, else
    _NOTHING: a constant, a literal parameter, or a local assigned one constant before."""
    if node in typer.constants:
        return typer.constants[node]
    if isinstance(node, ast.Name):
        if node.id in typer.literal_values and node.id in pure_parameters(typer.ir):
            return typer.literal_values[node.id]
        assigned = assigned_before(typer.ir, node)
        if assigned is not None:
            value = assigned.value if isinstance(assigned, ast.Constant) else \
                typer.constants.get(assigned, _NOTHING)
            if type(value) in (bool, int, str):
                return value
    return _NOTHING


def literal_of(typer, node, what, ty=None):
    """The literal type of the argument `node` (of type `ty`) of the function being typed,
    or a request for the parameter it reads (LiteralRequest to this function's own caller),
    or a TypingError when it is computed at run time. A list made by a display of constants
    is its type with that display's items as its `initial_value`, as in Numba."""
    value = known_value(typer, node)
    if value is not _NOTHING:
        return literal_type(value, what)
    if isinstance(ty, t.List):
        items = _initial_items(typer, node)
        if items is not None:
            return t.List(ty.item_type, initial_value=items)
    if isinstance(node, ast.Name) and node.id in pure_parameters(typer.ir):
        raise LiteralRequest(owner_of(typer.ir), {node.id}, f"{what} needs its value",
                             typer.ir.loc(node))
    raise TypingError(f"Cannot request literal type: {what} must be known at compile time, "
                      "but it is computed here at run time (kiln compiles a function for the "
                      "value of an argument that is a constant, a local assigned one constant, "
                      "or a parameter of the calling function)", typer.ir.loc(node))


def _initial_items(typer, node):
    """The items of the list display `node` is, or that the local `node` was assigned once
    before this read, when they are all int, bool or str constants; else None."""
    display = assigned_before(typer.ir, node) if isinstance(node, ast.Name) else node
    if not isinstance(display, ast.List) or not all(
            isinstance(e, ast.Constant) and type(e.value) in (bool, int, str)
            for e in display.elts):
        return None
    return [e.value for e in display.elts]


# -- a call whose callee asks for literal arguments ------------------------------------------

def call_with_literals(typer, node, args, kws, resolve, owner, wanted, bind, record):
    """Resolve a call (`resolve(args, kws)`), passing as literal types the arguments that
    the callee's parameters `wanted` need, and answering the callee's requests.

    `owner`: whose requests this call answers (the callee's owner_of, or CALL); `bind`:
    maps the callee's parameter names (or CALL's positions and keywords) to (the argument's
    node, its position in `args` or its keyword), or None where the call gives no one
    expression for it (a default, a `*args` parameter); `record(params)`: remember that
    the callee wants them."""
    wanted = set(wanted)
    for _ in range(64):
        args2, kws2 = list(args), dict(kws)
        if wanted:
            slots = bind(wanted)
            for param in sorted(wanted, key=str):
                what = f"argument {param!r}" if isinstance(param, str) else \
                    f"argument {param + 1}"
                if slots.get(param) is None:
                    raise TypingError(f"Cannot request literal type: {what} is not given by "
                                      "this call as one expression (a default or a '*args' "
                                      "parameter), so it cannot be a compile-time value",
                                      typer.ir.loc(node))
                arg, slot = slots[param]
                lit = literal_of(typer, arg, what,
                                 args2[slot] if isinstance(slot, int) else kws2[slot])
                if isinstance(slot, int):
                    args2[slot] = lit
                else:
                    kws2[slot] = lit
        try:
            return resolve(tuple(args2), kws2)
        except LiteralRequest as request:
            if request.owner is not owner:
                raise
            new = request.params - wanted
            if not new:
                raise repeated(owner, request.params, typer.ir.loc(node)) from request
            wanted |= new
            record(new)
    raise repeated(owner, wanted, typer.ir.loc(node))


def _slots(node):
    """Each argument expression of the call: node -> its position, or its keyword."""
    return [(a, i) for i, a in enumerate(node.args)] + [(k.value, k.arg) for k in node.keywords]


def bind_to_signature(pyfunc, node):
    """`bind` for a callee with a Python signature (its parameter names)."""
    sig = inspect.signature(pyfunc)

    def bind(params):
        try:
            bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return {}
        slot_of = {id(a): s for a, s in _slots(node)}
        found = {}
        for p in params:
            arg = bound.arguments.get(p)
            found[p] = (arg, slot_of[id(arg)]) if id(arg) in slot_of else None
        return found
    return bind


def bind_positions(node):
    """`bind` for CALL: argument positions and keyword names."""
    def bind(params):
        keywords = {k.arg: k.value for k in node.keywords}
        return {p: ((node.args[p], p) if isinstance(p, int) and p < len(node.args) else
                    (keywords[p], p) if p in keywords else None) for p in params}
    return bind


_ARRAY_TYPES = {}   # (dtype, slices' bounds, whether a tuple of them) -> the array type


class LiteralCalls:
    """The Typer's calls of callees that may need arguments as compile-time values."""

    def with_literals(self, node, args, kws, key=None, bools=True):
        """The call's arguments with its bool constants typed as BooleanLiteral (`bools`),
        which a library overload may depend on (registry.py compiles it for plain booleans),
        and its int constants as IntegerLiteral where an overload of `key` prefers literals
        (Numba's prefer_literal=True)."""
        ints = key is not None and self.tctx.prefers_literals(key)

        def literal(arg_node, ty):
            value = self.constants.get(arg_node)
            if ints and type(value) is int and isinstance(ty, t.Integer):
                return t.IntegerLiteral(value)
            if bools and type(value) is bool and ty == t.boolean:
                return t.BooleanLiteral(value)
            return ty
        return (tuple(literal(a, ty) for a, ty in zip(node.args, args)),
                {k.arg: literal(k.value, kws[k.arg]) for k in node.keywords})

    def field_name(self, obj, index, node):
        """A record's (or record array's) field named by a string known at compile time
        (`f = 'a'; r[f]`, a global tuple's item), or a record's by a position known then
        (`r[0]`): its literal type, as Numba infers it."""
        if isinstance(obj, t.Record) and isinstance(index, t.Integer):
            value = known_value(self, node)
            if type(value) is not int:
                return index
            if not -len(obj) <= value < len(obj):
                raise self.error(f"Requested index {value} is out of range for {obj} (its "
                                 f"{len(obj)} fields)", node)
            return t.StringLiteral(obj.members[value][0])
        if index != t.unicode_type or not isinstance(
                obj.dtype if isinstance(obj, t.Array) else obj, t.Record):
            return index
        value = known_value(self, node)
        return t.StringLiteral(value) if type(value) is str else index

    def array_type_spec(self, cls, node):
        """`float32[::1, :]` in compiled code, its slices written with constants: the array
        type, a compile-time constant (a type argument: `typed.List.empty_list(ty)`)."""
        known = self.constants.get(node.slice)   # (a tuple of slices frozen into the code)
        many = isinstance(known, tuple) or isinstance(node.slice, ast.Tuple)
        if isinstance(known, tuple):
            bounds = [[s.start, s.stop, s.step] if isinstance(s, slice) else None
                      for s in known]
        else:
            bounds = [self.constant_slice(p) for p in (node.slice.elts if many else
                                                       [node.slice])]
        if any(b is None for b in bounds):
            return None
        key = (cls.instance_type, tuple(map(tuple, bounds)), many)
        if key not in _ARRAY_TYPES:     # one object per type: a Function is of its object
            spec = tuple(slice(*b) for b in bounds)
            try:
                _ARRAY_TYPES[key] = cls.instance_type[spec if key[2] else spec[0]]
            except TypeError as e:
                raise self.error(str(e), node) from None
        self.constants[node] = _ARRAY_TYPES[key]
        return t.Function(_ARRAY_TYPES[key])

    def call_dispatcher(self, node, disp, args, kws):
        """A call of a kiln function: its parameters that `literally` (or a call it makes)
        needs are passed as literal types, and it remembers those asked for later."""
        literal = getattr(disp, "literal_parameters", None)
        if literal is None:   # (a CUDA device function: no literal dispatch)
            return self.tctx.resolve_dispatcher(disp, args, kws)
        return call_with_literals(
            self, node, args, kws, lambda a, k: self.tctx.resolve_dispatcher(disp, a, k),
            disp.typed_func, literal(), bind_to_signature(disp.py_func, node),
            disp.require_literal)

    def call_template(self, node, args, kws, resolve, receiver=False):
        """A call resolved by the registry: an `@overload` may ask for arguments (CALL, by
        its own count, in which a method's receiver is argument 0)."""
        shift = 1 if receiver else 0
        positions = bind_positions(node)

        def bind(params):
            return {p: (positions({p - shift}).get(p - shift) if p >= shift else None)
                    if isinstance(p, int) else positions({p}).get(p) for p in params}
        return call_with_literals(self, node, args, kws, resolve, CALL, (), bind,
                                  lambda params: None)

    def inner_captures(self, node, fn) -> tuple:
        """The types of the outer locals the nested function `fn` reads, passed to it as
        they are here: where it is called by name (in the function defining it, or in one
        nested there), or as a value in a function receiving those locals itself (captured,
        never assigned). Elsewhere these names are other variables, or none."""
        from ..frontend import assigned_names, defines
        by_name = isinstance(node.func, ast.Name) and node.func.id == fn.node.name
        if not by_name and not defines(self.ir.node, fn.node):
            received = set(self.ir.arg_names) - assigned_names(self.ir.node)
            missing = [name for name in fn.captured if name not in received]
            if missing:
                raise self.error(f"kiln cannot call the nested function {fn.node.name!r} "
                                 f"here: it reads {', '.join(missing)} of the function "
                                 "defining it, another variable or none here (kiln passes a "
                                 "nested function those locals only where they are in "
                                 "scope)", node, UnsupportedError)
        for name in fn.captured:
            if name not in self.locals:
                raise Deferred(name, node, free=True)
        return tuple(self.locals[name] for name in fn.captured)

    def call_inner(self, node, fn, argtypes):
        """A call of a function nested in this one (its captured names passed last); the
        parameters it does not give take their defaults (constants)."""
        from ..frontend import nested_defaults
        own = [a.arg for a in fn.node.args.args]
        given = len(node.args)
        defaults = nested_defaults(fn.node, fn.outer)
        least = len(own) - len(defaults)
        if not least <= given <= len(own) and not fn.node.args.vararg:   # (refused later)
            takes = f"from {least} to {len(own)}" if defaults else f"{len(own)}"
            raise self.error(f"{fn.node.name}() takes {takes} positional arguments but "
                             f"{given} were given", node)
        filled = tuple((t.typeof(v), v) for v in defaults[len(defaults) - len(own) + given:])
        params = own[:given] + list(fn.captured)
        wanted = getattr(fn.node, "_kiln_literal", set())

        def bind(names):
            found = {}
            for name in names:
                i = params.index(name) if name in params else None
                if i is None:
                    found[name] = None
                elif i < len(node.args):
                    found[name] = (node.args[i], i)
                elif i >= len(params) - len(fn.captured):   # a captured local of this one
                    read = ast.copy_location(ast.Name(name, ast.Load()), node)
                    found[name] = (read, i)
                else:
                    found[name] = None
            return found

        def record(names):
            fn.node._kiln_literal = set(getattr(fn.node, "_kiln_literal", set())) | set(names)
        return call_with_literals(
            self, node, argtypes, {},
            lambda a, k: self.tctx.resolve_inner(fn, a, self.options, filled), fn.node, wanted,
            bind, record)

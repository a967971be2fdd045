"""Type inference over the function's AST: a fixpoint over the types of locals.

Each pass walks the whole body, typing every expression from the current local types and
widening a local when it is assigned a new type (loops widen `int64` + `float64` to
`float64`). When a pass changes nothing, the recorded expression types and call
resolutions are final. Tests that are constant (`x is None` where x is None) prune their
dead branch here and in code generation alike.
"""
from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import operator
import types as pytypes

import numpy as np

from .. import types as t
from ..errors import TypingError, UnsupportedError, UntypedGlobalError
from .registry import registry
from ..frontend import FunctionIR, build_function_ir
from . import exceptions, families, generators
from .operators import (BINARY_OF, BINOPS, CMPOPS, OP_SYMBOLS, UNARYOPS,
                        UNSUPPORTED_EXPRS)
from .results import Deferred, RecursionPending, TypedFunction
from .introspection import IntrospectionCalls
from .literals import LiteralCalls, known_tuple
from .statements import StatementTyper
from .unify import can_convert, held, unify, why_not_unified

_INTROSPECTION = {isinstance: "known_isinstance", hasattr: "known_hasattr",
                  getattr: "known_getattr"}   # typing/introspection.py
_REPR = "__kiln_repr"   # the name an f-string's {x!r} calls repr by (a free value)
_symbols = {}  # symbol -> what it names, so symbols stay unique within the process


def ascii_name(name: str) -> str:
    """A Python name as symbols spell it: LLVM's and the CUDA driver's look-ups take ASCII,
    and `def ρ_plus` is a Python name."""
    return "".join(c if c.isascii() else f"_u{ord(c):04x}" for c in name)


def _symbol_for(ir, argtypes, options, constants) -> str:
    """A deterministic LLVM name (the same in every process, so the IR text can key the
    on-disk cache), made unique if two different functions share a qualified name. Two
    closures of one inner function that capture equal values compile alike, so they share
    a name: library overloads make such closures anew on every call, and a counter of them
    would make the name depend on what the process compiled before. The values typing
    froze (`constants`: globals among them) are part of what a name means, so a function
    typed again after a global changed gets a name of its own."""
    what = (ir.pyfunc.__module__, ir.qualname, argtypes, options)
    digest = hashlib.sha1(repr(what).encode()).hexdigest()[:12]
    named = (_contents(ir.pyfunc, set()), argtypes, options, _contents(constants, set()))
    name = ascii_name(ir.qualname)
    symbol, n = f"kiln.{name}.{digest}", 1
    while _symbols.setdefault(symbol, named) != named:
        symbol, n = f"kiln.{name}.{digest}.{n}", n + 1
    return symbol


def _contents(value, seen):
    """What a function's code depends on, comparable by value: its code, globals, defaults
    and captured values (functions among them compared the same way, except those that
    the library gives a meaning by their identity); other values by type, value and repr
    (so 0.0 and -0.0 differ), or by identity if unhashable."""
    if isinstance(value, pytypes.FunctionType) and not registry.has(value):
        if id(value) in seen:          # a recursive inner function captures itself
            return ("recursive", value.__code__)
        seen.add(id(value))
        cells = tuple(_contents(_cell_value(c), seen) for c in value.__closure__ or ())
        return (value.__code__, id(value.__globals__), _contents(value.__defaults__, seen),
                _Identity(value.__kwdefaults__), cells)
    if isinstance(value, tuple):
        return tuple(_contents(v, seen) for v in value)
    try:
        hash(value)
    except TypeError:
        return _Identity(value)
    return (type(value), value, repr(value))


class _Identity:
    """An unhashable value, equal only to itself (and kept alive, so its id stays its own)."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.value is self.value

    def __hash__(self):
        return id(self.value)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:   # a cell not filled yet
        return _EMPTY_CELL


_EMPTY_CELL = object()


def infer_function(tctx, pyfunc, argtypes, declared_return, options) -> TypedFunction:
    ir = build_function_ir(pyfunc)
    loops = []
    if options.parallel:  # the parallel stage: prange loops into chunks run on threads
        loops = families.ask("outline_prange_loops", ir)
    typed = infer_ir(tctx, ir, argtypes, declared_return, options)
    typed.prange_loops = loops
    return typed


def infer_ir(tctx, ir, argtypes, declared_return, options) -> TypedFunction:
    if len(argtypes) != len(ir.arg_names):
        raise TypingError(f"{ir.qualname}() takes {len(ir.arg_names)} arguments but "
                          f"{len(argtypes)} were given", ir.loc(ir.node))
    typer = Typer(tctx, ir, argtypes, declared_return, options)
    typed = typer.run()
    typed.symbol = _symbol_for(ir, tuple(argtypes), options, tuple(typed.constants.values()))
    return typed


def _narrowed(test, op, branch, ty):
    """The type of `x` in `x if x is not None else ...` (op IsNot) or `... if x is None else
    x` (op Is): not Optional, since the test has just excluded None."""
    if (isinstance(ty, t.Optional) and isinstance(branch, ast.Name)
            and isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], op) and isinstance(test.left, ast.Name)
            and test.left.id == branch.id and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None):
        return ty.type
    return ty



def _python_class_name(ty):
    """The name of the Python class whose values `ty` holds, for Python's wording of an
    error (None where there is no one such class)."""
    for cls, name in ((t.Boolean, "bool"), (t.Integer, "int"), (t.Float, "float"),
                      (t.Complex, "complex"), (t.UnicodeType, "str"),
                      (t.StringLiteral, "str"), (t.NoneType, "NoneType"),
                      (t.BaseTuple, "tuple")):
        if isinstance(ty, cls):
            return name
    return None


def _has_effects(node) -> bool:
    """Whether evaluating `node` may do more than compute a value (a call, `:=`)."""
    return any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(node))

def _declared_takes(ty, declared) -> bool:
    """Whether a variable declared `declared` (jit's locals=, a signature's return type)
    takes a `ty`: any implicit conversion, and a number into any other but complex into real."""
    return can_convert(ty, declared) or (
        isinstance(ty, t.Number) and isinstance(declared, t.Number) and
        (isinstance(declared, t.Complex) or not isinstance(ty, t.Complex)))


class Typer(StatementTyper, LiteralCalls, IntrospectionCalls):
    MAX_PASSES = 64

    def __init__(self, tctx, ir: FunctionIR, argtypes, declared_return, options):
        self.tctx = tctx
        self.ir = ir
        self.argtypes = argtypes
        self.declared_return = declared_return
        self.options = options
        # a parameter compiled for its value is held as its plain type, each read of it a
        # constant (a string constant stays one: library functions read its text)
        self.locals = {name: ty.literal_type if isinstance(ty, t.Literal) and
                       not isinstance(ty, t.StringLiteral) else ty
                       for name, ty in zip(ir.arg_names, argtypes)}
        self.literal_values = {name: ty.value for name, ty in zip(ir.arg_names, argtypes)
                               if isinstance(ty, t.Literal)}   # typing/literals.py
        self.declared = options.declared_locals(ir.pyfunc)   # jit(locals=...)
        params = sorted(set(self.declared) & set(ir.arg_names))
        if params:
            raise TypingError("locals= declares the types of variables a function assigns, "
                              f"not of its parameters ({', '.join(params)})", ir.loc(ir.node))
        self.handlers = []  # the enclosing except blocks, innermost last (bare `raise`)
        self.generator = bool(generators.yields_in(ir.node))
        self.yields_in_try = generators.yields_in_try(ir.node) if self.generator else {}

    # -- driver ----------------------------------------------------------------------------
    def run(self) -> TypedFunction:
        for _ in range(self.MAX_PASSES):
            self.changed = False
            self.deferred = {}
            self.typemap, self.calls, self.constants, self.returns = {}, {}, {}, []
            self.waiting, self.waiting_at = set(), None
            self.yield_types = []
            self.block(self.ir.node.body)
            if not self.changed:
                break
        else:
            raise TypingError(f"type inference of {self.ir.qualname!r} did not converge",
                              self.ir.loc(self.ir.node))
        if self.waiting:
            if self._falls_through():   # the implicit `return None` is a base case too
                self.returns.append((t.none, self.ir.node))
            raise RecursionPending(self.waiting, self._returned_so_far(), self.waiting_at)
        for d in self.deferred.values():
            if d.items:
                raise self.error(f"the item types of {d.name!r} (a dict or a set) are not "
                                 "known: nothing is stored in it before it is read", d.node)
        unassigned = {stmt: (d.name, d.free) for stmt, d in self.deferred.items()}
        return TypedFunction(self.ir, self.argtypes, self.return_type(), self.options,
                             self.locals, self.typemap, self.calls, self.constants,
                             unassigned=unassigned, generator=self.generator)

    def return_type(self):
        if self.generator:
            return generators.generator_type(self)
        if self._falls_through():  # the implicit `return None` at the end
            self.returns.append((t.none, self.ir.node))
        if self.declared_return is not None:
            for ty, node in self.returns:
                if not _declared_takes(ty, self.declared_return):
                    raise TypingError(f"cannot return {ty} from a function declared to return "
                                      f"{self.declared_return} (No conversion from {ty} to "
                                      f"{self.declared_return})", self.ir.loc(node))
            return self.declared_return
        result = self._returned_so_far()
        return t.none if result is None else result

    def _returned_so_far(self):
        result = None
        for ty, node in self.returns:
            merged = ty if result is None else unify(result, ty)
            if merged is None:
                raise TypingError(f"Can't unify return type from the following types: "
                                  f"{result}, {ty}: {self.ir.qualname!r} returns {result} on "
                                  f"some paths and {ty} on others, which have no common type",
                                  self.ir.loc(node))
            result = merged
        return result

    def _falls_through(self):
        last = self.ir.node.body[-1]
        return not isinstance(last, (ast.Return, ast.Raise)) and not _always_returns(last)

    def error(self, msg, node, cls=TypingError):
        return cls(msg, self.ir.loc(node))

    # -- locals ----------------------------------------------------------------------------
    def set_local(self, name, ty, node):
        if name in self.declared:   # converted on assignment (truncated), as Numba's are
            if not _declared_takes(held(ty), self.declared[name]):
                raise self.error(f"cannot assign {ty} to {name!r}, declared "
                                 f"{self.declared[name]} by locals=", node)
            ty = self.declared[name]
        old, ty = self.locals.get(name), held(ty)
        param = self.ir.renamed.get(name, name)
        if param in self.literal_values:   # `x = literally(x)`, the only assignment allowed
            self.literal_values[name] = self.literal_values[param]
            ty = t.unliteral(ty)
        if old is None:
            self.locals[name] = ty
            self.changed = True
            return
        new = unify(old, ty)
        if new is None:
            raise self.error(f"variable {name!r} is assigned {old} and {ty}, which have no "
                             "common type" + why_not_unified(old, ty), node)
        if new != old:
            self.locals[name] = new
            self.changed = True

    # -- expressions -----------------------------------------------------------------------
    def expr(self, node) -> t.Type:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            what = UNSUPPORTED_EXPRS.get(type(node), f"{type(node).__name__!r} expressions")
            raise self.error(f"kiln does not support {what} in compiled code", node,
                             UnsupportedError)
        ty = method(node)
        if isinstance(ty, t.DType) and isinstance(node, ast.Call):   # np.dtype('f8')
            self.constants.setdefault(node, ty.dtype.np_dtype)
        self.typemap[node] = ty
        return ty

    def resolve(self, key, args, node, kws=None, what=None):
        res = self.tctx.resolve(key, args, kws)
        if res is None and any(isinstance(a, t.Optional) for a in args):
            # Use the value inside; code generation checks at run time that it is not None.
            res = self.tctx.resolve(key, tuple(a.type if isinstance(a, t.Optional) else a
                                               for a in args), kws)
        if res is None:   # a fixed-width string's text (library/charseq.py)
            res = families.ask("decayed", self.tctx, key, tuple(args), kws)
        if res is None:
            raise self.error(self.no_match_message(key, args, kws, what), node)
        return res

    def no_match_message(self, key, args, kws, what=None):
        shown = ", ".join(map(str, args))
        if kws:
            shown += ", " + ", ".join(f"{k}={v}" for k, v in kws.items())
        if key in OP_SYMBOLS and len(args) == 2 and key not in (operator.getitem,):
            text = f"unsupported operand types for {OP_SYMBOLS[key]}: {args[0]} and {args[1]}"
            names = [_python_class_name(a) for a in args]
            if key in (operator.lt, operator.le, operator.gt, operator.ge) and all(names):
                text += (f" ('{OP_SYMBOLS[key]}' not supported between instances of "
                         f"'{names[0]}' and '{names[1]}', as Python says)")
            return text
        if key is operator.getitem:
            return f"cannot index {args[0]} with {args[1]}"
        if key is operator.setitem:
            return f"cannot assign {args[2]} to an item of {args[0]} (index {args[1]})"
        if key in OP_SYMBOLS:
            return f"unsupported operand type for unary {OP_SYMBOLS[key]}: {args[0]}"
        name = what or getattr(key, "__qualname__", None) or str(key)
        if not self.tctx.has_templates(key):
            return f"kiln does not support {name}"
        text = f"no implementation of {name} for argument types ({shown})"
        try:   # a Python function's own parameters may say why (Numba's words)
            signature = inspect.signature(key)
        except (TypeError, ValueError):   # not a function, or no signature to read
            return text
        try:
            signature.bind(*args, **(kws or {}))
        except TypeError as e:
            return f"{text}: Cannot bind the arguments (TypeError: {e})"
        return text

    def condition(self, node):
        """Type `node` as a truth test; when its value is known at compile time, record its
        truth as constants[(node, "truth")] (the value itself stays as it is)."""
        ty = self.expr(node)
        if node in self.constants and not isinstance(ty, (t.Array, t.BaseTuple)):
            self.constants[(node, "truth")] = bool(self.constants[node])
            return
        self.calls[(node, "truth")] = self.resolve(operator.truth, (ty,), node,
                                                   what="truth testing")

    def expr_Constant(self, node, value=None):
        value = node.value if value is None else value
        if type(value) is int and not -2**63 <= value < 2**64:
            raise self.error(f"the integer literal {value} does not fit in 64 bits (compiled "
                             "integers are int64 or uint64); write it as a float", node)
        self.constants[node] = value
        return self.tctx.global_type(value)

    def expr_Name(self, node):
        name = node.id
        if name in self.ir.local_names:
            if name not in self.locals:
                raise Deferred(name, node)
            if name in self.literal_values:
                self.constants[node] = self.literal_values[name]
            return self.locals[name]
        if name in self.ir.free_values:
            return self.frozen(self.ir.free_values[name], node, name)
        callee = self.tctx.unbound_dispatcher(self.ir.pyfunc, name)
        if callee is None:  # else a recursive function compiled at decoration
            raise self.error(f"name {name!r} is not defined", node)
        return self.frozen(callee, node, name)

    def frozen(self, value, node, name):
        try:
            ty = self.tctx.global_type(value)
        except TypeError as e:  # a value that says why it cannot be typed (types/foreign.py)
            raise self.error(f"{name!r}: {e}", node) from None
        if ty is None:
            raise self.error(f"Untyped global name {name!r}: it is a {type(value).__name__}, "
                             "which kiln cannot use in compiled code", node, UntypedGlobalError)
        self.constants[node] = value
        return ty

    def expr_Attribute(self, node):
        base = self.expr(node.value)
        attr = node.attr
        if isinstance(base, t.Module):
            if attr in getattr(base.module, "_kiln_per_thread_", ()):   # e.g. cuda.laneid
                res = self.tctx.resolve(("attr", attr), (base,))
                if res is None:
                    raise self.error(f"{base.label}.{attr} has no meaning in this target",
                                     node)
                self.calls[node] = res
                return res.signature.return_type
            if not hasattr(base.module, attr):
                raise self.error(f"{base.kind} {base.label!r} has no attribute {attr!r}", node)
            return self.frozen(getattr(base.module, attr), node, f"{base.label}.{attr}")
        if isinstance(base, t.NumberClass) and attr in ("dtype",):
            self.constants[node] = base.instance_type.np_dtype
            return t.DType(base.instance_type)
        res = self.tctx.resolve(("attr", attr), (base,))
        if res is None and isinstance(base, t.Optional):   # of the value, when not None
            res = families.ask("optional_attribute", base, attr,
                               self.tctx.resolve(("attr", attr), (base.type,)))
        if res is not None:
            self.calls[node] = res
            if isinstance(base, t.Array) and attr == "ndim":   # `if a.ndim == 1:` prunes
                self.constants[node] = base.ndim
            return res.signature.return_type
        if self.tctx.has_templates(("method", attr)):
            return t.BoundMethod(base, attr)
        if isinstance(base, t.Array) and hasattr(np.ndarray, attr):
            raise self.error(f"kiln does not support the array attribute or method {attr!r} "
                             f"yet ({base})", node, UnsupportedError)
        raise self.error(f"Unknown attribute {attr!r} of type {base}: {base} has no attribute "
                         f"{attr!r} in compiled code", node)

    def expr_Call(self, node):
        fn = self.expr(node.func)
        if isinstance(fn, t.Function) and fn.pyfunc in _READ_ONLY_SEQUENCES and node.args:
            node.args[0] = _lists_as_tuples(node.args[0])
        node.args[:] = self.unpacked(node.args)
        args = tuple(self.expr(a) for a in node.args)
        if any(k.arg is None for k in node.keywords):
            raise self.error("'**' arguments are not supported in compiled code", node,
                             UnsupportedError)
        kws = {k.arg: self.expr(k.value) for k in node.keywords}
        if isinstance(fn, t.Dispatcher):
            try:   # Python's own check: a wrong keyword must not be dropped silently
                inspect.signature(fn.dispatcher.py_func).bind(*args, **kws)
            except TypeError as e:
                raise self.error(f"{fn.dispatcher.__name__}(): {e}", node) from None
            res = self.call_dispatcher(node, fn.dispatcher, args, kws)
            if res is None:   # (the arguments bind: no explicit signature takes their types)
                raise self.error(f"{fn.dispatcher.__name__}() cannot be called with "
                                 f"({', '.join(map(str, args))}); its signatures are "
                                 f"{fn.dispatcher.signatures}", node)
        elif isinstance(fn, t.Function) and fn.pyfunc in _INTROSPECTION:
            return getattr(self, _INTROSPECTION[fn.pyfunc])(node, args, kws)
        elif isinstance(fn, t.Function):
            if fn.pyfunc in BINARY_OF and self.tctx.resolve(fn.pyfunc, args, kws) is None:
                fn = t.Function(BINARY_OF[fn.pyfunc])   # `a += b` of immutable values
            name = getattr(fn.pyfunc, "__qualname__", repr(fn.pyfunc))
            module = getattr(fn.pyfunc, "__module__", None)
            library_module = module in ("math", "cmath", "builtins") or \
                str(module).startswith("numpy")
            if library_module and module != "builtins":
                name = f"{module.replace('numpy', 'np')}.{name}"
            if not self.tctx.has_templates(fn.pyfunc) and library_module:   # (Numba's words)
                raise self.error(f"Untyped global name {name!r}: kiln does not support "
                                 f"{name}() in compiled code yet", node, UntypedGlobalError)
            if not self.tctx.has_templates(fn.pyfunc):
                raise self.error(
                    f"Untyped global name {name!r}: kiln does not know how to call it, as it "
                    "is not a kiln function. Decorate it with @njit (or @register_jitable to "
                    "keep it a plain function too).", node, UntypedGlobalError)
            args, kws = self.literal_args(fn.pyfunc, node, args, kws)
            literal_args, literal_kws = self.with_literals(node, args, kws, fn.pyfunc)
            res = self.call_template(node, literal_args, literal_kws, lambda a, k: self.resolve(
                fn.pyfunc, a, node, k, what=f"{name}()"))
        elif isinstance(fn, t.InnerFunction):
            if kws:
                raise self.error("nested functions take positional arguments only", node,
                                 UnsupportedError)
            res = self.call_inner(node, fn, args + self.inner_captures(node, fn))
        elif isinstance(fn, t.BoundMethod):
            node.func = self.method_read(node.func)
            receiver = self.fix_items(node.func.value, fn.receiver, fn.method, args)
            args, kws = self.with_literals(node, args, kws, ("method", fn.method), bools=False)
            res = self.call_template(node, args, kws, lambda a, k: self.resolve(
                ("method", fn.method), (receiver,) + a, node, k,
                what=f"{receiver}.{fn.method}()"), receiver=True)
        elif isinstance(fn, t.NumberClass):
            res = self.resolve("number_class", (fn,) + args, node, kws,
                               what=f"{fn.instance_type}()")
        elif isinstance(fn, t.FunctionType):  # a C function pointer (library/foreign.py)
            res = self.resolve("call", (fn,) + args, node, kws, what=f"the C function {fn}")
        elif isinstance(fn, t.NamedTupleClass):   # library/named_tuples.py
            res = self.resolve("call", (fn,) + args, node, kws, what=f"{fn.cls.__name__}()")
        elif isinstance(fn, t.ExceptionClass):
            raise self.error("exceptions can only be raised in compiled code", node,
                             UnsupportedError)
        else:
            raise self.error(f"a value of type {fn} is not callable", node)
        self.calls[node] = res
        return res.signature.return_type

    def fix_items(self, receiver_node, receiver, method, args):
        """`l = []; l.append(x)`, `d = {}; d[k] = v`: the first use that adds items to a
        container whose item types are not known yet fixes them, and the local holding it
        is widened to that type. A read of such a dict waits for a later pass."""
        fixed = families.implied_type(receiver, method, args)
        if fixed is None:
            if families.reads_items(receiver, method, args) and \
                    isinstance(receiver_node, ast.Name):
                raise Deferred(receiver_node.id, receiver_node, items=True)
            return receiver
        if isinstance(receiver_node, ast.Name):
            self.set_local(receiver_node.id, fixed, receiver_node)
        return fixed

    def expr_Dict(self, node):
        if any(k is None for k in node.keys):
            raise self.error("kiln does not support '**' in a dict display", node,
                             UnsupportedError)
        return families.display_type("dict", [self.expr(k) for k in node.keys],
                                     [self.expr(v) for v in node.values])

    def stmt_Delete(self, node):
        for target in node.targets:
            if not isinstance(target, ast.Subscript):
                raise self.error("kiln supports 'del' of items only (del d[k])", target,
                                 UnsupportedError)
            obj, index = self.expr(target.value), self.expr(target.slice)
            self.calls[target] = self.resolve(operator.delitem, (obj, index), target)

    def expr_List(self, node):
        return families.display_type("list", (self.expr(e) for e in node.elts))

    def expr_Set(self, node):
        return families.display_type("set", [self.expr(e) for e in node.elts])

    def expr_BinOp(self, node):
        op = BINOPS[type(node.op)]
        args = (self.expr(node.left), self.expr(node.right))
        res = self.resolve(op, args, node)
        self.calls[node] = res
        return res.signature.return_type

    def expr_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            self.condition(node.operand)
            if (node.operand, "truth") in self.constants:
                self.constants[node] = not self.constants[(node.operand, "truth")]
            return t.boolean
        if isinstance(node.op, ast.USub) and type(getattr(node.operand, "value", 0.0)) is int:
            return self.expr_Constant(node, -node.operand.value)   # folded, as by CPython
        op = UNARYOPS[type(node.op)]
        res = self.resolve(op, (self.expr(node.operand),), node)
        self.calls[node] = res
        value = self.constants.get(node.operand)
        if isinstance(value, (int, float, complex)):  # `-1` is a constant (a static index)
            self.constants[node] = op(value)
        return res.signature.return_type

    def expr_JoinedStr(self, node):
        """An f-string: its parts (constants and fields) joined by `+` of strings."""
        for part in node.values:
            self.expr(part)
        self.calls[node] = self.resolve(operator.add, (t.unicode_type, t.unicode_type), node)
        return t.unicode_type

    def expr_FormattedValue(self, node):
        """A field `{x:spec}` of an f-string: `format(x, spec)`, the spec a constant;
        `{x!r:spec}` is `format(repr(x), spec)`."""
        spec = node.format_spec.values if node.format_spec is not None else []
        if node.conversion == ord("r"):   # the tree calls repr (a free value) from now on
            self.ir.free_values[_REPR] = repr
            call = ast.Call(ast.copy_location(ast.Name(_REPR, ast.Load()), node), [node.value], [])
            node.value, node.conversion = ast.copy_location(call, node.value), -1
        if node.conversion not in (-1, ord("s")) or node.conversion != -1 and spec or \
                not all(isinstance(p, ast.Constant) for p in spec):
            raise self.error("kiln supports f-string fields {x}, {x!r} and {x:spec} with a "
                             "constant spec (no !a, or fields inside the spec)", node,
                             UnsupportedError)
        text = "".join(p.value for p in spec)
        self.constants[(node, "spec")] = text
        self.calls[node] = self.resolve(format, (self.expr(node.value), t.StringLiteral(text)),
                                        node)
        return t.unicode_type

    def expr_BoolOp(self, node):
        result = None
        for i, value in enumerate(node.values):
            try:
                self.condition(value)
            except Deferred as d:  # reads a local not typed (yet): see `branch`
                if i == 0:
                    raise
                self.deferred[value] = d
                break  # what follows runs only after this operand, which raises
            ty = self.typemap[value]
            merged = ty if result is None else unify(result, ty)
            if merged is None:
                raise self.error(f"the operands of '{type(node.op).__name__.lower()}' have types "
                                 f"{result} and {ty}, which have no common type", node)
            result = merged
        return result

    def expr_Compare(self, node):
        left, left_node = self.expr(node.left), node.left
        folded = []
        result = None
        for i, (op, right_node) in enumerate(zip(node.ops, node.comparators)):
            if i == 0:
                right = self.expr(right_node)
            else:  # `a < b < c` reads c only when a < b: see `branch`
                right = self.branch(right_node)
                if right is None:
                    break
            key = CMPOPS[type(op)]
            if key in (operator.is_, operator.is_not):
                folded.append(self.fold_identity(left, right, key))
                if folded[-1] is None:  # `x is None` for an Optional x: known at run time
                    self.calls[(node, i)] = self.resolve(
                        key, (left, right), node, what="'is' (against None, or of numbers)")
                elif _has_effects(node):   # known, but its operands must still run
                    self.calls[(node, i)] = families.ask("known_identity", folded[-1], left,
                                                         right)
                    folded[-1] = None
                result = t.boolean
            else:
                args = (right, left) if key is operator.contains else (left, right)
                res = self.resolve(key, args, node)
                self.calls[(node, i)] = res
                result = res.signature.return_type
                folded.append(self.fold_numbers(key, left_node, right_node))
            left, left_node = right, right_node
        if len(node.ops) > 1:
            result = t.boolean
        if folded and len(folded) == len(node.ops) and all(f is not None for f in folded):
            self.constants[node] = all(folded)
        return result

    def fold_numbers(self, key, left, right):
        """The comparison of two numbers known at compile time (`a.ndim == 1`, a frozen
        global), as Numba prunes branches on them; None when either is not known."""
        values = [self.constants.get(n) for n in (left, right)]
        if all(type(v) in (int, float, bool) for v in values) and \
                key in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt,
                        operator.ge):
            return key(*values)
        return None

    @staticmethod
    def fold_identity(a, b, key):
        """`a is b` when the types decide it (None against anything but an Optional)."""
        if isinstance(a, t.Optional) or isinstance(b, t.Optional):
            return None
        if a == t.none or b == t.none:
            same = a == b
            return same if key is operator.is_ else not same
        return None

    def expr_IfExp(self, node):
        self.condition(node.test)
        taken = self.constants.get((node.test, "truth"))
        if taken is not None:
            return self.expr(node.body if taken else node.orelse)
        a, b = self.branch(node.body), self.branch(node.orelse)
        if a is None or b is None:  # a branch reads a local not typed (yet)
            if a is None and b is None:
                raise self.deferred[node.body]
            return a if a is not None else b
        a = _narrowed(node.test, ast.IsNot, node.body, a)
        b = _narrowed(node.test, ast.Is, node.orelse, b)
        merged = unify(a, b)
        if merged is None:
            raise self.error(f"the branches of this conditional expression have types {a} and "
                             f"{b}, which have no common type" + why_not_unified(a, b), node)
        return merged

    def branch(self, node):
        """The type of a conditional expression's branch, or None (recorded as deferred)
        when it reads a local that no pass has typed yet: if none ever does, only that
        branch raises, as in CPython."""
        try:
            return self.expr(node)
        except Deferred as d:
            self.deferred[node] = d
            return None

    def constant_slice(self, node):
        """(start, stop, step) of a slice written with constants (or omitted), or of a
        slice frozen into the code (a global, a closure variable, a literal), else None."""
        known = self.constants.get(node)
        if isinstance(known, slice):
            return [known.start, known.stop, known.step] if known.step != 0 else None
        if not isinstance(node, ast.Slice):
            return None
        parts = [None if p is None else self.constants.get(p, ...)
                 for p in (node.lower, node.upper, node.step)]
        ok = all(p is None or (type(p) is int) for p in parts) and parts[2] != 0
        return parts if ok else None

    def expr_Subscript(self, node):
        obj = self.expr(node.value)
        index = self.expr(node.slice)
        constant = self.constants.get(node.slice)
        bounds = self.constant_slice(node.slice)
        if isinstance(obj, (t.BaseTuple, t.LiteralList)) and isinstance(constant, int):
            res = families.ask("static_getitem", obj, constant)
            whole = known_tuple(self, node.value)   # a constant tuple's constant item
            if whole is not None and type(whole[constant]) in (bool, int, str):
                self.constants[node] = whole[constant]
        elif isinstance(obj, t.BaseTuple) and bounds is not None:
            res = families.ask("static_getslice", obj, index, slice(*bounds))
        elif isinstance(obj, t.NumberClass) and (spec := self.array_type_spec(obj, node)):
            return spec     # `float32[::1, :]`: an array type, a constant
        else:
            obj = self.fix_items(node.value, obj, "getitem", (index,))
            res = self.resolve(operator.getitem, (obj, self.field_name(obj, index, node.slice)),
                               node)
        self.calls[node] = res
        return res.signature.return_type

    def expr_Slice(self, node):
        for part in (node.lower, node.upper, node.step):
            if part is not None:
                ty = self.expr(part)
                if not isinstance(ty, (t.Integer, t.Boolean, t.NoneType)):
                    raise self.error(f"slice bounds must be integers, not {ty}", part)
        return t.SliceType(has_step=node.step is not None)

    def expr_Tuple(self, node):
        node.elts[:] = self.unpacked(node.elts)
        return t.tuple_of(self.expr(e) for e in node.elts)

    def rereadable_type(self, node):
        """The type of `node` if it may be read once per item of a tuple it unpacks (an
        expression without calls), else None."""
        if any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Lambda)) for n in ast.walk(node)):
            return None
        return self.expr(node)

    def unpack_starred_target(self, node):
        """`a, *rest, z = t` of a tuple becomes `a, rest, z = t[0], [t[1], ...], t[-1]`
        (the starred name gets a list, as in Python; the tuple's length is known)."""
        target = node.targets[0]
        if not isinstance(target, (ast.Tuple, ast.List)):
            return
        stars = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
        if len(stars) != 1:
            return
        ty = self.rereadable_type(node.value)
        if not isinstance(ty, t.BaseTuple) or len(ty) < len(target.elts) - 1:
            what = f"not {ty}" if ty else "bind the call's result to a name first"
            raise self.error("kiln unpacks into a starred name only a tuple (its length is "
                             f"known when compiling) with enough items: {what}",
                             target.elts[stars[0]], UnsupportedError)
        star, after = stars[0], len(target.elts) - stars[0] - 1

        def item(i):
            return ast.Subscript(value=copy.deepcopy(node.value), slice=ast.Constant(i),
                                 ctx=ast.Load())
        rest = ast.List([item(i) for i in range(star, len(ty) - after)], ast.Load())
        if not rest.elts and isinstance(ty, t.UniTuple) and len(ty):
            # nothing left for it: `[t[0]][:0]`, an empty list of the tuple's item type
            rest = ast.Subscript(value=ast.List([item(0)], ast.Load()),
                                 slice=ast.Slice(upper=ast.Constant(0)), ctx=ast.Load())
        values = [item(i) for i in range(star)] + [rest] + \
            [item(i) for i in range(len(ty) - after, len(ty))]
        target.elts[star] = target.elts[star].value
        node.value = ast.copy_location(ast.Tuple(values, ast.Load()), node.value)
        ast.fix_missing_locations(node)

    def unpacked(self, items):
        """`items` with each `*name` of a tuple replaced by `name[0], name[1], ...`: a
        tuple's length is known when compiling (the tree is parsed anew for each typing,
        so the rewrite belongs to this specialization)."""
        out = []
        for item in items:
            if not isinstance(item, ast.Starred):
                out.append(item)
                continue
            if isinstance(item.value, (ast.Tuple, ast.List)):   # `*(a, *b, f(x))`: its items
                out.extend(self.unpacked(item.value.elts))
                continue
            ty = self.rereadable_type(item.value)
            if not isinstance(ty, t.BaseTuple):
                what = f"not {ty}" if ty else "bind the call's result to a name first"
                raise self.error("kiln unpacks '*' only a tuple (its length is known when "
                                 f"compiling): {what}", item, UnsupportedError)
            for i in range(len(ty)):
                index = ast.Subscript(value=copy.deepcopy(item.value),
                                      slice=ast.Constant(value=i), ctx=ast.Load())
                for new in ast.walk(index):
                    ast.copy_location(new, item)
                out.append(index)
        return out


# NumPy functions whose first argument, a sequence, is only read
_READ_ONLY_SEQUENCES = (np.array, np.asarray, np.concatenate, np.stack, np.hstack, np.vstack)


def _lists_as_tuples(node):
    """A list display given to np.array, np.concatenate... is only read, so it is typed as
    the tuple it equals: `np.array([[1, 2], [3, 4]])` needs no list type."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return ast.copy_location(ast.Tuple([_lists_as_tuples(e) for e in node.elts],
                                           ast.Load()), node)
    return node


def _always_returns(stmt) -> bool:
    """Whether control never falls off the end of `stmt` (so no implicit `return None`)."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    if isinstance(stmt, ast.If):
        return (bool(stmt.body) and _always_returns(stmt.body[-1]) and bool(stmt.orelse)
                and _always_returns(stmt.orelse[-1]))
    if isinstance(stmt, ast.Try):
        return exceptions.always_returns(stmt, _always_returns)
    if isinstance(stmt, ast.While):
        test = stmt.test
        infinite = isinstance(test, ast.Constant) and bool(test.value)
        has_break = any(isinstance(n, ast.Break) for n in ast.walk(stmt))
        return infinite and not has_break
    return False

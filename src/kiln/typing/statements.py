"""Typing of statements: the Typer's visitors of assignments, branches, loops, returns,
raises and nested functions (expressions are typed by infer.Typer itself)."""
from __future__ import annotations

import ast
import inspect
import operator

from .. import types as t
from ..errors import KilnError, UnsupportedError
from ..frontend import captured_names, inner_function_node
from . import exceptions, families, generators
from .operators import BINOPS, INPLACE, UNSUPPORTED_STATEMENTS
from .literals import _NOTHING, known_tuple, known_value, literal_of, pure_parameters
from .results import Deferred, RecursionPending
from .unify import held
from .unroll import RANGE as UNROLL_RANGE, literal_unroll, unroll


class StatementTyper:
    """The statement half of infer.Typer."""

    def block(self, stmts):
        for stmt in stmts:
            if (stmt, "unreachable") in self.constants:
                break
            try:
                if isinstance(stmt, ast.If):
                    self.stmt_If(stmt, stmts[stmts.index(stmt) + 1:])
                else:
                    self.stmt(stmt)
            except Deferred as d:
                self.deferred[stmt] = d
            except RecursionPending as pending:
                self.waiting |= pending.keys
                self.waiting_at = self.waiting_at or self.ir.loc(stmt)
            except KilnError as e:
                raise e.with_location(self.ir.loc(stmt))

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            what = UNSUPPORTED_STATEMENTS.get(type(node).__name__, type(node).__name__)
            raise self.error(f"kiln does not support {what} in compiled code", node,
                             UnsupportedError)
        method(node)

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Yield):
            generators.type_yield(self, node.value)
        else:
            self.expr(node.value)

    expr_Yield = expr_YieldFrom = generators.refuse_yield_value

    def stmt_Pass(self, node):
        pass

    stmt_Break = stmt_Continue = stmt_Pass

    def stmt_Assign(self, node):
        if len(node.targets) == 1:
            self.unpack_starred_target(node)
        ty = self.expr(node.value)
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, (ast.Tuple, ast.List)) and \
                not isinstance(ty, t.BaseTuple) and \
                not any(isinstance(e, ast.Starred) for e in target.elts):
            ty = self.unpack_sequence(node, ty, len(target.elts))
        for target in node.targets:
            self.assign(target, ty, node)

    def unpack_sequence(self, node, ty, n):
        """`a, b, c = seq` of a range, list or array: `seq` becomes the call that makes the
        3-tuple of its items, raising ValueError if it has another length (as Python)."""
        unpacker = families.ask("sequence_unpacker", ty, n)
        if unpacker is None:
            return ty
        name = f"__kiln_unpack_{n}"
        self.ir.free_values[name] = unpacker
        node.value = ast.copy_location(ast.Call(ast.Name(name, ast.Load()), [node.value], []),
                                       node.value)
        ast.fix_missing_locations(node)
        return self.expr(node.value)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), node)

    def assign(self, target, ty, node):
        if isinstance(target, ast.Name):
            self.set_local(target.id, ty, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(ty, t.Optional) and isinstance(ty.type, t.BaseTuple):
                ty = ty.type   # unpacked after a run-time check that it is not None
            starred = [elt for elt in target.elts if isinstance(elt, ast.Starred)]
            if starred:
                raise self.error("kiln does not support starred unpacking ('*name' in an "
                                 "assignment target); index the tuple instead", starred[0],
                                 UnsupportedError)
            if not isinstance(ty, t.BaseTuple) or len(ty) != len(target.elts):
                n = len(target.elts)
                raise self.error(f"failed to unpack {ty} into {n} variables (a tuple of {n} "
                                 "items, a range, a list or an array unpacks)", target)
            for elt, item in zip(target.elts, ty.types):
                self.assign(elt, item, node)
        elif isinstance(target, ast.Subscript):
            index = self.expr(target.slice)
            obj = self.fix_items(target.value, self.expr(target.value), "setitem", (index, ty))
            index = self.field_name(obj, index, target.slice)
            self.calls[target] = self.resolve(operator.setitem, (obj, index, ty), target)
        elif isinstance(target, ast.Attribute):   # `obj.name = value`: ("setattr", name)
            obj = self.expr(target.value)
            self.calls[target] = self.resolve(("setattr", target.attr), (obj, ty), target,
                                              what=f"setting {target.attr!r} of {obj}")
        else:
            raise self.error("kiln can assign only to names, tuples of names, items and "
                             "attributes", target, UnsupportedError)

    def stmt_AugAssign(self, node):
        op = BINOPS[type(node.op)]
        value = self.expr(node.value)
        target = node.target
        if isinstance(target, ast.Name):
            if target.id not in self.locals:
                raise Deferred(target.id, target)
            current = self.locals[target.id]
        elif isinstance(target, ast.Subscript):
            obj, index = self.expr(target.value), self.expr(target.slice)
            obj = self.fix_items(target.value, obj, "getitem", (index,))
            index = self.field_name(obj, index, target.slice)
            get = self.resolve(operator.getitem, (obj, index), target)
            self.calls[(node, "getitem")] = get
            current = get.signature.return_type
        elif isinstance(target, ast.Attribute):
            obj = self.expr(target.value)
            get = self.resolve(("attr", target.attr), (obj,), target,
                               what=f"reading {obj}.{target.attr}")
            self.calls[(node, "getitem")] = get
            current = get.signature.return_type
        else:
            raise self.error("kiln can augment-assign only names, items and attributes",
                             target, UnsupportedError)
        res = self.tctx.resolve(INPLACE[op], (current, value)) or \
            self.resolve(op, (current, value), node)
        self.calls[node] = res
        result = res.signature.return_type
        if isinstance(target, ast.Name):
            self.set_local(target.id, result, target)
        elif isinstance(target, ast.Attribute):
            self.calls[(node, "setitem")] = self.resolve(
                ("setattr", target.attr), (obj, result), target,
                what=f"setting {target.attr!r} of {obj}")
        else:
            self.calls[(node, "setitem")] = self.resolve(operator.setitem, (obj, index, result),
                                                         target)

    def stmt_If(self, node, following=()):
        self.condition(node.test)
        taken = self.constants.get((node.test, "truth"))
        if taken is None or taken:
            self.block(node.body)
        if taken is None or not taken:
            self.block(node.orelse)
        branch = None if taken is None else node.body if taken else node.orelse
        if branch and following and self.never_falls_through(branch):
            # what follows a branch always taken that always leaves the iteration or returns
            # is never run (nor typed: `if x is None: continue` in a loop unrolled for a
            # None item, `if a.ndim == 1: return a[0]`); after a `raise` the rest is typed
            # still, as it tells the return type of a function that always raises
            self.constants[(following[0], "unreachable")] = True

    def never_falls_through(self, block):
        """Whether running `block` never reaches its end: one of its statements leaves the
        iteration, or returns on every path that the types leave open."""
        return any(isinstance(s, (ast.Continue, ast.Break)) or self.surely_returns(s)
                   for s in block)

    def surely_returns(self, stmt):
        """Whether `stmt` returns on every path that the types leave open."""
        if isinstance(stmt, ast.Return):
            return True
        if not isinstance(stmt, ast.If):
            return False
        taken = self.constants.get((stmt.test, "truth"))
        branches = [stmt.body, stmt.orelse] if taken is None else \
            [stmt.body if taken else stmt.orelse]
        return all(any(map(self.surely_returns, b)) for b in branches)

    def stmt_While(self, node):
        self.condition(node.test)
        self.block(node.body)
        self.block(node.orelse)

    def stmt_For(self, node):
        if self.is_call_of(node.iter, literal_unroll) and len(node.iter.args) == 1:
            number = len(self.ir.local_names)     # distinct per loop: each adds names
            container = node.iter.args[0]
            ty = self.expr(container)
            known = known_tuple(self, container)
            strings = known is not None and all(type(v) is str for v in known)
            added = unroll(node, ty, self.ir.node, number, known if strings else None)
            self.ir.local_names = self.ir.local_names | added
            self.ir.free_values[UNROLL_RANGE] = range
        self.unstar_loop_target(node)
        iterable = self.expr(node.iter)
        call = isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute)
        self.fix_items(node.iter.func.value if call else node.iter, iterable, "iter", ())
        if isinstance(iterable, t.BaseTuple) and len(iterable) == 0:  # the body never runs
            self.block(node.orelse)
            return
        item = self.iteration_item(iterable, node.iter)
        self.assign(node.target, item, node)
        self.block(node.body)
        self.block(node.orelse)

    def unstar_loop_target(self, node):
        """`for a, *rest in items:` becomes `for item in items: a, *rest = item` (a
        starred assignment target, which unpacks a tuple)."""
        target = node.target
        if not (isinstance(target, (ast.Tuple, ast.List)) and
                any(isinstance(e, ast.Starred) for e in target.elts)):
            return
        name = f"__kiln_loop_item{len(self.ir.local_names)}"
        self.ir.local_names = self.ir.local_names | {name}
        node.target = ast.copy_location(ast.Name(name, ast.Store()), target)
        unpack = ast.Assign(targets=[target], value=ast.Name(name, ast.Load()))
        node.body.insert(0, ast.fix_missing_locations(ast.copy_location(unpack, target)))

    def is_call_of(self, node, pyfunc):
        if not isinstance(node, ast.Call):
            return False
        fn = self.expr(node.func)
        return isinstance(fn, t.Function) and fn.pyfunc is pyfunc

    def iteration_item(self, ty, node):
        item = families.ask("item_type_of", ty)
        if item is not None:
            return item
        if isinstance(ty, (t.BaseTuple, t.LiteralList)):
            kind = "tuple" if isinstance(ty, t.BaseTuple) else "list"
            raise self.error(f"kiln cannot loop over a {kind} of mixed types {ty}; "
                             "`for x in literal_unroll(...)` compiles the body once per item",
                             node, UnsupportedError)
        if isinstance(ty, t.Array) and ty.ndim == 0:   # NumPy's words (a TypeError there)
            raise self.error(f"iteration over a 0-d array ({ty})", node)
        raise self.error(f"kiln cannot iterate over a value of type {ty}", node)

    def stmt_FunctionDef(self, node):
        self.set_local(node.name, self.inner_function(node), node)

    def expr_Lambda(self, node):
        return self.inner_function(inner_function_node(node))

    def inner_function(self, node):
        return t.InnerFunction(node, self.ir, captured_names(node, self.ir))

    def stmt_Return(self, node):
        ty = t.none if node.value is None else self.expr(node.value)
        self.returns.append((held(ty), node))

    def stmt_Raise(self, node):
        exceptions.type_raise(self, node)

    def stmt_Try(self, node):
        exceptions.type_try(self, node)

    def stmt_Assert(self, node):
        self.condition(node.test)
        if node.msg is not None:
            msg = self.constant_value(node.msg)
            self.constants[node] = (AssertionError, str(msg))
        else:
            self.constants[node] = (AssertionError, None)

    def constant_value(self, node):
        self.expr(node)
        value = known_value(self, node)
        if value is _NOTHING:
            raise self.error("this must be a constant known at compile time (e.g. a string "
                             "literal)", node, UnsupportedError)
        return value

    def literal_args(self, pyfunc, node, args, kws):
        """The parameters `pyfunc._kiln_literal_args` names must be compile-time constants
        (or tuples of them): their types become `Literal`s carrying the values."""
        names = getattr(pyfunc, "_kiln_literal_args", ())
        if not names:
            return args, kws
        if getattr(pyfunc, "_kiln_requests_literal", False):   # kiln.literally(x)
            return self.literally_args(pyfunc, node, args, kws)
        params = list(inspect.signature(pyfunc).parameters)
        args = tuple(t.Literal(self.literal(a), ty) if i < len(params) and params[i] in names
                     else ty
                     for i, (a, ty) in enumerate(zip(node.args, args)))
        values = {k.arg: k.value for k in node.keywords}
        return args, {k: t.Literal(self.literal(values[k]), ty) if k in names else ty
                      for k, ty in kws.items()}

    def literally_args(self, pyfunc, node, args, kws):
        """`literally(x)`: x's value is known here, or the function is compiled again for
        the value of the parameter x reads (typing/literals.py)."""
        if len(node.args) != 1 or node.keywords:
            raise self.error("literally() takes one argument", node)
        arg = node.args[0]
        ty = self.expr(arg)
        if isinstance(ty, t.List) and ty.initial_value is not None:
            return (ty,), {}   # a list with its display's items, as its caller passed it
        if known_value(self, arg) is _NOTHING and not (
                isinstance(arg, ast.Name) and arg.id in pure_parameters(self.ir)):
            shown = ast.unparse(arg)
            raise self.error(f"Invalid use of non-Literal type in literally({shown}): "
                             f"{shown!r} is computed at run time; literally() takes a constant, "
                             "a local assigned one constant, or a parameter of the function "
                             "(which is then compiled once per value of it)", node)
        lit = literal_of(self, arg, f"literally({ast.unparse(arg)})")
        self.constants[node] = lit.value   # `tup[literally(i)]` reads a constant index
        return (lit,), {}

    def literal(self, node):
        if isinstance(node, ast.Tuple):
            return tuple(self.literal(item) for item in node.elts)
        return self.constant_value(node)

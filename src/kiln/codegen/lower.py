"""Generate the LLVM IR of one typed function by walking its AST.

Every function has the internal calling convention `i32 f(ret*, excinfo**, args...)`:
it returns 0 with the result stored through `ret`, or 1 after storing an exception
descriptor through `excinfo`. Locals are stack slots that LLVM promotes to registers.

References (arrays made in compiled code, and values containing them): arguments are
borrowed; a function returns a new reference. Every expression of an owning type yields a
new reference held in a zeroed temporary slot until its consumer releases it (or takes it
over: a local, a tuple, the return value), except a local's name: its value is borrowed
from the local (no count is touched to read `x[i]`), and a consumer that keeps it takes a
reference of its own. Nothing in one expression can reassign a local, so the borrow
outlives its use; a `for` loop, whose body can, holds its own reference to the iterable.
Locals own one reference each, except a loop variable that borrows its item from the list
it walks (borrowing.py). Every exit of the function (return, exception,
propagated error) goes through one block that releases what the locals and unreleased
temporaries still hold.
"""
from __future__ import annotations

import ast
import itertools
import operator

from llvmlite import ir

from .. import types as t
from ..errors import _KILN_SOURCE, KilnError, LoweringError
from ..typing.operators import CMPOPS
from . import datamodel as dm
from . import exceptions, families
from .array_expressions import ArrayExpressions, Tree
from .context import STATUS_OK
from ..runtime import stack
from .borrowing import borrowed_loop_names
from .ownership import decref, has_refs, incref
from .unbound import unbound_error, unbound_reads

_KILN_SOURCES = (_KILN_SOURCE, "<kiln")   # kiln's library and the code it generates


class FunctionLowerer(ArrayExpressions):
    def __init__(self, ctx, typed, fn: ir.Function):
        self.ctx = ctx
        self.typed = typed
        self.fn = fn
        self.loops = []  # (continue_block, break_block, cleanups in force outside the loop)
        self.cleanups = []  # what a jump out of a try or except block runs (exceptions.py)
        self.caught = {}    # except block -> the slot of the exception it handles
        self.held = {}   # id(LLVM value) -> (its temporary slot, its type)
        self.borrowed = {}  # id(LLVM value) -> type, for values read from a local
        self.fused = {}     # consumer node -> (operations, array operands) fused into it
        self.owning_slots = []  # (slot, type) of every local and temporary that owns refs
        self.coroutine = None   # a generator's body: its coroutine parts (generators.py)

    def lower(self):
        entry = self.fn.append_basic_block("entry")
        self.builder = ir.IRBuilder(entry)
        typed = self.typed
        self.scope = self.describe_lines()
        owning = self.owns_references()
        if owning or typed.generator:
            self.exit_block = self.new_block("exit")
            self.status_slot = self.ctx.alloca(self.builder, dm.i32, name="status")
            self.ctx.function_exit = self.leave
            self.ctx.hold_slot = self.slot_for
        # An argument the body never reassigns stays borrowed from the caller (who keeps it
        # alive for the call): no count is touched to pass it, as a read of a local. A
        # generator outlives the call, so it owns its arguments.
        reassigned = _assigned_in_body(typed.ir.node)
        borrowed = set() if typed.generator else set(typed.ir.arg_names) - reassigned
        self.borrowing = borrowed_loop_names(typed, self.ctx.state.tctx) if owning else set()
        self.slots = {name: self.ctx.alloca(self.builder, dm.value_type(ty), name=name)
                      if name in borrowed | self.borrowing else self.slot_for(ty, name)
                      for name, ty in typed.locals.items()}
        self.assigned_flags = self.flags_for_unbound_reads()
        if typed.generator:
            from .generators import Coroutine
            self.coroutine = Coroutine(self)
        elif typed.recursive and self.ctx.state.target == "cpu" and stack.supported():
            stack.emit_check(self.ctx, self.builder, typed.ir.qualname)
        for name, ty, arg in zip(typed.ir.arg_names, typed.argtypes, self.fn.args[2:]):
            arg.name = name
            value = self.ctx.cast(self.builder, arg, ty, typed.locals[name])
            if name not in borrowed:
                incref(self.builder, typed.locals[name], value)  # the local owns one
            self.builder.store(value, self.slots[name])
        if self.coroutine is not None:
            self.coroutine.suspend()  # a generator runs from its first next()
        self.block(typed.ir.node.body)
        if not self.builder.block.is_terminated:
            if isinstance(typed.return_type, (t.NoneType, t.Optional)) or typed.generator:
                self.return_value(dm.null_value(t.none), t.none)
            else:  # typing proved every path returns: this block is never reached
                self.builder.unreachable()
        if self.ctx.function_exit is not None:
            self.emit_exit()
        self.report_fusion()

    # -- locals read before assignment -----------------------------------------------------
    def flags_for_unbound_reads(self):
        """An i1 slot per local that some read may find unassigned (see unbound.py),
        cleared on entry and set by each assignment."""
        typed = self.typed
        self.unbound = unbound_reads(typed.ir.node, typed.ir.arg_names, typed.locals,
                                     lambda test: typed.constants.get((test, "truth")))
        names = {n.target.id if isinstance(n, ast.AugAssign) else n.id
                 for n in self.unbound.reads}
        for call in self.unbound.calls:
            fn_ty = typed.typemap.get(call.func)
            if isinstance(fn_ty, t.InnerFunction):
                names.update(n for n in fn_ty.captured if self.unbound.at_call(call, n))
        flags = {}
        for name in sorted(names):
            flags[name] = self.ctx.alloca(self.builder, dm.i1, name=f"{name}.assigned")
            self.builder.store(ir.Constant(dm.i1, 0), flags[name])
        return flags

    def check_assigned(self, name, free=False):
        """Raise Python's error for reading `name` while it has no value."""
        assigned = self.builder.load(self.assigned_flags[name], typ=dm.i1)
        exc_class, message = unbound_error(name, free)
        self.ctx.guard(self.builder, self.builder.not_(assigned), exc_class, message)

    def raised_unassigned(self, node):
        """If `node` (a statement, or an operand evaluated only on some paths) reads a local
        that no compiled path assigns, raise CPython's error in its place; whether it did."""
        if node not in self.typed.unassigned:
            return False
        self.ctx.raise_error(self.builder, *unbound_error(*self.typed.unassigned[node]))
        return True

    # -- references ------------------------------------------------------------------------
    def owns_references(self):
        """Whether any value this function handles owns references (else no code for them)."""
        typed = self.typed
        call_types = itertools.chain.from_iterable(
            (res.signature.return_type,) + tuple(res.signature.args)
            for res in typed.calls.values())
        return any(map(has_refs, itertools.chain(typed.locals.values(), typed.typemap.values(),
                                                 call_types, (typed.return_type,))))

    def slot_for(self, ty, name=""):
        if not has_refs(ty):
            return self.ctx.alloca(self.builder, dm.value_type(ty), name=name)
        slot = self.ctx.zeroed_alloca(self.builder, dm.value_type(ty), name=name)
        self.owning_slots.append((slot, ty))
        return slot

    def owned(self, value, ty):
        """Hold the new reference `value` in a temporary slot until it is released. A value
        that already stands for another temporary or a borrow (a callee that returns its
        argument, as `a += b` does) is held as a fresh load, so each has its own slot."""
        if has_refs(ty):
            slot = self.slot_for(ty)
            self.builder.store(value, slot)
            if id(value) in self.held or id(value) in self.borrowed:
                value = self.builder.load(slot, typ=dm.value_type(ty))
            self.held[id(value)] = (slot, ty)
        return value

    def release(self, value):
        """Drop the reference a temporary holds (a no-op for values that own nothing). It
        reads the slot, so it is valid wherever the slot is, even on paths that never
        computed the value. An array expression releases its leaves."""
        if isinstance(value, Tree):
            for leaf, _ in value.leaves:
                self.release(leaf)
            return
        held = self.held.pop(id(value), None)
        if held is not None:
            slot, ty = held
            decref(self.builder, ty, self.builder.load(slot, typ=dm.value_type(ty)))
            self.builder.store(ir.Constant(dm.value_type(ty), None), slot)

    def take(self, value):
        """Take over a temporary's reference (into a local, a tuple, the return value); a
        value borrowed from a local gets a reference of its own."""
        held = self.held.pop(id(value), None)
        if held is not None:
            self.builder.store(ir.Constant(dm.value_type(held[1]), None), held[0])
        elif id(value) in self.borrowed:
            incref(self.builder, self.borrowed[id(value)], value)

    def hold(self, value):
        """`value` as a reference held in a temporary of its own: a value borrowed from a
        local gets one, since the code before its release could reassign the local."""
        ty = self.borrowed.get(id(value))
        if ty is None:
            return value
        incref(self.builder, ty, value)
        slot = self.slot_for(ty)
        self.builder.store(value, slot)
        copy = self.builder.load(slot, typ=dm.value_type(ty))
        self.held[id(copy)] = (slot, ty)
        return copy

    def leave(self, builder, status):
        builder.store(status, self.status_slot)
        builder.branch(self.exit_block)

    def emit_exit(self):
        if self.coroutine is not None:
            self.coroutine.finish(self.release_slots)
            return
        b = self.builder
        b.position_at_end(self.exit_block)
        self.release_slots(b)
        b.ret(b.load(self.status_slot, typ=dm.i32))

    def release_slots(self, b):
        for slot, ty in self.owning_slots:
            decref(b, ty, b.load(slot, typ=dm.value_type(ty)))

    # -- helpers -----------------------------------------------------------------------------
    def type_of(self, node):
        return self.typed.typemap[node]

    def new_block(self, name):
        return self.fn.append_basic_block(name)

    def fresh_block_if_terminated(self):
        """Code after a return/break in the same block is unreachable but must still be valid."""
        if self.builder.block.is_terminated:
            self.builder.position_at_end(self.new_block("dead"))

    def return_value(self, value, ty):
        if self.coroutine is not None:  # `return` ends a generator (the value is None)
            self.ctx.leave(self.builder, STATUS_OK)
            return
        rt = self.typed.return_type
        self.builder.store(self.ctx.cast(self.builder, value, ty, rt), self.fn.args[0])
        self.take(value)  # the caller receives this reference
        self.ctx.leave(self.builder, STATUS_OK)

    def call(self, res, values, types_, release=True):
        """Convert arguments to the resolution's signature and generate the call. Arguments
        are lent to it (and their temporaries released after, unless `release` is False);
        an argument may be an array expression (`operand`). The result is a new reference,
        held."""
        b = self.builder
        sig = res.signature
        args = [v if isinstance(v, Tree) else self.ctx.cast(b, v, x, y)
                for v, x, y in zip(values, types_, sig.args)]
        result = res.lower(self.ctx, b, sig, args)
        if has_refs(sig.return_type):
            if not res.new_reference:  # a view or item of an argument: one more owner
                incref(b, sig.return_type, result)
            result = self.owned(result, sig.return_type)
        if release:
            for v in values:
                self.release(v)
        return result

    def describe_lines(self):
        """With a line table (lineinfo), this function's scope, its instructions located at
        the def until the first statement; else None."""
        table = self.ctx.state.line_table
        if table is None:
            return None
        ir_ = self.typed.ir
        scope = table.describe(self.fn, ir_.qualname, ir_.filename, ir_.node.lineno)
        self.builder.debug_metadata = table.location(scope, ir_.node.lineno)
        return scope

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts):
        for stmt in stmts:
            if (stmt, "unreachable") in self.typed.constants:   # typing.infer.stmt_If
                break
            self.fresh_block_if_terminated()
            if self.raised_unassigned(stmt):
                continue
            if self.scope is not None:
                self.builder.debug_metadata = self.ctx.state.line_table.location(
                    self.scope, stmt.lineno, stmt.col_offset)
            outer_site = self.ctx.raise_site
            self.ctx.raise_site = self.raise_site(stmt)
            try:
                getattr(self, "stmt_" + type(stmt).__name__)(stmt)
            except KilnError as e:
                raise e.with_location(self.typed.ir.loc(stmt), over_library=True)
            except Exception as e:  # a bug in kiln: report it at the user's line
                raise LoweringError(f"internal error while generating code: "
                                    f"{type(e).__name__}: {e}", self.typed.ir.loc(stmt)) from e
            finally:
                self.ctx.raise_site = outer_site

    def raise_site(self, stmt):
        """The frame an exception raised by `stmt` shows last in its traceback: the user's
        function, file and line (None in kiln's own library code, which keeps the caller's
        statement's)."""
        ir_ = self.typed.ir
        if ir_.filename.startswith(_KILN_SOURCES):
            return self.ctx.raise_site
        return (ir_.name, ir_.filename, stmt.lineno)

    def stmt_Expr(self, node):
        self.release(self.expr(node.value))

    def stmt_Pass(self, node):
        pass

    def stmt_Assign(self, node):
        (target,) = node.targets if len(node.targets) == 1 else (None,)
        if isinstance(target, ast.Subscript):  # `u[1:-1] = <array expression>`: no temporary
            value = self.operand(self.typed.calls[target], 2, node.value, node)
        else:
            value = self.expr(node.value)
        ty = self.type_of(node.value)
        for target in node.targets:
            self.assign(target, value, ty)
        self.release(value)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            value = self.expr(node.value)
            self.assign(node.target, value, self.type_of(node.value))
            self.release(value)

    def assign(self, target, value, ty):
        """Store the borrowed `value`: a local takes a reference of its own."""
        b = self.builder
        if isinstance(target, ast.Name):
            local = self.typed.locals[target.id]
            value = self.ctx.cast(b, value, ty, local)
            slot = self.slots[target.id]
            if target.id in self.assigned_flags:
                b.store(ir.Constant(dm.i1, 1), self.assigned_flags[target.id])
            if has_refs(local) and target.id not in self.borrowing:
                incref(b, local, value)
                old = b.load(slot, typ=dm.value_type(local))
                b.store(value, slot)
                decref(b, local, old)
            else:
                b.store(value, slot)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(ty, t.Optional):   # a TypeError if it is None, as in Python
                value, ty = self.ctx.cast(b, value, ty, ty.type), ty.type
            for i, (elt, item_ty) in enumerate(zip(target.elts, ty.types)):
                self.assign(elt, b.extract_value(value, i), item_ty)
        else:  # an item or an attribute: operator.setitem or ("setattr", name)
            keys = [target.value] + ([target.slice] if isinstance(target, ast.Subscript) else [])
            values = [self.expr(k) for k in keys]
            self.call(self.typed.calls[target], values + [value],
                      [self.type_of(k) for k in keys] + [ty], release=False)
            for v in values:
                self.release(v)

    def stmt_Delete(self, node):
        for target in node.targets:   # `del d[k]`: operator.delitem
            obj, index = self.expr(target.value), self.expr(target.slice)
            self.release(self.call(self.typed.calls[target], [obj, index],
                                   [self.type_of(target.value), self.type_of(target.slice)]))

    def stmt_AugAssign(self, node):
        """Python's order: the target's object, index and current item, then the value (a
        name's value cannot change meanwhile: no ':=', and closures only read)."""
        calls, target = self.typed.calls, node.target
        value_ty = self.type_of(node.value)
        if isinstance(target, ast.Name):  # `a += <array expression>` writes it into a
            if node in self.unbound.reads:  # Python reads the target before the value
                self.check_assigned(target.id)
            value = self.operand(calls[node], 1, node.value, node)
            cur_ty = self.typed.locals[target.id]
            cur = self.builder.load(self.slots[target.id], typ=dm.value_type(cur_ty))
            with self.ctx.reassociating(node):
                result = self.call(calls[node], [cur, value], [cur_ty, value_ty])
            self.assign(target, result, calls[node].signature.return_type)
            self.release(result)
            return
        # an item (object and index) or an attribute (the object alone)
        keys = [target.value] + ([target.slice] if isinstance(target, ast.Subscript) else [])
        values, types_ = [self.expr(k) for k in keys], [self.type_of(k) for k in keys]
        get = calls[(node, "getitem")]
        cur = self.call(get, values, types_, release=False)
        value = self.operand(calls[node], 1, node.value, node)
        result = self.call(calls[node], [cur, value], [get.signature.return_type, value_ty])
        self.call(calls[(node, "setitem")], values + [result],
                  types_ + [calls[node].signature.return_type])

    def condition(self, node):
        if (node, "truth") in self.typed.constants:
            return ir.Constant(dm.i1, int(self.typed.constants[(node, "truth")]))
        return self.condition_of(node, self.expr(node))

    def condition_of(self, node, value, release=True):
        """The truth (i1) of `node`'s already computed `value`."""
        if (node, "truth") in self.typed.constants:
            if release:
                self.release(value)
            return ir.Constant(dm.i1, int(self.typed.constants[(node, "truth")]))
        return self.call(self.typed.calls[(node, "truth")], [value], [self.type_of(node)],
                         release)

    def branch_on(self, node, if_true, if_false):
        """Branch on a test as control flow: `a and b` / `a or b` / `not a` jump straight to
        their targets instead of computing a bool, so LLVM keeps predictable branches."""
        if self.raised_unassigned(node):
            return
        if (node, "truth") not in self.typed.constants:
            if isinstance(node, ast.BoolOp) and self.type_of(node) == t.boolean:
                for value in node.values[:-1]:
                    nxt = self.new_block("cond.next")
                    if isinstance(node.op, ast.And):
                        self.branch_on(value, nxt, if_false)
                    else:
                        self.branch_on(value, if_true, nxt)
                    self.builder.position_at_end(nxt)
                self.branch_on(node.values[-1], if_true, if_false)
                return
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
                self.branch_on(node.operand, if_false, if_true)
                return
        self.builder.cbranch(self.condition(node), if_true, if_false)

    def stmt_If(self, node):
        taken = self.typed.constants.get((node.test, "truth"))
        if taken is not None:
            self.block(node.body if taken else node.orelse)
            return
        then, orelse, end = self.new_block("if.then"), self.new_block("if.else"), \
            self.new_block("if.end")
        self.branch_on(node.test, then, orelse)
        for blk, body in ((then, node.body), (orelse, node.orelse)):
            self.builder.position_at_end(blk)
            self.block(body)
            if not self.builder.block.is_terminated:
                self.builder.branch(end)
        self.builder.position_at_end(end)

    def stmt_While(self, node):
        b = self.builder
        header, body, orelse_blk, end = (self.new_block(n) for n in
                                         ("while.cond", "while.body", "while.else", "while.end"))
        b.branch(header)
        b.position_at_end(header)
        self.branch_on(node.test, body, orelse_blk)
        self.loop_body(body, node.body, header, end)
        b.position_at_end(orelse_blk)
        self.block(node.orelse)
        if not b.block.is_terminated:
            b.branch(end)
        b.position_at_end(end)

    def loop_body(self, block, stmts, continue_to, break_to):
        self.builder.position_at_end(block)
        self.loops.append((continue_to, break_to, len(self.cleanups)))
        self.block(stmts)
        self.loops.pop()
        if not self.builder.block.is_terminated:
            self.builder.branch(continue_to)

    def stmt_Break(self, node):
        self.jump(self.loops[-1][1])

    def stmt_Continue(self, node):
        self.jump(self.loops[-1][0])

    def jump(self, target):
        """A break or continue: through the `finally` bodies it leaves."""
        exceptions.unwind(self, self.loops[-1][2])
        if not self.builder.block.is_terminated:
            self.builder.branch(target)

    def stmt_For(self, node):
        iter_ty = self.type_of(node.iter)
        if isinstance(iter_ty, t.BaseTuple) and len(iter_ty) == 0:
            self.release(self.expr(node.iter))
            self.block(node.orelse)
            return
        iterable = self.hold(self.expr(node.iter))
        it = families.ask("iteration_for", self.ctx, self.builder, iterable,
                          self.type_of(node.iter))
        b = self.builder
        header, body, step, orelse_blk, end = (
            self.new_block(n) for n in ("for.cond", "for.body", "for.next", "for.else", "for.end"))
        b.branch(header)
        b.position_at_end(header)
        b.cbranch(it.more(b), body, orelse_blk)
        b.position_at_end(body)
        self.assign(node.target, it.item(b), it.item_type)
        self.loop_body(b.block, node.body, step, end)
        b.position_at_end(step)
        it.advance(b)
        b.branch(header)
        b.position_at_end(orelse_blk)
        self.block(node.orelse)
        if not b.block.is_terminated:
            b.branch(end)
        b.position_at_end(end)
        self.release(iterable)

    def stmt_FunctionDef(self, node):
        pass  # a nested function has no run-time value; each call compiles it (typing)

    def expr_Yield(self, node):
        return self.coroutine.lower_yield(node)

    def expr_Lambda(self, node):
        return dm.null_value(self.type_of(node))

    def stmt_Return(self, node):
        if node.value is None:
            value, ty = dm.null_value(t.none), t.none
        else:
            value, ty = self.expr(node.value), self.type_of(node.value)
        if self.cleanups:  # the value is computed before the `finally` bodies run
            value = self.hold(value)
            exceptions.unwind(self, 0)
            if self.builder.block.is_terminated:  # a `finally` returned or raised
                return
        self.return_value(value, ty)

    def stmt_Raise(self, node):
        exceptions.lower_raise(self, node)

    def stmt_Try(self, node):
        exceptions.TryLowering(self, node).lower()

    def stmt_Assert(self, node):
        exc_class, message = self.typed.constants[node]
        failed = self.builder.not_(self.condition(node.test))
        self.ctx.guard(self.builder, failed, exc_class, message)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node):
        """The value of `node`; one that owns references is a new, held reference."""
        if node in self.typed.constants:
            ty = self.type_of(node)
            return self.owned(self.ctx.get_constant(self.builder, ty, self.typed.constants[node]),
                              ty)
        return getattr(self, "expr_" + type(node).__name__)(node)

    def expr_Name(self, node):
        ty = self.typed.locals[node.id]
        if node in self.unbound.reads:
            self.check_assigned(node.id)
        value = self.builder.load(self.slots[node.id], typ=dm.value_type(ty))
        if has_refs(ty):
            self.borrowed[id(value)] = ty
        return value

    def expr_Attribute(self, node):
        res = self.typed.calls.get(node)
        if res is None:   # a method read and not called: it has no value (a BoundMethod)
            self.release(self.expr(node.value))
            return dm.null_value(self.type_of(node))
        return self.call(res, [self.expr(node.value)], [self.type_of(node.value)])

    def expr_Call(self, node):
        res = self.typed.calls[node]
        fn_ty = self.type_of(node.func)
        values, types_ = [], []
        if isinstance(fn_ty, t.BoundMethod):
            values.append(self.operand(res, 0, node.func.value, node))
            types_.append(fn_ty.receiver)
        elif isinstance(fn_ty, (t.NumberClass, t.NamedTupleClass)):   # a class: no value
            values.append(dm.null_value(fn_ty))
            types_.append(fn_ty)
        elif isinstance(fn_ty, t.FunctionType):  # a C function pointer: the callee is a value
            values.append(self.expr(node.func))
            types_.append(fn_ty)
        for a in node.args:
            values.append(self.operand(res, len(values), a, node, values))
            types_.append(self.type_of(a))
        keywords = {k.arg: k.value for k in node.keywords}
        for name in res.kw_order:
            values.append(self.operand(res, len(values), keywords[name], node, values))
            types_.append(self.type_of(keywords[name]))
        if isinstance(fn_ty, t.InnerFunction):  # the outer locals it reads, as they are now
            for name in fn_ty.captured:
                ty = self.typed.locals[name]
                if name in self.assigned_flags and self.unbound.at_call(node, name):
                    self.check_assigned(name, free=True)
                values.append(self.builder.load(self.slots[name], typ=dm.value_type(ty)))
                types_.append(ty)
        return self.call(res, values, types_)

    def expr_BinOp(self, node):
        res = self.typed.calls[node]
        operands = [self.operand(res, 0, node.left, node)]
        operands.append(self.operand(res, 1, node.right, node, operands))
        with self.ctx.reassociating(node):
            return self.call(res, operands, [self.type_of(node.left), self.type_of(node.right)])

    def expr_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return self.builder.not_(self.condition(node.operand))
        res = self.typed.calls[node]
        return self.call(res, [self.operand(res, 0, node.operand, node)],
                         [self.type_of(node.operand)])

    def expr_JoinedStr(self, node):
        b = self.builder
        if not node.values:   # f""
            value = self.ctx.get_constant(b, t.unicode_type, "")
            incref(b, t.unicode_type, value)
            return self.owned(value, t.unicode_type)
        res = self.typed.calls[node]
        value, ty = self.expr(node.values[0]), self.type_of(node.values[0])
        if len(node.values) == 1 and isinstance(ty, t.StringLiteral):   # f"text"
            value = self.ctx.cast(b, value, ty, t.unicode_type)
            incref(b, t.unicode_type, value)
            return self.owned(value, t.unicode_type)
        for part in node.values[1:]:
            value = self.call(res, [value, self.expr(part)], [ty, self.type_of(part)])
            ty = t.unicode_type
        return value

    def expr_FormattedValue(self, node):
        spec = t.StringLiteral(self.typed.constants[(node, "spec")])
        return self.call(self.typed.calls[node], [self.expr(node.value), dm.null_value(spec)],
                         [self.type_of(node.value), spec])

    def expr_BoolOp(self, node):
        """Short-circuit: `a and b` is b if a is true else a (converted to the common type)."""
        b = self.builder
        result_ty = self.type_of(node)
        slot = self.ctx.alloca(b, dm.value_type(result_ty))
        end = self.new_block("boolop.end")
        is_and = isinstance(node.op, ast.And)
        for i, value_node in enumerate(node.values):
            if self.raised_unassigned(value_node):
                break
            value = self.expr(value_node)
            result = self.ctx.cast(b, value, self.type_of(value_node), result_ty)
            b.store(result, slot)
            if i == len(node.values) - 1:
                self.take(value)
                b.branch(end)
                break
            truth = self.condition_of(value_node, value, release=False)
            self.take(value)
            nxt = self.new_block("boolop.next")
            if is_and:
                b.cbranch(truth, nxt, end)
            else:
                b.cbranch(truth, end, nxt)
            b.position_at_end(nxt)
            decref(b, result_ty, result)  # this operand is not the result
        b.position_at_end(end)
        return self.owned(b.load(slot, typ=dm.value_type(result_ty)), result_ty)

    def expr_Compare(self, node):
        """`a < b < c` evaluates b once and stops at the first false comparison."""
        b = self.builder
        res = self.typed.calls.get((node, 0))
        if len(node.ops) == 1 and res is not None and res.fusion is not None:  # arrays
            operands = [self.operand(res, 0, node.left, node)]
            operands.append(self.operand(res, 1, node.comparators[0], node, operands))
            return self.call(res, operands,
                             [self.type_of(node.left), self.type_of(node.comparators[0])])
        if len(node.ops) == 1:
            left, right = self.expr(node.left), self.expr(node.comparators[0])
            result = self.compare_one(node, 0, left, self.type_of(node.left), right,
                                      self.type_of(node.comparators[0]))
            self.release(left)
            self.release(right)
            return result
        slot = self.ctx.alloca(b, dm.i1)
        operands = [self.expr(node.left)]
        left, left_ty = operands[0], self.type_of(node.left)
        end = self.new_block("cmp.end")
        for i, right_node in enumerate(node.comparators):
            if i and self.raised_unassigned(right_node):  # reached only when the rest held
                break
            right, right_ty = self.expr(right_node), self.type_of(right_node)
            operands.append(right)
            result = self.compare_one(node, i, left, left_ty, right, right_ty)
            result = self.ctx.cast(b, result, self._compare_result_type(node, i), t.boolean)
            b.store(result, slot)
            if i < len(node.comparators) - 1:
                nxt = self.new_block("cmp.next")
                b.cbranch(result, nxt, end)
                b.position_at_end(nxt)
            left, left_ty = right, right_ty
        if not b.block.is_terminated:
            b.branch(end)
        b.position_at_end(end)
        for value in operands:  # through their slots: some paths did not compute them all
            self.release(value)
        return b.load(slot, typ=dm.i1)

    def _compare_result_type(self, node, i):
        res = self.typed.calls.get((node, i))
        return t.boolean if res is None else res.signature.return_type

    def compare_one(self, node, i, left, left_ty, right, right_ty):
        op = CMPOPS[type(node.ops[i])]
        if op in (operator.is_, operator.is_not) and (node, i) not in self.typed.calls:
            same = left_ty == right_ty
            return ir.Constant(dm.i1, int(same if op is operator.is_ else not same))
        res = self.typed.calls[(node, i)]
        if op is operator.contains:
            value = self.call(res, [right, left], [right_ty, left_ty], release=False)
            if isinstance(node.ops[i], ast.NotIn):
                value = self.builder.not_(value)
            return value
        return self.call(res, [left, right], [left_ty, right_ty], release=False)

    def expr_IfExp(self, node):
        taken = self.typed.constants.get((node.test, "truth"))
        if taken is not None:
            return self.expr(node.body if taken else node.orelse)
        b = self.builder
        result_ty = self.type_of(node)
        slot = self.ctx.alloca(b, dm.value_type(result_ty))
        then, orelse, end = (self.new_block(n) for n in ("ifexp.then", "ifexp.else", "ifexp.end"))
        b.cbranch(self.condition(node.test), then, orelse)
        for blk, value_node in ((then, node.body), (orelse, node.orelse)):
            b.position_at_end(blk)
            if self.raised_unassigned(value_node):
                continue
            value = self.expr(value_node)
            b.store(self.ctx.cast(b, value, self.type_of(value_node), result_ty), slot)
            self.take(value)
            b.branch(end)
        b.position_at_end(end)
        return self.owned(b.load(slot, typ=dm.value_type(result_ty)), result_ty)

    def expr_Subscript(self, node):
        return self.call(self.typed.calls[node], [self.expr(node.value), self.expr(node.slice)],
                         [self.type_of(node.value), self.type_of(node.slice)])

    def expr_Tuple(self, node):
        items = [self.expr(e) for e in node.elts]
        for item in items:
            self.take(item)
        ty = self.type_of(node)
        return self.owned(self.ctx.make_tuple(self.builder, ty, items), ty)

    def expr_List(self, node):
        items = [self.expr(e) for e in node.elts]
        ty = self.type_of(node)
        value = self.owned(families.build_display("list", self.ctx, self.builder, ty, items,
                                                  [self.type_of(e) for e in node.elts]), ty)
        for item in items:
            self.release(item)
        return value

    def expr_Set(self, node):
        items = [self.expr(e) for e in node.elts]
        ty = self.type_of(node)
        value = self.owned(families.build_display("set", self.ctx, self.builder, ty, items,
                                                  [self.type_of(e) for e in node.elts]), ty)
        for item in items:
            self.release(item)
        return value

    def expr_Dict(self, node):
        keys, values = [], []
        for k, v in zip(node.keys, node.values):   # Python's order: k1, v1, k2, v2...
            keys.append(self.expr(k))
            values.append(self.expr(v))
        pairs = [(k, self.type_of(kn), v, self.type_of(vn))
                 for k, kn, v, vn in zip(keys, node.keys, values, node.values)]
        ty = self.type_of(node)
        value = self.owned(families.build_display("dict", self.ctx, self.builder, ty, pairs),
                           ty)
        for item in keys + values:
            self.release(item)
        return value

    def expr_Slice(self, node):
        """A slice is `{start, stop, step}`; absent bounds are marked for the indexer to fill."""
        parts = []
        for part in (node.lower, node.upper, node.step):
            if part is None or self.type_of(part) == t.none:
                parts.append(None)
            else:
                parts.append(self.ctx.cast(self.builder, self.expr(part), self.type_of(part),
                                           t.int64))
        return dm.build_slice(self.builder, *parts)


def _assigned_in_body(fn) -> set:
    """The names that statements of `fn` (nested functions included) assign."""
    names = set()
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(node.id)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names.add(node.name)
            elif isinstance(node, ast.FunctionDef):
                names.add(node.name)
    return names

"""Generate the LLVM IR of one typed function by walking its AST.

Every function has the internal calling convention `i32 f(ret*, excinfo**, args...)`:
it returns 0 with the result stored through `ret`, or 1 after storing an exception
descriptor through `excinfo`. Locals are stack slots that LLVM promotes to registers.
"""
from __future__ import annotations

import ast
import operator

from llvmlite import ir

from .. import types as t
from ..errors import KilnError, LoweringError
from ..typing.infer import CMPOPS
from . import datamodel as dm
from .context import STATUS_OK


class FunctionLowerer:
    def __init__(self, ctx, typed, fn: ir.Function):
        self.ctx = ctx
        self.typed = typed
        self.fn = fn
        self.loops = []  # (continue_block, break_block)

    def lower(self):
        entry = self.fn.append_basic_block("entry")
        self.builder = ir.IRBuilder(entry)
        typed = self.typed
        self.slots = {name: self.ctx.alloca(self.builder, dm.value_type(ty), name=name)
                      for name, ty in typed.locals.items()}
        for name, ty, arg in zip(typed.ir.arg_names, typed.argtypes, self.fn.args[2:]):
            arg.name = name
            self.builder.store(self.ctx.cast(self.builder, arg, ty, typed.locals[name]),
                               self.slots[name])
        self.block(typed.ir.node.body)
        if not self.builder.block.is_terminated:
            if isinstance(typed.return_type, (t.NoneType, t.Optional)):  # Python's implicit None
                self.return_value(dm.null_value(t.none), t.none)
            else:  # typing proved every path returns: this block is never reached
                self.builder.unreachable()

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
        rt = self.typed.return_type
        self.builder.store(self.ctx.cast(self.builder, value, ty, rt), self.fn.args[0])
        self.builder.ret(STATUS_OK)

    def call(self, res, values, types_):
        """Convert arguments to the resolution's signature and generate the call."""
        sig = res.signature
        args = [self.ctx.cast(self.builder, v, a, b) for v, a, b in zip(values, types_, sig.args)]
        return res.lower(self.ctx, self.builder, sig, args)

    # -- statements --------------------------------------------------------------------------
    def block(self, stmts):
        for stmt in stmts:
            self.fresh_block_if_terminated()
            try:
                getattr(self, "stmt_" + type(stmt).__name__)(stmt)
            except KilnError as e:
                raise e.with_location(self.typed.ir.loc(stmt))
            except Exception as e:  # a bug in kiln: report it at the user's line
                raise LoweringError(f"internal error while generating code: "
                                    f"{type(e).__name__}: {e}", self.typed.ir.loc(stmt)) from e

    def stmt_Expr(self, node):
        self.expr(node.value)

    def stmt_Pass(self, node):
        pass

    def stmt_Assign(self, node):
        value = self.expr(node.value)
        ty = self.type_of(node.value)
        for target in node.targets:
            self.assign(target, value, ty)

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value), self.type_of(node.value))

    def assign(self, target, value, ty):
        b = self.builder
        if isinstance(target, ast.Name):
            local = self.typed.locals[target.id]
            b.store(self.ctx.cast(b, value, ty, local), self.slots[target.id])
        elif isinstance(target, (ast.Tuple, ast.List)):
            for i, (elt, item_ty) in enumerate(zip(target.elts, ty.types)):
                self.assign(elt, b.extract_value(value, i), item_ty)
        else:  # Subscript
            obj, index = self.expr(target.value), self.expr(target.slice)
            self.call(self.typed.calls[target], [obj, index, value],
                      [self.type_of(target.value), self.type_of(target.slice), ty])

    def stmt_AugAssign(self, node):
        calls, target = self.typed.calls, node.target
        value, value_ty = self.expr(node.value), self.type_of(node.value)
        if isinstance(target, ast.Name):
            cur_ty = self.typed.locals[target.id]
            cur = self.builder.load(self.slots[target.id], typ=dm.value_type(cur_ty))
            result = self.call(calls[node], [cur, value], [cur_ty, value_ty])
            self.assign(target, result, calls[node].signature.return_type)
            return
        obj, index = self.expr(target.value), self.expr(target.slice)
        obj_ty, index_ty = self.type_of(target.value), self.type_of(target.slice)
        get = calls[(node, "getitem")]
        cur = self.call(get, [obj, index], [obj_ty, index_ty])
        result = self.call(calls[node], [cur, value], [get.signature.return_type, value_ty])
        self.call(calls[(node, "setitem")], [obj, index, result],
                  [obj_ty, index_ty, calls[node].signature.return_type])

    def condition(self, node):
        if (node, "truth") in self.typed.constants:
            return ir.Constant(dm.i1, int(self.typed.constants[(node, "truth")]))
        return self.condition_of(node, self.expr(node))

    def condition_of(self, node, value):
        """The truth (i1) of `node`'s already computed `value`."""
        if (node, "truth") in self.typed.constants:
            return ir.Constant(dm.i1, int(self.typed.constants[(node, "truth")]))
        return self.call(self.typed.calls[(node, "truth")], [value], [self.type_of(node)])

    def branch_on(self, node, if_true, if_false):
        """Branch on a test as control flow: `a and b` / `a or b` / `not a` jump straight to
        their targets instead of computing a bool, so LLVM keeps predictable branches."""
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
        self.loops.append((continue_to, break_to))
        self.block(stmts)
        self.loops.pop()
        if not self.builder.block.is_terminated:
            self.builder.branch(continue_to)

    def stmt_Break(self, node):
        self.builder.branch(self.loops[-1][1])

    def stmt_Continue(self, node):
        self.builder.branch(self.loops[-1][0])

    def stmt_For(self, node):
        from ..library.iteration import iteration_for
        iter_ty = self.type_of(node.iter)
        if isinstance(iter_ty, t.BaseTuple) and len(iter_ty) == 0:
            self.expr(node.iter)
            self.block(node.orelse)
            return
        it = iteration_for(self.ctx, self.builder, self.expr(node.iter), self.type_of(node.iter))
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

    def stmt_FunctionDef(self, node):
        pass  # a nested function has no run-time value; each call compiles it (typing)

    def expr_Lambda(self, node):
        return dm.null_value(self.type_of(node))

    def stmt_Return(self, node):
        if node.value is None:
            self.return_value(dm.null_value(t.none), t.none)
        else:
            self.return_value(self.expr(node.value), self.type_of(node.value))

    def stmt_Raise(self, node):
        exc_class, message = self.typed.constants[node]
        self.ctx.raise_error(self.builder, exc_class, message)

    def stmt_Assert(self, node):
        exc_class, message = self.typed.constants[node]
        failed = self.builder.not_(self.condition(node.test))
        self.ctx.guard(self.builder, failed, exc_class, message)

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node):
        if node in self.typed.constants:
            return self.ctx.get_constant(self.builder, self.type_of(node),
                                         self.typed.constants[node])
        return getattr(self, "expr_" + type(node).__name__)(node)

    def expr_Name(self, node):
        ty = self.typed.locals[node.id]
        return self.builder.load(self.slots[node.id], typ=dm.value_type(ty))

    def expr_Attribute(self, node):
        res = self.typed.calls[node]
        return self.call(res, [self.expr(node.value)], [self.type_of(node.value)])

    def expr_Call(self, node):
        res = self.typed.calls[node]
        fn_ty = self.type_of(node.func)
        values, types_ = [], []
        if isinstance(fn_ty, t.BoundMethod):
            values.append(self.expr(node.func.value))
            types_.append(fn_ty.receiver)
        elif isinstance(fn_ty, t.NumberClass):
            values.append(dm.null_value(fn_ty))
            types_.append(fn_ty)
        for a in node.args:
            values.append(self.expr(a))
            types_.append(self.type_of(a))
        keywords = {k.arg: k.value for k in node.keywords}
        for name in res.kw_order:
            values.append(self.expr(keywords[name]))
            types_.append(self.type_of(keywords[name]))
        if isinstance(fn_ty, t.InnerFunction):  # the outer locals it reads, as they are now
            for name in fn_ty.captured:
                ty = self.typed.locals[name]
                values.append(self.builder.load(self.slots[name], typ=dm.value_type(ty)))
                types_.append(ty)
        return self.call(res, values, types_)

    def expr_BinOp(self, node):
        return self.call(self.typed.calls[node], [self.expr(node.left), self.expr(node.right)],
                         [self.type_of(node.left), self.type_of(node.right)])

    def expr_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            return self.builder.not_(self.condition(node.operand))
        return self.call(self.typed.calls[node], [self.expr(node.operand)],
                         [self.type_of(node.operand)])

    def expr_BoolOp(self, node):
        """Short-circuit: `a and b` is b if a is true else a (converted to the common type)."""
        b = self.builder
        result_ty = self.type_of(node)
        slot = self.ctx.alloca(b, dm.value_type(result_ty))
        end = self.new_block("boolop.end")
        is_and = isinstance(node.op, ast.And)
        for i, value_node in enumerate(node.values):
            value = self.expr(value_node)
            b.store(self.ctx.cast(b, value, self.type_of(value_node), result_ty), slot)
            if i == len(node.values) - 1:
                b.branch(end)
                break
            truth = self.condition_of(value_node, value)
            nxt = self.new_block("boolop.next")
            if is_and:
                b.cbranch(truth, nxt, end)
            else:
                b.cbranch(truth, end, nxt)
            b.position_at_end(nxt)
        b.position_at_end(end)
        return b.load(slot, typ=dm.value_type(result_ty))

    def expr_Compare(self, node):
        """`a < b < c` evaluates b once and stops at the first false comparison."""
        b = self.builder
        if len(node.ops) == 1:
            return self.compare_one(node, 0, self.expr(node.left), self.type_of(node.left),
                                    self.expr(node.comparators[0]),
                                    self.type_of(node.comparators[0]))
        slot = self.ctx.alloca(b, dm.i1)
        end = self.new_block("cmp.end")
        left, left_ty = self.expr(node.left), self.type_of(node.left)
        for i, right_node in enumerate(node.comparators):
            right, right_ty = self.expr(right_node), self.type_of(right_node)
            result = self.compare_one(node, i, left, left_ty, right, right_ty)
            result = self.ctx.cast(b, result, self._compare_result_type(node, i), t.boolean)
            b.store(result, slot)
            if i < len(node.comparators) - 1:
                nxt = self.new_block("cmp.next")
                b.cbranch(result, nxt, end)
                b.position_at_end(nxt)
            left, left_ty = right, right_ty
        b.branch(end)
        b.position_at_end(end)
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
            value = self.call(res, [right, left], [right_ty, left_ty])
            if isinstance(node.ops[i], ast.NotIn):
                value = self.builder.not_(value)
            return value
        return self.call(res, [left, right], [left_ty, right_ty])

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
            b.store(self.ctx.cast(b, self.expr(value_node), self.type_of(value_node), result_ty),
                    slot)
            b.branch(end)
        b.position_at_end(end)
        return b.load(slot, typ=dm.value_type(result_ty))

    def expr_Subscript(self, node):
        return self.call(self.typed.calls[node], [self.expr(node.value), self.expr(node.slice)],
                         [self.type_of(node.value), self.type_of(node.slice)])

    def expr_Tuple(self, node):
        return self.ctx.make_tuple(self.builder, self.type_of(node),
                                   [self.expr(e) for e in node.elts])

    def expr_Slice(self, node):
        """A slice is `{start, stop, step}`; absent bounds are marked for the indexer to fill."""
        from ..library.slicing import build_slice
        parts = []
        for part in (node.lower, node.upper, node.step):
            if part is None or self.type_of(part) == t.none:
                parts.append(None)
            else:
                parts.append(self.ctx.cast(self.builder, self.expr(part), self.type_of(part),
                                           t.int64))
        return build_slice(self.builder, *parts)

"""The parallel stage: each `prange` loop of a `parallel=True` function becomes a nested
function over a chunk of the iterations, run on every thread of the pool.

It rewrites the AST between the frontend and typing, so typing and codegen see only
ordinary code plus one call (`launch.parallel_run`):

    for i in prange(start, stop, step):      __pr_start, __pr_stop, __pr_step = start, stop, step
        s += a[i] * b[i]                     __pr_count = len(range(__pr_start, __pr_stop, __pr_step))
        out[i] = a[i] - t                    def __pr_body(__pr_lo, __pr_hi, __pr_start, __pr_step, a, b, out, t, s):
                                                 s = identity(s)
                                                 for i in range(__pr_start + __pr_lo * __pr_step, ...):
                                                     s += a[i] * b[i]
                                                     out[i] = a[i] - t
                                                 return (s,)
                                             def __pr_combine(__pr_a, __pr_b):
                                                 return (__pr_a[0] + __pr_b[0],)
                                             __pr_result = parallel_run(__pr_body, __pr_combine, __pr_count,
                                                                        (__pr_start, __pr_step, a, b, out, t, s))
                                             s += __pr_result[0]

The outer locals the body reads are passed in (arrays are shared, scalars copied); the
names it assigns are private to each chunk; a reduction variable (`s += e`, `s = s * e`,
`s = min(s, e)`, ...) starts each chunk at its operation's identity (min and max at the
value before the loop) and the chunks' results are combined in chunk order, then into the
variable, in place for `s += e` (an array reduced into gets one private array per chunk,
then the sum is added into the array itself, as the serial loop would have). A chunk's
float `+` and `*` reductions may be reassociated, so LLVM keeps one partial result per SIMD
lane: the split across threads already changes the order of the operations, and the sum is
then memory-bound instead of bound by the latency of one chain of additions. A loop whose meaning would change is left serial, and the reason is reported:
a `break` or `return` in it, a value carried from one iteration to the next, a private
name read after the loop. An update of an array element that every iteration may touch
(`out[j] += ...` where j does not depend on the loop variable) is a race: refused with an
error naming the array and the line, never computed wrong.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

from ..codegen.context import REASSOCIATE
from ..codegen.unbound import unbound_reads
from ..errors import TypingError
from ..typing.families import answers
from . import launch, prange

_OPERATORS = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*", ast.BitOr: "|", ast.BitAnd: "&",
              ast.BitXor: "^"}
_COMMUTATIVE = {ast.Add, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor}
_COMBINE = {"+": ast.Add, "*": ast.Mult, "|": ast.BitOr, "&": ast.BitAnd, "^": ast.BitXor}
_HELPERS = {"__kiln_parallel_run": launch.parallel_run, "__kiln_len": len,
            "__kiln_range": range, "__kiln_min": min, "__kiln_max": max,
            **{f"__kiln_identity_{i}": fn for i, fn in enumerate(launch.IDENTITIES.values())}}
_IDENTITY_NAME = {op: f"__kiln_identity_{i}" for i, op in enumerate(launch.IDENTITIES)}


@dataclass
class LoopReport:
    """What the parallel stage did with one prange loop, for `parallel_diagnostics()`."""
    line: int
    parallel: bool
    reason: str = ""                                  # why it stayed serial
    reductions: dict = field(default_factory=dict)    # name -> operator
    private: tuple = ()                               # names each chunk has its own copy of
    shared: tuple = ()                                # outer locals the chunks read

    def describe(self) -> str:
        if not self.parallel:
            return f"line {self.line}: prange loop runs serially: {self.reason}"
        text = f"line {self.line}: prange loop split across the threads"
        if self.reductions:
            text += "; reductions: " + ", ".join(f"{n} ({op})"
                                                for n, op in sorted(self.reductions.items()))
        if self.private:
            text += "; private: " + ", ".join(self.private)
        if self.shared:
            text += "; shared: " + ", ".join(self.shared)
        return text


@answers("outline_prange_loops")
def outline_prange_loops(ir) -> list:
    """Rewrite `ir` (a parsed parallel=True function) in place; one report per prange loop."""
    outliner = _Outliner(ir)
    outliner.block(ir.node.body, [])
    if outliner.reports:
        from ..frontend import assigned_names
        ir.free_values.update(_HELPERS)
        # the names the loops' bodies had stay known: a comprehension's function, defined
        # at the top of the function, is called inside a chunk, which passes it `i`
        ir.local_names = frozenset(assigned_names(ir.node)) | ir.local_names
        ast.fix_missing_locations(ir.node)
    return outliner.reports


def _stored(nodes) -> set:
    return {n.id for root in nodes for n in ast.walk(root)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _loaded(nodes) -> set:
    return {n.id for root in nodes for n in ast.walk(root)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _name(id_, ctx=ast.Load):
    return ast.Name(id=id_, ctx=ctx())


def _call(fn, *args):
    return ast.Call(func=_name(fn), args=list(args), keywords=[])


def _item(tuple_name, i):
    return ast.Subscript(value=_name(tuple_name), slice=ast.Constant(i), ctx=ast.Load())


class _Serial(Exception):
    """This loop cannot run in parallel with Python's meaning; the reason."""


class _Outliner:
    def __init__(self, ir):
        self.ir = ir
        self.reports = []
        # reads that may find their local unassigned: a chunk is given the shared locals
        # when the loop starts, so a loop reading one of them stays serial (reads after
        # `if True: raise` too: the chunk would read them before the body raises)
        self.maybe_unbound = unbound_reads(ir.node, ir.arg_names, ir.local_names,
                                           lambda test: None, fold_constants=False).reads
        self.in_try = 0   # inside the body of how many `try`s with an `except`

    def is_prange(self, node):
        if not (isinstance(node, ast.Call) and not node.keywords and 1 <= len(node.args) <= 3):
            return False
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id not in self.ir.local_names:
            return self.ir.free_values.get(fn.id) is prange
        if isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name):
            module = self.ir.free_values.get(fn.value.id)
            return getattr(module, fn.attr, None) is prange
        return False

    def block(self, stmts, outer):
        """Rewrite the prange loops in `stmts`; `outer` lists the enclosing (block, index,
        statement) from the innermost out, for what runs after a loop."""
        i = 0
        while i < len(stmts):
            stmt = stmts[i]
            if isinstance(stmt, ast.For) and self.is_prange(stmt.iter):
                replacement = self.outline(stmt, [(stmts, i, None)] + outer)
                stmts[i:i + 1] = replacement
                i += len(replacement)
                continue
            for name in ("body", "orelse"):
                inner = getattr(stmt, name, None)
                if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef,
                                                                      ast.ClassDef)):
                    guarded = isinstance(stmt, ast.Try) and name == "body" and stmt.handlers
                    self.in_try += bool(guarded)
                    self.block(inner, [(stmts, i, stmt)] + outer)
                    self.in_try -= bool(guarded)
            i += 1

    def outline(self, loop, where):
        line = loop.lineno
        try:
            plan = self.plan(loop, where)
        except _Serial as why:
            self.reports.append(LoopReport(line, False, str(why)))
            return [loop]
        reductions, private, shared = plan
        self.reports.append(LoopReport(line, True, reductions={n: op for n, (op, _) in
                                                               reductions.items()},
                                       private=tuple(sorted(private)), shared=shared))
        return _rewrite(loop, len(self.reports), reductions, shared)

    def plan(self, loop, where):
        """(reductions {name: (operator, statements)}, private names, shared names)."""
        if not isinstance(loop.target, ast.Name):
            raise _Serial("its target is not a single name")
        if loop.orelse:
            raise _Serial("it has an `else` block")
        if self.in_try:   # the handler sees the state the loop had when it raised
            raise _Serial("an `except` around it sees the iterations run before the one that "
                          "raised, as the serial loop leaves them")
        for node in _walk_body(loop.body):
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
                raise _Serial(f"line {node.lineno}: `return` inside the loop")
            if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
                raise _Serial(f"line {node.lineno}: a function defined inside the loop")
        for node in _top_level_breaks(loop.body):
            raise _Serial(f"line {node.lineno}: `break` leaves the loop early")
        stored = _stored(loop.body) | {loop.target.id}
        outer_names = self.ir.local_names
        reductions = _reductions(loop.body, stored, outer_names)
        private = stored - set(reductions)
        self.check_races(loop, stored)
        carried = unbound_reads(ast.FunctionDef(name="body", args=[], body=loop.body,
                                                decorator_list=[]),
                                (loop.target.id, *reductions), private,
                                lambda test: None).reads
        for node in sorted(carried, key=lambda n: (n.lineno, n.col_offset)):
            name = node.target.id if isinstance(node, ast.AugAssign) else node.id
            raise _Serial(f"line {node.lineno}: `{name}` may be read before the iteration "
                          "assigns it (a value carried from one iteration to the next)")
        after = _continuation(where)
        live = unbound_reads(ast.FunctionDef(name="after", args=[], body=after,
                                             decorator_list=[]),
                             (), private & outer_names, lambda test: None,
                             fold_constants=False).reads
        for node in sorted(live, key=lambda n: (n.lineno, n.col_offset)):
            name = node.target.id if isinstance(node, ast.AugAssign) else node.id
            raise _Serial(f"`{name}` is assigned in the loop and read after it (line "
                          f"{node.lineno}); a parallel loop has no last iteration to take it "
                          "from")
        shared = tuple(sorted((self.read_by(loop.body) & outer_names) - stored))
        for node in _walk_body(loop.body):
            if node in self.maybe_unbound and getattr(node, "id", None) in shared:
                raise _Serial(f"line {node.lineno}: `{node.id}` may be unassigned when the "
                              "loop starts")
        return reductions, private, shared

    def read_by(self, body) -> set:
        """The names `body` reads, with those the function's nested functions it calls
        read (a comprehension, hoisted to the top of the function, reads `a` for it)."""
        from ..frontend import free_names
        nested = {n.name: n for n in self.ir.node.body if isinstance(n, ast.FunctionDef)}
        read = _loaded(body)
        return read.union(*(free_names(nested[name]) for name in read & set(nested)))

    def check_races(self, loop, stored):
        """Refuse `a[j] op= ...` on a shared array where j does not depend on the loop
        variable: every iteration may update the same element."""
        varying = {loop.target.id}
        changed = True
        while changed:
            changed = False
            for node in _walk_body(loop.body):
                targets, sources = (), None
                if isinstance(node, ast.Assign):
                    targets, sources = node.targets, node.value
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                    targets, sources = [node.target], node.value
                elif isinstance(node, ast.For):
                    targets, sources = [node.target], node.iter
                if sources is not None and _loaded([sources]) & varying:
                    new = _stored(targets) - varying
                    if new:
                        varying |= new
                        changed = True
        for node in _walk_body(loop.body):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript):
                array = node.target.value
                if isinstance(array, ast.Name) and array.id not in stored and \
                        not _loaded([node.target.slice]) & varying:
                    raise TypingError(
                        f"`{ast.unparse(node.target)} {_op_text(node.op)}= ...` in a prange "
                        f"loop updates elements of the shared array `{array.id}` whose index "
                        f"does not depend on the loop variable `{loop.target.id}`: every "
                        "iteration may update the same element at once (a race). Loop over "
                        f"that index with prange instead, or make `{array.id}` a local "
                        "per-iteration value and reduce it with `+=` on a scalar",
                        self.ir.loc(node))


def _op_text(op):
    return {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
            ast.Mod: "%", ast.Pow: "**", ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^",
            ast.LShift: "<<", ast.RShift: ">>"}.get(type(op), "?")


def _walk_body(stmts):
    for stmt in stmts:
        yield from ast.walk(stmt)


def _top_level_breaks(stmts):
    """The `break`s that leave the loop whose body is `stmts` (not an inner loop)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Break):
            yield stmt
        elif isinstance(stmt, (ast.If, ast.With, ast.Try)):
            for name in ("body", "orelse", "finalbody"):
                yield from _top_level_breaks(getattr(stmt, name, []))
            for handler in getattr(stmt, "handlers", ()):
                yield from _top_level_breaks(handler.body)
        elif isinstance(stmt, (ast.For, ast.While)):
            yield from _top_level_breaks(stmt.orelse)


def _continuation(where):
    """The statements that may run after the loop: the rest of each enclosing block, and
    the whole body of each enclosing loop (its next iteration)."""
    after = []
    for stmts, index, owner in where:
        after += stmts[index + 1:]
        if isinstance(owner, (ast.For, ast.While)):
            after += owner.body
    # inside a loop of their own, the `break`s and `continue`s of enclosing loops are legal
    return [ast.While(test=ast.Constant(True), body=after, orelse=[])] if after else []


def _reduction_form(stmt, name):
    """The operator if `stmt` is a reduction statement of `name`, else None."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
            and stmt.target.id == name and type(stmt.op) in _OPERATORS \
            and name not in _loaded([stmt.value]):
        return _OPERATORS[type(stmt.op)]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name):
        return None
    value = stmt.value

    def is_name(node):
        return isinstance(node, ast.Name) and node.id == name
    if isinstance(value, ast.BinOp) and type(value.op) in _OPERATORS:
        if is_name(value.left) and name not in _loaded([value.right]):
            return _OPERATORS[type(value.op)]
        if type(value.op) in _COMMUTATIVE and is_name(value.right) and \
                name not in _loaded([value.left]):
            return _OPERATORS[type(value.op)]
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id in ("min", "max") and len(value.args) == 2 and not value.keywords:
        first, second = value.args
        if (is_name(first) and name not in _loaded([second])) or \
                (is_name(second) and name not in _loaded([first])):
            return value.func.id
    return None


def _reductions(body, stored, outer_names):
    """{name: (operator, statements)} for the outer locals the body only reduces into."""
    found = {}
    for name in sorted(stored & outer_names):
        statements, operators = [], set()
        for node in _walk_body(body):
            if isinstance(node, (ast.Assign, ast.AugAssign)) and name in _stored(
                    node.targets if isinstance(node, ast.Assign) else [node.target]):
                op = _reduction_form(node, name)
                if op is None:
                    break
                statements.append(node)
                operators.add(op)
        else:
            reads = sum(1 for n in _walk_body(body) if isinstance(n, ast.Name)
                        and n.id == name and isinstance(n.ctx, ast.Load))
            own_reads = sum(isinstance(s, ast.Assign) for s in statements)
            # all in place (`s += e`) or all rebinding (`s = s + e`): for an array the two
            # differ (the first writes into the array the name held before the loop)
            one_form = len({type(s) for s in statements}) == 1
            if statements and len(operators) == 1 and reads == own_reads and one_form:
                found[name] = (operators.pop(), statements)
    return found


def _rewrite(loop, number, reductions, shared):
    """The statements that replace `loop` (see the module's docstring)."""
    k = f"_{number}"
    start, stop, step = (f"__pr_start{k}", f"__pr_stop{k}", f"__pr_step{k}")
    body_fn, combine_fn, result = f"__pr_body{k}", f"__pr_combine{k}", f"__pr_result{k}"
    args = loop.iter.args
    bounds = [ast.Constant(0), args[0], ast.Constant(1)] if len(args) == 1 else \
        [args[0], args[1], args[2] if len(args) == 3 else ast.Constant(1)]
    names = sorted(reductions)
    for op, statements in reductions.values():
        if op in ("+", "*"):   # each chunk may keep several partial results (SIMD lanes)
            for stmt in statements:
                setattr(stmt if isinstance(stmt, ast.AugAssign) else stmt.value, REASSOCIATE,
                        True)
    out = [ast.Assign(targets=[ast.Tuple(elts=[_name(n, ast.Store) for n in (start, stop, step)],
                                         ctx=ast.Store())],
                      value=ast.Tuple(elts=bounds, ctx=ast.Load())),
           ast.Assign(targets=[_name(f"__pr_count{k}", ast.Store)],
                      value=_call("__kiln_len", _call("__kiln_range", _name(start), _name(stop),
                                                      _name(step))))]

    unit_step = len(args) < 3  # a literal step of 1 keeps the chunk's loop simple for LLVM

    from_zero = isinstance(bounds[0], ast.Constant) and bounds[0].value == 0

    def at(bound):  # __pr_start + bound * __pr_step
        offset = _name(bound) if unit_step else \
            ast.BinOp(left=_name(bound), op=ast.Mult(), right=_name(step))
        if from_zero and unit_step:  # i = lo.. stays known non-negative: a[i] needs no wrap
            return offset
        return ast.BinOp(left=_name(start), op=ast.Add(), right=offset)
    chunk_range = [at("__pr_lo"), at("__pr_hi")] + ([] if unit_step else [_name(step)])
    chunk_loop = ast.For(target=loop.target, iter=ast.Call(func=_name("range"), args=chunk_range,
                                                           keywords=[]),
                         body=loop.body, orelse=[])
    params = ["__pr_lo", "__pr_hi", start, step, *shared, *names]
    returned = [ast.Return(ast.Tuple(elts=[_name(n) for n in names], ctx=ast.Load()))] \
        if names else []
    # each chunk starts at the operation's identity (its own new array for an array);
    # min and max start at the value before the loop
    starts = [ast.Assign(targets=[_name(n, ast.Store)],
                         value=_call(_IDENTITY_NAME[reductions[n][0]], _name(n)))
              for n in names if reductions[n][0] not in ("min", "max")]
    out.append(_def(body_fn, params, starts + [chunk_loop] + returned))
    combined = [_combined(reductions[n][0], _item("__pr_a", i), _item("__pr_b", i))
                for i, n in enumerate(names)]
    out.append(_def(combine_fn, ["__pr_a", "__pr_b"],
                    [ast.Return(ast.Tuple(elts=combined, ctx=ast.Load()) if names
                                else _name("__pr_a"))]))
    captured = ast.Tuple(elts=[_name(n) for n in (start, step, *shared, *names)],
                         ctx=ast.Load())
    out.append(ast.Assign(targets=[_name(result, ast.Store)],
                          value=_call("__kiln_parallel_run", _name(body_fn), _name(combine_fn),
                                      _name(f"__pr_count{k}"), captured)))
    for i, n in enumerate(names):
        op, statements = reductions[n]
        if isinstance(statements[0], ast.AugAssign) and op not in ("min", "max"):
            out.append(ast.AugAssign(target=_name(n, ast.Store), op=_COMBINE[op](),
                                     value=_item(result, i)))
        else:
            out.append(ast.Assign(targets=[_name(n, ast.Store)],
                                  value=_combined(op, _name(n), _item(result, i))))
    for node in out:
        ast.copy_location(node, loop)
        for child in ast.walk(node):
            if not hasattr(child, "lineno") or child is node:
                ast.copy_location(child, loop)
    return out


def _combined(op, left, right):
    if op in ("min", "max"):
        return _call(f"__kiln_{op}", left, right)
    return ast.BinOp(left=left, op=_COMBINE[op](), right=right)


def _def(name, params, body):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None,
                           type_comment=None, type_params=[])

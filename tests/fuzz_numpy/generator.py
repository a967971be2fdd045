"""Seeded random array programs: `def f(a0, a1, a2, s0, s1, s2, s3)` of straight-line
statements over NumPy, and the arguments to call it with.

The generator runs every statement it writes under NumPy as it goes (on the very arguments
the program will get), so it knows each value's dtype, shape and contents and writes only
programs that mean one thing: a statement NumPy rejects is dropped (or, now and then, kept
as the last one, so the exception classes are compared), and values that would make
NumPy's own result unspecified (a NaN cast to an integer) are never made. What kiln is known
to do differently on purpose is not generated: each such rule names its entry in
docs/differences-numpy.md. Results of transcendental functions carry an ulp bound and are
only returned, never computed with further (a last-bit difference would grow).

`banned` holds statement tags kiln refused as unsupported (runner.py retries without them).
"""
from __future__ import annotations

import ast
import random
import warnings
from dataclasses import dataclass, field

import numpy as np

from tests.fuzz_numpy import inputs as inp
from tests.fuzz_numpy.ops import OPS

ARRAYS = 3
PARAMS = "a0, a1, a2, s0, s1, s2, s3"
HEADER = "import numpy as np\n\n\n"
STATEMENTS = (3, 8)
MAX_ITEMS = 50_000


@dataclass(frozen=True)
class Program:
    seed: int
    source: str          # nested: what CPython runs, and kiln fused and parallel=True
    flat_source: str     # every operation its own statement: kiln without fusion
    inputs: tuple        # argument specs (inputs.build_all)
    ulps: tuple          # per returned value: 0 bit-exact, else the ulp bound
    judge: str           # the second kiln run: "unfused" or "parallel"
    tags: tuple = ()     # per statement of f, its tag (what `banned` names)


class Rejected(Exception):
    """NumPy raised computing a value the generator asked for."""


@dataclass
class Var:
    name: str
    kind: str            # "array", "scalar" (a NumPy scalar in both), "py" (a Python scalar)
    ulps: int = 0
    terminal: bool = False   # returned only (inexact, or kiln's type differs from NumPy's)
    writable: bool = False


@dataclass
class State:
    """What the statements written so far have made."""
    vars: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    tags: list = field(default_factory=list)


class Generator:
    def __init__(self, seed, banned=()):
        self.rng = random.Random(seed)
        self.seed = seed
        self.banned = set(banned)
        self.judge = ("unfused", "parallel")[seed % 2]
        self.specs = self._arguments()
        self.state = State()
        for i in range(ARRAYS):
            self.state.vars.append(Var(f"a{i}", "array", writable=True))
        self.ns = None
        self._replay()

    # ---- arguments --------------------------------------------------------------------------
    def _shape(self):
        rng = self.rng
        if self.judge == "parallel" and rng.random() < 0.6:    # past the lowered thresholds
            return rng.choice([(9000,), (100, 90), (3, 3000), (2, 70, 66)])
        ndim = rng.choices([0, 1, 2, 3], [1, 5, 4, 1])[0]
        shape = [rng.choices([0, 1, 2, 3, 4, 5, 7], [1, 3, 4, 4, 3, 2, 1])[0]
                 for _ in range(ndim)]
        if ndim >= 2 and rng.random() < 0.2:   # a lane NumPy sums pairwise (9 items and up)
            shape[rng.randrange(ndim)] = rng.choice([9, 12, 17, 40])
        return tuple(shape)

    def _arguments(self):
        rng = self.rng
        main = self._shape()
        specs = []
        for i in range(ARRAYS):
            r = rng.random()
            if r < 0.45 or not main:
                shape = main
            elif r < 0.65:      # broadcasts against main: some axes 1
                shape = tuple(1 if rng.random() < 0.4 else n for n in main)
            elif r < 0.8:       # a trailing part of main
                shape = main[rng.randrange(len(main) + 1):]
            else:
                shape = self._shape()
            dtype = rng.choice(inp.DTYPES) if rng.random() < 0.7 else \
                rng.choice(["int64", "float64", "bool", "float32", "int32"])
            view = rng.choices([None, "step", "reverse", "fortran", "transpose"],
                               [6, 1, 1, 1, 1])[0]
            specs.append(inp.array_spec(rng, dtype, shape, edge=rng.random() < 0.4, view=view))
        specs.append(("scalar", rng.choice(inp.INT_SCALARS)))
        specs.append(("scalar", rng.choice(inp.FLOAT_SCALARS)))
        specs.append(("scalar", rng.choice([True, False])))
        specs.append(("scalar", rng.choice(inp.COMPLEX_SCALARS)))
        return tuple(specs)

    # ---- running statements under NumPy ------------------------------------------------------
    def _replay(self):
        """The namespace after the accepted statements, from fresh arguments."""
        args = inp.build_all(self.specs)
        self.ns = {"np": np}
        self.ns.update(zip(PARAMS.split(", "), args))
        for line in self.state.lines:
            self._exec(line)

    def _exec(self, line):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            exec(line, self.ns)

    def value(self, text):
        """The value of an expression over the current variables (nothing is changed);
        Rejected when NumPy raises."""
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                return eval(text, self.ns)
            except Exception as e:
                raise Rejected(text) from e

    # ---- choosing operands -------------------------------------------------------------------
    def arrays(self, predicate=None, writable=False):
        found = []
        for v in self.state.vars:
            if v.kind != "array" or v.terminal or (writable and not v.writable):
                continue
            value = self.ns[v.name]
            if not isinstance(value, np.ndarray):
                continue
            if predicate is None or predicate(value):
                found.append(v.name)
        return found

    def array(self, predicate=None, writable=False):
        found = self.arrays(predicate, writable)
        return self.rng.choice(found) if found else None

    def scalar(self):
        """A scalar operand: a Python scalar argument or constant, a NumPy scalar of a
        non-default dtype (docs/differences-numpy.md, "NumPy scalars of the default types
        are weak")."""
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            return rng.choice(["s0", "s1", "s2", "s3"])
        if r < 0.75:
            return rng.choice(["0", "1", "2", "-1", "3", "7", "0.5", "-2.5", "2.0", "True",
                               "1j", "np.nan", "np.inf", "-0.0", "255", "100"])
        named = [v.name for v in self.state.vars if v.kind == "scalar" and not v.terminal
                 and self.ns[v.name].dtype.name not in ("int64", "float64", "complex128", "bool")]
        if named and rng.random() < 0.5:
            return rng.choice(named)
        dtype = rng.choice(["int8", "uint8", "int16", "int32", "uint32", "float32", "float16",
                            "complex64"])
        literal = rng.choice(["1", "2", "3", "7"] + (["0.5", "-1.5"] if dtype[0] in "fc" else []))
        return f"np.{dtype}({literal})"

    def operand(self):
        r = self.rng.random()
        if r < 0.2:
            found = self.expression()
            if found:
                return found
        if r < 0.75:
            found = self.array()
            if found:
                return found
        return self.scalar()

    def expression(self, depth=2):
        """A nested elementwise expression over arrays and scalars (what kiln fuses), made of
        exact operations only; None when NumPy rejects the one drawn."""
        from tests.fuzz_numpy.ops import BINOPS, UNARY_EXACT, no_known_bug
        rng = self.rng
        if depth == 0 or rng.random() < 0.3:
            return self.array() if rng.random() < 0.8 else self.scalar()
        left = self.expression(depth - 1)
        if left is None:
            return None
        if rng.random() < 0.3:
            name = rng.choice(UNARY_EXACT)
            text, right = f"np.{name}({left})", None
        else:
            right = self.expression(depth - 1) if rng.random() < 0.6 else self.scalar()
            if right is None:
                return None
            name = rng.choice(BINOPS[:12] + ["maximum", "minimum", "where"])
            if name == "where":
                text = f"np.where({_paren(left)} > 0, {left}, {right})"
            elif name.isalpha():
                text = f"np.{name}({left}, {right})"
            else:
                text = f"{_paren(left)} {name} {_paren(right)}"
        try:
            if not no_known_bug(self, name, left, right) or \
                    not isinstance(self.value(text), np.ndarray):
                return None
        except Rejected:
            return None
        return text

    # ---- statements --------------------------------------------------------------------------
    def _try(self, op):
        """Write one statement with `op`; True when it was accepted."""
        try:
            made = op(self)
        except Rejected:       # an operand NumPy refuses: draw another statement
            return False
        if made is None:
            return False
        text, tag, ulps, kind = made
        if tag in self.banned:
            return False
        name = f"v{len(self.state.vars)}"
        line = text if kind == "write" else f"{name} = {text}"
        try:
            self._exec(line)
        except Exception as e:
            self._replay()
            if isinstance(e, OverflowError):
                return False  # differences-numpy.md, "A Python integer out of the array's range"
            if self.rng.random() < 0.15 and len(self.state.lines) >= 2:
                self.state.lines.append(line)       # the last statement: it raises
                self.state.tags.append(tag)
                return "raised"
            return False
        if kind != "write" and getattr(self.ns[name], "size", 0) > MAX_ITEMS:
            self._replay()           # np.outer of long vectors: too big to compare quickly
            return False
        self.state.lines.append(line)
        self.state.tags.append(tag)
        if kind == "write":
            return True
        value = self.ns[name]
        var = Var(name, "py", ulps)
        if isinstance(value, np.ndarray):
            var.kind = "array"
            var.writable = kind in ("array", "view") and value.flags.writeable and \
                (kind == "array" or any(b.writable for b in self.state.vars
                                        if b.kind == "array" and np.shares_memory(
                                            self.ns[b.name], value) and b.name != name))
        elif isinstance(value, np.generic):
            var.kind = "scalar"
            var.terminal = kind != "scalar"   # kiln gives a 0-d array where NumPy a scalar
        elif isinstance(value, (bool, int, float, complex)):
            var.kind = "py"
            var.terminal = True
        else:
            var.kind, var.terminal = "other", True
        if ulps:
            var.terminal = True
        self.state.vars.append(var)
        return True

    def generate(self):
        rng = self.rng
        want = rng.randint(*STATEMENTS)
        attempts = 0
        ops, weights = zip(*OPS)
        while len(self.state.lines) < want and attempts < 120:
            attempts += 1
            op = rng.choices(ops, weights)[0]
            if self._try(op) == "raised":
                break
        returned = [v for v in self.state.vars if not v.name.startswith("a")]
        ret = ", ".join(v.name for v in returned)
        body = "".join(f"    {line}\n" for line in self.state.lines) or "    pass\n"
        source = f"{HEADER}def f({PARAMS}):\n{body}    return ({ret}{',' if returned else ''})\n"
        return Program(self.seed, source, flatten(source), self.specs,
                       tuple(v.ulps for v in returned), self.judge, tuple(self.state.tags))


def _paren(text):
    return text if text.isidentifier() else f"({text})"


def generate(seed, banned=()):
    return Generator(seed, banned).generate()


# ---- the unfused form ----------------------------------------------------------------------
_OPERATIONS = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call)
_PARENTS = _OPERATIONS + (ast.Attribute, ast.Subscript, ast.Tuple)


class _Hoist:
    """Moves every operation that is an operand of another operation into a statement of
    its own (a temporary), in Python's order of evaluation: kiln fuses only operations
    nested in one expression, so the hoisted program computes each one into an array."""

    def __init__(self):
        self.before = []
        self.count = 0

    def visit(self, node):
        """`node` with its operands hoisted (their own operands first)."""
        parent = isinstance(node, _PARENTS)
        for name, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                setattr(node, name, self._operand(value, parent))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.expr):
                        value[i] = self._operand(item, parent)
                    elif isinstance(item, ast.keyword):
                        item.value = self._operand(item.value, parent)
        return node

    def _operand(self, node, hoist):
        node = self.visit(node)
        if not hoist or not isinstance(node, _OPERATIONS) or _is_constant_call(node):
            return node
        self.count += 1
        name = f"t{self.count}"
        self.before.append(ast.Assign([ast.Name(name, ast.Store())], node, lineno=0))
        return ast.Name(name, ast.Load())


def _is_constant_call(node):
    """np.float32(2), np.array([...]), -1: constants, not array operations."""
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.operand, ast.Constant)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr in _CONSTANT_MAKERS and \
        all(isinstance(a, (ast.Constant, ast.List, ast.UnaryOp)) for a in node.args)


_CONSTANT_MAKERS = {"array", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float16", "float32", "float64", "complex64", "complex128"}


def flatten(source):
    """`source` with no operation nested in another (see _Hoist)."""
    tree = ast.parse(source)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    hoist = _Hoist()
    body = []
    for statement in function.body:
        hoist.before = []
        if isinstance(statement, ast.Assign):
            statement.value = hoist.visit(statement.value)
        elif isinstance(statement, ast.AugAssign):
            statement.value = hoist.visit(statement.value)
        elif isinstance(statement, ast.Expr):
            statement.value = hoist.visit(statement.value)
        body.extend(hoist.before)
        body.append(statement)
    function.body = body
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"

"""Seeded random programs: the source of a module (helper functions and `f`) and inputs.

Every program means the same under CPython and kiln by construction, so any difference is a
bug: each local keeps one type; integer expressions carry a bound on their magnitude and are
reduced before an operation could leave int64 (CPython's ints would grow, kiln's wrap, as
Numba's do); loops are bounded; array indices are reduced modulo the length; array elements
and NumPy scalars are converted with float()/int() before scalar arithmetic (so it follows
Python, not NumPy's scalar types). Everything else (nan, inf, -0.0, subnormals, huge ints,
zero divisors, exceptions, None results) is left to happen."""
from __future__ import annotations

import random
from dataclasses import dataclass

from tests.fuzz.cfuncs import ARITY as C_ARITY

I64 = 2 ** 63           # the bound of an arbitrary int64
LOCAL_BOUND = 2 ** 40   # int locals are clamped to this on assignment
SMALL = 2 ** 20

FLOAT_CONSTANTS = ["0.0", "-0.0", "1.0", "-1.5", "0.1", "2.5", "3.0", "0.5", "-7.25",
                   "1e-300", "5e-324", "2.2250738585072014e-308", "1e308",
                   "-1.7976931348623157e+308", "1e16", "4503599627370497.0",
                   "math.inf", "-math.inf", "math.nan", "math.pi"]
INT_CONSTANTS = [0, 1, -1, 2, 3, 7, -13, 97, 1000003, 2 ** 31, 2 ** 53 + 1, 2 ** 62,
                 -2 ** 63, 2 ** 63 - 1]
INT_INPUTS = [0, 1, -1, 2, 3, -7, 100, 123456789, -98765, 2 ** 53 + 1, 2 ** 62 + 5,
              -2 ** 63, 2 ** 63 - 1, -2 ** 62]
FLOAT_INPUTS = [0.0, -0.0, 1.0, -1.8, 0.5, 3.0, 2.5, -1e-310, 5e-324, 2.2250738585072014e-308,
                1e308, -1e308, 1e16 + 2, 123.456, float("nan"), float("inf"), float("-inf")]

# math functions of floats, by arity; domain errors give nan (documented, as in Numba)
MATH_1 = ["sqrt", "fabs", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos",
          "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1", "log1p", "erf",
          "erfc", "gamma", "lgamma", "degrees", "radians"]
MATH_2 = ["atan2", "hypot", "copysign", "fmod", "pow"]
# NumPy ufuncs whose NumPy loops are exact or the C library's (the SIMD transcendental loops
# of NumPy may differ in the last bit: a documented difference, so they are left out; on a
# CPU with AVX-512 that includes arctan2, seed 31419)
VEC_UNARY = ["np.sqrt", "np.abs", "np.negative", "np.fabs"]
VEC_BINARY = ["np.maximum", "np.minimum", "np.hypot", "np.copysign", "np.fmod",
              "np.add", "np.subtract", "np.multiply", "np.true_divide"]
REDUCTIONS = ["sum", "mean", "prod", "min", "max", "argmin", "argmax", "any", "all"]
GROWTH = 8              # items a list may gain from one statement that copies lists
EXCEPTIONS = ["ValueError", "RuntimeError", "IndexError", "ZeroDivisionError"]
HANDLERS = ["ZeroDivisionError", "ArithmeticError", "(ValueError, IndexError)", "Exception",
            "", "LookupError", "RuntimeError"]   # "": a bare except


@dataclass(frozen=True)
class Program:
    """A module's source (it defines `f(a, b, x, y, arr, iarr)`, and `rec` after them in a
    program with records) and inputs for `f`; arrays are given as (dtype, list) so they are
    rebuilt fresh for every run."""
    seed: int
    source: str
    inputs: tuple


@dataclass
class Var:
    name: str
    kind: str            # "int", "float", "bool", "tuple" (int, float), "fvec", "ivec",
                         # "optional" (a float or None)
    bound: int = I64     # for ints: the largest magnitude it can hold
    wrap: bool = False   # an element of an array read by `for`: a NumPy scalar in CPython

    @property
    def text(self):
        return f"float({self.name})" if self.wrap else self.name


class Generator:
    """One program from one seed (see the module docstring for the rules it keeps)."""

    def __init__(self, seed: int, arrays: bool = True, device: bool = False):
        self.rng = random.Random(seed)
        self.seed = seed
        self.device = device   # only what device code can do: no allocation, no try
        # array programs take longer to compile (a loop per operation): 40% of programs
        self.arrays = arrays and self.chance(0.4)
        # a quarter of programs also build lists of floats (decided by a stream of its own,
        # so the programs without lists are the ones these seeds always gave)
        self.lists = random.Random(seed * 7919 + 17).random() < 0.25
        # and a quarter build dicts of int -> int (a stream of their own too)
        self.dicts = random.Random(f"dicts {seed}").random() < 0.25
        # and a quarter build sets of ints (a stream of their own too)
        self.sets = random.Random(f"sets {seed}").random() < 0.25
        # and a fifth use string expressions in integer ones (a stream of their own too)
        self.strings = random.Random(f"strings {seed}").random() < 0.2
        # and a fifth take a structured array `rec` (v: float64, k: int64, flag: bool),
        # aligned or packed, read and written through records (a stream of their own too)
        records = random.Random(f"records {seed}")
        self.records = records.random() < 0.2
        self.packed = records.random() < 0.5
        # a third of array programs are parallel=True with prange loops; decided by an rng
        # of its own so that the other programs stay those of earlier versions
        self.prange_rng = random.Random(f"prange {seed}")
        self.parallel = self.arrays and self.prange_rng.random() < 0.3
        if device:
            self.arrays = self.lists = self.dicts = self.sets = self.strings = False
            self.parallel = False
        self.counter = 0
        self.lines: list[str] = []
        self.helpers: list[tuple[str, str]] = []   # (name, return kind)

    # -- names and lines ------------------------------------------------------------------
    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(seq)

    # -- integer expressions: (text, bound) -------------------------------------------------
    def small(self, e):
        """Reduce an int expression to a bound of at most SMALL."""
        text, bound = e
        if bound <= SMALL:
            return e
        k = self.rng.randrange(4)
        if k == 0:
            m = self.pick([7, 97, 1000003, -13])
            return f"({text} % {m})", abs(m)
        if k == 1:
            return f"min(max({text}, -{SMALL}), {SMALL})", SMALL
        if k == 2:
            return f"({text} & 65535)", 65535
        return f"({text} >> 44)", max(bound >> 44, 1) + 1 if bound < I64 else 2 ** 19

    def has_rec(self, scope):
        return self.records and any(v.name == "rec" for v in scope)

    def record(self, scope):
        """`rec[i]`, an item of the structured array (a record that refers to it)."""
        return f"rec[{self.index('rec', scope)}]"

    def int_leaf(self, scope):
        if self.has_rec(scope) and self.chance(0.15):
            if self.chance(0.7):
                return f"int({self.record(scope)}['k'])", I64
            return f"int({self.record(scope)}['flag'])", 1
        ints = [v for v in scope if v.kind == "int"]
        k = self.rng.randrange(6)
        if k <= 1 and ints:
            v = self.pick(ints)
            return v.name, v.bound
        if k == 2:
            c = self.pick(INT_CONSTANTS)
            if c == -I64:   # the literal 9223372036854775808 would be a float in kiln
                return f"({-I64 + 1} - 1)", I64
            return (f"({c})" if c < 0 else str(c)), abs(c)
        if k == 3:
            return self.pick(["len(arr)", "arr.shape[0]", "len(iarr)"]), 64
        if k == 4:
            return f"int(iarr[{self.index('iarr', scope)}])", I64
        return self.pick([v.name for v in scope if v.name in ("a", "b")]), I64

    def int_expr(self, scope, depth):
        if depth <= 0 or self.chance(0.3):
            return self.int_leaf(scope)
        d = depth - 1
        if self.lists and self.chance(0.08) and self.list_names(scope):
            return self.int_from_list(scope, d)
        if self.dicts and self.chance(0.08) and self.dict_names(scope):
            return self.int_from_dict(scope, d)
        if self.sets and self.chance(0.08) and self.set_names(scope):
            return self.int_from_set(scope, d)
        if self.strings and self.chance(0.08):
            return self.int_from_str(scope, d)
        k = self.rng.randrange(16)
        if k == 0:
            (lt, lb), (rt, rb) = self.int_expr(scope, d), self.int_expr(scope, d)
            op = self.pick(["+", "-"])
            if lb + rb >= I64:
                (lt, lb), (rt, rb) = self.small((lt, lb)), self.small((rt, rb))
            return f"({lt} {op} {rt})", lb + rb
        if k == 1:
            (lt, lb), (rt, rb) = self.small(self.int_expr(scope, d)), self.small(self.int_expr(scope, d))
            return f"({lt} * {rt})", lb * rb
        if k == 2:
            lt, lb = self.int_expr(scope, d)
            if lb >= I64:
                lt, lb = self.small((lt, lb))
            rt, _ = self.int_expr(scope, d)
            return f"({lt} // {rt})", lb
        if k == 3:
            lt, _ = self.int_expr(scope, d)
            rt, rb = self.int_expr(scope, d)
            if self.chance(0.5):
                return f"divmod({lt}, {rt})[1]", rb
            return f"({lt} % {rt})", rb
        if k == 4:
            (lt, lb), (rt, rb) = self.int_expr(scope, d), self.int_expr(scope, d)
            op = self.pick(["&", "|", "^"])
            return f"({lt} {op} {rt})", min(I64, 2 ** max(lb, rb).bit_length())
        if k == 5:
            lt, lb = self.int_expr(scope, d)
            st, _ = self.small(self.int_expr(scope, d))
            shift = self.pick([f"({st} % 80)", f"({st} % 64)", str(self.rng.randrange(70)), st])
            return f"({lt} >> {shift})", lb
        if k == 6:
            lt, lb = self.small(self.int_expr(scope, d))
            st, _ = self.small(self.int_expr(scope, d))
            return f"({lt} << ({st} % 20))", lb * 2 ** 19
        if k == 7:
            lt, lb = self.int_expr(scope, d)
            if lb >= I64:
                lt, lb = self.small((lt, lb))
            op = self.pick(["-", "abs", "~", "+"])
            return (f"abs({lt})" if op == "abs" else f"({op}{lt})"), lb + 1
        if k == 8:
            lt, lb = self.small(self.int_expr(scope, d))
            e = self.rng.randrange(4)
            return f"({lt} ** {e})", lb ** e
        if k == 9:
            (lt, lb), (rt, rb) = self.int_expr(scope, d), self.int_expr(scope, d)
            fn = self.pick(["min", "max"])
            return f"{fn}({lt}, {rt})", max(lb, rb)
        if k == 10:
            (lt, lb), (rt, rb) = self.int_expr(scope, d), self.int_expr(scope, d)
            if self.chance(0.5):
                return f"({lt} if {self.bool_expr(scope, d)} else {rt})", max(lb, rb)
            return f"({lt} {self.pick(['and', 'or'])} {rt})", max(lb, rb)
        if k == 11:
            f = self.float_expr(scope, d)
            clamp = self.pick([f"max(-1e15, min({f}, 1e15))", f"min(max({f}, -1e15), 1e15)"])
            fn = self.pick(["int", "round", "math.floor", "math.ceil", "math.trunc"])
            return f"{fn}({clamp})", 10 ** 15 + 1
        if k == 12:
            # gcd(0, -2**63) is 2**63 in CPython, beyond int64 (kiln raises OverflowError)
            (lt, lb), (rt, rb) = self.small(self.int_expr(scope, d)), self.int_expr(scope, d)
            if rb >= I64:
                lt = f"({lt} or 1)"
            return f"math.gcd({lt}, {rt})", max(lb, rb)
        if k == 13:
            return f"int({self.bool_expr(scope, d)})", 1
        if k == 14 and self.arrays:
            return self.int_from_vector(scope, d)
        helpers = [h for h in self.helpers if h[1] == "int"]
        if helpers:
            return self.helper_call(self.pick(helpers)[0], scope, d), I64
        tuples = [v for v in scope if v.kind == "tuple"]
        if tuples:
            return f"{self.pick(tuples).name}[0]", LOCAL_BOUND
        return self.int_leaf(scope)

    def index(self, array, scope):
        """An index in range, sometimes negative."""
        e, _ = self.small(self.int_expr(scope, 1))
        if self.chance(0.4):
            return f"-1 - {e} % len({array})"
        return f"{e} % len({array})"

    # -- float expressions -------------------------------------------------------------------
    def float_leaf(self, scope):
        if self.has_rec(scope) and self.chance(0.15):
            if self.chance(0.8):
                return f"float({self.record(scope)}['v'])"
            return f"float(rec['v'][{self.index('rec', scope)}])"   # through the field view
        floats = [v for v in scope if v.kind == "float"]
        k = self.rng.randrange(6)
        if k <= 1 and floats:
            return self.pick(floats).text
        if k == 2:
            return self.pick(FLOAT_CONSTANTS)
        if k == 3:
            return f"float({self.int_leaf(scope)[0]})"
        if k == 4:
            return f"float(arr[{self.index('arr', scope)}])"
        return self.pick([v.name for v in scope if v.name in ("x", "y")])

    def float_expr(self, scope, depth):
        if depth <= 0 or self.chance(0.25):
            return self.float_leaf(scope)
        d = depth - 1
        if self.lists and self.chance(0.08) and self.list_names(scope):
            return self.float_from_list(scope, d)
        if self.chance(0.03):   # a C function, through ctypes or cffi (cfuncs.py)
            name = self.pick(sorted(C_ARITY))
            args = ", ".join(self.float_expr(scope, d) for _ in range(C_ARITY[name]))
            return f"{name}({args})"
        k = self.rng.randrange(16)
        if k <= 2:
            op = self.pick(["+", "-", "*", "/", "//", "%"])
            return f"({self.float_expr(scope, d)} {op} {self.float_expr(scope, d)})"
        if k == 3:
            # a negative base with a fractional exponent is complex in CPython (nan in kiln,
            # documented), so such bases are made non-negative
            form = self.rng.randrange(3)
            base = self.float_expr(scope, d)
            if form == 0:
                return f"(abs({base}) ** {self.pick([self.float_expr(scope, d), '0.5'])})"
            if form == 1:
                return f"({base} ** {self.pick(['2.0', '-1.0', '3.0', '-2.0', '0.0', '1e300'])})"
            return f"({base} ** {self.rng.randrange(-3, 4)})"
        if k == 4:
            return f"({self.pick(['-', '+'])}{self.float_expr(scope, d)})"
        if k == 5:
            return f"abs({self.float_expr(scope, d)})"
        if k == 6:
            return f"math.{self.pick(MATH_1)}({self.float_expr(scope, d)})"
        if k == 7:
            return f"math.{self.pick(MATH_2)}({self.float_expr(scope, d)}, {self.float_expr(scope, d)})"
        if k == 8:
            args = ", ".join(self.float_expr(scope, d) for _ in range(self.rng.randrange(2, 4)))
            return f"{self.pick(['min', 'max'])}({args})"
        if k == 9:
            l, r = self.float_expr(scope, d), self.float_expr(scope, d)
            if self.chance(0.5):
                return f"({l} if {self.bool_expr(scope, d)} else {r})"
            return f"({l} {self.pick(['and', 'or'])} {r})"
        if k == 10:
            return f"divmod({self.float_expr(scope, d)}, {self.float_expr(scope, d)})[{self.rng.randrange(2)}]"
        if k == 11:
            l, r = self.int_expr(scope, d)[0], self.int_expr(scope, d)[0]
            return f"({l} / {r})"
        if k == 12:
            mixed = (self.float_expr(scope, d), self.int_expr(scope, d)[0])
            if self.chance(0.5):
                mixed = mixed[::-1]
            return f"({mixed[0]} {self.pick(['+', '-', '*', '/', '%', '//'])} {mixed[1]})"
        if k == 13:
            form = self.rng.randrange(4)
            e = self.float_expr(scope, d)
            if form == 0:
                return f"round({e}, {self.rng.randrange(-2, 4)})"
            if form == 1:
                return f"math.ldexp({e}, {self.small(self.int_expr(scope, d))[0]} % 2200 - 1100)"
            if form == 2:
                return f"math.{self.pick(['frexp', 'modf'])}({e})[0]"
            return f"float({self.pick(['True', 'False', e])})"
        if k == 14 and self.arrays:
            return self.float_from_vector(scope, d)
        helpers = [h for h in self.helpers if h[1] == "float"]
        if helpers:
            return self.helper_call(self.pick(helpers)[0], scope, d)
        optionals = [v for v in scope if v.kind == "optional"]
        if optionals:
            o = self.pick(optionals).name
            return f"({o} if {o} is not None else {self.float_leaf(scope)})"
        tuples = [v for v in scope if v.kind == "tuple"]
        if tuples:
            return f"{self.pick(tuples).name}[1]"
        return self.float_leaf(scope)

    # -- booleans ---------------------------------------------------------------------------
    def bool_expr(self, scope, depth):
        d = max(depth - 1, 0)
        if self.dicts and self.chance(0.08) and self.dict_names(scope):
            m = self.pick(self.dict_names(scope))
            return self.pick([f"({self.dict_key(scope, d)} in {m})",
                              f"({self.dict_key(scope, d)} not in {m})", f"bool({m})",
                              f"({m} == {self.pick(self.dict_names(scope))})"])
        if self.sets and self.chance(0.08) and self.set_names(scope):
            m, n = self.pick(self.set_names(scope)), self.pick(self.set_names(scope))
            return self.pick([f"({self.dict_key(scope, d)} in {m})",
                              f"({self.dict_key(scope, d)} not in {m})", f"bool({m})",
                              f"({m} == {n})", f"({m} != {n})", f"({m} <= {n})", f"({m} < {n})",
                              f"({m} >= {n})", f"{m}.isdisjoint({n})", f"{m}.issubset({n})"])
        if self.lists and self.chance(0.08) and self.list_names(scope):
            l = self.pick(self.list_names(scope))
            return self.pick([f"({self.not_nan(scope, d)} in {l})",
                              f"({self.not_nan(scope, d)} not in {l})", f"bool({l})"])
        k = self.rng.randrange(9)
        if k <= 2:
            kinds = self.pick(["ii", "ff", "if", "fi"])
            operands = [self.int_expr(scope, d)[0] if c == "i" else self.float_expr(scope, d)
                        for c in kinds]
            ops = ["<", "<=", ">", ">=", "==", "!="]
            if self.chance(0.2):
                mid = self.float_expr(scope, d)
                return f"({operands[0]} {self.pick(ops)} {mid} {self.pick(ops)} {operands[1]})"
            return f"({operands[0]} {self.pick(ops)} {operands[1]})"
        if k == 3:
            return f"(not {self.pick([self.float_expr(scope, d), self.int_expr(scope, d)[0]])})"
        if k == 4:
            return f"({self.bool_expr(scope, d)} {self.pick(['and', 'or'])} {self.bool_expr(scope, d)})"
        if k == 5:
            return f"math.{self.pick(['isnan', 'isinf', 'isfinite'])}({self.float_expr(scope, d)})"
        if k == 6:
            return f"bool({self.pick([self.float_expr(scope, d), self.int_expr(scope, d)[0]])})"
        optionals = [v for v in scope if v.kind == "optional"]
        if k == 7 and optionals:
            o = self.pick(optionals).name
            number = self.pick([self.float_leaf(scope), self.int_leaf(scope)[0]])
            return self.pick([f"({o} is None)", f"({o} is not None)", f"({o} == None)",
                              f"(None != {o})", f"(not {o})", f"bool({o})",
                              f"({o} == {number})", f"({number} != {o})"])
        bools = [v for v in scope if v.kind == "bool"]
        if bools:
            return self.pick(bools).name
        return self.pick(["True", "False", "(x != x)"])

    # -- arrays made in compiled code -------------------------------------------------------
    def vector(self, kind, scope, depth):
        """An array expression: "fvec" (float64, as long as arr) or "ivec" (int64, as iarr)."""
        source = "arr" if kind == "fvec" else "iarr"
        locals_ = [v.name for v in scope if v.kind == kind]
        if depth <= 0 or self.chance(0.3):
            k = self.rng.randrange(4)
            if k == 0 and locals_:
                return self.pick(locals_)
            if k == 1:
                return source
            if kind == "ivec":
                return self.pick([f"np.arange(len(iarr))", f"iarr.copy()",
                                  f"np.full(len(iarr), {self.int_expr(scope, 1)[0]})",
                                  f"np.zeros_like(iarr)", f"np.ones(len(iarr), np.int64)"])
            return self.pick([
                f"np.zeros(len(arr))", f"np.ones_like(arr)", f"arr.copy()",
                f"np.full(arr.shape, {self.float_expr(scope, 1)})",
                f"np.linspace({self.float_expr(scope, 1)}, {self.float_expr(scope, 1)}, len(arr))",
                f"(np.arange(len(arr)) * {self.float_expr(scope, 1)})",
                "np.arange(len(arr)).astype(np.float64)"])
        d = depth - 1
        if kind == "ivec":
            k = self.rng.randrange(4)
            other = self.pick([self.vector(kind, scope, d), self.int_expr(scope, d)[0]])
            if k == 0:
                return f"({self.vector(kind, scope, d)} {self.pick(['+', '-', '*', '&', '|', '^'])} {other})"
            if k == 1:
                return f"({self.vector(kind, scope, d)} {self.pick(['//', '%'])} {other})"
            if k == 2:
                return f"{self.pick(['np.abs', 'np.negative'])}({self.vector(kind, scope, d)})"
            return f"{self.pick(['np.maximum', 'np.minimum'])}({self.vector(kind, scope, d)}, {other})"
        k = self.rng.randrange(8)
        other = self.pick([self.vector(kind, scope, d), self.float_expr(scope, d),
                           self.int_expr(scope, d)[0]])
        if k == 6:  # routines that keep the length (fused where they are elementwise)
            v = self.vector(kind, scope, d)
            return self.pick([
                f"np.where({v} > {self.float_expr(scope, 0)}, {v}, {other})",
                f"np.clip({v}, {self.float_expr(scope, 0)}, {self.float_expr(scope, 0)})",
                f"np.cumsum({v})", f"np.sort({v})", f"{v}[::-1]",
                f"np.roll({v}, {self.int_expr(scope, 0)[0]} % 7)",
                f"{self.pick(['np.floor', 'np.ceil', 'np.trunc', 'np.rint', 'np.sign', 'np.square'])}({v})"])
        if k == 7:  # a 2-d detour: outer, reduced back along an axis
            v = self.vector(kind, scope, d)
            return self.pick([f"(({v})[:, None] * ({v})[None, :]).sum(axis=1)",
                              f"np.sum(({v})[:, None] - ({v})[None, :], axis=0)",
                              f"np.max(np.stack(({v}, {v} * 2.0)), axis=0)"])
        if k <= 1:
            # no `**` of floats: NumPy 2.4's SIMD pow differs from the C library's (kiln's)
            # in the last bit (README, Differences; fuzz seed 30244 on an AVX-512 CPU)
            op = self.pick(["+", "-", "*", "/", "//", "%"])
            left, right = self.vector(kind, scope, d), other
            if self.chance(0.3):
                left, right = right, left
            return f"({left} {op} {right})"
        if k == 2:
            return f"{self.pick(VEC_UNARY)}({self.vector(kind, scope, d)})"
        if k == 3:
            return f"{self.pick(VEC_BINARY)}({self.vector(kind, scope, d)}, {other})"
        if k == 4:
            return f"(-{self.vector(kind, scope, d)})"
        return f"{self.vector(kind, scope, d)}.astype(np.float64)"

    def float_from_vector(self, scope, depth):
        if self.chance(0.15):
            return self.generator_reduction(scope)
        kind = self.pick(["fvec", "ivec"])
        v = self.vector(kind, scope, depth)
        k = self.rng.randrange(3)
        if k == 0:
            name = self.pick(["sum", "mean", "prod", "min", "max", "var", "std"])
            if kind == "ivec" and name in ("sum", "prod"):
                name = "mean"
            return self.pick([f"float({v}.{name}())", f"float(np.{name}({v}))",
                              f"float(np.{self.pick(['median', 'nansum', 'nanmax', 'ptp'])}({v}))"])
        if k == 1:
            source = "arr" if kind == "fvec" else "iarr"
            return f"float({v}[{self.index(source, scope)}])"
        return f"float(({v} {self.pick(['<', '>=', '=='])} {self.float_expr(scope, 0)}).sum())"

    def int_from_vector(self, scope, depth):
        kind = self.pick(["fvec", "ivec"])
        v = self.vector(kind, scope, depth)
        k = self.rng.randrange(3)
        if k == 0:
            return f"int({v}.{self.pick(['argmin', 'argmax'])}())", 64
        if k == 1:
            return f"int({self.pick(['np.any', 'np.all', 'any', 'all'])}({v}))", 1
        if kind == "ivec":
            return f"int({v}.{self.pick(['sum', 'min', 'max', 'prod'])}())", I64
        return f"int(({v} > {self.float_expr(scope, 0)}).sum())", 64

    def generator_reduction(self, scope):
        """A reduction of a generator expression over `arr` or a range (reading only the
        arguments and its own variable, as a comprehension; see list_value)."""
        arguments = [v for v in scope if v.name in ("a", "b", "x", "y", "arr", "iarr")]
        e = self.fresh("e")
        if self.chance(0.5):
            inner = arguments + [Var(e, "float", wrap=True)]
            source = "arr" + self.pick(["", f" if {e} == {e}",
                                        f" if {e} > {self.float_leaf(inner)}"])
        else:
            inner = arguments + [Var(e, "int", 8)]
            source = f"range({self.rng.randrange(-1, 7)})"
        item = self.float_expr(inner, 1)
        return self.pick([f"sum(({item} for {e} in {source}), 0.0)",
                          f"float(any({item} > 1.0 for {e} in {source}))",
                          f"float(all({item} != 0.0 for {e} in {source}))"])

    # -- statements -------------------------------------------------------------------------
    def assign_int(self, scope, depth):
        text, bound = self.int_expr(scope, depth)
        if bound > LOCAL_BOUND:
            if self.chance(0.5):
                text = f"min(max({text}, -{LOCAL_BOUND}), {LOCAL_BOUND})"
            else:
                text = f"({text} % {self.pick([1000003, 97, -13, LOCAL_BOUND])})"
        return text

    def value_of(self, kind, scope, depth):
        if kind == "int":
            return self.assign_int(scope, depth)
        if kind == "float":
            return self.float_expr(scope, depth)
        if kind == "bool":
            return self.bool_expr(scope, depth)
        if kind == "tuple":
            return f"({self.assign_int(scope, depth - 1)}, {self.float_expr(scope, depth - 1)})"
        if kind == "flist":
            return self.list_value(scope, min(depth, 2))
        if kind == "idict":
            return self.dict_value(scope)
        if kind == "iset":
            return self.set_value(scope)
        return self.vector(kind, scope, min(depth, 1))

    # -- lists of floats ---------------------------------------------------------------------
    def list_names(self, scope):
        return [v.name for v in scope if v.kind == "flist"]

    def not_nan(self, scope, depth):
        """A float that is not NaN: CPython finds the very same NaN object in a list by
        identity (`nan in [nan]`), compiled code by value only (documented)."""
        e = self.float_expr(scope, depth)
        return f"({e} if {e} == {e} else 0.5)"

    def list_value(self, scope, depth):
        """A new list of floats (never an empty display, whose item type nothing fixes)."""
        lists = self.list_names(scope)
        k = self.rng.randrange(7 if lists else 3)
        if k == 0:
            items = [self.float_expr(scope, depth) for _ in range(self.rng.randrange(1, 4))]
            return f"[{', '.join(items)}]"
        # a comprehension reads only the arguments and its own variable (a local of the
        # caller that may be unassigned is NameError in 3.11's comprehensions and
        # UnboundLocalError in 3.12's)
        arguments = [v for v in scope if v.name in ("a", "b", "x", "y", "arr", "iarr")]
        if k == 1:
            e = self.fresh("e")
            inner = arguments + [Var(e, "float", wrap=True)]
            cond = self.pick(["", f" if {e} == {e}", f" if {e} > {self.float_leaf(inner)}"])
            return f"[{self.float_expr(inner, 1)} for {e} in arr{cond}]"
        if k == 2:
            w = self.fresh("e")
            inner = arguments + [Var(w, "int", 8)]
            return f"[{self.float_expr(inner, 1)} for {w} in range({self.rng.randrange(0, 6)})]"
        l = self.pick(lists)
        if k == 3:
            bounds = [self.small(self.int_expr(scope, 1))[0] + " % 9 - 4" for _ in range(2)]
            return self.pick([f"{l}[{bounds[0]}:{bounds[1]}]", f"{l}[::-1]", f"{l}[:]",
                              f"{l}[{bounds[0]}::2]"])
        # lists that grow from themselves are cut short: in a loop they would double on
        # every pass (seed 7001492: `fl.extend(fl.copy())`, nothing ever finished)
        if k == 4:
            return f"({l} + {self.pick(lists)})[:{GROWTH}]"
        if k == 5:
            return f"({l} * ({self.small(self.int_expr(scope, 1))[0]} % 3))[:{GROWTH}]"
        return f"{l}.copy()[:{GROWTH}]"

    def float_from_list(self, scope, depth):
        l = self.pick(self.list_names(scope))
        k = self.rng.randrange(4)
        if k == 0:
            return f"{l}[{self.int_expr(scope, depth)[0]}]"
        if k == 3:   # an iterator that next() advances before sum() takes the rest
            it = self.fresh("it")
            return self.pick([f"next(iter({l}), {self.float_leaf(scope)})",
                              f"(lambda {it}: next({it}, 0.25) + sum({it}, 0.0))(iter({l}))"])
        return f"{self.pick(['min', 'max'])}({l})"

    def int_from_list(self, scope, depth):
        l = self.pick(self.list_names(scope))
        k = self.rng.randrange(3)
        if k == 0:
            return f"len({l})", SMALL
        if k == 1:
            return f"{l}.count({self.not_nan(scope, depth)})", SMALL
        return f"{l}.index({self.not_nan(scope, depth)})", SMALL

    def list_statement(self, scope, indent):
        lists = [n for n in self.list_names(scope) if not n.startswith("e")]
        if not lists or self.chance(0.3):
            name = self.fresh("fl")
            self.emit(indent, f"{name} = {self.list_value(scope, 2)}")
            scope.append(Var(name, "flist"))
            return
        l = self.pick(lists)
        k = self.rng.randrange(13)
        value = self.float_expr(scope, 2)
        index = self.int_expr(scope, 1)[0]
        self.emit(indent, [
            f"{l}.append({value})", f"{l}.insert({index}, {value})", f"{l}.pop({index})",
            f"{l}.extend({self.list_value(scope, 1)})", f"{l}.reverse()",
            f"{l}[{index}] = {value}", f"{l}[{index}] += {value}", f"{l}.clear()",
            f"{l}.remove({self.not_nan(scope, 1)})", f"{l} += {self.list_value(scope, 1)}",
            f"del {l}[{index}]", f"del {l}[{self.list_slice(scope)}]",
            f"{l}[{self.list_slice(scope)}] = {self.list_value(scope, 1)}"][k])

    def list_slice(self, scope):
        """`a:b` or `a:b:c` with small bounds (some negative) and a non-zero step."""
        a, b = (f"{self.small(self.int_expr(scope, 1))[0]} % 9 - 4" for _ in range(2))
        if self.chance(0.5):
            return f"{a}:{b}"
        return f"{a}:{b}:{self.pick(['1', '2', '-1', '-2', '3'])}"

    # -- strings: literals, str(int), +, * by a small int, slices, methods; read as ints -----
    def str_expr(self, scope, depth):
        """A string expression (at most a few hundred characters: repeats are 0-2 times)."""
        k = 0 if depth <= 0 else self.rng.randrange(6)
        if k == 0:
            return self.pick(['""', '"a"', '"abc"', '"héllo"', '"中😀x"', '" a b "'])
        if k == 1:
            return f"({self.str_expr(scope, depth - 1)} + {self.str_expr(scope, depth - 1)})"
        if k == 2:
            return f"({self.str_expr(scope, depth - 1)} * {self.rng.randrange(-1, 3)})"
        if k == 3:
            bounds = ["", "-1", "0", "1", "2", "-3", "5"]
            return (f"{self.str_expr(scope, depth - 1)}[{self.pick(bounds)}:{self.pick(bounds)}"
                    f":{self.pick(['1', '2', '-1', '-2'])}]")
        if k == 4:
            return f"str({self.small(self.int_expr(scope, depth - 1))[0]})"
        x = self.str_expr(scope, depth - 1)
        k = self.rng.randrange(8)
        if k < 5:
            return f"{x}.{['strip', 'title', 'swapcase', 'capitalize', 'casefold'][k]}()"
        if k == 5:
            return f"({x} + chr(9) + {x}).expandtabs({self.rng.randrange(-1, 4)})"
        if k == 6:
            return f"{x}.{self.pick(['removeprefix', 'removesuffix'])}({self.str_expr(scope, 0)})"
        sep = self.pick(['" "', '"a"', '"😀"'])   # never empty: partition would raise
        return f"{x}.{self.pick(['partition', 'rpartition'])}({sep})[{self.rng.randrange(3)}]"

    def int_from_str(self, scope, depth):
        a, b = self.str_expr(scope, depth), self.str_expr(scope, depth)
        k = self.rng.randrange(8)
        if k == 0:
            return f"len({a})", SMALL
        if k == 1:
            return f"int({a} in {b})", 1
        if k == 2:
            return f"int({a} {self.pick(['==', '!=', '<', '>='])} {b})", 1
        if k == 3:
            return f"{a}.find({b})", SMALL
        if k == 4:
            return f"int(hash({a}) == hash({b}))", 1
        if k == 5:
            sep = self.pick(["None", '" "', '"a"', '"b😀"'])
            how = self.pick(["split", "rsplit"])
            return f"len({a}.{how}({sep}, {self.rng.randrange(-1, 3)}))", SMALL
        if k == 6:
            return f"len(({a} + {self.pick(['chr(10)', 'chr(13)', 'chr(0x2028)'])} + {b})" \
                   f".splitlines({self.pick(['', 'True'])}))", SMALL
        return f"int({a}.{self.pick(['startswith', 'endswith'])}(({b}, \"a\")))", 1

    # -- dicts of int -> int -------------------------------------------------------------------
    def dict_names(self, scope):
        return [v.name for v in scope if v.kind == "idict"]

    def dict_key(self, scope, depth):
        """A small int key (so keys repeat: counts, replacements, deletions)."""
        return f"({self.small(self.int_expr(scope, depth))[0]} % 13 - 6)"

    def dict_value(self, scope):
        """A new dict (never `{}` alone, whose types nothing would fix)."""
        dicts = self.dict_names(scope)
        k = self.rng.randrange(4 if dicts else 2)
        if k == 0:
            pairs = [f"{self.dict_key(scope, 1)}: {self.small(self.int_expr(scope, 1))[0]}"
                     for _ in range(self.rng.randrange(1, 4))]
            return "{" + ", ".join(pairs) + "}"
        if k == 1:   # a comprehension reads only the arguments (see list_value)
            w = self.fresh("e")
            inner = [v for v in scope if v.name in ("a", "b", "x", "y", "arr", "iarr")] + \
                [Var(w, "int", 8)]
            return f"{{{w} * {self.pick(['1', '-3', '7'])}: {self.small(self.int_expr(inner, 1))[0]} " \
                   f"for {w} in range({self.rng.randrange(0, 9)})}}"
        m = self.pick(dicts)
        return f"{m}.copy()" if k == 2 else f"dict({m})"

    def int_from_dict(self, scope, depth):
        m = self.pick(self.dict_names(scope))
        key = self.dict_key(scope, depth)
        k = self.rng.randrange(5)
        if k == 0:
            return f"len({m})", SMALL
        if k == 1:
            return f"{m}.get({key}, {self.pick(['0', '-1', '5'])})", 2 * SMALL
        if k == 2:
            return f"{m}[{key}]", 2 * SMALL   # KeyError when missing, as in CPython
        if k == 3:
            return f"{m}.pop({key}, 3)", 2 * SMALL
        return f"len({m}.keys())", SMALL

    def dict_statement(self, scope, indent):
        dicts = [n for n in self.dict_names(scope)]
        if not dicts or self.chance(0.25):
            name = self.fresh("dc")
            if self.chance(0.5):
                self.emit(indent, f"{name} = {self.dict_value(scope)}")
            else:   # `{}` typed by the statement after it
                self.emit(indent, f"{name} = {{}}")
                self.emit(indent, f"{name}[{self.dict_key(scope, 1)}] = 1")
            scope.append(Var(name, "idict"))
            return
        m = self.pick(dicts)
        key = self.dict_key(scope, 1)
        value = self.small(self.int_expr(scope, 1))[0]
        k = self.rng.randrange(10)
        if k == 0:   # counting, bounded
            self.emit(indent, f"{m}[{key}] = ({m}.get({key}, 0) + 1) % 1000003")
        elif k == 1:
            self.emit(indent, f"{m}[{key}] = {value}")
        elif k == 2:
            self.emit(indent, f"if {key} in {m}:")
            self.emit(indent + 1, f"del {m}[{key}]")
        elif k == 3:
            self.emit(indent, f"{m}.pop({key}, 0)")
        elif k == 4:
            self.emit(indent, f"if {m}:")
            self.emit(indent + 1, f"{m}.popitem()")
        elif k == 5:
            self.emit(indent, f"{m}.setdefault({key}, {value})")
        elif k == 6:
            self.emit(indent, f"{m}.update({self.pick(dicts)})")
        elif k == 7:
            self.emit(indent, f"{m}.clear()")
        else:   # a walk over the items in order, into a new int
            c, kk, vv = self.fresh("c"), self.fresh("w"), self.fresh("w")
            self.emit(indent, f"{c} = 0")
            view = self.pick([f"{m}.items()", f"zip({m}.keys(), {m}.values())"])
            self.emit(indent, f"for {kk}, {vv} in {view}:")
            self.emit(indent + 1, f"{c} = ({c} * 31 + {kk} * 7 + {vv}) % 1000003")
            scope.append(Var(c, "int", 1000003))

    # -- sets of ints --------------------------------------------------------------------------
    def set_names(self, scope):
        return [v.name for v in scope if v.kind == "iset"]

    def set_value(self, scope):
        """A new set (never `set()` alone, whose item type nothing would fix)."""
        sets = self.set_names(scope)
        k = self.rng.randrange(4 if sets else 2)
        if k == 0:
            return "{" + ", ".join(self.dict_key(scope, 1)
                                   for _ in range(self.rng.randrange(1, 4))) + "}"
        if k == 1:   # a comprehension reads only the arguments (see list_value)
            w = self.fresh("e")
            inner = [v for v in scope if v.name in ("a", "b", "x", "y", "arr", "iarr")] + \
                [Var(w, "int", 8)]
            return f"{{({w} * {self.small(self.int_expr(inner, 1))[0]}) % 11 " \
                   f"for {w} in range({self.rng.randrange(0, 9)})}}"
        m, n = self.pick(sets), self.pick(sets)
        if k == 2:
            return self.pick([f"{m}.copy()", f"set({m})", f"({m} | {n})", f"({m} & {n})",
                              f"({m} - {n})", f"({m} ^ {n})", f"{m}.union({n})",
                              f"{m}.intersection({n})"])
        return self.pick([f"set(({self.dict_key(scope, 1)}, {self.dict_key(scope, 1)}))",
                          f"set(range({self.rng.randrange(-3, 9)}))",
                          f"{m}.difference({n})", f"{m}.symmetric_difference({n})"])

    def int_from_set(self, scope, depth):
        m = self.pick(self.set_names(scope))
        if self.chance(0.5):
            return f"len({m})", SMALL
        return f"sum({m})", 13 * SMALL   # order-free: CPython's order is hash-based

    def set_statement(self, scope, indent):
        sets = self.set_names(scope)
        if not sets or self.chance(0.25):
            name = self.fresh("st")
            if self.chance(0.5):
                self.emit(indent, f"{name} = {self.set_value(scope)}")
            else:   # `set()` typed by the statement after it
                self.emit(indent, f"{name} = set()")
                self.emit(indent, f"{name}.add({self.dict_key(scope, 1)})")
            scope.append(Var(name, "iset"))
            return
        m, n = self.pick(sets), self.pick(sets)
        key = self.dict_key(scope, 1)
        k = self.rng.randrange(8)
        if k == 0:
            self.emit(indent, f"{m}.add({key})")
        elif k == 1:
            self.emit(indent, f"{m}.discard({key})")
        elif k == 2:
            self.emit(indent, f"if {key} in {m}:")
            self.emit(indent + 1, f"{m}.remove({key})")
        elif k == 3:   # (no pop(): which item it takes is free to differ)
            self.emit(indent, f"{m} {self.pick(['|=', '&=', '-=', '^='])} {n}")
        elif k == 4:
            method = self.pick(["update", "intersection_update", "difference_update",
                                "symmetric_difference_update"])
            self.emit(indent, f"{m}.{method}({n})")
        elif k == 5:
            self.emit(indent, f"{m}.clear()")
        else:   # a walk over the items, into a new int (a sum: any order gives it)
            c, w = self.fresh("c"), self.fresh("w")
            self.emit(indent, f"{c} = 0")
            self.emit(indent, f"for {w} in {m}:")
            self.emit(indent + 1, f"{c} = ({c} + {w} * {w}) % 1000003")
            scope.append(Var(c, "int", 1000003))

    def record_statement(self, scope, indent):
        """A write through a record: to a field of `rec[i]`, through a local naming one, in
        a loop over the records, or a whole record copied."""
        k = self.rng.randrange(5)
        if k == 0:
            field, value = self.pick([("v", self.float_expr(scope, 2)),
                                      ("k", self.small(self.int_expr(scope, 2))[0]),
                                      ("flag", self.bool_expr(scope, 2))])
            self.emit(indent, f"{self.record(scope)}['{field}'] = {value}")
        elif k == 1:
            r = self.fresh("r")
            self.emit(indent, f"{r} = {self.record(scope)}")
            self.emit(indent, f"{r}['v'] = float({r}['v']) * {self.float_expr(scope, 1)}")
            self.emit(indent, f"{r}['k'] = int({r}['k']) % {self.pick([7, 97, 1000003])}")
        elif k == 2:
            r = self.fresh("r")
            self.emit(indent, f"for {r} in rec:")
            self.emit(indent + 1, f"if {r}['flag']:")
            self.emit(indent + 2, f"{r}['v'] = -float({r}['v'])")
            self.emit(indent + 1, f"{r}['flag'] = int({r}['k']) % 2 == 0")
        elif k == 3:
            self.emit(indent, f"rec[{self.index('rec', scope)}] = {self.record(scope)}")
        else:
            name = self.fresh("v")
            self.emit(indent, f"{name} = float(rec['v'].{self.pick(['sum', 'max', 'min'])}())")
            scope.append(Var(name, "float"))

    def statement(self, scope, indent, depth, loop, returns):
        """Emit one statement (maybe compound); `scope` gains the names it defines."""
        if self.has_rec(scope) and self.chance(0.15):
            self.record_statement(scope, indent)
            return
        if self.sets and self.chance(0.2):
            self.set_statement(scope, indent)
            return
        if self.lists and self.chance(0.25):
            self.list_statement(scope, indent)
            return
        if self.dicts and self.chance(0.2):
            self.dict_statement(scope, indent)
            return
        kinds = ["int", "float", "float", "bool", "tuple"] + (["fvec", "ivec"] if self.arrays else [])
        assignable = [v for v in scope if not v.name.startswith(("i", "w", "e")) or v.kind != "int"]
        assignable = [v for v in assignable if v.name not in ("a", "b", "x", "y", "arr", "iarr",
                                                              "rec")
                      and not v.wrap and v.kind != "optional"]
        k = self.rng.randrange(21)
        if k <= 3 or not assignable:
            kind = self.pick(kinds)
            name = self.fresh({"int": "c", "float": "v", "bool": "p", "tuple": "t",
                               "fvec": "fa", "ivec": "ia"}[kind])
            self.emit(indent, f"{name} = {self.value_of(kind, scope, 2)}")
            scope.append(Var(name, kind, LOCAL_BOUND))
        elif k <= 5:
            v = self.pick(assignable)
            self.emit(indent, f"{v.name} = {self.value_of(v.kind, scope, 2)}")
        elif k == 6:
            v = self.pick(assignable)
            if v.kind == "float":
                op = self.pick(["+=", "-=", "*=", "/=", "//=", "%="])
                self.emit(indent, f"{v.name} {op} {self.float_expr(scope, 2)}")
            elif v.kind == "int":
                op = self.pick(["+=", "-=", "*=", "//=", "%=", "&=", "|=", "^="])
                operand = self.int_expr(scope, 2)
                if op != "//=":
                    operand = self.small(operand)
                self.emit(indent, f"{v.name} {op} {operand[0]}")
                if op in ("+=", "-=", "*=", "|=", "^="):
                    self.emit(indent, f"{v.name} = min(max({v.name}, -{LOCAL_BOUND}), {LOCAL_BOUND})")
            elif v.kind in ("fvec", "ivec"):
                if v.kind == "fvec":
                    operand = self.pick([self.vector("fvec", scope, 1), self.float_expr(scope, 1)])
                    op = self.pick(["+=", "-=", "*=", "/="])
                else:
                    operand = self.pick([self.vector("ivec", scope, 1), self.int_expr(scope, 1)[0]])
                    op = self.pick(["+=", "-=", "*=", "&=", "|="])
                self.emit(indent, f"{v.name} {op} {operand}")
            else:
                self.emit(indent, f"{v.name} = {self.value_of(v.kind, scope, 3)}")
        elif k == 7 and self.arrays and self.chance(0.3):
            # slice writes of array expressions, overlapping their own sources
            v = self.pick([v for v in scope if v.kind == "fvec"] or [Var("arr", "fvec")])
            shift = self.pick(["1:", ":-1"])
            other = ":-1" if shift == "1:" else "1:"
            op = self.pick(["=", "+="])
            self.emit(indent, f"if len({v.name}) > 1:")
            self.emit(indent + 1, f"{v.name}[{shift}] {op} {v.name}[{other}] * "
                                  f"{self.float_expr(scope, 1)} + {self.vector('fvec', scope, 1)}[{shift}]")
        elif k == 7:
            # array element writes and read-modify-writes (Python's evaluation order)
            if self.chance(0.5):
                idx = self.index("arr", scope)
                op = self.pick(["=", "+=", "-=", "*="])
                self.emit(indent, f"arr[{idx}] {op} {self.float_expr(scope, 2)}")
            else:
                idx = self.index("iarr", scope)
                op = self.pick(["=", "+=", "-=", "^="])
                self.emit(indent, f"iarr[{idx}] {op} {self.int_expr(scope, 2)[0]}")
        elif k == 8:
            floats = [v for v in assignable if v.kind == "float"]
            if len(floats) >= 2:
                p, q = self.rng.sample(floats, 2)
                self.emit(indent, f"{p.name}, {q.name} = {q.name}, {p.name}")
            elif floats:
                p = floats[0]
                q = self.fresh("v")
                self.emit(indent, f"{p.name}, {q} = divmod({self.float_expr(scope, 2)}, {self.float_expr(scope, 2)})")
                scope.append(Var(q, "float"))
            else:
                t = self.fresh("t")
                self.emit(indent, f"{t} = ({self.assign_int(scope, 2)}, {self.float_expr(scope, 2)})")
                p, q = self.fresh("c"), self.fresh("v")
                if not self.device and self.chance(0.3):   # a starred target: a list of the rest
                    rest = self.fresh("r")
                    other = f"({self.assign_int(scope, 1)}, {self.float_expr(scope, 1)})"
                    self.emit(indent, f"for {p}, *{rest} in [{t}, {other}]:")
                    self.emit(indent + 1, f"{q} = {p} + sum({rest}, 0.0)")
                else:
                    self.emit(indent, f"{p}, {q} = {t}")
                scope += [Var(t, "tuple"), Var(p, "int", LOCAL_BOUND), Var(q, "float")]
        elif k <= 11 and depth > 0:
            self.if_statement(scope, indent, depth, loop, returns)
        elif k <= 14 and depth > 0:
            self.loop(scope, indent, depth, returns)
        elif k == 15 and loop:
            self.emit(indent, f"if {self.bool_expr(scope, 2)}:")
            self.emit(indent + 1, self.pick(["break", "continue"]))
        elif k == 16 and (loop or self.chance(0.3)):
            self.emit(indent, f"if {self.bool_expr(scope, 2)}:")
            args = f", {self.assign_int(scope, 1)}, {self.float_expr(scope, 1)}" \
                if self.chance(0.4) else ""
            self.emit(indent + 1, f"raise {self.pick(EXCEPTIONS)}(\"fuzz\"{args})")
        elif k == 17 and returns:
            self.emit(indent, f"if {self.bool_expr(scope, 2)}:")
            self.emit(indent + 1, f"return {self.returned(scope, returns)}")
        elif k == 18 and self.arrays:
            vecs = [v for v in assignable if v.kind in ("fvec", "ivec")]
            if vecs:
                v = self.pick(vecs)
                source = "arr" if v.kind == "fvec" else "iarr"
                value = self.float_expr(scope, 1) if v.kind == "fvec" else self.int_expr(scope, 1)[0]
                if self.chance(0.3):
                    self.emit(indent, f"{v.name}.fill({value})")
                else:
                    self.emit(indent, f"{v.name}[{self.index(source, scope)}] = {value}")
        elif k == 20 and depth > 0 and not self.device:
            self.try_statement(scope, indent, depth, loop, returns)
        elif k == 19 and any(h[1] == "optional" for h in self.helpers):
            name = self.fresh("o")
            helper = self.pick([h[0] for h in self.helpers if h[1] == "optional"])
            self.emit(indent, f"{name} = {self.helper_call(helper, scope, 1)}")
            scope.append(Var(name, "optional"))
        else:
            name = self.fresh("v")
            self.emit(indent, f"{name} = {self.float_expr(scope, 3)}")
            scope.append(Var(name, "float"))

    def block(self, scope, indent, depth, loop, returns, n=None):
        inner, start = list(scope), len(self.lines)
        for _ in range(n if n is not None else self.rng.randrange(1, 4)):
            self.statement(inner, indent, depth - 1, loop, returns)
        if len(self.lines) == start:
            self.emit(indent, "pass")
        self.maybe_unbound(scope, inner)

    def maybe_unbound(self, scope, inner):
        """Now and then let code after a block read the names the block assigned, which the
        paths that skip it leave unassigned (UnboundLocalError in both, or a value)."""
        if self.chance(0.08):
            scope += [v for v in inner[len(scope):] if v.kind != "optional"]

    def if_statement(self, scope, indent, depth, loop, returns):
        self.emit(indent, f"if {self.bool_expr(scope, 3)}:")
        self.block(scope, indent + 1, depth, loop, returns)
        for _ in range(self.rng.randrange(2)):
            self.emit(indent, f"elif {self.bool_expr(scope, 3)}:")
            self.block(scope, indent + 1, depth, loop, returns)
        if self.chance(0.5):
            self.emit(indent, "else:")
            self.block(scope, indent + 1, depth, loop, returns)

    def try_statement(self, scope, indent, depth, loop, returns):
        """try with handlers (by class, tuple, base class, bare; maybe re-raising), else
        and finally, or try/finally alone; the blocks raise, break and return as any do."""
        self.emit(indent, "try:")
        self.block(scope, indent + 1, depth, loop, returns)
        clauses = [self.pick(HANDLERS) for _ in range(self.rng.randrange(3))]
        if "" in clauses:  # a bare except must be last
            clauses = [c for c in clauses if c] + [""]
        for clause in clauses:
            self.emit(indent, f"except {clause}:" if clause else "except:")
            if self.chance(0.2):
                self.emit(indent + 1, f"if {self.bool_expr(scope, 2)}:")
                self.emit(indent + 2, "raise")
            self.block(scope, indent + 1, depth, loop, returns)
        if clauses and self.chance(0.3):
            self.emit(indent, "else:")
            self.block(scope, indent + 1, depth, loop, returns)
        if not clauses or self.chance(0.4):
            self.emit(indent, "finally:")
            self.block(scope, indent + 1, depth, loop, returns)

    def loop(self, scope, indent, depth, returns):
        if self.parallel and self.prange_rng.random() < 0.5:
            return self.prange_loop(scope, indent)
        k = self.rng.randrange(4)
        inner = list(scope)
        if k == 0:
            w = self.fresh("w")
            self.emit(indent, f"{w} = 0")
            self.emit(indent, f"while {w} < {self.rng.randrange(1, 12)}:")
            self.emit(indent + 1, f"{w} += 1")
            inner.append(Var(w, "int", 16))
        elif k == 1 and self.arrays:
            e = self.fresh("e")
            if self.chance(0.5):
                self.emit(indent, f"for {e} in arr:")
            else:
                i = self.fresh("i")
                self.emit(indent, f"for {i}, {e} in enumerate(arr):")
                inner.append(Var(i, "int", 64))
            inner.append(Var(e, "float", wrap=True))
        else:
            i = self.fresh("i")
            bounds = [self.small(self.int_expr(scope, 1))[0] + " % 20" for _ in range(2)]
            form = self.rng.randrange(3)
            if form == 0:
                args = bounds[0]
            elif form == 1:
                args = ", ".join(bounds)
            else:
                step = self.pick(["1", "-1", "2", "-3", f"{self.small(self.int_expr(scope, 1))[0]} % 5 - 2"])
                args = f"{bounds[0]} - 10, {bounds[1]}, {step}"
            walk = self.pick(["range", "range", "range", "reversed(range"])
            self.emit(indent, f"for {i} in {walk}({args}){')' * walk.count('(')}:")
            inner.append(Var(i, "int", 32))
        self.block(inner, indent + 1, depth, True, returns)
        if self.chance(0.3):
            self.emit(indent, "else:")
            self.block(scope, indent + 1, depth, False, returns)
        self.maybe_unbound(scope, inner)

    def prange_loop(self, scope, indent):
        """A prange loop that means the same run serially or in chunks: each iteration
        writes only its own element of a new array, and reduces into an int with an
        associative operation (float sums would depend on the grouping). Helpers are left
        out of its body (they write the array arguments, which would race)."""
        out, s, i = self.fresh("fa"), self.fresh("c"), self.fresh("i")
        full = self.chance(0.5)   # as long as arr, like every other float array local
        if full:
            n = "len(arr)"
        else:
            n = self.fresh("c")
            self.emit(indent, f"{n} = {self.small(self.int_expr(scope, 1))[0]} % 24")
        self.emit(indent, f"{out} = np.zeros({n})")
        self.emit(indent, f"{s} = {self.small(self.int_expr(scope, 1))[0]}")
        loop_line = len(self.lines)
        self.emit(indent, "for {} in prange({}):".format(i, self.pick(
            [n, f"0, {n}", f"{n} - 1, -1, -1", f"{n} % 2, {n}, 2"])))
        helpers, self.helpers = self.helpers, []
        inner = scope + [Var(i, "int", 32)]
        for _ in range(self.rng.randrange(3)):
            v = self.fresh("v")
            self.emit(indent + 1, f"{v} = {self.float_expr(inner, 2)}")
            inner.append(Var(v, "float"))
            if self.chance(0.3):
                self.emit(indent + 1, f"if {self.bool_expr(inner, 1)}:")
                self.emit(indent + 2, f"{v} = {self.float_expr(inner, 1)}")
        if self.chance(0.15):
            self.emit(indent + 1, f"if {self.bool_expr(inner, 2)}:")
            self.emit(indent + 2, f"raise {self.pick(EXCEPTIONS)}(\"fuzz\")")
        self.emit(indent + 1, f"{out}[{i}] = {self.float_expr(inner, 2)}")
        ints = None
        if self.chance(0.3):   # an int array reduced into (int64 wraps alike in any order)
            ints = self.fresh("ia")
            self.lines.insert(loop_line,
                              "    " * indent + f"{ints} = np.zeros(len(iarr), np.int64)")
            self.emit(indent + 1, f"{ints} {self.pick(['+=', '-=', '|=', '^='])} "
                                  f"{self.vector('ivec', inner, 1)}")
        term = self.small(self.int_expr(inner, 1))[0]
        op = self.pick(["+=", "-=", "|=", "^=", "&=", "min", "max"])
        if op in ("min", "max"):
            self.emit(indent + 1, f"{s} = {op}({s}, {term})")
        else:
            self.emit(indent + 1, f"{s} {op} {term}")
        self.helpers = helpers
        self.emit(indent, f"{s} = min(max({s}, -{LOCAL_BOUND}), {LOCAL_BOUND})")
        self.maybe_unbound(scope, inner)
        scope.append(Var(s, "int", LOCAL_BOUND))
        if ints:
            scope.append(Var(ints, "ivec"))
        if full:
            scope.append(Var(out, "fvec"))
        else:
            total = self.fresh("v")
            self.emit(indent, f"{total} = float({out}.sum())")
            scope.append(Var(total, "float"))

    def returned(self, scope, returns):
        kind, optional = returns
        if optional and self.chance(0.3):
            return "None"
        if kind == "pair":
            return f"{self.vector('fvec', scope, 2)}, {self.float_expr(scope, 2)}"
        if kind == "tuple":
            return f"{self.int_expr(scope, 2)[0]}, {self.float_expr(scope, 2)}"
        return self.value_of(kind, scope, 3)

    # -- functions --------------------------------------------------------------------------
    def helper(self):
        name = f"g{len(self.helpers)}"
        kind = self.pick(["int", "float", "optional"])   # optional: a float or None
        returns = ("float", True) if kind == "optional" else (kind, False)
        scope = [Var("a", "int"), Var("x", "float"), Var("arr", "fvec"), Var("iarr", "ivec")]
        self.emit(0, "@jit")
        self.emit(0, f"def {name}(a, x, arr, iarr):")
        self.block(scope, 1, 2, False, returns, n=self.rng.randrange(1, 4))
        if kind == "optional":
            self.emit(1, f"if {self.bool_expr(scope, 2)}:")
            self.emit(2, "return None")
        self.emit(1, f"return {self.value_of(returns[0], scope, 2)}")
        self.emit(0, "")
        self.helpers.append((name, kind))

    def helper_call(self, name, scope, depth):
        return f"{name}({self.int_expr(scope, depth)[0]}, {self.float_expr(scope, depth)}, arr, iarr)"

    def program(self) -> Program:
        for _ in range(self.pick([0, 0, 1, 1, 2])):
            self.helper()
        kinds = ["int", "float", "bool", "tuple"] + (["fvec", "ivec", "pair"] if self.arrays else [])
        returns = (self.pick(kinds), self.chance(0.3))
        scope = [Var("a", "int"), Var("b", "int"), Var("x", "float"), Var("y", "float"),
                 Var("arr", "fvec"), Var("iarr", "ivec")]
        if self.records:
            scope.append(Var("rec", "records"))
        self.emit(0, "@jit(parallel=True)" if self.parallel else "@jit")
        self.emit(0, f"def f(a, b, x, y, arr, iarr{', rec' if self.records else ''}):")
        for _ in range(self.rng.randrange(2, 7)):
            self.statement(scope, 1, 2, False, returns)
        if self.parallel:
            self.prange_loop(scope, 1)
        self.emit(1, f"return {self.returned(scope, (returns[0], False))}")
        return Program(self.seed, "\n".join(self.lines) + "\n", self.inputs())

    def inputs(self):
        def array(pool, dtype):
            return (dtype, [self.pick(pool) for _ in range(self.rng.randrange(1, 7))])
        return tuple((self.pick(INT_INPUTS), self.pick(INT_INPUTS), self.pick(FLOAT_INPUTS),
                      self.pick(FLOAT_INPUTS), array(FLOAT_INPUTS, "float64"),
                      array(INT_INPUTS, "int64")) + self.record_input() for _ in range(4))

    def record_input(self):
        """() or the structured array: (its dtype as np.dtype takes it, its rows)."""
        if not self.records:
            return ()
        names, formats = (["flag", "v", "k"], ["?", "<f8", "<i8"]) if self.packed else \
            (["v", "k", "flag"], ["<f8", "<i8", "?"])
        dtype = {"names": names, "formats": formats, "aligned": not self.packed}
        rows = []
        for _ in range(self.rng.randrange(1, 6)):
            row = {"v": self.pick(FLOAT_INPUTS), "k": self.pick(INT_INPUTS),
                   "flag": self.chance(0.5)}
            rows.append(tuple(row[n] for n in names))
        return ((dtype, rows),)


def generate(seed: int, arrays: bool = True, device: bool = False) -> Program:
    """The program of `seed` (the same text and inputs on every run); `device`: one that
    device code can run (no allocation, no try), for the fuzzer's --cuda mode."""
    return Generator(seed, arrays, device).program()

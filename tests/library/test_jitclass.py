"""kiln.experimental.jitclass against the same classes run as plain Python: each class below
is written once, undecorated, and compiled with `jitclass(cls, spec)`; drivers written once
run with the plain class in CPython and with the jitclass in compiled code (and from
Python), on the same inputs, and must agree on results, exceptions and mutations. The
leak-checking fixture (conftest.py) checks that every instance is freed with what it holds,
whether dropped in compiled code or in Python."""
import math

import numpy as np
import pytest

import kiln
from helpers import same
from kiln import float64, int64, njit, types
from kiln.errors import TypingError
from kiln.experimental import jitclass
from kiln.typed import List

NAN, INF = math.nan, math.inf
VALUES = (0.0, -0.0, 1.5, -2.25, NAN, INF, -INF, 1e300)


# ---- the classes, plain Python ---------------------------------------------------------------

@njit
def scaled(x, k):    # an @njit function that methods call (from Python, too)
    return x * k


class Counter:
    def __init__(self, start, step=1):
        self.count = start
        self.total = 0.0
        self.step = step

    def add(self, x):
        self.count += self.step
        self.total += x
        return self.count

    def add_all(self, xs):
        for x in xs:
            self.add(x)
        return self.total

    @property
    def mean(self):
        return self.total / self.count

    @property
    def doubled(self):
        return self.count * 2

    @doubled.setter
    def doubled(self, value):
        if value % 2:
            raise ValueError("doubled must be even")
        self.count = value // 2

    @staticmethod
    def clamp(x, lo, hi):
        return min(max(x, lo), hi)

    def clamped(self, lo, hi):
        return self.clamp(self.count, lo, hi)

    def __len__(self):
        return self.count


class ArrayStack:
    def __init__(self, capacity):
        self.data = np.zeros(capacity)
        self.size = 0

    def push(self, x):
        if self.size == self.data.shape[0]:
            raise IndexError("push onto a full stack")
        self.data[self.size] = x
        self.size += 1

    def pop(self):
        if self.size == 0:
            raise IndexError("pop from an empty stack")
        self.size -= 1
        return self.data[self.size]

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        if not 0 <= i < self.size:
            raise IndexError("stack index out of range")
        return self.data[i]


class ListStack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        return self.items.pop()   # IndexError when empty

    def __len__(self):
        return len(self.items)


class Vector:
    """Holds an array that compiled code and Python both mutate."""

    def __init__(self, values):
        self.values = values
        self.norm_calls = 0

    def scale(self, k):
        for i in range(self.values.shape[0]):
            self.values[i] = scaled(self.values[i], k)

    def norm(self):
        self.norm_calls += 1
        return np.sqrt(np.sum(self.values * self.values))

    def __add__(self, other):
        return self.norm() + other.norm()


class Pair:
    """Holds another class's instances."""

    def __init__(self, left, right):
        self.left = left
        self.right = right
        self.moves = 0

    def move(self, x):
        self.left.add(x)
        self.right.add(-x)
        self.moves += 1
        return self.left.count - self.right.count

    def swap(self):
        self.left, self.right = self.right, self.left


class Num:
    """Operators as dunder methods; keyword arguments and defaults."""

    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v

    def __lt__(self, other):
        return self.v < other.v

    def __contains__(self, x):
        return x == self.v

    def bump(self, by=1, times=1):
        self.v += by * times
        return self.v


JitCounter = jitclass(Counter, [("count", int64), ("total", float64), ("step", int64)])
JitArrayStack = jitclass(ArrayStack, {"data": float64[:], "size": int64})
JitListStack = jitclass(ListStack, [("items", types.ListType(float64))])
JitVector = jitclass(Vector, [("values", float64[:]), ("norm_calls", int64)])
JitPair = jitclass(Pair, [("left", JitCounter.class_type.instance_type),
                          ("right", JitCounter.class_type.instance_type), ("moves", int64)])
JitNum = jitclass(Num, [("v", int64)])
# the compiled twin of each plain class, for drivers that close over classes
TWINS = {Counter: JitCounter, ArrayStack: JitArrayStack, ListStack: JitListStack,
         Vector: JitVector, Pair: JitPair, Num: JitNum}


def twins(make_driver, *classes):
    """The driver closed over the plain classes, and compiled closed over the jitclasses."""
    return make_driver(*classes), njit(make_driver(*(TWINS[c] for c in classes)))


def agree(plain, compiled, *args):
    """Both run on the same inputs: equal results or the same exception type."""
    try:
        expected = plain(*args)
    except Exception as e:
        with pytest.raises(type(e)):
            compiled(*args)
        return None
    got = compiled(*args)
    assert same(expected, got), f"{args}: CPython {expected!r}, kiln {got!r}"
    return got


# ---- counters: fields, methods, properties, static methods ---------------------------------

def counter_driver(Cls):
    def drive(start, step, x, n):
        c = Cls(start, step)
        for i in range(n):
            c.add(x * i)
        c.doubled = c.doubled + 2
        return c.count, c.total, c.mean, len(c), c.clamped(-3, 3), Cls.clamp(x, -1.0, 1.0)
    return drive


@pytest.mark.parametrize("x", VALUES)
@pytest.mark.parametrize("start, step, n", [(0, 1, 3), (-5, 2, 4), (0, 1, 0), (7, -1, 5),
                                            (-1, 1, 0)])
def test_counter_in_compiled_code(start, step, x, n):
    agree(*twins(counter_driver, Counter), start, step, x, n)


def test_counter_mean_of_nothing_divides_by_zero():
    def drive(Cls):
        def mean():
            return Cls(0).mean
        return mean
    with pytest.raises(ZeroDivisionError):
        drive(Counter)()
    with pytest.raises(ZeroDivisionError):
        njit(drive(JitCounter))()


def test_property_setter_raises_as_python():
    def driver(Cls):
        def set_odd(n):
            c = Cls(0)
            c.doubled = n
            return c.count
        return set_odd
    plain, compiled = twins(driver, Counter)
    for n in (4, -6, 0, 3, -1):
        agree(plain, compiled, n)


def test_counter_from_python():
    for cls in (Counter, JitCounter):
        c = cls(2, step=3)
        results = [c.add(1.5), c.add(-0.5), c.add_all(List([1.0, 2.0]))]
        results += [c.count, c.total, c.mean, c.doubled, len(c), c.clamped(0, 4),
                    cls.clamp(9, 0, 4)]
        c.doubled = 10
        c.total = -1.0
        results += [c.count, c.total]
        with pytest.raises(ValueError):
            c.doubled = 3
        if cls is Counter:
            expected = results
        else:
            assert results == expected
            assert isinstance(c, JitCounter)
            # a static method is a compiled function, as Numba's are (Dispatcher objects)
            assert isinstance(cls.clamp, kiln.cpu.dispatcher.Dispatcher)


def test_instances_cross_without_copies():
    """One instance, seen and changed from Python and from compiled code."""
    @njit
    def bump(c, x):
        c.count += 10
        return c.add(x)

    c = JitCounter(1)
    assert bump(c, 2.0) == 12 and c.count == 12 and c.total == 2.0
    c.count = -4
    assert bump(c, 0.5) == 7 and c.total == 2.5

    @njit
    def identity(c):
        return c
    d = identity(c)
    d.count = 100
    assert c.count == 100 and type(d) is JitCounter


def test_instance_returned_from_compiled_code():
    def driver(Cls):
        def make(n):
            c = Cls(n, 2)
            c.add(1.0)
            return c
        return make
    plain, compiled = twins(driver, Counter)
    for n in (0, -3, 5):
        a, b = plain(n), compiled(n)
        assert (a.count, a.total, a.step) == (b.count, b.total, b.step)


# ---- stacks backed by an array and by a list ----------------------------------------------

def stack_driver(Cls):
    def drive(capacity, values, pops):
        s = Cls(capacity)
        for v in values:
            s.push(v)
        first = s[0] if len(s) > 0 else -1.0
        out = 0.0
        for _ in range(pops):
            out = out * 2 + s.pop()
        return out, len(s), first
    return drive


@pytest.mark.parametrize("capacity, values, pops", [
    (4, (1.0, 2.5, -3.0), 2), (3, (1.0, 2.0, 3.0), 3), (2, (1.0, 2.0, 3.0), 0),
    (0, (), 0), (0, (), 1), (5, (NAN, INF, -0.0), 3), (1, (7.0,), 2)])
def test_array_stack(capacity, values, pops):
    agree(*twins(stack_driver, ArrayStack), capacity, values, pops)


def list_stack_driver(Cls):
    def drive(values, pops):
        s = Cls()
        for v in values:
            s.push(v)
        out = 0.0
        for _ in range(pops):
            out = out * 2 + s.pop()
        return out, len(s)
    return drive


@pytest.mark.parametrize("values, pops", [((1.0, 2.5, -3.0), 2), ((), 0), ((), 1),
                                          ((NAN, -INF), 2), ((1.0,), 2)])
def test_list_stack(values, pops):
    agree(*twins(list_stack_driver, ListStack), values, pops)


def test_list_stack_from_python():
    s = JitListStack()
    for v in (1.0, -2.0, 3.5):
        s.push(v)
    assert s.pop() == 3.5 and len(s) == 2 and list(s.items) == [1.0, -2.0]
    items = s.items          # the field's list itself, shared
    items.append(9.0)
    assert s.pop() == 9.0
    with pytest.raises(IndexError):
        JitListStack().pop()


# ---- an array field mutated in compiled code ---------------------------------------------

def test_array_field_mutated_in_compiled_code():
    @njit
    def scale_and_norm(v, k):
        v.scale(k)
        v.values[0] = -1.0
        return v.norm()

    for values in ([3.0, 4.0], [0.0], [NAN, 1.0], [1e300, 1e300], [-2.0, INF, 0.5]):
        plain_array, jit_array = np.array(values), np.array(values)
        plain, jv = Vector(plain_array), JitVector(jit_array)
        with np.errstate(over="ignore"):
            expected = (scale_and_norm.py_func(plain, 2.0), plain.norm_calls)
        got = (scale_and_norm(jv, 2.0), jv.norm_calls)
        assert same(expected, got)
        # the field is the caller's array: its memory changed on both sides alike
        assert same(plain_array, jit_array) and same(plain.values, jv.values)
        jit_array[-1] = 42.0          # and Python's writes reach the instance
        assert jv.values[-1] == 42.0


def test_empty_array_field():
    v = JitVector(np.zeros(0))
    assert v.norm() == 0.0 and v.values.shape == (0,)


def test_array_field_outlives_its_python_array():
    v = JitVector(np.arange(3.0))   # the only reference to the array is the field's
    assert list(v.values) == [0.0, 1.0, 2.0]
    v.values = np.ones(2)
    assert list(v.values) == [1.0, 1.0]


def test_dunder_add():
    def driver(Cls):
        def add(a, b):
            v, w = Cls(a), Cls(b)
            return v + w, v.norm_calls, w.norm_calls
        return add
    plain, compiled = twins(driver, Vector)
    for a, b in [(np.array([3.0, 0.0]), np.array([0.0, 4.0])), (np.zeros(0), np.zeros(0)),
                 (np.array([NAN]), np.array([1.0])), (np.ones(2), np.ones(3))]:
        agree(plain, compiled, a, b)


def num_driver(Cls):
    def drive(a, b):
        x, y = Cls(a), Cls(b)
        return (x == y, x < y, y < x, b in x, a in x, x.bump(), x.bump(3), x.bump(by=2),
                x.bump(-1, times=4), x.bump(by=5, times=2), x.v)
    return drive


@pytest.mark.parametrize("a, b", [(3, 4), (4, 4), (-2, -7), (0, 0), (2**62, -2**62)])
def test_dunders_and_keyword_arguments(a, b):
    plain, compiled = twins(num_driver, Num)
    agree(plain, compiled, a, b)
    x, y = JitNum(a), JitNum(b)          # the same dunders from Python
    assert (x == y, x < y, b in x, x.bump(times=2, by=3)) == \
        (Num(a) == Num(b), Num(a) < Num(b), b in Num(a), Num(a).bump(times=2, by=3))


# ---- a class holding another ------------------------------------------------------------------

def pair_driver(Cls, Inner):
    def drive(x, n):
        left, right = Inner(0), Inner(10, 2)
        p = Cls(left, right)
        diffs = 0
        for i in range(n):
            diffs += p.move(x + i)
        p.swap()
        p.left.add(1.0)
        # `left` is the very instance the pair holds, as in Python
        return diffs, p.moves, left.count, left.total, right.count, p.left.total
    return drive


@pytest.mark.parametrize("x, n", [(1.5, 3), (0.0, 0), (-2.0, 4), (NAN, 2)])
def test_class_holding_another(x, n):
    agree(*twins(pair_driver, Pair, Counter), x, n)


def test_nested_instance_from_python():
    inner = JitCounter(1)
    p = JitPair(inner, JitCounter(2))
    p.move(0.5)
    assert inner.count == 2 and p.left.count == 2 and p.right.total == -0.5
    p.right = inner
    p.right.add(1.0)
    assert inner.count == 3 and p.left.count == 3
    with pytest.raises(TypeError):
        p.left = JitVector(np.ones(1))


# ---- instances in lists --------------------------------------------------------------------

def test_instances_in_lists():
    def driver(Cls):
        def counters(n):
            cs = [Cls(i) for i in range(n)]
            cs.append(Cls(-1))
            for c in cs:
                c.add(0.5)
            total = 0
            for c in cs:
                total += c.count
            return total, len(cs)
        return counters
    plain, compiled = twins(driver, Counter)
    for n in (0, 1, 5):
        agree(plain, compiled, n)

    @njit
    def made(n):
        return [JitCounter(i) for i in range(n)]
    cs = made(3)
    assert [c.count for c in cs] == [0, 1, 2]
    typed = List([JitCounter(5), JitCounter(6)])
    assert sum_counts(typed) == 11


@njit
def sum_counts(cs):
    s = 0
    for c in cs:
        s += c.count
    return s


# ---- specs ------------------------------------------------------------------------------------

def test_spec_from_annotations_and_bare_decorator():
    @jitclass
    class Point:
        x: float
        y: float
        n: int
        flag: bool
        z: types.float32

        def __init__(self, x, y):
            self.x, self.y = x, y
            self.n = 0
            self.flag = x > y
            self.z = 0.5

        def norm(self):
            return math.hypot(self.x, self.y)

    p = Point(3, 4)     # ints converted to the float fields
    assert (p.x, p.y, p.norm(), p.n, p.flag, p.z) == (3.0, 4.0, 5.0, 0, False, 0.5)
    assert type(p.x) is float and type(p.flag) is bool
    assert Point.class_type.instance_type == kiln.typeof(p)


def test_spec_with_decorator_arguments_and_annotations_merged():
    @jitclass([("a", int64)])
    class Both:
        b: float

        def __init__(self):
            self.a = 1
            self.b = 2.5
    both = Both()
    assert (both.a, both.b) == (1, 2.5)
    assert list(Both.class_type.fields) == ["a", "b"]


def test_class_without_init():
    @jitclass([("a", int64)])
    class Bare:
        pass

    @njit
    def make():
        return Bare().a
    assert make() == 0 and Bare().a == 0
    with pytest.raises(TypeError):
        Bare(1)


# ---- bad input --------------------------------------------------------------------------------

def test_wrong_field_type_in_compiled_code():
    @njit
    def bad(c):
        c.count = 1.5
    with pytest.raises(TypingError, match=r"field Counter.count.*int64") as e:
        bad(JitCounter(0))
    assert "c.count = 1.5" in str(e.value)


def test_wrong_field_type_from_python():
    c = JitCounter(0)
    for value in ("a", 1.5, None, np.ones(2)):
        with pytest.raises(TypeError):
            c.count = value
    c.total = 3      # an int converts to a float field, as in compiled code
    assert c.total == 3.0 and type(c.total) is float


def test_attributes_not_in_the_spec():
    @njit
    def read(c):
        return c.nothing

    @njit
    def write(c):
        c.nothing = 1
    with pytest.raises(TypingError, match="nothing"):
        read(JitCounter(0))
    with pytest.raises(TypingError, match="nothing"):
        write(JitCounter(0))
    with pytest.raises(AttributeError):
        JitCounter(0).nothing = 1
    with pytest.raises(AttributeError):
        JitCounter(0).nothing


def test_read_only_property():
    @njit
    def write(c):
        c.mean = 1.0
    with pytest.raises(TypingError, match="no setter"):
        write(JitCounter(1))
    with pytest.raises(AttributeError):
        JitCounter(1).mean = 1.0


def test_field_types_kiln_cannot_store():
    for bad in (types.none, types.ListType(types.undefined), "float64", object):
        with pytest.raises(TypeError, match="field 'x'"):
            jitclass(Counter, [("x", bad)])
    with pytest.raises(TypeError):
        jitclass(Counter, 42)


def test_wrong_instance_type_is_refused():
    @njit
    def count(c):
        return c.count
    with pytest.raises(TypeError):
        count(Counter(0))     # the plain class is not the jitclass
    with pytest.raises(TypingError):
        count(JitVector(np.ones(1)))


# ---- leaks ------------------------------------------------------------------------------------

def test_instances_dropped_in_compiled_code():
    @njit
    def churn(n):
        kept = JitPair(JitCounter(0), JitCounter(1))
        for i in range(n):
            v = JitVector(np.ones(i + 1))         # each holds an array
            s = JitListStack()                    # and a list
            s.push(v.norm())
            kept.left = JitCounter(i)             # the old one released
            kept.right = kept.left
        return kept.right.count
    before = kiln.runtime.allocation_stats()
    assert churn(5) == 4
    after = kiln.runtime.allocation_stats()
    assert after.live == before.live


def test_instances_dropped_in_python():
    before = kiln.runtime.allocation_stats()
    objects = [JitArrayStack(3), JitListStack(), JitPair(JitCounter(0), JitCounter(1)),
               JitVector(np.ones(4))]
    objects[1].push(1.0)
    assert kiln.runtime.allocation_stats().live > before.live
    del objects
    assert kiln.runtime.allocation_stats().live == before.live


def test_exception_in_init_releases_the_instance():
    class Checked:
        def __init__(self, n):
            self.data = np.zeros(n)
            if n > 2:
                raise ValueError("too big")
    JitChecked = jitclass(Checked, [("data", float64[:])])

    @njit
    def make(n):
        return JitChecked(n).data.shape[0]
    with pytest.raises(ValueError):
        make(3)
    with pytest.raises(ValueError):
        JitChecked(5)
    assert make(2) == 2


def test_field_read_before_it_is_assigned():
    class Lazy:
        def __init__(self, fill):
            if fill:
                self.data = np.ones(2)
                self.items = [1.0]
                self.inner = JitCounter(1)
            self.n = 0

        def first(self):
            return self.data[0]

        def count(self):
            return len(self.items)

        def inner_count(self):
            return self.inner.count
    JitLazy = jitclass(Lazy, [("data", float64[:]), ("items", types.ListType(float64)),
                              ("inner", JitCounter.class_type.instance_type), ("n", int64)])
    for name in ("first", "count", "inner_count"):
        assert getattr(JitLazy(True), name)() == 1
        with pytest.raises(AttributeError, match="has no attribute"):
            getattr(JitLazy(False), name)()
    with pytest.raises(AttributeError):
        JitLazy(False).data
    assert JitLazy(False).n == 0


def test_methods_of_a_plain_base_class_are_inherited():
    class Base:
        def twice(self):
            return 2 * self.v

    class Derived(Base):
        def __init__(self, v):
            self.v = v
    JitDerived = jitclass(Derived, [("v", float64)])

    @njit
    def twice(d):
        return d.twice()
    for v in (1.5, -0.0, NAN, INF):
        assert same(Derived(v).twice(), twice(JitDerived(v)))
        assert same(Derived(v).twice(), JitDerived(v).twice())


def test_python_machinery_is_refused():
    class Finalized:
        def __del__(self):
            pass

    class WriteOnly:
        x = property(None, lambda self, v: None)
    for cls in (Finalized, WriteOnly):
        with pytest.raises(TypeError, match="not supported"):
            jitclass(cls, [("v", int64)])


def test_class_members_are_refused():
    class Constant:
        LIMIT = 5

        def __init__(self):
            self.v = 0
    with pytest.raises(TypeError, match="LIMIT"):
        jitclass(Constant, [("v", int64)])


def test_constructor_keywords_and_defaults_in_compiled_code():
    def driver(Cls):
        def make(start, step):
            a, b, c = Cls(start), Cls(start, step=step), Cls(step=step, start=start)
            return a.step, b.step, c.step, c.count
        return make
    plain, compiled = twins(driver, Counter)
    for start, step in ((0, 1), (-4, 3), (2**40, -2)):
        agree(plain, compiled, start, step)


def test_classes_sharing_a_name_stay_apart():
    def make(kind):
        if kind:
            class Same:
                def __init__(self, a):
                    self.a = a
            return jitclass(Same, [("a", float64)])

        class Same:
            def __init__(self, a, b):
                self.a = a + b
        return jitclass(Same, [("a", int64)])
    One, Two = make(True), make(False)
    assert One(1.5).a == 1.5 and Two(1, 2).a == 3
    assert One.class_type.instance_type != Two.class_type.instance_type

    @njit
    def total(x, y):
        return x.a + y.a
    assert total(One(0.5), Two(2, 3)) == 5.5
    assert total(Two(2, 3), Two(-2, 3)) == 6     # a second specialization
    assert len(total.signatures) == 2


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


class Flagged:
    def __init__(self, n):
        self.n = n

    def __bool__(self):
        return self.n > 10


class Plain:
    def __init__(self, n):
        self.n = n


TWINS.update({Sized: jitclass(Sized, [("n", int64)]), Flagged: jitclass(Flagged, [("n", int64)]),
              Plain: jitclass(Plain, [("n", int64)])})


def truth_driver(SizedCls, FlaggedCls, PlainCls):
    def drive(n):
        maybe = None
        if n > 3:
            maybe = PlainCls(n)
        seen = -1
        if maybe is not None:       # an instance or None, as a local
            maybe.n += 1
            seen = maybe.n
        hits = 0
        if SizedCls(n):
            hits += 1
        if FlaggedCls(n):
            hits += 10
        if PlainCls(n):
            hits += 100
        return (bool(SizedCls(n)), bool(FlaggedCls(n)), bool(PlainCls(n)), not SizedCls(n),
                hits, seen)
    return drive


@pytest.mark.parametrize("n", [0, 1, 5, 11, -3])
def test_truth_and_instances_that_may_be_none(n):
    agree(*twins(truth_driver, Sized, Flagged, Plain), n)


def test_len_is_checked_as_cpython_checks_it():
    def driver(SizedCls):
        def length(n):
            return len(SizedCls(n))
        return length
    plain, compiled = twins(driver, Sized)
    for n in (0, 7, -1):
        agree(plain, compiled, n)


def test_instance_type_in_an_explicit_signature():
    @njit(int64(JitCounter.class_type.instance_type, int64))
    def bump(c, k):
        c.count += k
        return c.count
    c = JitCounter(1)
    assert bump(c, 2) == 3 and c.count == 3
    with pytest.raises(TypeError):
        bump(Counter(1), 2)


SHARED = JitCounter(1)   # made at import: a global lives as long as the module


def test_global_instance_is_refused_with_a_reason():
    @njit
    def read():
        return SHARED.count
    with pytest.raises(kiln.errors.UnsupportedError, match="SHARED"):
        read()


class Cell:
    """The remaining dunders, each returning a number so results compare directly."""

    def __init__(self, v):
        self.v = v
        self.log = 0.0

    def __getitem__(self, i):
        return self.v * i

    def __setitem__(self, i, x):
        self.log += i * x

    def __sub__(self, other):
        return self.v - other.v

    def __mul__(self, k):
        return self.v * k

    def __truediv__(self, k):
        return self.v / k

    def __floordiv__(self, k):
        return self.v // k

    def __mod__(self, k):
        return self.v % k

    def __ne__(self, other):
        return self.v != other.v

    def __le__(self, other):
        return self.v <= other.v

    def __gt__(self, other):
        return self.v > other.v

    def __ge__(self, other):
        return self.v >= other.v

    def __neg__(self):
        return -self.v

    def __abs__(self):
        return abs(self.v)

    def __hash__(self):
        return 7


TWINS[Cell] = jitclass(Cell, [("v", float64), ("log", float64)])


def cell_driver(Cls):
    def drive(a, b, k):
        x, y = Cls(a), Cls(b)
        x[3] = k
        x[-1] = 2.0
        return (x[2], x.log, x - y, x * k, x / k, x // k, x % k, x != y, x <= y, x > y,
                x >= y, -x, abs(y), hash(x))
    return drive


@pytest.mark.parametrize("a, b, k", [(1.5, 2.0, 3.0), (-2.0, -2.0, 0.5), (0.0, -0.0, -4.0),
                                     (NAN, 1.0, 2.0), (INF, -INF, 3.0), (5.0, 1.0, 0.0)])
def test_more_dunders(a, b, k):
    agree(*twins(cell_driver, Cell), a, b, k)


class Factorials:
    def __init__(self, base):
        self.base = base

    def of(self, k):          # a method that calls itself, without a signature
        if k <= 1:
            return self.base
        return k * self.of(k - 1)


Factorials_j = jitclass([("base", int64)])(Factorials)


@njit
def factorial_through(obj, k):
    return obj.of(k)


@pytest.mark.parametrize("k", [0, 1, 5, 20])
def test_a_method_that_calls_itself(k):
    plain, compiled = Factorials(2), Factorials_j(2)
    assert compiled.of(k) == plain.of(k) == factorial_through(compiled, k)


# ---- self-referential classes: deferred_type and optional fields ------------------------------

class TreeNode:
    """A binary search tree node whose children are TreeNodes or None."""

    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None


def tree_insert(root, key):
    node = root
    while True:
        if key < node.key:
            if node.left is None:
                node.left = node_class(key)
                return
            node = node.left
        else:
            if node.right is None:
                node.right = node_class(key)
                return
            node = node.right


def tree_build(values):
    root = node_class(values[0])
    for v in values[1:]:
        tree_insert(root, v)
    return root


def tree_depth(node):
    if node is None:
        return 0
    return 1 + max(tree_depth(node.left), tree_depth(node.right))


def tree_keys(node, out):
    if node is not None:
        tree_keys(node.left, out)
        out.append(node.key)
        tree_keys(node.right, out)
    return out


_node_type = kiln.deferred_type()
JitTreeNode = jitclass(TreeNode, [("key", float64), ("left", types.optional(_node_type)),
                                  ("right", types.optional(_node_type))])
_node_type.define(JitTreeNode.class_type.instance_type)


def _tree_drivers(cls, wrap=lambda fn: fn):
    """The drivers above with `node_class` bound to cls, each wrapped by `wrap` (njit for
    the jitclass), calling each other through one namespace."""
    namespace = {"node_class": cls, "max": max}
    for fn in (tree_insert, tree_build, tree_depth, tree_keys):
        namespace[fn.__name__] = wrap(type(fn)(fn.__code__, namespace, fn.__name__))
    return namespace


@pytest.mark.parametrize("values", [[1.0], [3.0, 1.0, 2.0, -0.0, 5.0, 4.0], list(range(20)),
                                    [2.5, -INF, INF, 1e300, 2.5]])
def test_self_referential_tree_through_deferred_type(values):
    plain = _tree_drivers(TreeNode)
    compiled = _tree_drivers(JitTreeNode, njit)
    x = np.array(values)
    want_root, got_root = plain["tree_build"](list(values)), compiled["tree_build"](x)
    assert compiled["tree_depth"](got_root) == plain["tree_depth"](want_root)
    # walked from Python too: optional fields box to None or to the child instance
    assert plain["tree_keys"](got_root, []) == plain["tree_keys"](want_root, []) == sorted(values)
    assert (got_root.left is None) == (want_root.left is None)
    got_root.right = JitTreeNode(7.0)
    want_root.right = TreeNode(7.0)
    assert compiled["tree_depth"](got_root) == plain["tree_depth"](want_root)
    got_root.left = None
    assert got_root.left is None
    with pytest.raises(TypeError, match="TreeNode.left"):
        got_root.left = 3.0


def test_deferred_type_must_be_defined_once_before_use():
    pending = kiln.deferred_type()

    class Link:
        def __init__(self):
            self.next = None
    JitLink = jitclass(Link, [("next", types.optional(pending))])
    with pytest.raises(TypingError, match="not defined yet"):
        JitLink()
    with pytest.raises(TypeError, match="kiln type"):
        pending.define(Link)
    pending.define(JitLink.class_type.instance_type)
    assert JitLink().next is None
    with pytest.raises(TypeError, match="already defined"):
        pending.define(float64)


def test_generated_accessors_survive_a_cleared_linecache():
    # the field accessors and constructor are compiled on first use from source kiln
    # generated; a linecache.clearcache() in between (tools call it) must not lose it
    import linecache

    class Box:
        def __init__(self, v):
            self.v = v
    JitBox = jitclass(Box, [("v", float64)])
    linecache.clearcache()
    box = JitBox(2.5)
    box.v = -0.0
    assert math.copysign(1.0, box.v) == -1.0

"""jitclass as Numba's test suite uses it: specs and annotations, the checks made at
decoration, the Python class relation, private names, and the dunder methods of operators
and conversions, each checked against the same class run as plain Python."""
import operator
import typing

import numpy as np
import pytest

from helpers import same
from kiln import float64, int32, int64, njit, types
from kiln.errors import TypingError, UnsupportedError
from kiln.experimental import jitclass
from kiln.experimental.classes import JitClassType


# ---- specs, annotations and the checks at decoration ------------------------------------------

class Base:
    x: int

    def __init__(self, x):
        self.x = x


class Annotated(Base):
    items: typing.List[float]
    table: typing.Dict[str, int]
    pair: typing.Tuple[int, float]
    maybe: typing.Optional[float]
    name: str

    def __init__(self, x):
        self.x = x


def test_annotations_of_the_class_and_its_bases_give_the_fields():
    cls = jitclass(Annotated)
    assert isinstance(cls, JitClassType) and not isinstance(Annotated, JitClassType)
    assert cls.class_type.struct == cls.class_type.instance_type.struct == {
        "x": int64, "items": types.ListType(float64),
        "table": types.DictType(types.unicode_type, int64),
        "pair": types.Tuple((int64, float64)), "maybe": types.Optional(float64),
        "name": types.unicode_type}
    obj = cls(3)
    assert isinstance(obj, Annotated) and isinstance(obj, Base) and obj.x == 3


def test_a_spec_is_pairs_or_a_dict_of_kiln_types():
    class Plain:
        def __init__(self):
            pass
    for spec in ([("a", int32), ("b", float64)], {"a": int32, "b": float64}):
        assert list(jitclass(Plain, spec).class_type.struct.items()) == [("a", int32),
                                                                        ("b", float64)]
    with pytest.raises(TypeError, match="spec values should be Numba type instances"):
        jitclass(Plain, [("a", int)])      # a Python type is an annotation, not a spec value
    with pytest.raises(TypeError, match="^spec keys should be strings, got 1$"):
        jitclass(Plain, [(1, int32)])


def test_what_a_jitclass_cannot_have_is_refused_at_decoration():
    class Shadowed:
        def value(self):
            return 1

    class Deleter:
        @property
        def value(self):
            return 1

        @value.deleter
        def value(self):
            pass

    class Member:
        limit = 3

    class Context:
        def __enter__(self):
            return self

    with pytest.raises(NameError, match="^name shadowing: value$"):
        jitclass(Shadowed, [("value", int64)])
    with pytest.raises(TypeError, match="^deleter is not supported: value$"):
        jitclass(Deleter)
    with pytest.raises(TypeError, match="^class members are not yet supported: limit$"):
        jitclass(Member)
    with pytest.raises(TypeError, match="Method '__enter__' is not supported"):
        jitclass(Context)

    class Star:
        def __init__(self, *args):
            pass
    with pytest.raises(UnsupportedError, match="VAR_POSITIONAL argument type unsupported"):
        jitclass(Star)


def test_private_names_are_mangled_as_python_does():
    class Secret:
        def __init__(self, v):
            self.__v = v

        def __twice(self):
            return self.__v * 2

        def reveal(self):
            return self.__twice() + self._Secret__v

    JitSecret = jitclass(Secret, [("__v", int64)])
    assert list(JitSecret.class_type.struct) == ["_Secret__v"]
    assert JitSecret(21).reveal() == Secret(21).reveal() == 63

    @njit
    def outside(s):     # written outside the class: `s.__v` means `s.__v` itself
        return s.__v
    with pytest.raises(TypingError, match="__v"):
        outside(JitSecret(1))


# ---- dunder methods ---------------------------------------------------------------------------

class Num:
    """Binary dunders give numbers; in-place ones change the instance."""

    def __init__(self, v):
        self.v = v

    def __add__(self, o):
        return self.v + o.v

    def __radd__(self, o):
        return self.v + o * 10.0

    def __pow__(self, o):
        return self.v ** o.v

    def __and__(self, o):
        return int(self.v) & int(o.v)

    def __lshift__(self, o):
        return int(self.v) << int(o.v)

    def __isub__(self, o):
        self.v -= 2.0 * o.v
        return self

    def __sub__(self, o):
        return self.v - o.v

    def __imul__(self, o):
        self.v = self.v * o.v
        return self

    def __mul__(self, o):
        return -1.0

    def __neg__(self):
        return -self.v

    def __pos__(self):
        return abs(self.v)

    def __invert__(self):
        return ~int(self.v)

    def __float__(self):
        return self.v

    def __int__(self):
        return int(self.v) + 1


class Index:
    def __init__(self, i):
        self.i = i

    def __index__(self):
        return self.i


JitNum = jitclass(Num, [("v", float64)])
JitIndex = jitclass(Index, [("i", int64)])


def _operators(Make, MakeIndex):
    def binary(x, y):
        a, b = Make(x), Make(y)
        c = a
        c -= b          # __isub__: `a` is changed too
        d = Make(x)
        d *= b          # __imul__, in place: `d` is changed
        return (a + b, a ** b, a & b, a << b, c.v, a.v, d.v, 3 + a, -a, +a, ~a)

    def conversions(x, i):
        return float(Make(x)), int(Make(x)), complex(Make(x)), int(MakeIndex(i)), \
            float(MakeIndex(i)), complex(MakeIndex(i)), operator.index(MakeIndex(i))
    return binary, conversions


PLAIN = _operators(Num, Index)
COMPILED = [njit(f) for f in _operators(JitNum, JitIndex)]


@pytest.mark.parametrize("x, y", [(6.0, 2.0), (-3.0, 1.0), (0.5, 3.0)])
def test_operators_call_their_dunder_methods(x, y):
    assert same(PLAIN[0](x, y), COMPILED[0](x, y))
    assert same(PLAIN[0](x, y), _from_python(JitNum, x, y))


def _from_python(cls, x, y):
    """The same operators on jitclass instances from Python (their Python dunders)."""
    a, b = cls(x), cls(y)
    c = a
    c -= b
    d = cls(x)
    d *= b
    return (a + b, a ** b, a & b, a << b, c.v, a.v, d.v, 3 + a, -a, +a, ~a)


@pytest.mark.parametrize("x, i", [(2.75, 3), (-1.5, -7)])
def test_conversions_fall_back_as_python_does(x, i):
    assert same(PLAIN[1](x, i), COMPILED[1](x, i))

    @njit
    def as_float(obj):
        return float(obj)
    with pytest.raises(TypingError, match="float"):
        as_float(jitclass(Base, [("x", int64)])(1))    # no __float__ nor __index__: refused


def test_unknown_attributes_are_refused_from_python():
    obj = JitNum(1.0)
    with pytest.raises(AttributeError, match="nothing"):
        obj.nothing = 1
    obj.v = 2.5
    assert obj.v == 2.5 and np.isclose(float(obj), 2.5)


# ---- isinstance --------------------------------------------------------------------------------

class Point:
    def __init__(self, x):
        self.x = x

    def norm(self):
        return abs(self.x)


class Other:
    def __init__(self, x):
        self.x = x


NONE = type(None)
JitPoint = jitclass(Point, [("x", float64)])
JitOther = jitclass(Other, [("x", float64)])


def _classify(Pt, Ot):
    def classify(v):
        if isinstance(v, (Pt, Ot)):
            if isinstance(v, Pt):
                return v.norm()     # typed only where v is a Point: the branch is pruned
            return -v.x
        return float(isinstance(v, int) + 2 * isinstance(v, float) + 4 * isinstance(v, bool)
                     + 8 * isinstance(v, (str, tuple)) + 16 * isinstance(v, np.ndarray)
                     + 32 * isinstance(v, NONE) + 64 * isinstance(v, Point))
    return classify


@pytest.mark.parametrize("make", [lambda P, O: P(-2.5), lambda P, O: O(1.5), lambda P, O: 3,
                                  lambda P, O: 2.5, lambda P, O: True, lambda P, O: "s",
                                  lambda P, O: (1, 2.0), lambda P, O: np.ones(2),
                                  lambda P, O: None])
def test_isinstance_is_known_when_compiling(make):
    expected = _classify(Point, Other)(make(Point, Other))
    assert same(expected, njit(_classify(JitPoint, JitOther))(make(JitPoint, JitOther)))


def test_isinstance_needs_classes_known_when_compiling():
    @njit
    def check(x, classes):
        return isinstance(x, classes)
    with pytest.raises(TypingError, match="isinstance"):
        check(1, (1, 2))


# ---- keyword-only parameters ---------------------------------------------------------------

class Options:
    def __init__(self, x, y, z=1, *, a=5.0, b):
        self.x, self.y, self.z, self.a, self.b = x, y, z, a, b

    def total(self, *, scale=1):
        return (self.x + self.y + self.z + self.a + self.b) * scale


JitOptions = jitclass(Options, [("x", int64), ("y", int64), ("z", int64), ("a", float64),
                                ("b", int64)])


def _keyword_only(Make):
    def make(x, y, b):
        o = Make(x, y, b=b)
        p = Make(y=y, x=x, a=0.5, z=7, b=b)
        return o.total(), p.total(scale=3), o.a, p.z
    return make


CALLS = [lambda C: C(1, 2, b=3), lambda C: C(1, 2, 4, b=3, a=2.5), lambda C: C(b=1, y=2, x=3),
         lambda C: C(1, 2, 3, 4), lambda C: C(1, 2), lambda C: C(1, 2, b=3, c=4)]


@pytest.mark.parametrize("call", CALLS)
def test_keyword_only_parameters_bind_as_python_binds_them(call):
    try:
        expected = call(Options)
    except TypeError:
        with pytest.raises(TypeError):
            call(JitOptions)
        return
    got = call(JitOptions)
    assert (got.x, got.y, got.z, got.a, got.b) == (expected.x, expected.y, expected.z,
                                                   expected.a, expected.b)


def test_keyword_only_parameters_in_compiled_code():
    assert same(_keyword_only(Options)(1, 2, 3), njit(_keyword_only(JitOptions))(1, 2, 3))
    assert JitOptions(1, 2, b=3).total(scale=2) == Options(1, 2, b=3).total(scale=2)
    with pytest.raises(TypeError):
        JitOptions(1, 2, b=3).total(2)          # keyword-only, from Python too
    with pytest.raises(TypingError):
        njit(lambda x: JitOptions(x, 1, 2, 3, 4))(1)

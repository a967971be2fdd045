"""kiln.experimental.structref against plain Python objects: each driver below is written
once over a constructor `Make`, and runs with a plain Python class in CPython and with a
structref proxy class in compiled code, on the same inputs; results, exceptions and
aliasing must agree. The leak-checking fixture (conftest.py) checks that every struct is
freed with what it holds, dropped in compiled code or in Python."""
import pickle

import numpy as np
import pytest

from helpers import same
from kiln import njit, typed, typeof, types
from kiln.errors import TypingError
from kiln.experimental import structref
from kiln.extending import overload_attribute, overload_method


@structref.register
class PairType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(ty)) for name, ty in fields)


class Pair(structref.StructRefProxy):
    def __new__(cls, first, second):
        return structref.StructRefProxy.__new__(cls, first, second)

    @property
    def first(self):
        return _first(self)

    @property
    def second(self):
        return _second(self)


structref.define_proxy(Pair, PairType, ["first", "second"])


@njit
def _first(p):
    return p.first


@njit
def _second(p):
    return p.second


class PlainPair:
    """What a Pair is in Python: an object with two attributes."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def total(self, k):
        return self.first * k + self.second

    @property
    def swapped(self):
        return self.second, self.first


@overload_method(PairType, "total")
def _total(self, k):
    return lambda self, k: self.first * k + self.second


@overload_attribute(PairType, "swapped")
def _swapped(self):
    return lambda self: (self.second, self.first)


def _drivers(Make):
    def build(x, arr):
        p = Make(x, second=arr)          # by position and by field name
        p.first += 1.5
        p.second = p.second * 2.0
        return p.first, p.second

    def alias(x, y):
        a = Make(x, y)
        b = a
        b.first = y
        c = Make(x, y)
        return a.first, a is b, a is c, a is not c, a.total(3), a.swapped

    def mixed(x, y):
        return Make(x, y).total(2), Make((x, y), y).first, Make(1j * y, x).swapped
    return build, alias, mixed


PLAIN = _drivers(PlainPair)
COMPILED = [njit(f) for f in _drivers(Pair)]


@pytest.mark.parametrize("x", [2.0, -0.5, np.nan])
def test_fields_mutate_as_python_attributes(x):
    arr = np.arange(4.0)
    assert same(PLAIN[0](x, arr), COMPILED[0](x, arr))


@pytest.mark.parametrize("x, y", [(1, 2), (-7, 0), (2**40, -3)])
def test_aliases_identity_methods_and_attributes(x, y):
    assert same(PLAIN[1](x, y), COMPILED[1](x, y))
    assert same(PLAIN[2](x, y), COMPILED[2](x, y))


def test_a_struct_is_shared_between_python_and_compiled_code():
    @njit
    def bump(p, k):
        p.first += k
        return p

    p = Pair(10, np.ones(3))                 # made in Python, through the compiled constructor
    assert isinstance(p, Pair) and typeof(p) == PairType([("first", types.int64),
                                                          ("second", types.float64[::1])])
    q = bump(p, 5)
    assert q is not p and q.first == p.first == 15     # the same struct behind both
    p.second[0] = -1.0
    assert q.second[0] == -1.0
    with pytest.raises(TypeError):
        bump(PlainPair(1, 2), 1)     # a Python object with the same attributes is no struct
    for _ in range(2):   # structs of two types through one function, alternately
        assert (_first(Pair(1, 2.0)), _first(Pair(1.5, 2)), _first(p)) == (1, 1.5, 15)


def test_new_makes_a_struct_of_a_given_type_with_fields_unset():
    @structref.register
    class VecType(types.StructRef):
        pass

    vec = VecType([("data", types.float64[:]), ("n", types.intp)])
    structref.define_boxing(VecType, structref.StructRefProxy)

    @njit
    def make(a, set_data):
        v = structref.new(vec)
        v.n = a.size
        if set_data:
            v.data = a
        return v

    @njit
    def read(v):
        return v.data.sum() + v.n

    a = np.arange(5.0)
    v = make(a, True)
    assert type(v) is structref.StructRefProxy and read(v) == a.sum() + 5
    with pytest.raises(AttributeError, match="data"):   # as a Python attribute never set
        read(make(a, False))
    with pytest.raises(AttributeError):    # the plain proxy has no Python attributes
        v.n


def test_a_field_may_refer_to_its_own_struct_type():
    @structref.register
    class NodeType(types.StructRef):
        def preprocess_fields(self, fields):
            self.name = f"NodeType#{id(self)}"
            return (("value", types.int64), ("parent", types.Optional(self)))

    class Node(structref.StructRefProxy):
        pass

    structref.define_proxy(Node, NodeType, ["value", "parent"])

    @njit
    def chain(n):
        node = Node(0, None)
        for i in range(1, n):
            node = Node(i, node)
        total = 0
        while node is not None:
            total += node.value
            node = node.parent
        return total

    assert chain(6) == sum(range(6))
    assert NodeType([("value", types.Any)] * 2) == NodeType([])   # named alike: equal


def test_structs_in_a_typed_dict():
    d = typed.Dict()
    d["a"] = Pair(1, 2.5)
    d["a"] = Pair(3, 4.5)                   # the replaced struct is freed
    d["b"] = Pair(5, 6.5)
    assert [(k, v.first, v.second) for k, v in d.items()] == [("a", 3, 4.5), ("b", 5, 6.5)]
    with pytest.raises(TypingError):
        d["c"] = Pair(1.5, 2)               # another struct type


def test_invalid_definitions():
    with pytest.raises(ValueError, match="cannot register"):
        structref.register(types.StructRef)
    with pytest.raises(ValueError, match="cannot register"):
        structref.define_boxing(types.StructRef, Pair)
    with pytest.raises(ValueError, match="field name"):
        types.StructRef([(1, types.int64)])
    with pytest.raises(ValueError, match="field type"):
        types.StructRef([("a", 123)])

    @njit
    def store(p, a):
        p.first = a

    with pytest.raises(TypingError, match="cannot assign"):
        store(Pair(1, 2), np.zeros(2))


def test_struct_types_pickle_equal():
    ty = PairType([("first", types.int64), ("second", types.float64[:])])
    assert pickle.loads(pickle.dumps(ty)) == ty
    assert ty.field_dict == {"first": types.int64, "second": types.float64[:]}


def _cached_make(x, y):
    return Pair(x, second=y)


def _cached_use(p, k):
    return p.total(k)


def test_code_passing_structs_is_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    for cached in (False, True):
        make, use = njit(cache=True)(_cached_make), njit(cache=True)(_cached_use)
        p = make(2.5, np.arange(3.0))
        assert same(use(p, 3), PlainPair(2.5, np.arange(3.0)).total(3))
        for f in (make, use):
            assert len(f.stats.cache_hits) == int(cached)
            assert len(f.stats.cache_misses) == int(not cached)
            assert f.stats.cache_path.startswith(str(tmp_path))
    assert njit(_cached_use).stats.cache_path is None

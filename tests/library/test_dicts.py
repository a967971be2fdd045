"""Dicts in compiled code against CPython: displays, `{}` typed by later use, `dict()`,
comprehensions, every method, `del`, `in`, views and iteration (in insertion order),
equality, hashing (NaN, -0.0, -1 and -2, tuples, resizes, deletions then reinsertions),
values of every kind, mutation during iteration, and kiln.typed.Dict between Python and
compiled code. Results come back as kiln.typed.Dict and are compared, items in order, with
CPython's dicts."""
import math
import pickle

import numpy as np
import pytest

import kiln
from helpers import jit, same
from kiln import njit
from kiln.errors import TypingError
from kiln.typed import Dict, List

NAN, INF = math.nan, math.inf


def plain(value):
    """A compiled result as Python would have it: kiln.typed containers -> dict and list."""
    if isinstance(value, Dict):
        return {plain(k): plain(v) for k, v in value.items()}
    if isinstance(value, List):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    return value


def deep_same(expected, got):
    if isinstance(expected, dict):   # the same items in the same order
        return isinstance(got, dict) and deep_same(list(expected.items()), list(got.items()))
    if isinstance(expected, (list, tuple)):
        return type(got) is type(expected) and len(expected) == len(got) and \
            all(deep_same(e, g) for e, g in zip(expected, got))
    return same(expected, got)


def check(pyfunc, *args):
    """Run `pyfunc` in CPython and compiled: the same results (dicts in the same order), or
    the same exception class and arguments."""
    compiled = jit(pyfunc)
    try:
        expected = pyfunc(*args)
    except Exception as e:
        with pytest.raises(type(e)) as info:
            compiled(*args)
        assert deep_same(e.args, plain(info.value.args)), (e.args, info.value.args)
        return None
    got = plain(compiled(*args))
    assert deep_same(expected, got), f"{pyfunc.__name__}{args}: CPython {expected!r}, kiln {got!r}"
    return got


# ---- hashing -------------------------------------------------------------------------------

def hashed(x):
    return hash(x)


@pytest.mark.parametrize("x", [0, 1, -1, -2, 7, -99, 2**61 - 2, 2**61 - 1, 2**61, -2**61,
                               2**63 - 1, -2**63, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e300,
                               5e-324, 1 / 3, 2.0**61, 2.0**80, INF, -INF, True, False,
                               (1, 2), (), (-1,), (1, 2.5, True), ((1, 2), -0.0), (-1, -2),
                               0j, 2 + 0j, -1j, 1e300 - 1e300j, complex(INF, -INF),
                               complex(-1, 0), 2.0**61 + 2.0**62 * 1j, (1j, 2)])
def test_hash_equals_python(x):
    assert jit(hashed)(x) == hash(x)


@pytest.mark.parametrize("x", [np.uint64(2**64 - 1), np.uint64(2**63), np.uint64(5),
                               np.int8(-1), np.uint8(255), np.int32(-2**31), np.float32(0.1),
                               np.complex64(0.1 - 3j)])
def test_hash_of_every_width(x):
    assert jit(hashed)(x) == hash(x.item())


def hash_method(x):
    return x.__hash__(), getattr(x, "__hash__")()


@pytest.mark.parametrize("x", [-1, 2**62, 2.5, True, 1j, "ab", (1, "ab", -0.5)])
def test_the_hash_method_is_hash(x):
    assert jit(hash_method)(x) == hash_method(x)


def nan_keys(n):
    hashes = set()
    d = {}
    for i in range(n):
        x = float(i) * NAN   # a new NaN object each time in CPython
        hashes.add(hash(x))
        d[x] = i
    return len(d), len(hashes) > n // 2


def test_nan_keys_are_distinct_and_hash_apart():
    # CPython hashes a NaN by its object; compiled code gives each NaN hashed a new hash
    assert jit(nan_keys)(200) == nan_keys(200) == (200, True)


def hashed_if(x, flag):
    return hash(x) if flag else 7


@pytest.mark.parametrize("x", [np.ones(3), List([1, 2]), Dict({1: 2.5})])
def test_hash_of_a_mutable_container_raises_python_s_type_error_when_it_runs(x):
    assert jit(hashed_if)(x, False) == hashed_if(x, False)
    with pytest.raises(TypeError, match="unhashable type"):
        hashed_if(x, True)
    with pytest.raises(TypeError, match="unhashable type: '.*' .a mutable container"):
        jit(hashed_if)(x, True)


# ---- building and reading ------------------------------------------------------------------

def counts(a):
    d = {}
    for x in a:
        d[x] = d.get(x, 0) + 1
    return d


@pytest.mark.parametrize("a", [np.array([3, 1, 3, 2, 1, 3, -1, -2, -1]), np.array([], np.int64),
                               np.array([-1, -2, -2, -1, 0, 2**61 - 1, -(2**61 - 1)]),
                               np.array([0.0, -0.0, NAN, 1.5, NAN, INF, -INF, 1.5, -0.0]),
                               np.array([1j, 2, 1j, -0.0, 0j, 2 + 1e-300j])])
def test_counts_in_insertion_order(a):
    # CPython's NaN keys are distinct objects, each its own key; kiln's NaNs never compare
    # equal either, so both make one entry per NaN. -0.0 and 0.0 are one key (the first).
    check(counts, a)


def typed_by_use(n):
    d = {}
    d[3] = 1.5
    for i in range(n):
        d[i * 7 % 5] = i / 4
    return d, len(d), d[3]


def display(a, b):
    d = {a: b, -a: b * 2, a + 1: -b}
    return d, len(d), d[a]


def display_of_mixed_numbers(a):
    d = {1: a, 2.5: 2, True: -1}   # kiln's keys and values are floats: compare as floats
    return len(d), float(d[1]), float(d[2.5]), float(list(d.keys())[0])


def empty_literals():
    a = {}
    b = dict()
    return len(a), len(b), a == b, bool(a), 1 in a, a.get(1, -1)


def comprehension(n):
    return {i % 5: i * i for i in range(n) if i % 3 != 0}


def nested_comprehension(n):
    return {(i, j): i * j for i in range(n) for j in range(i)}


def test_making_dicts():
    check(typed_by_use, 10)
    check(typed_by_use, 0)
    check(display, 4, 2.5)
    check(display, 0, -0.0)
    check(display, -1, NAN)
    check(display_of_mixed_numbers, 0.5)
    check(empty_literals)
    check(comprehension, 20)
    check(comprehension, 0)
    check(nested_comprehension, 5)


def missing_key(k):
    d = {1: 2, -1: 3}
    return d[k]


def missing_tuple_key(k):
    d = {(1, 2): 2.5}
    return d[(k, k)]


def lookups_of_other_types(k):
    d = {1: 10, 2: 20, -1: 30}
    return d[2.0], 1.0 in d, 1.5 in d, d.get(True, 0), d.get(k, -5), k in d, k not in d


def bool_keys():
    d = {True: 1.5}
    d[False] = 2.5
    d[True] = 3.5
    return d, 1 in d, 0.0 in d, d[1], 2 in d   # 1 == True: the same key


def test_lookups_and_key_errors():
    check(missing_key, 1)
    check(missing_key, -2)   # hash(-1) == hash(-2): found by equality only
    check(missing_key, 5)
    check(missing_tuple_key, 1)
    check(missing_tuple_key, 3)
    for k in (1, 3, -1, -2):
        check(lookups_of_other_types, k)
    check(bool_keys)


# ---- growth, deletion, reinsertion ---------------------------------------------------------

def churn(n, step):
    d = {}
    for i in range(n):
        d[i * 31 % 1009 - 500] = i
    for i in range(0, n, step):
        k = i * 31 % 1009 - 500
        if k in d:
            del d[k]
    for i in range(0, n, 2 * step):   # back in, at the end
        d[i * 31 % 1009 - 500] = -i
    s = 0
    for k, v in d.items():
        s = (s * 31 + k * 7 + v) % 1000003
    return len(d), s, list(d.keys())[:20], list(d.values())[-20:]


def float_keys(n):
    d = {}
    for i in range(n):
        d[i * 0.1 - 3.0] = i
    for i in range(0, n, 3):
        d.pop(i * 0.1 - 3.0)
    return d


@pytest.mark.parametrize("n,step", [(10, 3), (1000, 3), (5000, 2), (20000, 7)])
def test_resizes_deletions_reinsertions(n, step):
    check(churn, n, step)


def test_float_keys_through_resizes():
    check(float_keys, 3000)


def delete_everything_then_refill(n):
    d = {}
    for r in range(3):
        for i in range(n):
            d[(i, -i)] = float(r)
        for i in range(n):
            del d[(i, -i)]
    d[(1, 1)] = 9.0
    return d, len(d)


def test_delete_everything_then_refill():
    check(delete_everything_then_refill, 100)


# ---- methods -------------------------------------------------------------------------------

def methods(n):
    d = {i: i * 1.5 for i in range(n)}
    a = d.pop(1, -1.0)
    b = d.pop(100, -1.0)
    c = d.setdefault(2, 9.0)
    e = d.setdefault(200, 9.0)
    f = d.get(3)
    g = d.get(300)
    h = d.get(4, 0)
    k, v = d.popitem()
    other = {-5: 0.25, 0: 7.0}
    d.update(other)
    cp = d.copy()
    cp[0] = 1.0
    same_ = d == d.copy()
    differs = d != cp
    return d, a, b, c, e, f, g, h, k, v, same_, differs, cp == d, len(cp)


def popping_missing(k):
    d = {1: 2.0}
    return d.pop(k)


def popitem_until_empty(n):
    d = {i: -i for i in range(n)}
    del d[n - 1]
    out = []
    for _ in range(n):
        out.append(d.popitem())
    return out


def popitem_then_insert(n):
    d = {i: i for i in range(n)}
    d.popitem()
    d.popitem()
    d[100] = 1
    d[0] = 5
    return d


def cleared(n):
    d = {i: np.ones(i) for i in range(n)}
    d.clear()
    d[3] = np.zeros(2)
    return d, len(d)


def copy_of_dict(n):
    d = {i: (i, i * 0.5) for i in range(n)}
    e = dict(d)
    e[0] = (-1, -1.0)
    return d, e


def equality(n, m):
    a = {i: i * 2 for i in range(n)}
    b = {i: i * 2 for i in range(m - 1, -1, -1)}   # the same items in another order
    c = {i: i * 2 + (i == 1) for i in range(m)}
    return a == b, a != b, a == c, b == c


def update_itself(n):
    d = {i: i for i in range(n)}
    d.update(d)
    return d


def test_methods():
    for n in (5, 10, 50):
        check(methods, n)
    check(popping_missing, 1)
    check(popping_missing, 2)
    check(popitem_until_empty, 6)   # the last one raises KeyError('popitem(): ...')
    check(popitem_then_insert, 5)
    check(cleared, 4)
    check(copy_of_dict, 4)
    for n, m in ((3, 3), (3, 4), (0, 0), (5, 5)):
        check(equality, n, m)
    check(update_itself, 6)


def deleting_missing(k):
    d = {1: 2.0, 3: 4.0}
    del d[k]
    return d


def test_del():
    check(deleting_missing, 1)
    check(deleting_missing, 2)


# ---- views and iteration -------------------------------------------------------------------

def views(n):
    d = {i * 3 % 7: float(i) for i in range(n)}
    del d[3 % 7 * 0]
    keys, values, items = [], [], []
    for k in d:
        keys.append(k)
    for v in d.values():
        values.append(v)
    for k, v in d.items():
        items.append((k, v))
    ks = d.keys()
    return keys, values, items, list(d.keys()), list(d.items()), len(ks), 4 in ks, \
        8 in ks, 2.0 in d.values(), (1, 5.0) in d.items(), (1, 6.0) in d.items(), \
        sorted(d.values()), [k for k in d]


def mutate_while_iterating(n):
    d = {i: i for i in range(n)}
    for k in d:
        if k == 1:
            d[100] = 1
    return d


def delete_while_iterating(n):
    d = {i: i for i in range(n)}
    for k, v in d.items():
        if k == 1:
            del d[2]
    return d


def replace_values_while_iterating(n):
    d = {i: i for i in range(n)}
    for k in d:
        d[k] = -k   # no change of size: allowed
    return d


def test_views_and_iteration():
    check(views, 10)
    check(views, 3)
    check(mutate_while_iterating, 5)
    check(delete_while_iterating, 5)
    check(replace_values_while_iterating, 5)
    check(mutate_while_iterating, 1)


# ---- values of every kind ------------------------------------------------------------------

def array_values(n):
    d = {}
    for i in range(n):
        d[i] = np.arange(i) * 0.5
    del d[0]
    d[1] = d[2] + 1
    return d, d.pop(3)


def list_values(n):
    d = {}
    for i in range(n):
        d.setdefault(i % 3, [0]).append(i)
    return d


def nested_dicts(n):
    outer = {}
    for i in range(n):
        if i % 3 not in outer:
            outer[i % 3] = {-1: 0.0}
        outer[i % 3][i] = i * 0.5
    return outer, outer[1][4]


def tuple_values(n):
    return {i: (i, -i * 0.5, i % 2 == 0) for i in range(n)}


def argument_arrays(a, b):
    d = {1: a, 2: b}
    del d[1]
    return d


def test_values_of_every_kind():
    check(array_values, 6)
    check(list_values, 8)
    check(nested_dicts, 9)
    check(tuple_values, 4)
    check(argument_arrays, np.arange(3.0), np.ones(2))


def raises_while_holding_dicts(n):
    d = {i: np.zeros(i) for i in range(n)}
    return d[n + 5]


def test_exceptions_release_dicts():
    check(raises_while_holding_dicts, 4)


# ---- errors --------------------------------------------------------------------------------

def array_key(n):
    d = {}
    d[np.zeros(n)] = 1
    return d


def list_key(n):
    d = {1: 2}
    return [n] in d


def unhashable_display(n):
    return {np.zeros(n): 1}


def float_into_int_keys(n):
    d = {1: 2}
    d[n * 0.5] = 3
    return d


def value_of_other_type(n):
    d = {1: 2}
    d[2] = (n, n)
    return d


def none_key(n):
    return {None: n}


def optional_key(n):
    d = {1.5: n}
    d[2.5 if n else None] = 2
    return d


@pytest.mark.parametrize("fn,message", [
    (none_key, "Dict.key_type cannot be of type none"),   # hashable in Python, not in kiln
    (optional_key, r"cannot be of type OptionalType\(float64\)"),
    (array_key, "unhashable type"), (list_key, "unhashable type"),
    (unhashable_display, "unhashable type"), (float_into_int_keys, "key of type float64"),
    (value_of_other_type, "value of type")])
def test_bad_dicts_are_typing_errors_naming_the_line(fn, message):
    with pytest.raises(TypingError, match=message) as info:
        njit(fn)(1)
    assert fn.__name__ in str(info.value) and "line" in str(info.value)


def never_filled():
    return {}


def test_returning_a_dict_never_given_items():
    with pytest.raises(TypingError, match="not known"):
        njit(never_filled)()


# ---- kiln.typed.Dict -----------------------------------------------------------------------

@njit
def _store(d, k, v):
    d[k] = v


@njit
def _total(d):
    s = 0.0
    for v in d.values():
        s += v
    return s


def test_typed_dict_from_python_matches_dict():
    ours, theirs = Dict.empty(kiln.int64, kiln.float64), {}
    for i in range(200):
        k = (i * 37) % 61 - 30
        for d in (ours, theirs):
            d[k] = i * 0.5
        if i % 4 == 0:
            for d in (ours, theirs):
                d.pop(k)
        if i % 9 == 0 and len(theirs):
            assert ours.popitem() == theirs.popitem()
    assert list(ours.items()) == list(theirs.items())
    assert list(ours) == list(theirs) and list(ours.values()) == list(theirs.values())
    assert len(ours) == len(theirs) and ours == theirs
    k = next(iter(theirs))
    assert ours[k] == theirs[k] and (k in ours) and (1000 not in ours)
    assert ours.get(1000) is None and ours.get(1000, 7) == 7 and ours.get(k) == theirs[k]
    assert ours.setdefault(1000, 2.0) == theirs.setdefault(1000, 2.0)
    with pytest.raises(KeyError):
        ours[12345]
    with pytest.raises(KeyError):
        del ours[12345]
    with pytest.raises(KeyError):
        ours.pop(12345)
    assert ours.pop(12345, None) is None
    copy = ours.copy()
    copy[-999] = 1.0
    assert -999 not in ours and copy != ours
    assert repr(Dict({1: 2.5})) == "Dict({1: 2.5})"
    assert repr(ours.keys()) == f"dict_keys({list(theirs)!r})"
    ours.clear()
    theirs.clear()
    assert ours == theirs == {} and len(ours) == 0
    with pytest.raises(KeyError):
        ours.popitem()


def test_typed_dict_shared_with_compiled_code_without_copying():
    d = Dict.empty(kiln.int64, kiln.float64)
    d[1] = 0.5
    _store(d, 2, 1.5)          # compiled code stores into the very same dict
    assert dict(d.items()) == {1: 0.5, 2: 1.5}
    assert _total(d) == 2.0
    made = jit(counts)(np.array([5, 5, 6]))
    _store(made, 7, 1)         # a dict returned by compiled code goes back in
    assert dict(made.items()) == {5: 2, 6: 1, 7: 1}
    with pytest.raises(TypeError, match="kiln.typed.Dict"):
        _total({1: 2.0})


def test_typed_dict_typed_by_first_item_and_from_mappings():
    d = Dict()
    assert len(d) == 0 and list(d) == [] and 3 not in d
    d[(1, 2)] = 2.5
    d[(3, 4)] = 3.5
    assert list(d.items()) == [((1, 2), 2.5), ((3, 4), 3.5)]
    assert Dict({1: 2, 3: 4}) == {1: 2, 3: 4}
    assert Dict([(1.5, True)])[1.5] is True
    e = Dict(d)
    e[(5, 6)] = 0.0
    assert len(d) == 2 and len(e) == 3


def test_typed_dict_iteration_checks_size():
    d = Dict({1: 1, 2: 2})
    with pytest.raises(RuntimeError, match="changed size"):
        for k in d:
            d[k + 10] = 0


def test_typed_dict_pickles():
    d = Dict({1: 2.5, -1: 0.0})
    back = pickle.loads(pickle.dumps(d))
    assert type(back) is Dict and list(back.items()) == [(1, 2.5), (-1, 0.0)]


def make_empty_typed(n):
    d = Dict.empty(kiln.int64, kiln.float64)
    for i in range(n):
        d[i] = i * 0.25
    return d


def test_dict_empty_in_compiled_code():
    got = njit(make_empty_typed)(4)
    assert type(got) is Dict and list(got.items()) == [(0, 0.0), (1, 0.25), (2, 0.5), (3, 0.75)]
    assert len(njit(make_empty_typed)(0)) == 0


def read_before_any_store(n):
    d = {}
    return d[n]


def test_reading_a_dict_never_stored_into_is_a_typing_error():
    with pytest.raises(TypingError, match="not known") as info:
        njit(read_before_any_store)(1)
    assert "read_before_any_store" in str(info.value) and "line" in str(info.value)


def typed_by_a_later_statement(n):
    d = {}
    for i in range(n):
        if i in d:
            d[i] += 1
        elif i - 1 in d:
            d.pop(i - 1)
        d[i % 4] = d.get(i, 0) + i
    return d, d.pop(-7, 0)


def test_reads_typed_on_a_later_pass():
    check(typed_by_a_later_statement, 12)
    check(typed_by_a_later_statement, 0)


def from_pairs(n):
    a = dict([(1, 2.5), (-1, 0.5), (1, 3.5)])
    b = dict(zip(range(n), [k * 0.5 for k in range(n)]))
    c = dict(enumerate([7, 8, 9]))
    b.update([(0, -1.0), (100, 1.0)])
    return a, b, c


def merged(n):
    a = {i: i * 2 for i in range(n)}
    b = {i: -i for i in range(n // 2, n + 3)}
    c = a | b
    a |= b
    return c, a, c == a


def test_dicts_from_pairs_and_merges():
    check(from_pairs, 5)
    check(from_pairs, 0)
    check(merged, 6)
    check(merged, 0)


def for_before_types_are_fixed(n):
    d = {}
    s = 0
    for r in range(3):
        for k in d:
            s += k * d[k]
        d[r] = n
    return s, d


def test_a_loop_over_a_dict_typed_by_a_later_statement():
    check(for_before_types_are_fixed, 4)


def word_counts(words):
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts


def string_keys(s):
    d = {s: 1, "b": 2, s + s: 3}
    d["中"] = d.pop("b", 0) + 10
    found = ("b" in d, s in d, d.get("😀", -1), len(d))
    del d[s]
    return d, found


def test_string_keys():
    for words in ([], ["a"], "the cat and the hat and the 中 😀 the é".split(), ["", "", " "]):
        check(word_counts, List(words) if words else List.empty_list(kiln.types.unicode_type))
    for s in ("a", "", "é😀"):
        check(string_keys, s)
    check(missing_string_key, "x")
    check(missing_string_key, "中")


def missing_string_key(k):
    d = {"a": 1, "中!": 2}
    return d[k + "!"]


def test_typed_dict_of_strings_between_python_and_compiled_code():
    d = Dict.empty(kiln.types.unicode_type, kiln.types.unicode_type)
    d["clé"] = "valeur"
    d[""] = "中"
    add = njit(lambda d, k: d.setdefault(k + "!", k))
    assert add(d, "x") == "x"
    assert dict(d) == {"clé": "valeur", "": "中", "x!": "x"}
    same_dict = njit(lambda d: d)
    assert dict(same_dict(d)) == dict(d)


def keyword_dicts(x, name):
    d = dict(a=1, b=x)
    d.update(dict(c=3, a=5))
    d[name] = -1
    empty = dict()
    empty["k"] = x
    return d, d["a"], name in d, empty


def test_dict_with_keyword_arguments():
    for x, name in ((7, "a"), (-2, "zz"), (0, "")):
        check(keyword_dicts, x, name)

"""Tuples in compiled code against CPython: arguments and results, indexing, unpacking, `in`,
comparison, concatenation, len, iteration; global and closure constants frozen at compile time."""
import math

import numpy as np
import pytest

import kiln

from helpers import check, jit, chk
from operations import eq, ne
from kiln import literal_unroll, njit
from kiln.errors import TypingError

NAN = math.nan


def identity(t): return t
def make_mixed(a, b): return (a, b, a + b, a < b)
def first_last(t): return t[0], t[-1], t[len(t) - 1]
def item(t, i): return t[i]
def swap(t):
    a, b = t
    return b, a
def unpack3(t):
    x, y, z = t
    return x * 100 + y * 10 + z
def nested(t): return t[0][1], t[1]
def contains(t, v): return v in t
def not_contains(t, v): return v not in t
def concat(a, b): return a + b
def length(t): return len(t)
def iterate(t):
    s = 0
    for v in t:
        s = s * 2 + v
    return s
def iterate_float(t):
    s = 0.0
    for v in t:
        s += v * v
    return s
def enumerate_index(t):
    s = 0
    for i in range(len(t)):
        s += (i + 1) * t[i]
    return s
def empty(): return ()
def single(x): return (x,)
def build_and_index(a, b, c, i):
    t = (a, b, c)
    return t[i]
def swap_values(a, b):
    a, b = b, a
    return a, b


def test_identity():
    for t in [(1, 2, 3), (1.5, -0.0), (1, 2.5, True), (1 + 2j, 3), ((1, 2), 3.5), (), (7,)]:
        chk(identity, t)


def test_mixed_results():
    chk(make_mixed, 1, 2)
    chk(make_mixed, 1.5, -2)
    chk(empty)
    chk(single, 3)
    chk(single, 2.5)


def first_and_computed_last(t): return t[0], t[len(t) - 1]
def mixed_first(t): return t[0], t[2]
def last_item(t): return t[-1]
def second_last(t): return t[-2]


def test_constant_index():
    for t in [(1, 2, 3), (1.5, 2.5), (4,)]:
        chk(first_last, t)
        chk(first_and_computed_last, t)
    chk(mixed_first, (1.5, 2, True))
    chk(nested, ((1, 2.5), True))


def test_negative_constant_index_homogeneous():
    chk(last_item, (1, 2, 3))
    chk(second_last, (1.5, 2.5))


def test_negative_constant_index_mixed():
    chk(last_item, (1, 2.5, True))


def test_negative_constant_index_mixed_pair():
    chk(second_last, (1, 2.5))


def test_variable_index():
    t = (10, 20, 30, 40)
    for i in [0, 1, 3, -1, -4]:
        chk(item, t, i)
    chk(item, (1.5, 2.5), 1)
    for i in [4, -5, 100]:
        chk(item, t, i)   # IndexError


def test_build_and_index():
    for i in [0, 1, 2, -1, -3]:
        chk(build_and_index, 1, 2, 3, i)
        chk(build_and_index, 1.5, 2.5, -0.0, i)
    chk(build_and_index, 1, 2, 3, 3)     # IndexError


def test_variable_index_of_mixed_tuple_is_typing_error():
    # as in Numba: the item's type must be known at compile time
    with pytest.raises(TypingError):
        njit(build_and_index)(1, 2.5, 3, 1)


def test_unpacking():
    chk(swap, (1, 2.5))
    chk(unpack3, (1, 2, 3))
    chk(swap_values, 1, 2)
    chk(swap_values, 1.5, -2.5)
    # a variable holds one type: a and b both become float64 (as in Numba)
    assert jit(swap_values)(1, 2.5) == (2.5, 1.0)


def test_contains():
    for v in [1, 2.0, 4, True, NAN, -0.0]:
        chk(contains, (1, 2, 3), v)
        chk(not_contains, (1, 2, 3), v)
    chk(contains, (float("nan"), 1.0), float("nan"))   # distinct NaN objects: not equal
    chk(contains, (0.0, 1.5), -0.0)
    chk(contains, (1, 2.5, True), 2.5)
    chk(contains, (), 1)


def test_eq_ne():
    pairs = [((1, 2), (1, 2)), ((1, 2), (2, 1)), ((1, 2.0), (1.0, 2)),
             ((float("nan"), 1), (float("nan"), 1)),
             ((0.0,), (-0.0,)), ((1, True), (1, 1)), ((), ()), ((1 + 1j, 2), (1 + 1j, 2))]
    for a, b in pairs:
        chk(eq, a, b)
        chk(ne, a, b)


def test_nan_identity_is_not_seen():
    # CPython's `in` and tuple == check identity first, so the *same* NaN object matches;
    # compiled code has values, not objects, and NaN never equals itself (Numba agrees)
    assert (NAN in (NAN, 1.0)) is True and jit(contains)((NAN, 1.0), NAN) is False
    assert ((NAN,) == (NAN,)) is True and jit(eq)((NAN,), (NAN,)) is False


def test_eq_different_lengths():
    chk(eq, (1, 2), (1, 2, 3))
    chk(ne, (1, 2), (1, 2, 3))


def test_concat_and_len():
    chk(concat, (1, 2), (3.5, True))
    chk(concat, (), (1,))
    chk(concat, (1, 2), ())
    for t in [(), (1,), (1, 2.5, 3)]:
        chk(length, t)


def test_iteration():
    chk(iterate, (1, 0, 1, 1))
    chk(iterate_float, (1.5, -2.0, 0.5))
    chk(enumerate_index, (3, 4, 5))


def test_iteration_empty_tuple():
    chk(iterate, ())


# ---- globals and closures: frozen at compile time ---------------------------------------------

SCALE = 2.5
OFFSETS = (1, 2, 3)
MIXED = (1, 2.5, True)
LIMIT = 2 ** 40


def use_globals(x):
    s = x * SCALE
    for o in OFFSETS:
        s += o
    return s, MIXED[1], len(OFFSETS), OFFSETS[-1], LIMIT


def test_globals():
    chk(use_globals, 2)
    chk(use_globals, 1.5)


def test_globals_frozen_at_compile_time():
    global SCALE
    f = njit(use_globals)
    before = f(2)
    old = SCALE
    try:
        SCALE = 100.0
        assert f(2) == before   # the compiled specialization keeps the old value
    finally:
        SCALE = old


def make_closure(k, t):
    def inner(x):
        return x * k + t[0] - t[-1]
    return inner


def make_closure_pos(k, t):
    def inner(x):
        return x * k + t[0] - t[1]
    return inner


def test_closure_constants():
    inner = make_closure_pos(3, (10, 2.5))
    check(inner, 4)
    check(inner, 0.5)
    inner2 = make_closure(-1.5, (1, 2, 3))   # homogeneous: t[-1] indexes at run time
    check(inner2, 2)


def test_closure_mixed_tuple_negative_index():
    check(make_closure(3, (10, 2.5)), 4)


def bad_index(t): return t[5]


def test_constant_index_out_of_range_is_typing_error():
    with pytest.raises((TypingError, IndexError)):
        njit(bad_index)((1, 2))


def tuple_lt(a, b): return a < b
def tuple_le(a, b): return a <= b
def tuple_gt(a, b): return a > b
def tuple_ge(a, b): return a >= b


def test_ordering_is_lexicographic_as_in_python():
    # two distinct NaN objects: CPython's identity shortcut does not apply
    pairs = [((1, 2), (1, 3)), ((1, 2), (1, 2)), ((2, 0), (1, 9)), ((1, 2.5), (1, 2)),
             ((1,), (1, 0)), ((), ()), ((), (0,)), ((0.0, 1), (-0.0, 0)),
             ((float("nan"), 1), (float("nan"), 2)), ((1, float("nan")), (1, 2.0)),
             ((True, 2), (1, 1)), (((1, 2), 3), ((1, 3), 0)), ((-1, 5.5, 2), (-1, 5.5, 2))]
    for a, b in pairs:
        for op in (tuple_lt, tuple_le, tuple_gt, tuple_ge):
            chk(op, a, b)
            chk(op, b, a)


def total_of(*xs):
    s = 0.0
    for x in xs:
        s += x
    return s, len(xs)


def head_and_count(a, *rest):
    return a + len(rest)


total_of_c, head_and_count_c = njit(total_of), njit(head_and_count)


def star_args_from_compiled_code(v):
    return total_of_c(1.0, v, 3.0), total_of_c(), head_and_count_c(1), head_and_count_c(1, v, v)


@pytest.mark.parametrize("args", [(), (1.5,), (1.0, -2.0, NAN), (1, 2.5, True)])
def test_star_args(args):
    if len({type(a) for a in args}) <= 1:    # a loop over a tuple needs one item type
        chk(total_of, *args)
    if args:
        chk(head_and_count, *args)
    for v in (2.0, -0.0, math.inf):
        chk(star_args_from_compiled_code, v)
    # a tuple passed as the one extra argument stays one argument
    assert jit(head_and_count)(1, (2, 3)) == head_and_count(1, (2, 3)) == 2


def test_star_args_in_a_nested_function_is_refused_with_the_line():
    def outer(x):
        def inner(*a):
            return len(a)
        return inner(x, x)
    with pytest.raises(kiln.errors.UnsupportedError, match="nested in them"):
        njit(outer)(1)


def add3(a, b, c):
    return a * 100 + b * 10 + c


add3_c = njit(add3)


def call_unpacking(t):
    return add3_c(*t), add3_c(1, *t[1:]), max(*t), min(0, *t)


def display_unpacking(t, u):
    return (*t, 5, *u), (*u,)


def slices(t):
    return t[1:], t[:-1], t[::-1], t[::2], t[5:], t[-2:10], t[:]


def shape_unpacking(t):
    return np.zeros((*t, 2)).shape


def unpacking_an_array(a):
    return add3_c(*a)


def test_star_unpacking_of_tuples_in_calls_and_displays():
    for t in ((1, 2, 3), (4, -2, 7), (1.5, 2, True)):
        if t[0] != 1.5:   # max() of mixed numbers has one type in compiled code
            chk(call_unpacking, t)
        chk(display_unpacking, t, (True, 2.5))
        chk(slices, t)
    chk(display_unpacking, (), ())
    chk(shape_unpacking, (2, 3))
    with pytest.raises(kiln.errors.UnsupportedError, match="only a tuple"):
        njit(unpacking_an_array)(np.arange(3))


def unrolled_sum(t):
    s = 0.0
    for x in literal_unroll(t):
        y = x * 2
        s += y
    return s


def unrolled_break_else(t):
    n = 0
    for x in literal_unroll(t):
        if n == 2:
            break
        n += 1
    else:
        n = -1
    return n


def unrolled_skip_none(t):
    out = []
    for x in literal_unroll(t):
        if x is None:
            continue
        out.append(x + 1.0)
    return out


def unrolled_arrays(t, a):
    total = a.copy()
    for x in literal_unroll(t):
        total = total + x      # one type after the loop: the name is used outside it
    return total


@pytest.mark.parametrize("t", [(), (1,), (1, 2.5, True), (3, -1), (1.5, (2, 3)), (1, None, 2.5)])
def test_literal_unroll_types_the_body_once_per_item(t):
    if all(isinstance(x, (int, float)) for x in t):
        chk(unrolled_sum, t)
    chk(unrolled_break_else, t)
    if any(isinstance(x, (int, float)) for x in t) and \
            all(isinstance(x, (int, float)) or x is None for x in t):
        chk(unrolled_skip_none, t)
    chk(unrolled_arrays, tuple(x for x in t if isinstance(x, (int, float))) + (np.ones(2),),
        np.arange(2.0))


def test_literal_unroll_outside_a_loop_is_a_clear_error():
    def misuse(t):
        return literal_unroll(t)
    with pytest.raises(TypingError, match="literal_unroll"):
        njit(misuse)((1, 2.0))


def starred_targets(t):
    a, *rest = t
    *init, z = t
    p, *mid, q = t
    mid.append(q)
    return a, rest, init, z, p, mid, q


def starred_from_a_call(t):
    a, *rest = identity(t)
    return a


def test_starred_assignment_targets_get_lists():
    for t in ((1, 2, 3, 4), (1.5, -2.0, 3.0), (True, 2, 3)):
        got, want = jit(starred_targets)(t), starred_targets(t)
        assert [list(g) if isinstance(g, kiln.typed.List) else g for g in got] == list(want)
    with pytest.raises(kiln.errors.UnsupportedError, match="bind the call's result"):
        njit(starred_from_a_call)((1, 2))


def starred_loop_targets(items):
    out = []
    for a, *rest, z in items:
        out.append(a * 100.0 + len(rest) * 10.0 + z)
        for r in rest:
            out.append(r)
    for *init, last in items:
        out.append(sum(init) - last)
    return out


@pytest.mark.parametrize("items", [[(1.0, 2.0, 3.0, 4.0), (5.0, -6.0, np.nan, 8.0)],
                                   [(1.5, 2.5)], [(np.inf, 0.0, -0.0)]])
def test_starred_loop_targets_unpack_each_item(items):
    got = list(jit(starred_loop_targets)(kiln.typed.List(items)))
    np.testing.assert_array_equal(got, starred_loop_targets(items))


def test_starred_loop_target_over_no_items():
    assert list(jit(starred_loop_targets)(kiln.typed.List.empty_list(
        kiln.types.UniTuple(kiln.types.float64, 3)))) == []


def index_count_truth(t, x):
    return t.index(x), t.count(x), bool(t), bool(())


@pytest.mark.parametrize("t, x", [((1, 2, 3, 2), 2), ((1, 2.5, 3), 3), ((1, 2), 5),
                                  ((np.nan, 1.0), 1.0)])
def test_index_count_and_truth(t, x):
    check(index_count_truth, t, x)

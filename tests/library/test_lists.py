"""Lists in compiled code against CPython: displays, `[]` typed by its first append,
`list(...)`, comprehensions, every method, indexing and slicing, operators, iteration,
sum/min/max/sorted, np.array of a list, nested lists and lists of arrays and tuples, and
kiln.typed.List between Python and compiled code. Results come back as kiln.typed.List and
are compared item by item (type and value, -0.0 and NaN included) with CPython's lists."""
import math

import numpy as np
import pytest

import kiln
from helpers import jit, same, as_python as plain
from kiln import njit
from kiln.errors import TypingError
from kiln.typed import List

NAN, INF = math.nan, math.inf


def deep_same(expected, got):
    if isinstance(expected, list):
        return isinstance(got, list) and len(expected) == len(got) and \
            all(deep_same(e, g) for e, g in zip(expected, got))
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(expected) == len(got) and \
            all(deep_same(e, g) for e, g in zip(expected, got))
    return same(expected, got)


def check(pyfunc, *args):
    """Run `pyfunc` in CPython and compiled; results (lists included) or exception types agree."""
    compiled = jit(pyfunc)
    try:
        expected = pyfunc(*args)
    except Exception as e:
        with pytest.raises(type(e)):
            compiled(*args)
        return None
    got = plain(compiled(*args))
    assert deep_same(expected, got), f"{pyfunc.__name__}{args}: CPython {expected!r}, kiln {got!r}"
    return got


FLOATS = (0.0, -0.0, 1.5, -2.25, NAN, INF, -INF, 1e300)


# ---- making lists ------------------------------------------------------------------------

def appended(n):
    l = []
    for i in range(n):
        l.append(i * 0.5 - 1.0)
    return l


def appended_tuples(n):
    l = []
    for i in range(n):
        l.append((i, -i * 1.5))
    return l


def display(a, b):
    return [a, b, a * b, -a]


def display_of_tuples(a, b):
    return [(a, b), (b, a)]


def nested_display(a):
    return [[a, a + 1], [a * 2], []]


@pytest.mark.parametrize("n", [0, 1, 2, 5, 100])
def test_append_fixes_the_item_type(n):
    check(appended, n)
    check(appended_tuples, n)


@pytest.mark.parametrize("a, b", [(1, 2), (-3, 0), (2**40, 3)] + [(x, 0.5) for x in FLOATS])
def test_displays(a, b):
    check(display, a, b)
    check(display_of_tuples, a, b)


def test_nested_display_of_empty_and_full_lists():
    check(nested_display, 3)
    check(nested_display, -1.5)


def from_range(a, b, c):
    return list(range(a, b, c))


def from_array(x):
    return list(x)


def from_tuple(t):
    return list(t)


def from_list(n):
    a = [i * i for i in range(n)]
    b = list(a)
    b.append(-1)
    return a, b


def from_enumerate_zip(x):
    return list(enumerate(x)), list(zip(x, x[::-1]))


def empty_list_call(n):
    l = list()
    for i in range(n):
        l.append(i)
    return l


@pytest.mark.parametrize("args", [(0, 10, 1), (10, 0, -3), (5, 5, 1), (-4, 4, 3), (0, 3, 0)])
def test_list_of_range(args):
    check(from_range, *args)


@pytest.mark.parametrize("x", [np.array([1.5, NAN, -0.0, INF]), np.arange(5), np.zeros(0),
                               np.array([True, False])])
def test_list_of_arrays_and_iterables(x):
    check(from_array, x)
    check(from_enumerate_zip, x)


def test_list_of_tuple_list_and_nothing():
    check(from_tuple, (1, 2, 3))
    check(from_tuple, (1.5, -0.0))
    check(from_list, 0)
    check(from_list, 6)
    check(empty_list_call, 0)
    check(empty_list_call, 4)


def mixed_numbers(a):
    return [1, a, True]


def test_mixed_numbers_are_unified_to_their_common_type():
    # kiln's list holds one type: the ints become floats (Numba does the same)
    assert plain(njit(mixed_numbers)(2.5)) == [1.0, 2.5, 1.0]
    assert all(type(v) is float for v in njit(mixed_numbers)(2.5))


# ---- comprehensions ----------------------------------------------------------------------

def squares_of_evens(n):
    return [i * i for i in range(n) if i % 2 == 0]


def two_loops(n):
    return [(i, j) for i in range(n) for j in range(i) if (i + j) % 3 != 0]


def nested_comprehension(n):
    return [[j * 0.5 for j in range(i)] for i in range(n)]


def comprehension_over_a_list(x):
    l = [v for v in x if v == v]
    return [v * 2 for v in l], sum([v for v in l], 0.0)


def comprehension_reads_outer_locals(n, k):
    scale = k * 2
    return [i * scale + k for i in range(n)]


def loop_variable_stays_inside(n):
    i = -1
    l = [i for i in range(n)]
    return l, i


@pytest.mark.parametrize("n", [0, 1, 7])
def test_comprehensions(n):
    check(squares_of_evens, n)
    check(two_loops, n)
    check(nested_comprehension, n)
    check(comprehension_reads_outer_locals, n, 3)
    check(loop_variable_stays_inside, n)


def test_comprehension_over_a_list_of_floats():
    check(comprehension_over_a_list, np.array([1.0, NAN, -0.0, INF, -2.5]))
    check(comprehension_over_a_list, np.zeros(0))


# ---- indexing and slicing ----------------------------------------------------------------

def get(n, i):
    l = [k * 1.5 for k in range(n)]
    return l[i]


def set_item(n, i, v):
    l = [k for k in range(n)]
    l[i] = v
    return l


def set_float_item(n, i):
    l = [k * 1.0 for k in range(n)]
    l[i] = 7.5
    return l


def test_an_int_stored_in_a_list_of_floats_is_converted():
    # CPython would keep the int; kiln's list holds its one item type (as Numba's)
    def store(n):
        l = [k * 1.0 for k in range(n)]
        l[0] = 7
        l.append(True)
        return l
    got = njit(store)(2)
    assert plain(got) == [7.0, 1.0, 1.0] and all(type(v) is float for v in got)


def aug_assign_item(n, i):
    l = [k for k in range(n)]
    l[i] += 10
    return l


@pytest.mark.parametrize("n, i", [(5, 0), (5, 4), (5, -1), (5, -5), (5, 5), (5, -6), (0, 0),
                                  (3, True)])
def test_items_with_negative_indices_and_index_errors(n, i):
    check(get, n, i)
    check(set_item, n, i, -9)
    check(set_float_item, n, i)
    check(aug_assign_item, n, i)


def sliced(n, a, b, c):
    l = [k * 10 for k in range(n)]
    return l[a:b:c], l[a:], l[:b], l[::c], l[:]


@pytest.mark.parametrize("args", [(10, 2, 8, 2), (10, -3, -1, 1), (10, 8, 2, -2), (10, 0, 0, 1),
                                  (10, -100, 100, 3), (0, 0, 5, 1), (10, 9, -100, -1),
                                  (5, 1, 3, 0)])
def test_slices_are_new_lists(args):
    check(sliced, *args)


def deleted(n, i, a, b, c):
    floats = [k * 1.5 for k in range(n)]
    del floats[i]
    rows = [[k, -k] for k in range(n)]          # items that own memory
    del rows[a:b:c]
    arrays = [np.full(2, k) for k in range(n)]
    del arrays[a:b]
    return floats, rows, [int(x[0]) for x in arrays]


SLICE_CASES = [(10, 0, 2, 8, 2), (10, -1, -3, -1, 1), (10, 3, 8, 2, -2), (10, 9, 0, 0, 1),
               (10, -10, -100, 100, 3), (10, 5, 9, -100, -1), (10, 2, 8, 1, -1),
               (3, 3, 0, 3, 1), (0, 0, 0, 1, 1), (10, 0, 1, 5, 0)]   # IndexError, ValueError


@pytest.mark.parametrize("args", SLICE_CASES)
def test_del_items_and_slices(args):
    check(deleted, *args)


def assigned(n, a, b, c, m):
    grow = [k for k in range(n)]
    grow[a:b] = [100 + k for k in range(m)]     # any length: the list grows or shrinks
    itself = [[k] for k in range(n)]
    itself[a:] = itself                          # the items are taken first
    stepped = [k * 0.5 for k in range(n)]
    stepped[a:b:c] = np.arange(m) * 1.0          # from an array: as many as the slice has
    return grow, itself, stepped


@pytest.mark.parametrize("args", [(10, 2, 8, 2, 3), (10, 2, 8, 1, 6), (10, -3, -1, 1, 2),
                                  (10, 8, 2, -2, 3), (10, 0, 0, 1, 0), (10, 5, 5, 1, 4),
                                  (0, 0, 0, 1, 0), (10, 8, 2, -2, 2),   # ValueError: sizes
                                  (6, 0, 6, 1, 9), (10, 0, 10, 0, 1)])  # ValueError: step 0
def test_slice_assignment(args):
    check(assigned, *args)


def test_extended_slice_of_another_size_says_it_cannot_resize():
    # CPython's ValueError; kiln's words add Numba's ('cannot resize')
    with pytest.raises(ValueError):
        assigned(10, 8, 2, -2, 2)
    with pytest.raises(ValueError, match="extended slice cannot resize the list"):
        jit(assigned)(10, 8, 2, -2, 2)


def ordered(a, b, c):
    x, y, z = [a, b, c], [a + 0.0, c], [1.0, b * 1.0]     # items equal by value, not identity
    empty = [k * 1.0 for k in range(0)]
    return (x < y, x <= y, x > y, x >= y, y < x, z < x, empty < x, x < empty, empty <= empty,
            [[1, 2], [3]] < [[1, 2], [3, 0]], [(1, 2.0)] > [(1, 1.5)], x <= x[:2])


@pytest.mark.parametrize("args", [(1.0, 2.0, 3.0), (1.0, 3.0, 2.0), (INF * 0.0, 1.0, 2.0),
                                  (2.0, 2.0, 2.0), (-0.0, 0.0, 1.0), (1.0, NAN * 1.0, 2.0)])
def test_lists_order_as_cpython_orders_them(args):
    check(ordered, *args)


def slice_is_a_copy(n):
    a = [k for k in range(n)]
    b = a[1:]
    b[0] = 100
    b.append(5)
    return a, b


def test_slice_is_a_copy():
    check(slice_is_a_copy, 4)


# ---- methods -----------------------------------------------------------------------------

def pop_at(n, i):
    l = [k * 1.5 for k in range(n)]
    v = l.pop(i)
    return v, l


def pop_last(n):
    l = [k for k in range(n)]
    v = l.pop()
    return v, l


def insert_at(n, i, v):
    l = [k for k in range(n)]
    l.insert(i, v)
    return l


@pytest.mark.parametrize("n, i", [(4, 0), (4, 3), (4, -1), (4, -4), (4, 4), (4, -5), (0, 0),
                                  (1, 0), (4, 100), (4, -100)])
def test_pop_and_insert(n, i):
    check(pop_at, n, i)
    check(pop_last, n)
    check(insert_at, n, i, -7)


def extend_with(n, x):
    l = [k * 1.0 for k in range(n)]
    l.extend(x)
    l.extend((9.5, 8.5))
    l.extend([k * 0.25 for k in range(3)])
    ints = [k for k in range(n)]
    ints.extend(range(2))
    ints.extend((7, -7))
    return l, ints


def extend_with_itself(n):
    l = [k for k in range(n)]
    l.extend(l)
    l += [7, 8]
    l += l
    return l


def test_extend():
    check(extend_with, 3, np.array([NAN, -0.0]))
    check(extend_with, 0, np.zeros(0))
    check(extend_with_itself, 0)
    check(extend_with_itself, 3)


def search(x, v):
    l = list(x)
    found = v in l, v not in l, l.count(v)
    l2 = list(x)
    index = l2.index(v)
    l2.remove(v)
    return found, index, l2


def index_between(x, v, start, stop):
    return list(x).index(v, start, stop)


@pytest.mark.parametrize("x, v", [((1, 2, 3, 2), 2), ((1, 2, 3, 2), 5), ((), 1),
                                  ((1.5, NAN, -0.0), 0.0), ((1.5, NAN), NAN)])
def test_in_count_index_remove(x, v):
    x = np.array(x, dtype=np.float64)
    check(search, x, v)


@pytest.mark.parametrize("start, stop", [(0, 10), (2, 10), (-2, 10), (0, -1), (3, 3), (-100, 2)])
def test_index_with_start_and_stop(start, stop):
    check(index_between, np.array([1, 2, 1, 2, 1]), 1, start, stop)


def test_index_bounds_must_be_integers():
    x = np.array([1, 2])
    for start, stop, name in [("a", 2, "start"), (0, 1.5, "stop")]:
        with pytest.raises(TypingError, match=f'arg "{name}" must be an Integer'):
            njit(index_between)(x, 1, start, stop)


def reverse_copy_clear(n):
    l = [(k, k * 0.5) for k in range(n)]
    c = l.copy()
    l.reverse()
    r = l.copy()
    l.clear()
    l.append((9, 9.5))
    return l, c, r


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_reverse_copy_clear(n):
    check(reverse_copy_clear, n)


def sort_floats(x, reverse):
    l = list(x)
    l.sort(reverse=reverse)
    return l, sorted(x), sorted(list(x), reverse=reverse)


def sort_ints(x):
    l = list(x)
    l.sort()
    return l, sorted(l, reverse=True)


def sort_tuples(x, y):
    l = list(zip(x, y))
    l.sort()
    return l, sorted(l, reverse=True)


@pytest.mark.parametrize("reverse", [False, True])
def test_sort_is_stable_and_takes_reverse(reverse):
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 31, 32, 33, 100, 1000):
        # 0.0 and -0.0 compare equal: a stable sort keeps their order, as CPython's
        x = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, INF, -INF]), n)
        check(sort_floats, x, reverse)
        check(sort_ints, rng.integers(-50, 50, n))
        check(sort_tuples, rng.integers(0, 3, n), rng.integers(0, 3, n))


@njit
def _negated(v):
    return -v


def sort_with_keys(x, reverse):
    l = list(x)
    l.sort(key=abs, reverse=reverse)
    by_parity = list(x)
    by_parity.sort(key=lambda v: v % 2 == 0)
    return l, by_parity, sorted(x, key=_negated), sorted(x, key=lambda v: v // 10,
                                                         reverse=reverse)


def sort_tuples_with_key(x, y, reverse):
    pairs = list(zip(x, y))
    return sorted(pairs, key=lambda p: p[1], reverse=reverse), \
        sorted(pairs, key=lambda p: (p[0], -p[1]))


@pytest.mark.parametrize("reverse", [False, True])
def test_sort_with_a_key_is_stable_and_takes_reverse(reverse):
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 33, 200):
        check(sort_with_keys, rng.integers(-50, 50, n), reverse)
        check(sort_tuples_with_key, rng.integers(0, 3, n), rng.integers(0, 3, n), reverse)
        # (no inf: inf // 10 is nan, and NaN keys order differently in any two sorts)
        floats = rng.choice(np.array([0.0, -0.0, 1.5, -1.5, 25.0, -7.25]), n)
        check(sort_with_keys, floats, reverse)


# ---- operators, len, truth, iteration ----------------------------------------------------

def operators(n, m, times):
    a = [k for k in range(n)]
    b = [k * 2 for k in range(m)]
    return a + b, a * times, times * b, len(a + b), a == b, a != b, a == a[:], a + [] == a


def truth(n):
    l = [k for k in range(n)]
    if l:
        return 1
    return 0


@pytest.mark.parametrize("n, m, times", [(0, 0, 3), (3, 2, 2), (2, 2, 0), (3, 3, -1), (1, 4, 1)])
def test_operators(n, m, times):
    check(operators, n, m, times)
    check(truth, n)


def iterate(n):
    l = [k * 0.5 for k in range(n)]
    total = 0.0
    for v in l:
        total = total * 2 + v
    pairs = [(i, v) for i, v in enumerate(l)]
    zipped = [a * b for a, b in zip(l, l[1:])]
    return total, pairs, zipped


def iterate_while_growing(n):
    l = [1]
    for v in l:
        if len(l) < n:
            l.append(v + 1)
    return l


@pytest.mark.parametrize("n", [0, 1, 5])
def test_iteration(n):
    check(iterate, n)
    check(iterate_while_growing, n)


def reductions(x):
    l = list(x)
    return sum(l), min(l), max(l)


def sum_of_ints(n):
    return sum([k for k in range(n)])


@pytest.mark.parametrize("x", [np.array([1.5, -2.0, 0.25]), np.array([-0.0, 0.0]),
                               np.array([NAN, 1.0]), np.array([1.0, NAN]), np.zeros(0),
                               np.array([3, -1, 2])])
def test_sum_min_max(x):
    check(reductions, x)
    check(sum_of_ints, len(x))


def to_array(x):
    return np.array(list(x)), np.asarray([v * 2 for v in x])


@pytest.mark.parametrize("x", [np.array([1.5, NAN, -0.0]), np.arange(4), np.zeros(0),
                               np.array([True, False])])
def test_np_array_of_a_list(x):
    expected, got = to_array(x), jit(to_array)(x)
    for e, g in zip(expected, got):
        assert same(e, g) and e.dtype == g.dtype


# ---- nested lists, lists of arrays and tuples --------------------------------------------

def aliasing(n):
    a = [0]
    b = [a, a]
    a.append(n)
    b[0].append(n + 1)
    c = b[1]
    return len(b[0]), len(b[1]), c, b


def grid(n, m):
    g = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            g[i][j] = i * 10.0 + j
    return g


def arrays_in_a_list(n):
    l = [np.arange(3.0) + k for k in range(n)]
    l.append(np.zeros(3))
    last = l.pop(0) if n else np.ones(3)
    total = 0.0
    for a in l:
        a += 1.0
        total += a.sum()
    return total, last, len(l)


def tuples_of_lists(n):
    pair = ([k for k in range(n)], [k * 0.5 for k in range(n)])
    pair[0].append(-1)
    return pair


@pytest.mark.parametrize("n", [0, 1, 4])
def test_nested_lists_and_aliasing(n):
    check(aliasing, n)
    check(grid, n, 3)
    check(tuples_of_lists, n)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_lists_of_arrays(n):
    expected = arrays_in_a_list(n)
    got = njit(arrays_in_a_list)(n)
    assert same(expected[0], got[0]) and same(expected[1], got[1]) and expected[2] == got[2]


def returns_arrays(n):
    return [np.full(2, k * 1.0) for k in range(n)]


def test_list_of_arrays_returned_to_python():
    got = njit(returns_arrays)(3)
    assert len(got) == 3 and all(same(np.full(2, k * 1.0), a) for k, a in enumerate(got))


# ---- kiln.typed.List between Python and compiled code ------------------------------------

def mutate(l, v):
    l.append(v)
    l[0] = v * 2
    return len(l)


def total(l):
    s = 0.0
    for v in l:
        s += v
    return s


def test_typed_list_is_shared_without_copying():
    l = List([1.0, 2.0, 3.0])
    assert njit(mutate)(l, 5.0) == 4
    assert l == [10.0, 2.0, 3.0, 5.0] and list(l) == [10.0, 2.0, 3.0, 5.0]
    assert njit(total)(l) == 20.0


def test_typed_list_from_python():
    l = List.empty_list(kiln.float64)
    assert len(l) == 0 and l == [] and repr(l) == "List([])"
    l.append(1)          # converted to the list's item type
    l.extend([2.5, -0.0])
    l.insert(0, 9.0)
    assert l == [9.0, 1.0, 2.5, -0.0] and l[-1] == 0.0 and math.copysign(1, l[-1]) == -1
    l[1] = 4.0
    assert l.pop() == 0.0 and l.pop(0) == 9.0 and l == [4.0, 2.5]
    assert 2.5 in l and 3.0 not in l and l.index(2.5) == 1 and l.count(4.0) == 1
    l.sort()
    assert list(l) == [2.5, 4.0] and l[::-1] == [4.0, 2.5]
    l.reverse()
    c = l.copy()
    l.clear()
    assert l == [] and c == [4.0, 2.5]
    with pytest.raises(IndexError):
        l.pop()
    with pytest.raises(IndexError):
        c[5]
    with pytest.raises(ValueError):
        c.remove(100.0)
    assert List(range(3)) == [0, 1, 2] and List((1.5,)) != [1.0]
    ints = List.empty_list(np.int32)
    ints.append(3)
    assert kiln.typeof(ints) == kiln.types.ListType(kiln.int32)


def test_one_function_for_lists_of_several_types():
    f = njit(total)
    assert f(List([1, 2])) == 3.0 and f(List([0.5])) == 0.5 and f(List([True])) == 1.0
    assert len(f.signatures) == 3


def test_a_returned_list_passed_back_in():
    made = njit(appended)(4)
    assert njit(total)(made) == total(appended(4))
    nested = njit(nested_comprehension)(4)
    assert plain(nested) == nested_comprehension(4)
    nested[3].append(100.0)   # the inner list is shared, not copied
    assert nested[3][-1] == 100.0


def test_typed_list_in_compiled_code():
    @njit
    def make():
        l = List()
        l.append(1.5)
        e = List.empty_list(kiln.int64)
        e.append(2)
        return l, e
    l, e = make()
    assert l == [1.5] and e == [2] and kiln.typeof(e) == kiln.types.ListType(kiln.int64)


# ---- bad input ---------------------------------------------------------------------------

def test_a_python_list_argument_is_reflected_or_says_what_to_pass():
    assert njit(total)([1.0, 2.0]) == total([1.0, 2.0])   # Numba's reflected list
    with pytest.raises(TypeError, match="kiln.typed.List"):
        njit(total)([1.0, (2.0, 3.0)])


def test_an_untyped_typed_list_argument_is_refused():
    with pytest.raises(TypeError, match="no item type yet"):
        njit(total)(List())


def conflicting_append(a):
    l = [a]
    l.append((a, a))
    return l


def float_into_int_list(n):
    l = [n]
    l.append(0.5)
    return l


def never_appended():
    l = []
    return l


def sort_with_capturing_key(n):
    l = [n]
    l.sort(key=lambda v: v - n)
    return l


def no_such_method(n):
    l = [n]
    l.push(1)
    return l


def out_of_range(i, what):
    l = [1.5, 2.5]
    if what == 0:
        return l[i]
    if what == 1:
        l[i] = 0.5
    else:
        del l[i]
    return l[0]


@pytest.mark.parametrize("i, what", [(2, 0), (-3, 0), (2, 1), (-3, 1), (5, 2), (-3, 2)])
def test_index_errors_say_what_cpython_says(i, what):
    with pytest.raises(IndexError) as want:
        out_of_range(i, what)
    with pytest.raises(IndexError, match=f"^{want.value}$"):
        njit(out_of_range)(i, what)


def complex_into_int_list(n):
    l = [n, 2]
    l[-2] = 7j
    return l


@pytest.mark.parametrize("fn, message", [
    (conflicting_append, "cannot append"),
    (complex_into_int_list, "cannot assign a complex128 to a list of int64.*Numba: invalid "
                            "setitem with value of complex128"),
    (float_into_int_list, "cannot append a float64 to a list of int64"),
    (sort_with_capturing_key, "key function that reads the enclosing function's locals"),
    (no_such_method, "push"),
])
def test_bad_lists_are_typing_errors_naming_the_line(fn, message):
    with pytest.raises(TypingError, match=message) as info:
        njit(fn)(1)
    assert fn.__name__ in str(info.value) or "line" in str(info.value)


def test_returning_a_list_never_given_items():
    with pytest.raises(TypingError, match="item type is not known"):
        njit(never_appended)()


def raises_while_holding_lists(n):
    arrays = [np.zeros(4) for _ in range(n)]
    nested = [[k] for k in range(n)]
    return arrays[n].sum() + nested[0][0]


def test_exceptions_release_every_list():
    with pytest.raises(IndexError):
        njit(raises_while_holding_lists)(3)


GLOBAL_LIST = List([1.0])


def reads_a_global_list():
    return GLOBAL_LIST[0]


def test_a_global_typed_list_is_refused():
    with pytest.raises(kiln.errors.UnsupportedError, match="GLOBAL_LIST"):
        njit(reads_a_global_list)()


def rows(a):
    return [a[i] for i in range(a.shape[0])], [(a, 1)]


def test_a_list_keeps_the_arrays_it_was_given_alive():
    import gc
    got, pairs = njit(rows)(np.arange(6.0).reshape(3, 2))   # the argument dies here
    gc.collect()
    junk = [np.full((3, 2), -1.0) for _ in range(50)]       # reuse its memory if freed
    assert [list(r) for r in got] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert pairs[0][0].shape == (3, 2) and pairs[0][0][2, 1] == 5.0
    del junk
    got[0][0] = 9.0       # still views of the argument's memory
    assert got[0][0] == 9.0


def test_typed_list_pickles_and_copies_by_value():
    import copy
    import pickle
    l = List.empty_list(kiln.int32)
    l.extend([3, 1, 2])
    for other in (pickle.loads(pickle.dumps(l)), copy.copy(l), copy.deepcopy(l)):
        assert other == [3, 1, 2] and kiln.typeof(other) == kiln.typeof(l)
        other.append(4)
        assert len(l) == 3
    nested = njit(nested_comprehension)(3)
    assert plain(pickle.loads(pickle.dumps(nested))) == nested_comprehension(3)
    assert pickle.loads(pickle.dumps(List())) == []


def caught_while_holding_lists(n):
    arrays = [np.zeros(2) + k for k in range(n)]
    try:
        found = arrays[n]
        total = found.sum()
    except IndexError:
        arrays.append(np.ones(2))
        total = -1.0
    rows = [[k] * 2 for k in range(n)]
    try:
        rows.pop(n)
    except IndexError:
        total -= len(rows)
    return total, len(arrays)


@pytest.mark.parametrize("n", [0, 3])
def test_caught_exceptions_release_lists(n):
    expected, got = caught_while_holding_lists(n), jit(caught_while_holding_lists)(n)
    assert same(expected, got)

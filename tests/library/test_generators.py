"""Generators and generator expressions in compiled code against CPython: generator
functions (several yields in loops and ifs, bare `yield`, `return`, `yield from`), their
consumers (`for`, `next`, `list`, `sum`, `min`/`max`, `any`/`all`, `sorted`, `zip`,
`enumerate`), generators of arrays, early exits and generators dropped unfinished (the
leak fixture checks that nothing is left), exceptions raised inside a generator, generators
returned to Python and passed back in, and the errors for what kiln refuses.

Each test builds its functions with a `jit` decorator given as argument: once with a
no-op (plain CPython generators, the reference) and once with `njit`."""
import math

import numpy as np
import pytest

from helpers import same
from kiln import njit
from kiln.errors import TypingError, UnsupportedError
from kiln.typed import List
from kiln.typed.generator import Generator

NAN, INF = math.nan, math.inf


def plain(f):
    return f


def normal(value):
    """Python's view of a result: kiln's List and generators as lists, recursively."""
    if isinstance(value, (List, Generator)):
        return [normal(v) for v in value]
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, tuple):
        return tuple(normal(v) for v in value)
    return value


def agree(expected, got):
    if isinstance(expected, (list, tuple)):
        return type(got) is type(expected) and len(got) == len(expected) and \
            all(agree(e, g) for e, g in zip(expected, got))
    if expected is None:
        return got is None
    return same(expected, got)


def check(make, *args):
    """`make(jit)` gives the function to test: CPython's result (or exception) and kiln's
    must agree."""
    try:
        expected = normal(make(plain)(*args))
    except Exception as e:
        with pytest.raises(type(e)) as info:
            make(njit)(*args)
        assert info.value.args == e.args
        return
    got = normal(make(njit)(*args))
    assert agree(expected, got), f"CPython {expected!r}, kiln {got!r}"


SIZES = [0, 1, 2, 7, -3]
ARRAYS = [np.array([1.5, -2.0, 0.0, 3.25]), np.array([], np.float64),
          np.array([NAN, 1.0, -INF, 2.0]), np.array([-0.0, 0.0])]


# ---- generator functions ------------------------------------------------------------------

def several_yields(jit):
    @jit
    def gen(n):
        yield -1
        for i in range(n):
            if i % 3 == 0:
                yield i * i
            elif i % 3 == 1:
                continue
            else:
                j = 0
                while j < i:
                    yield 10 * i + j
                    j += 2
        yield 1000

    @jit
    def consume(n):
        out = []
        for x in gen(n):
            out.append(x)
        return out
    return consume


@pytest.mark.parametrize("n", SIZES)
def test_several_yields_in_loops_and_ifs(n):
    check(several_yields, n)


def empty_generator(jit):
    @jit
    def gen(n):
        if n > 100:
            yield n
        return

    @jit
    def consume(n):
        total = 0
        count = 0
        for x in gen(n):
            total += x
            count += 1
        return total, count, list(gen(n)), sum(gen(n))
    return consume


@pytest.mark.parametrize("n", [0, 5, 101])
def test_empty_generator(n):
    check(empty_generator, n)


def return_ends_it(jit):
    @jit
    def gen(n, stop):
        for i in range(n):
            if i == stop:
                return
            yield float(i)
        yield -1.0

    @jit
    def consume(n, stop):
        return list(gen(n, stop))
    return consume


@pytest.mark.parametrize("n, stop", [(5, 2), (5, 0), (5, 9), (0, 0)])
def test_return_ends_the_generator(n, stop):
    check(return_ends_it, n, stop)


def bare_yield(jit):
    @jit
    def gen(n):
        for _ in range(n):
            yield

    @jit
    def consume(n):
        count = 0
        for x in gen(n):
            if x is None:
                count += 1
        return count
    return consume


@pytest.mark.parametrize("n", SIZES)
def test_bare_yield_gives_none(n):
    check(bare_yield, n)


def mixed_numbers(jit):
    @jit
    def gen(n):
        for i in range(n):
            yield i
            yield i / 4

    @jit
    def consume(n):   # kiln yields float64 throughout, as a local assigned both would hold
        return [float(x) for x in gen(n)], sum(gen(n))
    return consume


def test_yield_types_are_unified():
    check(mixed_numbers, 4)


def arrays(jit):
    @jit
    def tails(a):
        for i in range(a.shape[0]):
            yield a[i:] * 2.0

    @jit
    def consume(a):
        out = []
        for t in tails(a):
            out.append(t.sum())
        return out
    return consume


@pytest.mark.parametrize("a", ARRAYS)
def test_generator_of_arrays(a):
    check(arrays, a)


def tuples(jit):
    @jit
    def pairs(a):
        for i in range(a.shape[0]):
            yield i, a[i]

    @jit
    def consume(a):
        best = (-1, -INF)
        for pair in pairs(a):
            if pair[1] > best[1]:
                best = pair
        return best
    return consume


@pytest.mark.parametrize("a", ARRAYS)
def test_generator_of_tuples(a):
    check(tuples, a)


def arguments_kept(jit):
    @jit
    def gen(a, lst):
        for x in lst:
            yield a.sum() + x

    @jit
    def consume(n):
        g = gen(np.arange(float(n)), [1.0, 2.0])  # the temporaries die before g runs
        return list(g)
    return consume


@pytest.mark.parametrize("n", [0, 3])
def test_generator_keeps_its_arguments(n):
    check(arguments_kept, n)


# ---- consumers ------------------------------------------------------------------------------

def next_calls(jit):
    @jit
    def gen(n):
        for i in range(n):
            yield i * 3

    @jit
    def consume(n):
        g = gen(n)
        first = next(g, -1)
        second = next(g, -1)
        rest = 0
        for x in g:
            rest += x
        return first, second, rest, next(g, -7)
    return consume


@pytest.mark.parametrize("n", SIZES)
def test_next_with_default_and_the_rest_in_a_loop(n):
    check(next_calls, n)


def stop_iteration(jit):
    @jit
    def gen(n):
        for i in range(n):
            yield i

    @jit
    def consume(n):
        g = gen(n)
        return next(g) + next(g)
    return consume


@pytest.mark.parametrize("n", [0, 1, 2])
def test_next_raises_stop_iteration(n):
    check(stop_iteration, n)


def builtins_of_genexprs(jit):
    @jit
    def f(a):   # sum's start is a float, as kiln types sum() of floats as float
        return (sum((x * x for x in a), 0.0), any(x > 1 for x in a), all(x > -5 for x in a),
                list(x + 1 for x in a if x == x), sorted(-x for x in a if x == x),
                len(set(x > 0 for x in a)))
    return f


@pytest.mark.parametrize("a", ARRAYS)
def test_generator_expressions_in_builtins(a):
    check(builtins_of_genexprs, a)


def min_max(jit):
    @jit
    def f(a):
        return max(abs(x) for x in a), min(x - 1 for x in a)
    return f


@pytest.mark.parametrize("a", ARRAYS)
def test_min_max_of_generator_expressions(a):
    check(min_max, a)   # empty: CPython's ValueError


def genexpr_closure(jit):
    @jit
    def f(a, scale):
        offset = scale * 2
        return sum((x * scale + offset for x in a for y in range(2) if y <= x), 0.0)
    return f


@pytest.mark.parametrize("a", ARRAYS[:2])
def test_generator_expression_reads_outer_locals(a):
    check(genexpr_closure, a, 3.0)


def zip_enumerate(jit):
    @jit
    def gen(n):
        for i in range(n):
            yield i - 2

    @jit
    def f(n):
        total = 0
        for i, (a, b) in enumerate(zip(gen(n), range(10, 20))):
            total += i * a + b
        return total
    return f


@pytest.mark.parametrize("n", [0, 3, 15])
def test_zip_and_enumerate_over_a_generator(n):
    check(zip_enumerate, n)


def zip_stops_at_first(jit):
    @jit
    def f(n, m):
        it, it2 = iter(range(m)), iter(range(m))
        front = [a * 10 + b for a, b in zip(range(n), it)]   # `it` left past its n-th item
        back = [a * 10 + b for a, b in zip(it2, range(n))]   # `it2` past its (n+1)-th
        empty = 0
        for _ in zip():
            empty += 1
        return front, [x for x in it], [x for x in it2], empty
    return f


@pytest.mark.parametrize("n, m", [(3, 7), (0, 2), (4, 4), (5, 2)])
def test_zip_takes_nothing_past_the_shortest(n, m):
    check(zip_stops_at_first, n, m)


def yield_from(jit):
    @jit
    def inner(n):
        for i in range(n):
            yield i * 10

    @jit
    def outer(n):
        yield from range(n)
        yield -1
        yield from inner(n)
        yield from np.arange(n)

    @jit
    def f(n):
        return list(outer(n))
    return f


@pytest.mark.parametrize("n", [0, 3])
def test_yield_from_a_range_a_generator_and_an_array(n):
    check(yield_from, n)


# ---- early exits and drops: the leak fixture checks them ------------------------------------

def early_break(jit):
    @jit
    def gen(a):
        held = [a * 2.0, a + 1.0]
        for x in held:
            yield x.sum()
        yield 0.5

    @jit
    def f(a):
        total = 0.0
        for x in gen(a):
            total += x
            break
        for x in gen(a):
            return x + total
        return -1.0
    return f


@pytest.mark.parametrize("a", ARRAYS[:2])
def test_early_break_and_return_from_a_loop_over_a_generator(a):
    check(early_break, a)


def dropped(jit):
    @jit
    def gen(a):
        local = a + 1.0
        for i in range(3):
            yield local * i

    @jit
    def f(a):
        g = gen(a)
        first = next(g)
        h = gen(a)   # never started
        h = gen(a)
        return first.sum()
    return f


def test_generators_dropped_unfinished():
    check(dropped, np.array([1.0, 2.0]))


# ---- exceptions ----------------------------------------------------------------------------

def raising(jit):
    @jit
    def gen(a):
        held = a * 2.0
        for i in range(a.shape[0]):
            if a[i] < 0:
                raise ValueError("negative item")
            yield held[i]

    @jit
    def f(a):
        total = 0.0
        for x in gen(a):
            total += x
        return total
    return f


@pytest.mark.parametrize("a", [np.array([1.0, 2.0]), np.array([1.0, -2.0, 3.0])])
def test_exception_inside_the_generator_reaches_the_caller(a):
    check(raising, a)


def caught(jit):
    @jit
    def gen(n):
        for i in range(n):
            if i == 2:
                raise KeyError(i)
            yield i

    @jit
    def f(n):
        g = gen(n)
        got = []
        try:
            for x in g:
                got.append(x)
        except KeyError:
            got.append(-1)
        got.append(next(g, -2))  # a generator that raised is finished
        return got
    return f


@pytest.mark.parametrize("n", [1, 5])
def test_exception_from_a_generator_caught_by_the_caller(n):
    check(caught, n)


def reentrant(jit):
    @jit
    def squares(n):
        for i in range(n):
            yield i * i

    @jit
    def relay(gens):
        for h in gens:
            for x in h:
                yield x

    @jit
    def f(n):
        gens = [squares(n)]
        g = relay(gens)
        gens.append(g)   # g will iterate over itself
        total = 0
        try:
            for x in g:
                total += x
        except ValueError:
            total = -total - 1
        gens.pop()   # no cycle left: the leak fixture sees everything freed
        return total
    return f


def test_generator_resumed_from_inside_itself():
    check(reentrant, 4)


# ---- the Python boundary -------------------------------------------------------------------

@njit
def squares(n):
    for i in range(n):
        yield i * i


@njit
def tails(a):
    for i in range(a.shape[0]):
        yield a[i:]


@njit
def two_more(g):
    return next(g) + next(g)


def test_generator_returned_to_python_is_an_iterator():
    g = squares(5)
    assert iter(g) is g
    assert list(g) == [0, 1, 4, 9, 16]
    assert list(g) == []
    with pytest.raises(StopIteration):
        next(g)


def test_generator_passed_back_in_continues():
    g = squares(6)
    assert next(g) == 0
    assert two_more(g) == 1 + 4
    assert list(g) == [9, 16, 25]


def test_generator_of_arrays_in_python_dropped_unfinished():
    a = np.arange(4.0)
    g = tails(a)
    first = next(g)
    assert np.array_equal(first, a)
    del g
    assert np.array_equal(list(tails(a))[-1], a[3:])


def test_generator_raising_in_python():
    f_gen = raising_gen(np.array([1.0, -1.0]))
    assert next(f_gen) == 2.0
    with pytest.raises(ValueError, match="negative item"):
        next(f_gen)
    with pytest.raises(StopIteration):
        next(f_gen)


@njit
def raising_gen(a):
    for i in range(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative item")
        yield a[i] * 2.0


def test_generators_of_other_types_passed_back_in():
    assert two_more(squares(3)) == 1
    assert same(3.0, two_more(raising_gen(np.array([0.5, 1.0]))))
    with pytest.raises(ValueError, match="negative item"):
        two_more(raising_gen(np.array([0.5, -1.0])))


# ---- what kiln refuses ---------------------------------------------------------------------

def test_send_is_refused():
    @njit
    def gen(n):
        x = yield n
        yield x

    with pytest.raises(UnsupportedError, match="do not receive values") as info:
        gen(1)
    assert "line" in str(info.value)


def test_yield_inside_try_is_refused():
    @njit
    def gen(n):
        try:
            yield n
        finally:
            pass

    with pytest.raises(UnsupportedError, match="inside a try statement"):
        gen(1)


def test_return_with_a_value_is_refused():
    @njit
    def gen(n):
        yield n
        return 5

    with pytest.raises(TypingError, match="returns a value"):
        gen(1)


def test_a_declared_return_type_that_is_not_the_generator():
    with pytest.raises(TypingError, match="declared to return int64"):
        @njit("int64(int64)")
        def gen(n):
            yield n


def test_yields_without_a_common_type():
    @njit
    def gen(a):
        yield a
        yield (1, 2)

    with pytest.raises(TypingError, match="no common type"):
        gen(np.arange(2.0))


@njit
def items_and_views(a):
    for i in range(a.shape[0]):
        yield a[i:i + 1]


@njit
def generator_of_argument(a):
    return items_and_views(a[1:])


def test_generator_keeps_a_numpy_array_alive():
    """An array from Python (or a view of one) is held by the generator, not borrowed:
    the generator outlives the call, and Python may drop the array first."""
    import gc
    import sys
    a = np.arange(1000.0)
    base = sys.getrefcount(a)
    g, h = items_and_views(a), generator_of_argument(a)
    assert sys.getrefcount(a) > base
    del a
    gc.collect()
    junk = [np.full(1000, 7.0) for _ in range(10)]   # reuse freed memory, if any was freed
    assert [float(x[0]) for x in g] == [float(i) for i in range(1000)]
    assert float(next(h)[0]) == 1.0
    b = np.arange(3.0)
    g = items_and_views(b)
    del g, h, junk
    gc.collect()
    assert sys.getrefcount(b) == base


# ---- iter() --------------------------------------------------------------------------------

def iterator_shared_by_next_and_for(jit):
    @jit
    def f(x):
        it = iter(x)
        head = (next(it, -1.0), next(it, -2.0))
        return head, sum(it, 0.0), next(it, 99.0)    # sum goes on where next() left off
    return f


@pytest.mark.parametrize("x", ARRAYS + [np.arange(5.0)[::-2]])
def test_iter_of_an_array(x):
    check(iterator_shared_by_next_and_for, x)


@pytest.mark.parametrize("x", [[1.5, 2.5, -3.0], [], [7.0]])
def test_iter_of_a_list(x):
    expected = iterator_shared_by_next_and_for(plain)(list(x))
    got = iterator_shared_by_next_and_for(njit)(List.empty_list(float) if not x else List(x))
    assert agree(expected, got)


def iter_of_ranges_strings_dicts_and_generators(jit):
    @jit
    def f(n, s):
        r = iter(range(n, -1, -2))
        chars = iter(s)
        d = {}
        for i in range(n):
            d[i * 3] = i
        keys = iter(d)
        squares = (i * i for i in range(n))
        same_generator = iter(squares)
        return (next(r), sum(r), next(chars, "?") + next(chars, "!"), next(keys, -1),
                sum(keys), next(same_generator, -1), next(squares, -1))
    return f


@pytest.mark.parametrize("n, s", [(5, "héllo"), (0, ""), (1, "a"), (10, "πλ")])
def test_iter_of_ranges_strings_dicts_and_generators(n, s):
    check(iter_of_ranges_strings_dicts_and_generators, n, s)


def next_past_the_end(jit):
    @jit
    def f(x):
        it = iter(x)
        return next(it)
    return f


def test_next_past_the_end_raises_stop_iteration():
    check(next_past_the_end, np.zeros(0))


def test_iter_of_a_number_is_a_typing_error():
    with pytest.raises(TypingError, match="iter"):
        njit(lambda x: iter(x))(3.0)

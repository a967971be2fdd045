"""`for x in a_list` borrows each item instead of counting it (codegen/borrowing.py) only
where nothing in the loop can take the item out of the list. Each function is checked
against CPython (and the leak check in conftest.py runs after each test); the analysis'
answer is checked too, so that a loop that could free its item keeps an owning local."""
import numpy as np
import pytest

from helpers import check
from kiln import library, njit, objmode, types
from kiln.codegen.borrowing import borrowed_loop_names
from kiln.experimental import jitclass
from kiln.typed import List
from kiln.typing.context import TypingContext


def borrowed(pyfunc, *argtypes):
    library.load()
    tctx = TypingContext("cpu")
    return borrowed_loop_names(tctx.type_function(pyfunc, argtypes), tctx)


def reads(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        total += a.sum() * a[-1]
    return total


def stores_and_returns(n):
    """The item outlives the list, in another container and as the result."""
    items = [np.arange(i + 1.0) for i in range(n)]
    kept = [(np.zeros(1), 0)]
    for a in items:
        kept.append((a, a.size))
        if a.size == 7:
            return a, len(kept)          # the list is freed on the way out
    items = [np.zeros(1)]                # the list freed: kept holds its items
    total = np.zeros(1)
    for b, size in kept:
        total += b.sum() * size
    return total, len(kept)


def raises(n):
    items = [np.ones(i + 1) for i in range(n)]
    total = 0.0
    for a in items:
        if a.size > 3:
            raise ValueError("too long")
        total += a.sum()
    return total


def pops(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        items.pop()          # drops the last item: once a was the last, only a holds it
        total += a.sum()
    return total, len(items)


def replaces(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        items[-1] = np.zeros(2)      # at the last item, drops a itself
        total += a.sum()
    return total


def rebinds(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        a = a * 2.0
        total += a.sum()
    return total


def read_after(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    for a in items:
        pass
    items.clear()
    return a.sum()


def _drop_all(items):
    items.clear()


def passes_the_list(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        _drop_all(items)
        total += a.sum()
    return total


def _python_hook():
    with objmode():
        pass


def calls_python(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        _python_hook()
        total += a.sum()
    return total


def captures(n):
    items = [np.arange(i + 1.0) for i in range(n)]
    total = 0.0
    for a in items:
        def part():
            return a.sum()
        total += part()
    return total


SAFE = [reads, stores_and_returns, raises]
UNSAFE = [pops, replaces, rebinds, read_after, passes_the_list, calls_python,
          captures]


def test_borrows_only_where_the_list_keeps_the_item():
    global _drop_all, _python_hook
    _drop_all, _python_hook = njit(_drop_all), njit(_python_hook)
    for fn in SAFE:
        assert borrowed(fn, types.int64) == {"a"}, fn.__name__
    for fn in UNSAFE:
        assert borrowed(fn, types.int64) == set(), fn.__name__


@pytest.mark.parametrize("fn", SAFE + UNSAFE[:4], ids=lambda fn: fn.__name__)
def test_results_as_python(fn):
    for n in (0, 1, 5, 9):
        check(fn, n)


class _Bag:
    def __init__(self, n):
        self.items = List()
        for i in range(n):
            self.items.append(np.arange(i + 1.0))

    def drop(self):
        self.items.pop()


Bag = jitclass(_Bag, [("items", types.ListType(types.float64[::1]))])


def through_an_object(bag):
    total = 0.0
    for a in bag.items:
        bag.drop()            # the object reaches the list: its items stay owned
        total += a.sum()
    return total


def test_an_object_that_reaches_the_list_keeps_the_item_owned():
    assert borrowed(through_an_object, types.typeof(Bag(1))) == set()
    assert njit(through_an_object)(Bag(6)) == through_an_object(_Bag(6))

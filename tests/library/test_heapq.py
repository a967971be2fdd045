"""heapq on lists in compiled code (issue 32), item for item against CPython's heapq: the
heaps built, the items popped, the lists left behind."""
import copy
import heapq
import random

import numpy as np
import pytest

from helpers import jit
from kiln import njit


def push_all_then_pop_some(xs, k):
    heap = [xs[0]]
    heap.pop()
    for x in xs:
        heapq.heappush(heap, x)
    popped = [heapq.heappop(heap) for _ in range(k)]
    return heap, popped


def heapify_then_replace(xs, v):
    heapq.heapify(xs)
    first = heapq.heapreplace(xs, v)
    second = heapq.heappushpop(xs, v - 1)
    return first, second


def smallest_and_largest(xs, n):
    return heapq.nsmallest(n, xs), heapq.nlargest(n, xs)


def pop_empty(xs):
    xs.clear()
    return heapq.heappop(xs)


@pytest.mark.parametrize("n", [1, 2, 9, 40])
def test_against_cpython(n):
    rng = random.Random(n)
    for xs in ([rng.randint(-5, 5) for _ in range(n)], [rng.uniform(-1, 1) for _ in range(n)]):
        for fn, extra in ((push_all_then_pop_some, min(n, 3)), (heapify_then_replace, 2),
                          (smallest_and_largest, 3)):
            py_list, jit_list = copy.copy(xs), copy.copy(xs)
            expected, got = fn(py_list, extra), jit(fn)(jit_list, extra)
            assert [list(g) if not np.isscalar(g) else g for g in got] == \
                [list(e) if not np.isscalar(e) else e for e in expected]
            assert jit_list == py_list


def test_errors_as_cpython():
    with pytest.raises(IndexError):
        jit(pop_empty)([1, 2])
    with pytest.raises(Exception, match="works on a list"):
        njit(lambda a: heapq.heapify(a))(np.arange(3))

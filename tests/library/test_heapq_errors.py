"""heapq's refusals, in the words Numba's users search for ("heap argument must be a
list", "heap type must be the same as item type", "First argument 'n' must be an
integer", Python's "'<' not supported between instances of ..."), each a TypingError."""
import heapq

import pytest

from kiln import njit
from kiln.errors import TypingError
from kiln.typed import List


@pytest.mark.parametrize("fn, extra", [(heapq.heapify, ()), (heapq.heappop, ()),
                                       (heapq.heappush, (6,)), (heapq.heapreplace, (6,)),
                                       (heapq.heappushpop, (6,))])
def test_the_heap_must_be_a_list(fn, extra):
    f = njit(lambda heap, *args: fn(heap, *args))
    with pytest.raises(TypingError, match="heap argument must be a list"):
        f((1, 5, 4), *extra)


@pytest.mark.parametrize("fn", [heapq.heappush, heapq.heapreplace, heapq.heappushpop])
def test_the_item_must_be_the_heaps_type(fn):
    f = njit(lambda heap, item: fn(heap, item))
    for item in (6.0, False):
        with pytest.raises(TypingError, match="heap type must be the same as item type"):
            f(List([1, 5, 4]), item)
    heap, python_heap = List([1.0, 5.0]), [1.0, 5.0]
    f(heap, 3)   # an int goes into a heap of floats, as append takes it
    fn(python_heap, 3)
    assert list(heap) == python_heap


def test_nsmallest_arguments():
    for fn in (heapq.nsmallest, heapq.nlargest):
        f = njit(lambda n, items: fn(n, items))
        with pytest.raises(TypingError, match="First argument 'n' must be an integer"):
            f(2.2, List([3, 2, 1]))
        with pytest.raises(TypingError, match="Second argument 'iterable' must be iterable"):
            f(2, 100)
        assert list(f(2, (3, 1, 2))) == fn(2, (3, 1, 2))


def test_complex_items_have_no_order():
    with pytest.raises(TypingError, match="'<' not supported between instances of 'complex' "
                                          "and 'complex'"):
        njit(lambda heap: heapq.heapify(heap))(List([1 + 1j, 2 - 3j]))

"""The `heapq` module on lists in compiled code: a binary min-heap kept in a list, moved
the way CPython's heapq moves items (the same comparisons in the same order), so a heap
built here is item for item the heap CPython builds. nsmallest and nlargest sort."""
from __future__ import annotations

import heapq

from .. import types as t
from ..errors import TypingError
from ..typing.unify import can_convert
from ..typing.registry import overload, register_jitable


def _check_heap(heap, what):
    if not isinstance(heap, t.ListType):
        raise TypingError(f"heapq.{what}() works on a list: the heap argument must be a list, "
                          f"not {heap}")


def _check_item(heap, item, what):
    """The item pushed must be of a type the heap's items take without loss: an int goes
    into a heap of floats; a float into a heap of ints does not (as `append` refuses), nor
    a bool into a heap of numbers (it would come back as 0 or 1, not False or True)."""
    item, items = t.unliteral(item), heap.item_type
    if heap.is_undefined:
        return
    if not can_convert(item, items) or \
            isinstance(item, t.Boolean) and not isinstance(items, t.Boolean):
        raise TypingError(f"heapq.{what}(): heap type must be the same as item type (the heap "
                          f"holds {items}; an item of type {item} would not come back as it "
                          "went in)")


@register_jitable
def _sift_toward_root(heap, start, pos):
    """The item at `pos` moves up past every larger parent, but not above `start`."""
    item = heap[pos]
    while pos > start:
        parent = (pos - 1) >> 1
        if item < heap[parent]:
            heap[pos] = heap[parent]
            pos = parent
        else:
            break
    heap[pos] = item


@register_jitable
def _sift_to_leaf(heap, pos):
    """The item at `pos` goes down along the smaller children to a leaf, then back up to
    its place (fewer comparisons than stopping on the way down: CPython's order)."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not heap[child] < heap[right]:
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_toward_root(heap, start, pos)


@register_jitable
def _replace_smallest(heap, item):
    """The smallest item, `item` put in its place and sifted down."""
    smallest = heap[0]
    heap[0] = item
    _sift_to_leaf(heap, 0)
    return smallest


@overload(heapq.heapify)
def _heapify(x):
    _check_heap(x, "heapify")

    def heapify(x):
        for i in range(len(x) // 2 - 1, -1, -1):
            _sift_to_leaf(x, i)
    return heapify


@overload(heapq.heappush)
def _heappush(heap, item):
    _check_heap(heap, "heappush")
    _check_item(heap, item, "heappush")

    def heappush(heap, item):
        heap.append(item)
        _sift_toward_root(heap, 0, len(heap) - 1)
    return heappush


@overload(heapq.heappop)
def _heappop(heap):
    _check_heap(heap, "heappop")

    def heappop(heap):
        last = heap.pop()      # IndexError on an empty heap, as CPython's
        if len(heap) == 0:
            return last
        return _replace_smallest(heap, last)
    return heappop


@overload(heapq.heapreplace)
def _heapreplace(heap, item):
    _check_heap(heap, "heapreplace")
    _check_item(heap, item, "heapreplace")

    def heapreplace(heap, item):
        if len(heap) == 0:
            raise IndexError("index out of range")
        return _replace_smallest(heap, item)
    return heapreplace


@overload(heapq.heappushpop)
def _heappushpop(heap, item):
    _check_heap(heap, "heappushpop")
    _check_item(heap, item, "heappushpop")

    def heappushpop(heap, item):
        if len(heap) > 0 and heap[0] < item:
            return _replace_smallest(heap, item)
        return item
    return heappushpop


def _selection(largest):
    def typer(n, iterable):
        what = "nlargest" if largest else "nsmallest"
        if not isinstance(n, (t.Integer, t.Boolean)):
            raise TypingError(f"heapq.{what}(): First argument 'n' must be an integer, not {n}")
        if isinstance(iterable, (t.Number, t.NoneType)):
            raise TypingError(f"heapq.{what}(): Second argument 'iterable' must be iterable, "
                              f"not {iterable}")

        def select(n, iterable):
            ordered = sorted(iterable, reverse=largest)
            return ordered[:max(n, 0)]
        return select
    return typer


overload(heapq.nsmallest)(_selection(largest=False))
overload(heapq.nlargest)(_selection(largest=True))

"""Every list operation, written in Python on the primitives of library/list_layout.py
(which holds the layout of `ListType`), and the typing of list displays and of the
methods that fix the item type of `[]`. The primitives do no bounds checks: these
operations check indices as Python does and raise its exceptions.
"""
from __future__ import annotations

import operator

import numpy as np

from .. import types as t
from ..errors import TypingError
from ..typing import families
from ..typing.unify import can_convert, held, unify
from .list_layout import (_INTLIKE, _list_get, _list_init, _list_items, _list_len, _list_move,
                          _list_new_like, _list_release, _list_replace, _list_reserve,
                          _list_set_size, _list_take, _slice_indices, list_maker, size_of)
from ..typing.registry import omitted, overload, overload_method, register_jitable, template

# ---- typing helpers ----------------------------------------------------------------------

def implied_list_type(receiver, method, args):
    """The list type that `receiver.method(*args)` fixes for a list whose item type is not
    known yet (`l = []; l.append(x)`), or None."""
    if not isinstance(receiver, t.ListType) or not receiver.is_undefined:
        return None
    from .iteration import item_type_of
    item = None
    if method == "append" and len(args) == 1:
        item = args[0]
    elif method == "insert" and len(args) == 2:
        item = args[1]
    elif method == "extend" and len(args) == 1:
        item = item_type_of(args[0])
    if item is None or isinstance(item, t.Undefined):
        return None
    return receiver.of(held(item))


@families.display("list")
def display_type(item_types):
    """The type of the display `[a, b, ...]`: its items' common type, or a literal list
    of their own types when they have none (library/literal_lists.py)."""
    items = [held(ty) for ty in item_types]
    result = t.undefined
    for ty in items:
        merged = ty if isinstance(result, t.Undefined) else unify(result, ty)
        if merged is None:
            return t.LiteralList(items)
        result = merged
    return t.List(result)


families.item_fixer(implied_list_type, lambda receiver, method, args: False)


def _require_item(lst, value, what):
    if not can_convert(value, lst.item_type):
        numba = f"; Numba: invalid setitem with value of {value} to element of {lst}" \
            if what == "assign" else ""
        raise TypingError(f"cannot {what} a {value} to a list of {lst.item_type} items "
                          f"({lst}); a list holds items of one type (cannot safely cast "
                          f"{held(value)} to {lst.item_type}{numba})")


def _require_defined(lst, what):
    if lst.is_undefined:
        raise TypingError(f"cannot {what} a list whose item type is not known (nothing is "
                          "ever added to it)")


# ---- operations --------------------------------------------------------------------------

@template(len)
def _len(tctx, lst):
    if not isinstance(lst, t.ListType):
        return None
    return t.int64(lst), lambda context, b, sig, args: size_of(b, args[0])


@overload(operator.truth)
def _truth(lst):
    if isinstance(lst, t.ListType):
        def impl(lst):
            return _list_len(lst) != 0
        return impl
    return None


@register_jitable
def _position(lst, i):
    """Item i's position (negative i counts from the end), or -1 past either end."""
    n = _list_len(lst)
    if i < 0:
        i += n
    return i if 0 <= i < n else -1


@register_jitable
def _index(lst, i):
    k = _position(lst, i)
    if k < 0:
        raise IndexError("list index out of range")
    return k


@register_jitable
def _assigned_index(lst, i):
    k = _position(lst, i)
    if k < 0:   # CPython's words for `l[i] = v` and `del l[i]`
        raise IndexError("list assignment index out of range")
    return k


@overload(operator.getitem)
def _getitem(lst, index):
    if not isinstance(lst, t.ListType):
        return None
    _require_defined(lst, "read an item of")
    if isinstance(index, _INTLIKE):
        def impl(lst, index):
            return _list_get(lst, _index(lst, index))
        return impl
    if isinstance(index, t.SliceType):
        def impl_slice(lst, index):
            start, step, count = _slice_indices(index, _list_len(lst))
            result = _list_new_like(lst, count)
            for k in range(count):
                _list_init(result, k, _list_get(lst, start + k * step))
            _list_set_size(result, count)
            return result
        return impl_slice
    return None


@overload(operator.setitem)
def _setitem(lst, index, value):
    if not isinstance(lst, t.ListType):
        return None
    if isinstance(index, t.SliceType):
        return _assign_slice(lst, value)
    if not isinstance(index, _INTLIKE):
        return None
    _require_defined(lst, "assign an item of")
    _require_item(lst, value, "assign")

    def impl(lst, index, value):
        _list_replace(lst, _assigned_index(lst, index), value)
    return impl


def _assign_slice(lst, value):
    """`l[a:b] = items` (any length, the list grows or shrinks) and `l[a:b:c] = items`
    (as many items as the slice has), the items taken from any iterable first, as CPython
    does (so `l[1:] = l` works)."""
    from .iteration import item_type_of
    item = item_type_of(value)
    if item is None:
        raise TypingError(f"can only assign an iterable to a list slice, not {value}")
    _require_defined(lst, "assign a slice of")
    _require_item(lst, item, "assign")

    def impl(lst, index, value):
        items = _list_new_like(lst, 0)
        for v in value:
            items.append(v)
        n, m = _list_len(lst), _list_len(items)
        start, step, count = _slice_indices(index, n)
        if step == 1:
            _list_release(lst, start, start + count)
            _list_reserve(lst, n - count + m)
            _list_move(lst, start + m, start + count, n - start - count)
            for k in range(m):
                _list_init(lst, start + k, _list_take(items, k))
            _list_set_size(items, 0)
            _list_set_size(lst, n - count + m)
            return
        if m != count:
            raise ValueError("attempt to assign a sequence to an extended slice of "
                             "another size (an extended slice cannot resize the list)")
        for k in range(count):
            _list_replace(lst, start + k * step, _list_get(items, k))
    return impl


@overload(operator.delitem)
def _delitem(lst, index):
    """`del l[i]` and `del l[a:b:c]`."""
    if not isinstance(lst, t.ListType):
        return None
    _require_defined(lst, "delete an item of")
    if isinstance(index, _INTLIKE):
        def impl(lst, index):
            n = _list_len(lst)
            i = _assigned_index(lst, index)
            _list_release(lst, i, i + 1)
            _list_move(lst, i, i + 1, n - i - 1)
            _list_set_size(lst, n - 1)
        return impl
    if not isinstance(index, t.SliceType):
        return None

    def impl_slice(lst, index):
        n = _list_len(lst)
        start, step, count = _slice_indices(index, n)
        if count == 0:
            return
        if step < 0:   # the same items, taken in ascending order
            start, step = start + (count - 1) * step, -step
        kept, k = start, 0
        for r in range(start, n):
            if k < count and r == start + k * step:
                _list_release(lst, r, r + 1)
                k += 1
            else:
                _list_move(lst, kept, r, 1)
                kept += 1
        _list_set_size(lst, n - count)
    return impl_slice


@overload_method(t.ListType, "append")
def _append(lst, value):
    _require_item(lst, value, "append")

    def impl(lst, value):
        n = _list_len(lst)
        _list_reserve(lst, n + 1)
        _list_init(lst, n, value)
        _list_set_size(lst, n + 1)
    return impl


@overload_method(t.ListType, "insert")
def _insert(lst, index, value):
    if not isinstance(index, _INTLIKE):
        return None
    _require_item(lst, value, "insert")

    def impl(lst, index, value):
        n = _list_len(lst)
        _list_reserve(lst, n + 1)
        i = index + 0
        if i < 0:
            i = max(i + n, 0)
        i = min(i, n)
        _list_move(lst, i + 1, i, n - i)
        _list_init(lst, i, value)
        _list_set_size(lst, n + 1)
    return impl


@overload_method(t.ListType, "pop")
def _pop(lst, index=None):
    if index is not None and not isinstance(index, _INTLIKE):
        return None
    _require_defined(lst, "pop from")

    def impl(lst, index=-1):
        n = _list_len(lst)
        if n == 0:
            raise IndexError("pop from empty list")
        i = index + 0
        if i < 0:
            i += n
        if i < 0 or i >= n:
            raise IndexError("pop index out of range")
        value = _list_take(lst, i)
        _list_move(lst, i, i + 1, n - i - 1)
        _list_set_size(lst, n - 1)
        return value
    return impl


@overload_method(t.ListType, "extend")
def _extend(lst, iterable):
    from .iteration import item_type_of
    item = item_type_of(iterable)
    if item is None:
        return None
    if isinstance(iterable, t.ListType):
        if iterable.is_undefined:
            return lambda lst, iterable: None
        _require_item(lst, item, "add")

        def impl_list(lst, iterable):  # reads the length first: l.extend(l) doubles l
            n, m = _list_len(lst), _list_len(iterable)
            _list_reserve(lst, n + m)
            for k in range(m):
                _list_init(lst, n + k, _list_get(iterable, k))
            _list_set_size(lst, n + m)
        return impl_list
    _require_item(lst, item, "add")

    def impl(lst, iterable):
        for value in iterable:
            lst.append(value)
    return impl


@register_jitable
def _find(lst, value, start, stop):
    for k in range(start, stop):
        if _list_get(lst, k) == value:
            return k
    return -1


@overload_method(t.ListType, "index")
def _list_index(lst, value, start=None, stop=None):
    for name, bound in (("start", start), ("stop", stop)):
        if not omitted(bound) and not isinstance(bound, _INTLIKE):
            raise TypingError(f'list.index(): arg "{name}" must be an Integer, not {bound}')
    if lst.is_undefined:
        def impl_empty(lst, value, start=0, stop=0):
            raise ValueError("value is not in list")
        return impl_empty

    def impl(lst, value, start=0, stop=2**62):
        n = _list_len(lst)
        lo, hi = start + 0, stop + 0
        if lo < 0:
            lo = max(lo + n, 0)
        if hi < 0:
            hi = max(hi + n, 0)
        k = _find(lst, value, lo, min(hi, n))
        if k < 0:
            raise ValueError("value is not in list")
        return k
    return impl


@overload_method(t.ListType, "count")
def _count(lst, value):
    if lst.is_undefined:
        return lambda lst, value: 0

    def impl(lst, value):
        c = 0
        for k in range(_list_len(lst)):
            if _list_get(lst, k) == value:
                c += 1
        return c
    return impl


@overload_method(t.ListType, "remove")
def _remove(lst, value):
    if lst.is_undefined:
        def impl_empty(lst, value):
            raise ValueError("list.remove(x): x not in list")
        return impl_empty

    def impl(lst, value):
        k = _find(lst, value, 0, _list_len(lst))
        if k < 0:
            raise ValueError("list.remove(x): x not in list")
        lst.pop(k)
    return impl


@overload(operator.contains)
def _contains(lst, value):
    if not isinstance(lst, t.ListType):
        return None
    if lst.is_undefined:
        return lambda lst, value: False

    def impl(lst, value):
        return _find(lst, value, 0, _list_len(lst)) >= 0
    return impl


@overload_method(t.ListType, "reverse")
def _reverse(lst):
    if lst.is_undefined:
        return lambda lst: None

    def impl(lst):
        n = _list_len(lst)
        for k in range(n // 2):
            a = _list_take(lst, k)
            _list_init(lst, k, _list_take(lst, n - 1 - k))
            _list_init(lst, n - 1 - k, a)
    return impl


@overload_method(t.ListType, "copy")
def _copy(lst):
    if lst.is_undefined:
        return lambda lst: _list_new_like(lst, 0)

    def impl(lst):
        return lst[:]
    return impl


@overload_method(t.ListType, "clear")
def _clear(lst):
    if lst.is_undefined:
        return lambda lst: None

    def impl(lst):
        n = _list_len(lst)
        _list_set_size(lst, 0)
        _list_release(lst, 0, n)
    return impl


@register_jitable
def _merge_sort(a, tmp, n):
    """Stable ascending sort of a[:n] (an array or a list; `tmp` as long): insertion-sorted
    runs, then merges that copy only the left run out and choose each item without a
    branch (the comparison of random data is unpredictable)."""
    run = 32
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        for i in range(lo + 1, hi):
            v = a[i]
            j = i - 1
            while j >= lo and v < a[j]:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
    width = run
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            if mid < hi and a[mid] < a[mid - 1]:
                for k in range(lo, mid):
                    tmp[k] = a[k]
                i, j, k = lo, mid, lo
                while i < mid and j < hi:
                    x = tmp[i]
                    y = a[j]
                    right = y < x
                    a[k] = y if right else x
                    j += right
                    i += not right
                    k += 1
                while i < mid:
                    a[k] = tmp[i]
                    i += 1
                    k += 1
        width *= 2


@register_jitable
def _reverse_items(a, n):
    for k in range(n // 2):
        a[k], a[n - 1 - k] = a[n - 1 - k], a[k]


@register_jitable
def _sort_items(a, tmp, n, reverse):
    """Python's sort: stable, and with `reverse` equal items keep their order too (reversed,
    sorted, reversed back, as CPython does)."""
    if reverse:
        _reverse_items(a, n)
    _merge_sort(a, tmp, n)
    if reverse:
        _reverse_items(a, n)


@register_jitable
def _sort_by_key(lst, key, reverse):
    """Python's `sort(key=...)`: key called once per item, then the items ordered by their
    keys, stably (each key paired with its index, negated when reversing so that equal keys
    keep their order once the sorted pairs are reversed)."""
    n = len(lst)
    pairs = [(key(lst[i]), -i if reverse else i) for i in range(n)]
    _merge_sort(pairs, pairs.copy(), n)
    if reverse:
        _reverse_items(pairs, n)
    items = lst.copy()
    for j in range(n):
        index = pairs[j][1]
        lst[j] = items[-index if reverse else index]


@overload_method(t.ListType, "sort")
def _sort(lst, key=None, reverse=None):
    if reverse is not None and not isinstance(reverse, _INTLIKE):
        return None
    if lst.is_undefined:
        return lambda lst, key=None, reverse=False: None
    if key is not None and not isinstance(key, t.NoneType):
        if getattr(key, "captured", ()):
            raise TypingError(f"kiln cannot yet sort with a key function that reads the "
                              f"enclosing function's locals ({', '.join(key.captured)}): a "
                              "nested function gets them only where it is called by name")

        def impl_key(lst, key=None, reverse=False):
            _sort_by_key(lst, key, reverse)
        return impl_key
    if isinstance(lst.item_type, t.Number):
        def impl_numbers(lst, key=None, reverse=False):  # in place in the item buffer
            items = _list_items(lst)
            _sort_items(items, np.empty_like(items), len(items), reverse)
        return impl_numbers

    def impl(lst, key=None, reverse=False):
        _sort_items(lst, lst.copy(), len(lst), reverse)
    return impl


@overload(sorted)
def _sorted(iterable, key=None, reverse=None):
    from .iteration import item_type_of
    if item_type_of(iterable) is None:
        return None

    def impl(iterable, key=None, reverse=False):
        result = list(iterable)
        result.sort(key=key, reverse=reverse)
        return result
    return impl


def _list_of(iterable, python):
    from .iteration import item_type_of
    if iterable is None:
        make_empty = list_maker(t.undefined, python)
        return lambda: make_empty(0)
    item = item_type_of(iterable)
    if item is None:
        return None
    make = list_maker(item, python)
    if isinstance(iterable, (t.ListType, t.Array, t.RangeType, t.UniTuple)):
        def impl_sized(iterable):
            result = make(len(iterable))
            result.extend(iterable)
            return result
        return impl_sized

    def impl(iterable):
        result = make(0)
        result.extend(iterable)
        return result
    return impl


@overload(list)
def _list(iterable=None):
    """`list()`, `list(iterable)`: a Python list once returned, as in Numba."""
    return _list_of(iterable, True)


def _concatenated_item(a, b):
    if a.is_undefined or b.is_undefined:
        return b.item_type if a.is_undefined else a.item_type
    item = unify(a.item_type, b.item_type)
    if item is None:
        raise TypingError(f"cannot concatenate a list of {a.item_type} items and a list of "
                          f"{b.item_type} items (a list holds items of one type)")
    return item


@overload(operator.add)
def _add(a, b):
    if not (isinstance(a, t.ListType) and isinstance(b, t.ListType)):
        return None
    make = list_maker(_concatenated_item(a, b), a.reflected or b.reflected)

    def impl(a, b):
        result = make(len(a) + len(b))
        result.extend(a)
        result.extend(b)
        return result
    return impl


@overload(operator.iadd)
def _iadd(a, b):
    from .iteration import item_type_of
    if not isinstance(a, t.ListType) or a.is_undefined or item_type_of(b) is None:
        return None

    def impl(a, b):
        a.extend(b)
        return a
    return impl


@register_jitable
def _repeat(lst, times):
    m = _list_len(lst)
    count = max(times, 0)
    if count > 0 and m > (2**62) // count:
        raise MemoryError("cannot allocate the list's items")
    result = _list_new_like(lst, m * count)
    if m:
        for c in range(count):
            for k in range(m):
                _list_init(result, c * m + k, _list_get(lst, k))
        _list_set_size(result, m * count)
    return result


@overload(operator.mul)
def _mul(a, b):
    if isinstance(a, t.ListType) and isinstance(b, _INTLIKE):
        return lambda a, b: _repeat(a, b + 0)
    if isinstance(b, t.ListType) and isinstance(a, _INTLIKE):
        return lambda a, b: _repeat(b, a + 0)
    return None


def _equality(negate):
    def ov(a, b):
        if not (isinstance(a, t.ListType) and isinstance(b, t.ListType)):
            return None
        if a.is_undefined or b.is_undefined:  # such a list is always empty
            return lambda a, b: (_list_len(a) == _list_len(b)) != negate

        def impl(a, b):
            n = _list_len(a)
            if n != _list_len(b):
                return negate
            for k in range(n):
                if not (_list_get(a, k) == _list_get(b, k)):
                    return negate
            return not negate
        return impl
    return ov


overload(operator.eq)(_equality(False))
overload(operator.ne)(_equality(True))


def _ordering(op):
    """`a < b` (and <=, >, >=) between lists, as CPython compares them: `op` of the first
    items that differ, or of the lengths when one list starts the other."""
    def ov(a, b):
        if not (isinstance(a, t.ListType) and isinstance(b, t.ListType)):
            return None
        if a.is_undefined or b.is_undefined:  # such a list is always empty
            return lambda a, b: op(_list_len(a), _list_len(b))

        def impl(a, b):
            n, m = _list_len(a), _list_len(b)
            for k in range(min(n, m)):
                x, y = _list_get(a, k), _list_get(b, k)
                if not (x == y):
                    return op(x, y)
            return op(n, m)
        return impl
    return ov


for _op in (operator.lt, operator.le, operator.gt, operator.ge):
    overload(_op)(_ordering(_op))


def _array_of_list(obj, dtype=None):
    if not isinstance(obj, t.ListType) or obj.is_undefined or \
            not isinstance(obj.item_type, t.Number):
        return None
    from .creation import dtype_of, refuse_dropping_imaginary
    dt = dtype_of(dtype, obj.item_type)
    refuse_dropping_imaginary(obj.item_type, dt)

    def impl(obj, dtype=None):  # a copy: the items' buffer moves when the list grows
        return _list_items(obj).astype(dt)
    return impl


overload(np.array)(_array_of_list)
overload(np.asarray)(_array_of_list)


@overload(bool)
def _bool(lst):
    if isinstance(lst, t.ListType):
        def impl(lst):
            return _list_len(lst) != 0
        return impl
    return None

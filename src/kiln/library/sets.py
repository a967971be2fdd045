"""Sets in compiled code: a set is a dict's table (library/dicts.py) whose values are
unused booleans, so it shares the dict's layout, destructor, hashing, probing, resizing and
iteration; this module holds only what a set does differently: its operations, written in
Python on the table primitives.

Items are numbers, bools and tuples of them (library/hashing.py), which hold no
references, so an item read from the table is a plain value. Operations that loop over a
set walk its entries by position (deleting an entry moves none), so `s -= s` and
`s ^= s` empty s as in Python. Iteration order is the table's insertion order (CPython's
order is hash-based and not promised).
"""
from __future__ import annotations

import operator
from functools import lru_cache

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import families as codegen_families
from ..errors import TypingError
from ..typing import families
from ..typing.unify import can_convert, held, unify
from .dict_layout import (DELETED, _dict_hashes, _dict_keys, _dict_new_like, _dict_used,
                          _dict_values, _entries_count, _hash_at, _key_at, converter, new_dict)
from .dicts import (_copy_into, _delete, _insert_new, _lookup, _slot_of_entry, _store,
                    clear_table)
from .hashing import hashable
from .list_layout import _list_set_size, _new_reference
from ..typing.registry import intrinsic, overload, overload_method, register_jitable


# ---- making sets -------------------------------------------------------------------------

@lru_cache(maxsize=None)
def set_maker(item_ty):
    """An intrinsic `make()` giving a new empty set of this item type."""
    set_ty = t.SetType(item_ty)

    def make(tctx):
        return set_ty(), _new_reference(
            lambda context, b, sig, args: new_dict(context, b, set_ty))
    make.__name__ = make.__qualname__ = f"make_set_of_{item_ty}"
    return intrinsic(make)


@codegen_families.display("set")
def build_set(context, b, set_ty, items, item_types):
    """The display `{a, b, ...}` from its lowered items and their types."""
    s = new_dict(context, b, set_ty)
    slot = context.hold_until_done(b, s, set_ty)
    item = set_ty.item_type
    for value, ty in zip(items, item_types):
        context.call_python(b, _store, t.none(set_ty, item, t.boolean), [
            s, context.cast(b, value, ty, item), ir.Constant(dm.i1, 1)])
    context.done_holding(b, slot)
    return s


# ---- typing helpers ----------------------------------------------------------------------

def _require_item(item):
    if not hashable(item):
        raise TypingError(f"unhashable type: {item} (a set item must be a number, a bool or "
                          "a tuple of them)")


@families.display("set")
def display_type(item_types):
    """The type of the display `{a, b, ...}`: its items' common type."""
    result = t.undefined
    for ty in map(held, item_types):
        merged = ty if isinstance(result, t.Undefined) else unify(result, ty)
        if merged is None:
            raise TypingError(f"the items of this set have types {result} and {ty}, which "
                              "have no common type (a set holds items of one type)")
        result = merged
    if not isinstance(result, t.Undefined):
        _require_item(result)
    return t.SetType(result)


def _items_of(ty):
    """The item type of an iterable (a set included), or None."""
    from .iteration import item_type_of
    return item_type_of(ty)


def implied_set_type(receiver, method, args):
    """The set type that `s.add(x)` or `s.update(iterable)` fixes for a set whose item type
    is not known yet (`s = set(); s.add(3)`), or None."""
    if not isinstance(receiver, t.SetType) or not receiver.is_undefined or len(args) != 1:
        return None
    item = args[0] if method == "add" else _items_of(args[0]) if method == "update" else None
    if item is None or isinstance(item, t.Undefined):
        return None
    _require_item(item)
    return t.SetType(held(item))


def reads_set_items(receiver, method) -> bool:
    """Whether `receiver.method()` on a set whose item type is not known yet needs it (the
    typer retries it once a later statement has fixed it)."""
    return isinstance(receiver, t.SetType) and receiver.is_undefined and \
        method in ("pop", "iter")


families.item_fixer(implied_set_type,
                    lambda receiver, method, args: reads_set_items(receiver, method))


# ---- the table, seen as a set ------------------------------------------------------------

@intrinsic
def _is(tctx, a, b):
    """`a is b` for a set and a value: a set combined with itself follows CPython's
    shortcuts (`s - s` is empty), which matter for NaN, found in a CPython set by identity
    only."""
    if isinstance(a, t.SetType) and a == b:
        return t.boolean(a, b), lambda context, bld, sig, args: \
            bld.icmp_unsigned("==", args[0], args[1])
    return t.boolean(a, b), lambda context, bld, sig, args: ir.Constant(dm.i1, 0)


@register_jitable
def _add(s, item):
    """A set's values are unused: adding an item already there writes nothing."""
    h = hash(item)
    slot, ix = _lookup(s, item, h)
    if ix < 0:
        _insert_new(s, item, True, h, slot)


@register_jitable
def _discard(s, item):
    """Remove item if present; whether it was."""
    if _dict_used(s) == 0:
        return False
    slot, ix = _lookup(s, item, hash(item))
    if ix < 0:
        return False
    _delete(s, slot, ix)
    return True


@register_jitable
def _has(s, item):
    return _dict_used(s) != 0 and _lookup(s, item, hash(item))[1] >= 0


@register_jitable
def _is_subset(a, b):
    if _is(a, b):
        return True
    if _dict_used(a) > _dict_used(b):
        return False
    for j in range(_entries_count(a)):
        if _hash_at(a, j) != DELETED and not _has(b, _key_at(a, j)):
            return False
    return True


@register_jitable
def _disjoint(a, b):
    for j in range(_entries_count(a)):
        if _hash_at(a, j) != DELETED and _has(b, _key_at(a, j)):
            return False
    return True


@register_jitable
def _drop_common(a, b):
    """Delete a's items that are in b."""
    if _is(a, b):
        clear_table(a)
        return
    for j in range(_entries_count(b)):
        if _hash_at(b, j) != DELETED and _dict_used(a) != 0:
            _discard(a, _key_at(b, j))


def _adder(set_ty):
    """`add_all(s, other)`: add every item of `other` (a set or any iterable) to s."""
    as_item = converter(set_ty.item_type)

    def add_all(s, other):
        if _is(s, other):
            return
        for x in other:
            _add(s, as_item(x))
    return register_jitable(add_all)


def _toggler(set_ty):
    """`toggle_all(s, other)`: each item of the set `other` that s holds leaves s, and each
    it does not joins it (symmetric difference in place; `s ^= s` empties s)."""
    as_item = converter(set_ty.item_type)

    def toggle_all(s, other):
        if _is(s, other):
            clear_table(s)
            return
        for j in range(_entries_count(other)):
            if _hash_at(other, j) != DELETED:
                x = _key_at(other, j)
                if not _discard(s, x):
                    _add(s, as_item(x))
    return register_jitable(toggle_all)


# ---- set(), len, truth, in ---------------------------------------------------------------

@overload(set)
def _set(iterable=None):
    if iterable is None:
        make = set_maker(t.undefined)
        return lambda: make()
    if isinstance(iterable, t.SetType) and iterable.is_undefined:
        return lambda iterable: _dict_new_like(iterable)
    item = _items_of(iterable)
    if item is None:
        raise TypingError(f"set() takes an iterable (an array, a list, a tuple, a range, a "
                          f"set...), not {iterable}")
    _require_item(item)
    make, add_all = set_maker(item), _adder(t.SetType(item))

    def impl(iterable):
        result = make()
        add_all(result, iterable)
        return result
    return impl


@overload(len)
def _len(s):
    if isinstance(s, t.SetType):
        return lambda s: _dict_used(s)
    return None


@overload(operator.truth)
def _truth(s):
    if isinstance(s, t.SetType):
        return lambda s: _dict_used(s) != 0
    return None


@overload(bool)
def _bool(s):
    if isinstance(s, t.SetType):
        return lambda s: _dict_used(s) != 0
    return None


@overload(operator.contains)
def _contains(s, item):
    if not isinstance(s, t.SetType):
        return None
    if not hashable(item):
        raise TypingError(f"unhashable type: {item}")
    if s.is_undefined:
        return lambda s, item: False
    return lambda s, item: _has(s, item)


# ---- methods that change one set ---------------------------------------------------------

def _require_fits(s, item, what):
    _require_item(item)
    if not s.is_undefined and not can_convert(item, s.item_type):
        raise TypingError(f"cannot {what} an item of type {item} in a set of {s.item_type}")


@overload_method(t.SetType, "add")
def _add_method(s, item):
    _require_fits(s, item, "add")
    as_item = converter(s.item_type)
    return lambda s, item: _add(s, as_item(item))


@overload_method(t.SetType, "discard")
def _discard_method(s, item):
    if not hashable(item):
        raise TypingError(f"unhashable type: {item}")
    if s.is_undefined:
        return lambda s, item: None

    def impl(s, item):
        _discard(s, item)
    return impl


@overload_method(t.SetType, "remove")
def _remove(s, item):
    if not hashable(item):
        raise TypingError(f"unhashable type: {item}")
    if s.is_undefined:
        def impl_empty(s, item):
            raise KeyError(item)
        return impl_empty

    def impl(s, item):
        if not _discard(s, item):
            raise KeyError(item)
    return impl


@overload_method(t.SetType, "pop")
def _pop(s):
    def impl(s):
        if _dict_used(s) == 0:
            raise KeyError("pop from an empty set")
        j = _entries_count(s) - 1
        while _hash_at(s, j) == DELETED:
            j -= 1
        item = _key_at(s, j)
        _delete(s, _slot_of_entry(s, j), j)
        # the entries from j on are all deleted: drop them, so the next pop scans none
        _list_set_size(_dict_keys(s), j)
        _list_set_size(_dict_values(s), j)
        _list_set_size(_dict_hashes(s), j)
        return item
    return impl


@overload_method(t.SetType, "clear")
def _clear(s):
    if s.is_undefined:
        return lambda s: None
    return lambda s: clear_table(s)


@overload_method(t.SetType, "copy")
def _copy(s):
    if s.is_undefined:
        return lambda s: _dict_new_like(s)

    def impl(s):
        result = _dict_new_like(s)
        _copy_into(result, s)
        return result
    return impl


def _as_set(other, what):
    """`other` (a set or an iterable) as a set, for the methods that take any iterable."""
    if isinstance(other, t.SetType):
        return other
    item = _items_of(other)
    if item is None:
        raise TypingError(f"{what}() takes a set or an iterable, not {other}")
    _require_item(item)
    return t.SetType(held(item))


@overload_method(t.SetType, "update")
def _update(s, other):
    item = _as_set(other, "update").item_type
    if isinstance(item, t.Undefined):
        return lambda s, other: None
    _require_fits(s, item, "add")
    add_all = _adder(s)
    return lambda s, other: add_all(s, other)


def _in_place(name, body):
    """A method `s.name(other)` that changes s by the set `other` (an iterable is made a
    set first)."""
    @overload_method(t.SetType, name)
    def method(s, other):
        other_ty = _as_set(other, name)
        if s.is_undefined or other_ty.is_undefined:
            return body(s, other_ty, other) if not s.is_undefined else lambda s, other: None
        _require_fits(s, other_ty.item_type, "add")
        impl = body(s, other_ty, other)
        if isinstance(other, t.SetType):
            return impl
        impl = register_jitable(impl)
        return lambda s, other: impl(s, set(other))
    method.__name__ = method.__qualname__ = f"_{name}"
    return method


def _intersection_update(s, other, given):
    if other.is_undefined:
        return lambda s, other: clear_table(s)
    make, fill, add_all = set_maker(s.item_type), _fill_intersection(s, s, given), _adder(s)

    def impl(s, other):   # CPython's way: the items come from the smaller set
        common = make()
        fill(common, s, other)
        clear_table(s)
        add_all(s, common)
    return impl


def _difference_update(s, other, given):
    if other.is_undefined:
        return lambda s, other: None
    return lambda s, other: _drop_common(s, other)


def _symmetric_difference_update(s, other, given):
    if other.is_undefined:
        return lambda s, other: None
    toggle_all = _toggler(s)
    return lambda s, other: toggle_all(s, other)


_in_place("intersection_update", _intersection_update)
_in_place("difference_update", _difference_update)
_in_place("symmetric_difference_update", _symmetric_difference_update)



# ---- operations that make a new set ------------------------------------------------------

def _result_type(a, b, what):
    """The set type of `a op b`: the items' common type (an empty `set()` takes the
    other's)."""
    if a.is_undefined or b.is_undefined:
        return b if a.is_undefined else a
    item = unify(a.item_type, b.item_type)
    if item is None:
        raise TypingError(f"{what}: the sets hold {a.item_type} and {b.item_type}, which have "
                          "no common type")
    return t.SetType(item)


@register_jitable
def _same(s):
    return s


def _seen_as(s, ty):
    """A function giving the set s as a set of type ty: an empty `set()` whose item type is
    not known is seen as an empty set of any item type."""
    return converter(ty) if s.is_undefined else _same


def _new_set(name, fill):
    """`a op b` and `a.name(b)` (b may be any iterable for the method): a new set of the
    common item type, that `fill(result_type, a, b)`'s function fills."""
    def typer(a, b, method):
        if not isinstance(a, t.SetType):
            return None
        if not isinstance(b, t.SetType):
            if not method:
                return None
            b_set = _as_set(b, name)
        else:
            b_set = b
        result = _result_type(a, b_set, name)
        if result.is_undefined:
            return lambda a, b: _dict_new_like(a)
        make, body = set_maker(result.item_type), fill(result, a, b)
        as_a, as_b = _seen_as(a, result), _seen_as(b_set, result)

        def impl(a, b):
            r = make()
            body(r, as_a(a), as_b(b))
            return r
        if isinstance(b, t.SetType):
            return impl
        impl = register_jitable(impl)
        return lambda a, b: impl(a, set(b))
    return typer


def _fill_union(r, a, b):
    add_all = _adder(r)

    def fill(r, a, b):
        add_all(r, a)
        if not _is(a, b):
            add_all(r, b)
    return register_jitable(fill)


def _fill_intersection(r, a, b):
    """As CPython, the items come from the smaller set (b if the sizes are equal), or from
    b if it was not a set but an iterable: that decides whether 0.0 or -0.0 is kept."""
    as_item = converter(r.item_type)
    from_b_always = not isinstance(b, t.SetType)

    def fill(r, a, b):
        if from_b_always or _dict_used(b) <= _dict_used(a):
            for j in range(_entries_count(b)):
                if _hash_at(b, j) != DELETED and (_is(a, b) or _has(a, _key_at(b, j))):
                    _add(r, as_item(_key_at(b, j)))
        else:
            for j in range(_entries_count(a)):
                if _hash_at(a, j) != DELETED and _has(b, _key_at(a, j)):
                    _add(r, as_item(_key_at(a, j)))
    return register_jitable(fill)


def _fill_difference(r, a, b):
    as_item = converter(r.item_type)

    def fill(r, a, b):
        if _is(a, b):
            return
        for j in range(_entries_count(a)):
            if _hash_at(a, j) != DELETED and not _has(b, _key_at(a, j)):
                _add(r, as_item(_key_at(a, j)))
    return register_jitable(fill)


def _fill_symmetric_difference(r, a, b):
    add_all = _adder(r)
    toggle_all = _toggler(r)

    def fill(r, a, b):
        if not _is(a, b):
            add_all(r, a)
            toggle_all(r, b)
    return register_jitable(fill)


for _name, _op, _fill in (
        ("union", operator.or_, _fill_union),
        ("intersection", operator.and_, _fill_intersection),
        ("difference", operator.sub, _fill_difference),
        ("symmetric_difference", operator.xor, _fill_symmetric_difference)):
    _typer = _new_set(_name, _fill)
    overload(_op)(lambda a, b, _typer=_typer: _typer(a, b, False))
    overload_method(t.SetType, _name)(lambda a, b, _typer=_typer: _typer(a, b, True))


# ---- the methods with any number of arguments, as CPython's ---------------------------------

_MOST_ARGUMENTS = 4


def _copy_of(s):
    return s.copy()


def _nothing(s):
    return None


def _chained(step, first=None):
    """`s.m(a, b, ...)` for two to four arguments: `step` for each argument in turn, on
    s (`first`, when given, makes the set the later steps work on: a new set)."""
    first = first or step

    def two(s, a, b):
        return step(first(s, a), b)

    def three(s, a, b, c):
        return step(step(first(s, a), b), c)

    def four(s, a, b, c, d):
        return step(step(step(first(s, a), b), c), d)
    return {2: two, 3: three, 4: four}


@register_jitable
def _union_step(r, x):
    return r.union(x)


@register_jitable
def _intersection_step(r, x):
    return r.intersection(x)


@register_jitable
def _difference_step(r, x):
    return r.difference(x)


@register_jitable
def _update_step(r, x):
    r.update(x)
    return r


@register_jitable
def _intersection_update_step(r, x):
    r.intersection_update(x)
    return r


@register_jitable
def _difference_update_step(r, x):
    r.difference_update(x)
    return r


def _returning_none(impls):
    """The in-place methods return None, whatever their steps return."""
    two_steps, three_steps, four_steps = (register_jitable(impls[n]) for n in (2, 3, 4))

    def two(s, a, b):
        two_steps(s, a, b)

    def three(s, a, b, c):
        three_steps(s, a, b, c)

    def four(s, a, b, c, d):
        four_steps(s, a, b, c, d)
    return {2: two, 3: three, 4: four}


def _several(name, none_of, impls):
    """`s.name(*others)` with no argument (`none_of`) or two to four (`impls`); one argument
    is the method above."""
    @overload_method(t.SetType, name)
    def method(s, *others):
        if len(others) == 1:
            return None
        if len(others) > _MOST_ARGUMENTS:
            raise TypingError(f"kiln's set.{name}() takes at most {_MOST_ARGUMENTS} "
                              f"arguments, not {len(others)}; call it more than once")
        return none_of if not others else impls[len(others)]
    method.__name__ = method.__qualname__ = f"_{name}_several"


for _name, _step in (("union", _union_step), ("intersection", _intersection_step),
                     ("difference", _difference_step)):
    _several(_name, _copy_of, _chained(_step))
for _name, _step in (("update", _update_step),
                     ("intersection_update", _intersection_update_step),
                     ("difference_update", _difference_update_step)):
    _several(_name, _nothing, _returning_none(_chained(_step)))


def _in_place_operator(op, apply):
    """`a op= b` for two sets: `apply(a, b)` (the method that changes a), then a."""
    @overload(op)
    def typer(a, b):
        if not (isinstance(a, t.SetType) and isinstance(b, t.SetType)):
            return None
        if a.is_undefined and not b.is_undefined:
            raise TypingError(f"the item type of this empty set is not known: call "
                              f"s.update(...) or s.add(...) before '{op.__name__}'")

        def impl(a, b):
            apply(a, b)
            return a
        return impl
    return typer


@register_jitable
def _ior(a, b):
    a.update(b)


@register_jitable
def _iand(a, b):
    a.intersection_update(b)


@register_jitable
def _isub(a, b):
    a.difference_update(b)


@register_jitable
def _ixor(a, b):
    a.symmetric_difference_update(b)


for _op, _apply in ((operator.ior, _ior), (operator.iand, _iand), (operator.isub, _isub),
                    (operator.ixor, _ixor)):
    _in_place_operator(_op, _apply)


# ---- comparisons ---------------------------------------------------------------------------

def _relation(holds, method=None):
    """`a op b` for two sets (and `a.method(b)`, b any iterable), from
    `holds(a, b)` on two sets."""
    def typer(a, b, is_method=False):
        if not isinstance(a, t.SetType) or not (is_method or isinstance(b, t.SetType)):
            return None
        b_set = _as_set(b, method)
        common = t.SetType(t.int64) if a.is_undefined and b_set.is_undefined else \
            b_set if a.is_undefined else a
        as_a, as_b = _seen_as(a, common), _seen_as(b_set, common)
        if isinstance(b, t.SetType):
            return lambda a, b: holds(as_a(a), as_b(b))
        return lambda a, b: holds(as_a(a), as_b(set(b)))
    return typer


@register_jitable
def _subset(a, b):
    return _dict_used(a) == 0 or _is_subset(a, b)


@register_jitable
def _superset(a, b):
    return _dict_used(b) == 0 or _is_subset(b, a)


@register_jitable
def _isdisjoint(a, b):
    if _dict_used(a) == 0 or _dict_used(b) == 0:
        return True
    if _is(a, b):
        return False
    if _dict_used(a) <= _dict_used(b):
        return _disjoint(a, b)
    return _disjoint(b, a)


@register_jitable
def _equal(a, b):
    return _dict_used(a) == _dict_used(b) and _subset(a, b)


@register_jitable
def _not_equal(a, b):
    return not _equal(a, b)


@register_jitable
def _proper_subset(a, b):
    return _dict_used(a) < _dict_used(b) and _subset(a, b)


@register_jitable
def _proper_superset(a, b):
    return _dict_used(a) > _dict_used(b) and _superset(a, b)


for _op, _holds in ((operator.eq, _equal), (operator.ne, _not_equal),
                    (operator.le, _subset), (operator.lt, _proper_subset),
                    (operator.ge, _superset), (operator.gt, _proper_superset)):
    overload(_op)(_relation(_holds))
def _not_sets(a, b):
    """An operator between a set and a value that is no set (a tuple, a list, an array, a
    number, a string, None) is Numba's TypingError; the methods take any iterable."""
    others = (t.BaseTuple, t.ListType, t.Array, t.Number, t.UnicodeType, t.NoneType)
    if isinstance(a, t.SetType) and isinstance(b, others) or \
            isinstance(b, t.SetType) and isinstance(a, others):
        raise TypingError(f"All arguments must be Sets, got ({a}, {b})")
    return None


for _op in (operator.or_, operator.and_, operator.sub, operator.xor, operator.ior,
            operator.iand, operator.isub, operator.ixor, operator.eq, operator.ne,
            operator.le, operator.lt, operator.ge, operator.gt):
    overload(_op)(_not_sets)
for _name, _holds in (("issubset", _subset), ("issuperset", _superset),
                      ("isdisjoint", _isdisjoint)):
    overload_method(t.SetType, _name)(
        lambda a, b, _typer=_relation(_holds, _name): _typer(a, b, True))

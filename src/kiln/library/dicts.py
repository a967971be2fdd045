"""Dicts in compiled code: the hash table and every dict operation, written in Python on
the primitives of library/dict_layout.py (which holds the layout of `DictType`) and of the
list primitives; dict views and iteration; the typing of displays and of the methods that
fix the types of `{}`.

The index is probed by open addressing with CPython's perturbation; growing the index
compacts the entries. Keys are hashed by the builtin `hash` (library/hashing.py, the one
place that says which types are keys) and compared with `==`, so a lookup takes a key of
any type that compares with the dict's keys (`d[1.0]` finds the key 1), as in Python.
"""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen import families as codegen_families
from ..errors import TypingError
from ..typing import families
from ..typing.unify import can_convert, held, unify
from . import list_layout
from .dict_layout import (DELETED, DUMMY, EMPTY, HASHES, KEYS, MAX_ENTRIES, MIN_SIZE, VALUES,
                          _append_entry, _defined, _dict_hashes, _dict_index, _dict_keys,
                          _dict_new_like, _dict_set_used, _dict_used, _dict_values,
                          _entries_count, _field, _hash_at, _index_size, _key_at, _list_vacate,
                          _set_slot_at, _set_value_at, _slot_at, _value_at, converter,
                          dict_maker, is_table, new_dict, used_of)
from .hashing import hashable
from .list_layout import (_list_get, _list_init, _list_len, _list_replace, _list_reserve,
                          _list_set_size, _list_take)
from ..typing.registry import (intrinsic, omitted, overload, overload_method, register_jitable,
                               template)

# ---- the hash table, in Python -----------------------------------------------------------

@register_jitable
def _lookup(d, key, h):
    """(the index slot where `key` is or would go, its entry's position or -1)."""
    size = _index_size(d)
    if size == 0:
        return -1, -1
    mask = size - 1
    i = h & mask
    perturb = h
    free = -1
    while True:
        ix = _slot_at(d, i)
        if ix == EMPTY:
            return (free if free >= 0 else i), -1
        if ix == DUMMY:
            if free < 0:
                free = i
        elif _holds(d, ix, key, h):
            return i, ix
        perturb = (perturb >> 5) & ((1 << 59) - 1)   # an unsigned shift, as CPython's
        i = (i * 5 + perturb + 1) & mask


def _holds(d, ix, key, h):
    """Whether entry `ix` holds `key`, whose hash is h (compiled code only)."""


@overload(_holds)
def _entry_holds(d, ix, key, h):
    # equal numbers hash alike, so for number keys the stored hash adds nothing but a
    # second random read (a set of ints reads index and keys only); for others (strings,
    # tuples) comparing hashes first skips most comparisons of unequal keys
    if isinstance(d.key_type, t.Number) and isinstance(key, t.Number):
        return lambda d, ix, key, h: _key_at(d, ix) == key
    return lambda d, ix, key, h: _hash_at(d, ix) == h and _key_at(d, ix) == key


@register_jitable
def _slot_of_entry(d, ix):
    """The index slot that points at entry `ix`."""
    mask = _index_size(d) - 1
    h = _hash_at(d, ix)
    i = h & mask
    perturb = h
    while _slot_at(d, i) != ix:
        perturb = (perturb >> 5) & ((1 << 59) - 1)
        i = (i * 5 + perturb + 1) & mask
    return i


@register_jitable
def _resize(d, minused):
    """Compact the entries (drop deleted ones) and rebuild an index of at least 3 slots per
    live entry, a power of two, so probing always meets an EMPTY slot."""
    keys, values, hashes, index = _dict_keys(d), _dict_values(d), _dict_hashes(d), \
        _dict_index(d)
    n = _list_len(keys)
    live = 0
    for j in range(n):
        if _list_get(hashes, j) != DELETED:
            if live != j:
                _list_init(keys, live, _list_take(keys, j))
                _list_init(values, live, _list_take(values, j))
                _list_replace(hashes, live, _list_get(hashes, j))
            live += 1
    _list_set_size(keys, live)
    _list_set_size(values, live)
    _list_set_size(hashes, live)
    size = MIN_SIZE
    while size < 3 * minused:
        size *= 2
    _list_reserve(index, size)
    _list_set_size(index, size)
    mask = size - 1
    for i in range(size):
        _list_replace(index, i, EMPTY)
    for j in range(live):
        h = _list_get(hashes, j)
        i = h & mask
        perturb = h
        while _list_get(index, i) != EMPTY:
            perturb = (perturb >> 5) & ((1 << 59) - 1)
            i = (i * 5 + perturb + 1) & mask
        _list_replace(index, i, j)


@register_jitable
def _store(d, key, value):
    """d[key] = value, with key and value of the dict's types."""
    h = hash(key)
    slot, ix = _lookup(d, key, h)
    if ix >= 0:
        _set_value_at(d, ix, value)
    else:
        _insert_new(d, key, value, h, slot)


@register_jitable
def _insert_new(d, key, value, h, slot):
    """Add the entry of a key not in d, whose free index slot _lookup found."""
    n = _entries_count(d)
    if 3 * (n + 1) > 2 * _index_size(d):   # keep a third of the slots EMPTY
        _resize(d, _dict_used(d) + 1)
        slot, ix = _lookup(d, key, h)
        n = _entries_count(d)
    if n >= MAX_ENTRIES:
        raise MemoryError("a dict or set holds at most 2**31 - 1 entries")
    _append_entry(d, key, value, h)
    _set_slot_at(d, slot, n)
    _dict_set_used(d, _dict_used(d) + 1)


@register_jitable
def _find(d, key):
    """The position of `key`'s entry, or -1."""
    if _dict_used(d) == 0:
        return -1
    return _lookup(d, key, hash(key))[1]


@register_jitable
def _delete(d, slot, ix):
    _set_slot_at(d, slot, DUMMY)
    _list_replace(_dict_hashes(d), ix, DELETED)
    _list_vacate(_dict_keys(d), ix)
    _list_vacate(_dict_values(d), ix)
    _dict_set_used(d, _dict_used(d) - 1)


@register_jitable
def _next_live(d, j):
    """The position of the first live entry at or after j (the entries' count if none)."""
    n = _entries_count(d)
    while j < n and _hash_at(d, j) == DELETED:
        j += 1
    return j


# ---- typing helpers ----------------------------------------------------------------------

def implied_dict_type(receiver, method, args):
    """The dict type that `receiver.method(*args)` (or `receiver[k] = v`: "setitem") fixes
    for a dict whose key and value types are not known yet (`d = {}; d[k] = v`), or None."""
    if not isinstance(receiver, t.DictType) or not receiver.is_undefined:
        return None
    if method in ("setitem", "setdefault") and len(args) == 2:
        key, value = args
    elif method == "update" and len(args) == 1 and _defined(args[0]):
        key, value = args[0].key_type, args[0].value_type
    elif method == "update" and len(args) == 1 and _pair_types(args[0]) is not None:
        key, value = _pair_types(args[0])
    else:
        return None
    if isinstance(key, t.Undefined) or isinstance(value, t.Undefined):
        return None
    _require_key(key)
    return t.DictType(held(key), held(value))


def reads_items(receiver, method, args) -> bool:
    """Whether `receiver.method(*args)` on a dict whose types are not known yet needs them
    (the typer retries it once a later statement has fixed them)."""
    if isinstance(receiver, DictViewType):   # `for k, v in d.items()`
        receiver = receiver.dict_type
    return isinstance(receiver, t.DictType) and receiver.is_undefined and \
        (method in ("getitem", "popitem", "setdefault", "iter") or
         method == "pop" and len(args) == 1)


families.item_fixer(implied_dict_type, reads_items)


@families.display("dict")
def display_type(key_types, value_types):
    """The type of the display `{k: v, ...}`: its keys' and its values' common types."""
    merged = []
    for what, types_ in (("keys", key_types), ("values", value_types)):
        result = t.undefined
        for ty in map(held, types_):
            new = ty if isinstance(result, t.Undefined) else unify(result, ty)
            if new is None:
                raise TypingError(f"the {what} of this dict have types {result} and {ty}, "
                                  "which have no common type (a dict holds keys of one type "
                                  "and values of one type)")
            result = new
        merged.append(result)
    if not isinstance(merged[0], t.Undefined):
        _require_key(merged[0])
    return t.DictType(*merged)


@codegen_families.display("dict")
def build_dict(context, b, dict_ty, pairs):
    """The display `{k: v, ...}` from lowered (key, key type, value, value type) pairs."""
    d = new_dict(context, b, dict_ty)
    slot = context.hold_until_done(b, d, dict_ty)
    K, V = dict_ty.key_type, dict_ty.value_type
    for key, key_ty, value, value_ty in pairs:
        context.call_python(b, _store, t.none(dict_ty, K, V), [
            d, context.cast(b, key, key_ty, K), context.cast(b, value, value_ty, V)])
    context.done_holding(b, slot)
    return d


def _require_key(key):
    if isinstance(key, (t.NoneType, t.Optional)):   # hashable in Python, not a kiln key
        raise TypingError(f"Dict.key_type cannot be of type {key}: a dict key in compiled "
                          "code is a number, a bool, a string or a tuple of them, never None")
    if not hashable(key):
        raise TypingError(f"unhashable type: {key} (a dict key must be a number, a bool, a "
                          "string or a tuple of them)")


def _require_types(d, key, value, what):
    if not can_convert(key, d.key_type):
        raise TypingError(f"cannot {what} a key of type {key} in a dict of {d.key_type} keys "
                          f"({d})")
    if value is not None and not can_convert(value, d.value_type):
        raise TypingError(f"cannot {what} a value of type {value} in a dict of "
                          f"{d.value_type} values ({d})")


def _require_defined(d, what):
    if d.is_undefined:
        raise TypingError(f"cannot {what} a dict whose key and value types are not known "
                          "(nothing is ever stored in it)")


def _require_lookup(key):
    if not hashable(key):
        raise TypingError(f"unhashable type: {key}")


# ---- operations --------------------------------------------------------------------------

@template(len)
def _len(tctx, d):
    if not isinstance(d, t.DictType):
        return None
    return t.int64(d), lambda context, b, sig, args: used_of(b, args[0])


@overload(operator.truth)
def _truth(d):
    if isinstance(d, t.DictType):
        return lambda d: _dict_used(d) != 0
    return None


@overload(bool)
def _bool(d):
    if isinstance(d, t.DictType):
        return lambda d: _dict_used(d) != 0
    return None


@overload(operator.getitem)
def _getitem(d, key):
    if not isinstance(d, t.DictType):
        return None
    _require_defined(d, "read an item of")
    _require_lookup(key)

    def impl(d, key):
        ix = _find(d, key)
        if ix < 0:
            raise KeyError(key)
        return _value_at(d, ix)
    return impl


@overload(operator.setitem)
def _setitem(d, key, value):
    if not isinstance(d, t.DictType):
        return None
    _require_key(key)
    _require_types(d, key, value, "store")
    as_key = converter(d.key_type)

    def impl(d, key, value):
        _store(d, as_key(key), value)
    return impl


@overload(operator.delitem)
def _delitem(d, key):
    if not isinstance(d, t.DictType):
        return None
    _require_lookup(key)
    if d.is_undefined:
        def impl_empty(d, key):
            raise KeyError(key)
        return impl_empty

    def impl(d, key):
        if _dict_used(d) == 0:
            raise KeyError(key)
        slot, ix = _lookup(d, key, hash(key))
        if ix < 0:
            raise KeyError(key)
        _delete(d, slot, ix)
    return impl


@overload(operator.contains)
def _contains(d, key):
    if not isinstance(d, t.DictType):
        return None
    _require_lookup(key)
    if d.is_undefined:
        return lambda d, key: False
    return lambda d, key: _find(d, key) >= 0


@overload_method(t.DictType, "get")
def _get(d, key, default=None):
    _require_lookup(key)
    if d.is_undefined:   # empty: typed by the default, so `d[k] = d.get(k, 0) + 1` types d
        return lambda d, key, default=None: default
    if omitted(default):
        def impl_none(d, key, default=None):
            ix = _find(d, key)
            if ix < 0:
                return None
            return _value_at(d, ix)
        return impl_none
    if unify(d.value_type, default) is None:
        raise TypingError(f"get(): the default ({default}) and the dict's values "
                          f"({d.value_type}) have no common type")

    def impl(d, key, default=None):
        ix = _find(d, key)
        if ix < 0:
            return default
        return _value_at(d, ix)
    return impl


@overload_method(t.DictType, "setdefault")
def _setdefault(d, key, default=None):
    _require_key(key)
    if default is None:
        raise TypingError("setdefault() without a default would store None, which a dict "
                          "of typed values cannot hold: pass the default value")
    _require_types(d, key, default, "store")
    as_key = converter(d.key_type)

    def impl(d, key, default=None):
        ix = _find(d, key)
        if ix >= 0:
            return _value_at(d, ix)
        _store(d, as_key(key), default)
        return _value_at(d, _entries_count(d) - 1)
    return impl


@overload_method(t.DictType, "pop")
def _pop(d, key, default=None):
    _require_lookup(key)
    if d.is_undefined and default is not None:   # empty: typed by the default
        return lambda d, key, default=None: default
    _require_defined(d, "pop from")
    if default is not None and unify(d.value_type, default) is None:
        raise TypingError(f"pop(): the default ({default}) and the dict's values "
                          f"({d.value_type}) have no common type")
    missing = default is None

    def impl(d, key, default=None):
        if _dict_used(d) != 0:
            slot, ix = _lookup(d, key, hash(key))
            if ix >= 0:
                value = _list_take(_dict_values(d), ix)
                _list_init(_dict_values(d), ix, value)   # _delete releases the entry's own
                _delete(d, slot, ix)
                return value
        if missing:
            raise KeyError(key)
        return default
    return impl


@overload_method(t.DictType, "popitem")
def _popitem(d):
    _require_defined(d, "pop from")

    def impl(d):
        if _dict_used(d) == 0:
            raise KeyError("popitem(): dictionary is empty")
        hashes = _dict_hashes(d)
        ix = _list_len(hashes) - 1
        while _list_get(hashes, ix) == DELETED:
            ix -= 1
        _list_replace(_dict_index(d), _slot_of_entry(d, ix), DUMMY)
        key = _list_take(_dict_keys(d), ix)
        value = _list_take(_dict_values(d), ix)
        _list_set_size(_dict_keys(d), ix)   # the entries after ix are deleted ones
        _list_set_size(_dict_values(d), ix)
        _list_set_size(hashes, ix)
        _dict_set_used(d, _dict_used(d) - 1)
        return key, value
    return impl


@register_jitable
def clear_table(d):
    """Empty a dict or a set (its lists keep their buffers)."""
    keys, values = _dict_keys(d), _dict_values(d)
    n = _list_len(keys)
    _list_set_size(keys, 0)
    _list_set_size(values, 0)
    _list_set_size(_dict_hashes(d), 0)
    _list_set_size(_dict_index(d), 0)
    _dict_set_used(d, 0)
    list_layout._list_release(keys, 0, n)
    list_layout._list_release(values, 0, n)


@overload_method(t.DictType, "clear")
def _clear(d):
    if d.is_undefined:
        return lambda d: None
    return lambda d: clear_table(d)


@register_jitable
def _copy_into(result, d):
    for j in range(_entries_count(d)):
        if _hash_at(d, j) != DELETED:
            _store(result, _key_at(d, j), _value_at(d, j))


@overload_method(t.DictType, "copy")
def _copy(d):
    def impl(d):
        result = _dict_new_like(d)
        if _dict_used(d):
            _copy_into(result, d)
        return result
    return impl


def _pair_types(iterable):
    """The (key, value) types of an iterable of pairs, or None."""
    from .iteration import item_type_of
    item = item_type_of(iterable)
    if isinstance(item, t.BaseTuple) and len(item) == 2:
        return item.types
    return None


@overload_method(t.DictType, "update")
def _update(d, other):
    if not isinstance(other, t.DictType):
        pair = _pair_types(other)
        if pair is None:
            raise TypingError(f"update() takes a dict or an iterable of (key, value) pairs, "
                              f"not {other}")
        _require_types(d, pair[0], pair[1], "store")
        as_key = converter(d.key_type)

        def impl_pairs(d, other):
            for key, value in other:
                _store(d, as_key(key), value)
        return impl_pairs
    if other.is_undefined:
        return lambda d, other: None
    _require_types(d, other.key_type, other.value_type, "store")
    as_key, as_value = converter(d.key_type), converter(d.value_type)

    def impl(d, other):
        for j in range(_entries_count(other)):   # (d.update(d) adds no key: nothing moves)
            if _hash_at(other, j) != DELETED:
                _store(d, as_key(_key_at(other, j)),
                       as_value(_value_at(other, j)))
    return impl


def _equality(negate):
    def ov(a, b):
        if not (isinstance(a, t.DictType) and isinstance(b, t.DictType)):
            return None
        if a.is_undefined or b.is_undefined:  # such a dict is always empty
            return lambda a, b: (_dict_used(a) == _dict_used(b)) != negate

        def impl(a, b):
            if _dict_used(a) != _dict_used(b):
                return negate
            for j in range(_entries_count(a)):
                if _hash_at(a, j) != DELETED:
                    ix = _find(b, _key_at(a, j))
                    if ix < 0 or not (_value_at(b, ix) ==
                                      _value_at(a, j)):
                        return negate
            return not negate
        return impl
    return ov


overload(operator.eq)(_equality(False))
overload(operator.ne)(_equality(True))


@overload(dict)
def _dict(other=None):
    if other is None:
        make = dict_maker(t.undefined, t.undefined)
        return lambda: make()
    if isinstance(other, t.DictType):
        return lambda other: other.copy()
    pair = _pair_types(other)
    if pair is None:
        return None
    _require_key(pair[0])
    make = dict_maker(*pair)

    def impl_pairs(other):
        result = make()
        result.update(other)
        return result
    return impl_pairs


@overload(operator.or_)
def _or(a, b):
    if not (isinstance(a, t.DictType) and isinstance(b, t.DictType)):
        return None
    if a.is_undefined:
        return lambda a, b: b.copy()

    def impl(a, b):
        result = a.copy()
        result.update(b)
        return result
    return impl


@overload(operator.ior)
def _ior(a, b):
    if not isinstance(a, t.DictType) or _pair_types(b) is None and \
            not isinstance(b, t.DictType):
        return None

    def impl(a, b):
        a.update(b)
        return a
    return impl


# ---- views and iteration -----------------------------------------------------------------

class DictViewType(t.Type):
    """`d.keys()`, `d.values()`, `d.items()`: the dict, seen as one of its parts."""

    def __init__(self, dict_type, kind):
        self.dict_type, self.kind = dict_type, kind
        self.fields = (dict_type,)
        self.name = f"dict_{kind}({dict_type})"

    @property
    def key(self):
        return (self.dict_type, self.kind)


def view_item_type(ty):
    """The items a `for` loop over a dict or a view gives, or None."""
    if isinstance(ty, t.DictType):
        return None if ty.is_undefined else ty.key_type
    if isinstance(ty, DictViewType) and not ty.dict_type.is_undefined:
        d = ty.dict_type
        return {"keys": d.key_type, "values": d.value_type,
                "items": t.Tuple((d.key_type, d.value_type))}[ty.kind]
    return None


def _view_method(kind):
    @template(("method", kind))
    def typer(tctx, d):
        if not isinstance(d, t.DictType):
            return None
        rt = DictViewType(d, kind)
        return rt(d), lambda context, b, sig, args: \
            b.insert_value(ir.Constant(dm.value_type(rt), ir.Undefined), args[0], 0)
    return typer


for _kind in ("keys", "values", "items"):
    _view_method(_kind)


@intrinsic
def _view_dict(tctx, view):
    """The dict a view sees (borrowed)."""
    if not isinstance(view, DictViewType):
        return None
    return view.dict_type(view), lambda context, b, sig, args: b.extract_value(args[0], 0)


@template(len)
def _view_len(tctx, view):
    if not isinstance(view, DictViewType):
        return None
    return t.int64(view), lambda context, b, sig, args: used_of(b, b.extract_value(args[0], 0))


@overload(operator.contains)
def _view_contains(view, value):
    if not isinstance(view, DictViewType) or view.dict_type.is_undefined:
        return None
    if view.kind == "keys":
        return lambda view, value: value in _view_dict(view)
    if view.kind == "items":
        if not (isinstance(value, t.BaseTuple) and len(value) == 2):
            return lambda view, value: False

        def impl_items(view, value):
            d = _view_dict(view)
            ix = _find(d, value[0])
            return ix >= 0 and _value_at(d, ix) == value[1]
        return impl_items

    def impl_values(view, value):
        for v in view:
            if v == value:
                return True
        return False
    return impl_values


class DictIteration:
    """`for` over a dict, a view or a set: the live entries in order. Like CPython's iterator, it
    raises RuntimeError if the dict's size changes between two items; it reads the entries'
    count at each step, so no change to the dict can make it read outside them."""

    def __init__(self, context, b, d, dict_ty, item_type, kind):
        self.context, self.d, self.dict_ty = context, d, dict_ty
        self.item_type, self.kind = item_type, kind
        self.slot = context.alloca(b, dm.i64, name="dict.entry")
        b.store(ir.Constant(dm.i64, 0), self.slot)
        self.used = used_of(b, d)
        self.what = "Set" if isinstance(dict_ty, t.SetType) else "dictionary"

    def more(self, b):
        context = self.context
        changed = b.icmp_signed("!=", used_of(b, self.d), self.used)
        context.guard(b, changed, RuntimeError, f"{self.what} changed size during iteration")
        j = context.call_python(b, _next_live, t.int64(self.dict_ty, t.int64),
                                [self.d, b.load(self.slot, typ=dm.i64)])
        b.store(j, self.slot)
        hashes = b.load(_field(b, self.d, HASHES), typ=dm.ptr)
        return b.icmp_signed("<", j, list_layout.size_of(b, hashes))

    def _part(self, b, part, ty):
        lst = b.load(_field(b, self.d, part), typ=dm.ptr)
        return dm.load_item(b, ty, list_layout._item_address(b, lst, ty, b.load(self.slot,
                                                                           typ=dm.i64)))

    def item(self, b):
        K, V = self.dict_ty.key_type, self.dict_ty.value_type
        if self.kind == "keys":
            return self._part(b, KEYS, K)
        if self.kind == "values":
            return self._part(b, VALUES, V)
        return self.context.make_tuple(b, self.item_type,
                                       [self._part(b, KEYS, K), self._part(b, VALUES, V)])

    def advance(self, b):
        b.store(b.add(b.load(self.slot, typ=dm.i64), ir.Constant(dm.i64, 1)), self.slot)


def dict_iteration(context, b, value, ty):
    if is_table(ty):
        return DictIteration(context, b, value, ty, ty.key_type, "keys")
    return DictIteration(context, b, b.extract_value(value, 0), ty.dict_type,
                         view_item_type(ty), ty.kind)

"""`kiln.typed.Dict`: the Python face of a dict made in (or for) compiled code.

As `kiln.typed.List`, the object holds the address of the dict's NRT meminfo (one
reference) and its kiln type; compiled code takes it as an argument by reading that address
(`_unbox` below checks the type against the tag the dict carries), so a dict goes in and
out without a copy. Each operation from Python is one call of a small compiled function
(through the dispatcher's trampoline, no compiling after the first call per type).
"""
from __future__ import annotations

from collections.abc import MutableMapping

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..cpu import reflection
from ..decorators import njit
from ..errors import TypingError
from ..frontend.objmode_values import container_output
from ..library import dict_layout as _dict_layout
from ..library import dicts as _dicts, instance_checks
from ..library import list_layout as _list_layout
from ..runtime import nrt
from ..typing.registry import overload
from .constructors import empty_constructor, type_argument
from .typedlist import (_as_item_type, box_container, decode_type, probe_offset,
                        unbox_container)

_MISSING = object()


class Dict(MutableMapping):
    """A dict of one key type and one value type that compiled code can take and return
    without copying.

    `Dict()` takes its types from the first item stored; `Dict(mapping_or_pairs)` from the
    first of those items; `Dict.empty(key_type, value_type)` is empty and typed."""

    __slots__ = ("_meminfo", "_type")
    _kiln_frozen_ = False   # never frozen into compiled code as a global: it changes

    def __init__(self, *args, **kwargs):
        self._meminfo, self._type = 0, None
        self.update(*args, **kwargs)

    @classmethod
    def empty(cls, key_type, value_type, n_keys=0):
        result = cls()
        result._adopt(t.DictType(_as_item_type(key_type), _as_item_type(value_type)))
        return result

    def _adopt(self, dict_type):
        made = _compiled_empty(dict_type)()
        self._meminfo, self._type, made._meminfo = made._meminfo, made._type, 0

    def _kiln_typeof_(self):
        if self._type is None:
            raise TypeError("this kiln.typed.Dict has no key and value types yet: store an "
                            "item first or make it with Dict.empty(key_type, value_type)")
        return self._type

    def __del__(self):
        if self._meminfo:
            address, self._meminfo = self._meminfo, 0
            nrt.release_from_python(address)

    def __len__(self):
        return _len(self) if self._type is not None else 0

    def __getitem__(self, key):
        if self._type is None:
            raise KeyError(key)
        return _getitem(self, key)

    def __setitem__(self, key, value):
        if self._type is None:
            self._adopt(t.DictType(t.typeof(key), t.typeof(value)))
        _setitem(self, key, value)

    def __delitem__(self, key):
        if self._type is None:
            raise KeyError(key)
        _delitem(self, key)

    def __contains__(self, key):
        return self._type is not None and _contains(self, key)

    def _entries(self, part):
        """The live entries' keys, values or (key, value) pairs, in order; as CPython's
        iterators, RuntimeError if the dict's size changes meanwhile."""
        if self._type is None:
            return
        used, j = len(self), 0
        while True:
            if len(self) != used:
                raise RuntimeError("dictionary changed size during iteration")
            j = _next_live(self, j)
            if j < 0:
                return
            yield part(self, j)
            j += 1

    def __iter__(self):
        return self._entries(_key_at)

    def keys(self):
        return _View(self, _key_at, "dict_keys")

    def _set_items(self):
        """The keys of a Python set argument's typed copy (its type a SetType, laid out as
        this Dict: cpu/reflection.py), read as the Dict's."""
        set_type, self._type = self._type, t.DictType(self._type.item_type, t.boolean)
        try:
            return list(self)
        finally:
            self._type = set_type

    def values(self):
        return _View(self, _value_at, "dict_values")

    def items(self):
        return _View(self, _item_at, "dict_items")

    def get(self, key, default=None):
        if self._type is None or not _contains(self, key):
            return default
        return _getitem(self, key)

    def pop(self, key, default=_MISSING):
        if self._type is None or not _contains(self, key):
            if default is _MISSING:
                raise KeyError(key)
            return default
        return _pop(self, key)

    def popitem(self):
        if not len(self):
            raise KeyError("popitem(): dictionary is empty")
        return _popitem(self)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        if self._type is not None:
            _clear(self)

    def copy(self):
        return _copy(self) if self._type is not None else Dict()

    def update(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], Dict) and \
                args[0]._type is not None and self._type in (None, args[0]._type):
            if self._type is None:
                self._adopt(args[0]._type)
            _update(self, args[0])
            return
        super().update(*args, **kwargs)

    def __eq__(self, other):
        if not isinstance(other, (Dict, dict)):
            return NotImplemented
        return len(self) == len(other) and all(
            k in other and other[k] == v for k, v in self.items())

    __hash__ = None

    def __repr__(self):
        return f"Dict({dict(self.items())!r})"

    def __reduce__(self):
        """Pickled (and copied) as its type and items: its address means nothing elsewhere."""
        return _rebuild, (self._type, list(self.items()))


class _View:
    """`keys()`, `values()`, `items()`: live views, as CPython's."""

    __slots__ = ("_dict", "_part", "_name")

    def __init__(self, d, part, name):
        self._dict, self._part, self._name = d, part, name

    def __len__(self):
        return len(self._dict)

    def __iter__(self):
        return self._dict._entries(self._part)

    def __contains__(self, value):
        if self._part is _key_at:
            return value in self._dict
        return any(v == value for v in self)

    def __repr__(self):
        return f"{self._name}({list(self)!r})"


def _rebuild(dict_type, items):
    result = Dict() if dict_type is None else Dict.empty(dict_type.key_type,
                                                         dict_type.value_type)
    result.update(items)
    return result


MEMINFO_OFFSET = probe_offset(Dict)


instance_checks.boxes_as(t.DictType, dict, Dict)   # a display's, an argument's


@boxing.boxer(t.DictType)
def _box(api, ty, value, fail):
    """A Dict that takes over the reference, tagged as a list is."""
    if ty.is_undefined:
        raise TypingError("kiln cannot return a dict whose key and value types are not known "
                          "(nothing is ever stored in it); make it with "
                          "Dict.empty(key_type, value_type)")
    _dict_layout.set_tag(api.builder, value, ty)
    return box_container(api, ty, value, fail, from_native)


@boxing.unboxer(t.DictType)
def _unbox(unboxer, ty, obj):
    """A Dict's dict itself (borrowed, not copied), if it has this type."""
    return unbox_container(unboxer, ty, obj, Dict, MEMINFO_OFFSET, _dict_layout.has_tag)


@boxing.boxer(t.SetType)
def _box_set(api, ty, value, fail):
    """A Python set holding a copy of the items (a set has no typed twin in Python): the
    table is handed to Python as the Dict it is laid out as, whose keys are copied into a
    set, and released with it."""
    if ty.is_undefined:  # `set()` never filled: empty
        nrt.emit_decref(api.builder, value)
        return api.call("PySet_New", dm.ptr, [ir.Constant(dm.ptr, None)])
    table = t.DictType(ty.item_type, t.boolean)
    _dict_layout.set_tag(api.builder, value, table)
    return box_container(api, table, value, fail, set_from_native)


def from_native(address: int, code: str) -> Dict:
    """A Dict taking over the reference to the dict at `address` (called by boxing)."""
    result = Dict.__new__(Dict)
    result._meminfo, result._type = address, decode_type(code)
    return result


def set_from_native(address: int, code: str) -> set:
    """A Python set of the keys of the dict at `address`, whose reference it releases (a
    set returned from compiled code, library/sets.py, is such a table); the caller's own
    set when this is the copy of a Python set argument (cpu/reflection.py)."""
    original = reflection.original_of(address)
    table = from_native(address, code)
    return original if original is not None else set(table)


@reflection.copier(set)
def reflected_set_copy(items: set) -> Dict:
    """The typed copy of a Python set argument: the table compiled code takes as a set, a
    Dict of its items to True, typed as the set of its first item's type (as Numba's
    reflected sets)."""
    item = t.typeof(next(iter(items)))
    copy = Dict.empty(item, t.boolean)
    for x in items:
        copy[x] = True
    copy._type = t.SetType(item)
    return copy


@boxing.unboxer(t.SetType)
def _unbox_set(unboxer, ty, obj):
    """The table of a Python set argument's typed copy (cpu/reflection.py): a Dict of the
    set's items to True, which compiled code takes as the set it is laid out as."""
    return unbox_container(unboxer, t.DictType(ty.item_type, t.boolean), obj, Dict,
                           MEMINFO_OFFSET, _dict_layout.has_tag)


_compiled = {}


def _compiled_empty(dict_type):
    if dict_type not in _compiled:
        make = _dict_layout.dict_maker(dict_type.key_type, dict_type.value_type)

        def empty():
            return make()
        _compiled[dict_type] = njit(empty)
    return _compiled[dict_type]


# The compiled functions behind Dict's methods (njit compiles each per type on use; a call
# through the dispatcher's trampoline is cheaper than reading the header with ctypes).
@njit
def _len(d):
    return len(d)


@njit
def _getitem(d, key):
    return d[key]


@njit
def _setitem(d, key, value):
    d[key] = value


@njit
def _delitem(d, key):
    del d[key]


@njit
def _contains(d, key):
    return key in d


@njit
def _pop(d, key):
    return d.pop(key)


@njit
def _popitem(d):
    return d.popitem()


@njit
def _clear(d):
    d.clear()


@njit
def _copy(d):
    return d.copy()


@njit
def _update(d, other):
    d.update(other)


@njit
def _next_live(d, j):
    """The position of the first live entry at or after j, or -1."""
    j = _dicts._next_live(d, j)
    return j if j < _list_layout._list_len(_dict_layout._dict_hashes(d)) else -1


@njit
def _key_at(d, j):
    return _list_layout._list_get(_dict_layout._dict_keys(d), j)


@njit
def _value_at(d, j):
    return _list_layout._list_get(_dict_layout._dict_values(d), j)


@njit
def _item_at(d, j):
    return (_list_layout._list_get(_dict_layout._dict_keys(d), j),
            _list_layout._list_get(_dict_layout._dict_values(d), j))


# ---- Dict in compiled code: Dict() is dict(), Dict.empty(key type, value type) ------------

overload(Dict)(_dicts._dict)


@empty_constructor(Dict, "empty")
def _empty(key_type, value_type, n_keys=None):
    key = type_argument(key_type, "Dict.empty() takes a key type such as kiln.int64")
    value = type_argument(value_type, "Dict.empty() takes a value type such as kiln.int64")
    _dicts._require_key(key)
    make = _dicts.dict_maker(key, value)

    def impl(key_type, value_type, n_keys=0):
        return make()
    return impl


@container_output(t.DictType)
def _objmode_output(ty, value, fail, coerce_output):
    """An objmode block's dict output: a Dict of exactly `ty`, or a Python dict copied into
    one."""
    if isinstance(value, Dict) and value._kiln_typeof_() == ty:
        return value
    if not isinstance(value, dict):
        fail(f"a {type(value).__name__}, not a dict")
    result = Dict.empty(ty.key_type, ty.value_type)
    for key, item in value.items():
        result[coerce_output("a key", ty.key_type, key)] = \
            coerce_output(f"item {key!r}", ty.value_type, item)
    return result

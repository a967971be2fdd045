"""`kiln.typed.List`: the Python face of a list made in (or for) compiled code.

The object holds the address of the list's NRT meminfo (one reference) and its kiln type.
Compiled code takes it as an argument by reading that address (`_unbox` below; the list's
type is checked against the tag the list carries), so a list goes in and out without a copy
and both sides see the same items. Operations from Python call small compiled functions;
`len` reads the list's header directly.
"""
from __future__ import annotations

import base64
import ctypes
import pickle
from functools import lru_cache

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..cpu import reflection
from ..decorators import njit
from ..errors import TypingError
from ..frontend.objmode_values import container_output
from ..library import instance_checks, lists as _lists
from ..library.list_layout import list_maker
from ..runtime import nrt
from ..typing.registry import overload
from .constructors import empty_constructor, type_argument


def _as_item_type(item_type):
    """A kiln type from a kiln type, a NumPy dtype or scalar class, or float/int/bool/complex."""
    if isinstance(item_type, t.Type):
        return item_type
    python = {float: t.float64, int: t.int64, bool: t.boolean, complex: t.complex128}
    if item_type in python:
        return python[item_type]
    try:
        return t.from_dtype(np.dtype(item_type))
    except TypeError:
        raise TypeError(f"{item_type!r} is not an item type kiln knows") from None


class List:
    """A list of one item type that compiled code can take and return without copying.

    `List()` takes its item type from the first item appended; `List(iterable)` from the
    iterable's first item; `List.empty_list(item_type)` is empty and typed."""

    __slots__ = ("_meminfo", "_type")
    _kiln_frozen_ = False   # never frozen into compiled code as a global: it changes

    def __init__(self, iterable=()):
        self._meminfo, self._type = 0, None
        self.extend(iterable)

    @classmethod
    def empty_list(cls, item_type, allocated=0):
        result = cls()
        result._adopt(t.ListType(_as_item_type(item_type)), allocated)
        return result

    def _adopt(self, list_type, allocated=0):
        made = _compiled_empty(list_type)(allocated)
        self._meminfo, self._type, made._meminfo = made._meminfo, made._type, 0

    def _kiln_typeof_(self):
        if self._type is None:
            raise TypeError("this kiln.typed.List has no item type yet: append an item first "
                            "or make it with List.empty_list(item_type)")
        return self._type

    def __del__(self):
        if self._meminfo:
            address, self._meminfo = self._meminfo, 0
            nrt.release_from_python(address)

    @property
    def _dtype(self):
        return None if self._type is None else self._type.item_type

    def __len__(self):
        if not self._meminfo:
            return 0
        data = ctypes.c_void_p.from_address(self._meminfo + _DATA_OFFSET).value
        return ctypes.c_int64.from_address(data).value   # the header's size field

    def __getitem__(self, index):
        if isinstance(index, slice):
            result = List.empty_list(self._dtype) if self._type else List()
            result.extend([self[k] for k in range(*index.indices(len(self)))])
            return result
        if self._type is None:
            raise IndexError("list index out of range")
        return _getitem(self, index)

    def __setitem__(self, index, value):
        if self._type is None:
            raise IndexError("list assignment index out of range")
        _setitem(self, index, value)

    def __iter__(self):
        k = 0
        while k < len(self):   # as Python's list iterator: the length as it is now
            yield _getitem(self, k)
            k += 1

    def __contains__(self, value):
        return self._type is not None and _contains(self, value)

    def __eq__(self, other):
        if not isinstance(other, (List, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self):
        return f"List({list(self)!r})"

    def __reduce__(self):
        """Pickled (and copied) as its type and items: its address means nothing elsewhere."""
        return _rebuild, (self._type, list(self))

    def append(self, value):
        if self._type is None:
            self._adopt(t.ListType(t.typeof(value)))
        _append(self, value)

    def extend(self, iterable):
        if isinstance(iterable, List) and iterable._type is not None and \
                (self._type is None or self._type == iterable._type):
            if self._type is None:
                self._adopt(iterable._type)
            _extend(self, iterable)
            return
        for value in list(iterable):
            self.append(value)

    def insert(self, index, value):
        if self._type is None:
            self._adopt(t.ListType(t.typeof(value)))
        _insert(self, index, value)

    def pop(self, index=-1):
        if not len(self):
            raise IndexError("pop from empty list")
        return _pop(self, index)

    def remove(self, value):
        if self._type is None:
            raise ValueError("list.remove(x): x not in list")
        _remove(self, value)

    def index(self, value):
        if self._type is None:
            raise ValueError(f"{value!r} is not in list")
        return _index(self, value)

    def count(self, value):
        return 0 if self._type is None else _count(self, value)

    def reverse(self):
        if self._type is not None:
            _reverse(self)

    def sort(self, reverse=False):
        if self._type is not None:
            _sort(self, bool(reverse))

    def clear(self):
        if self._type is not None:
            _clear(self)

    def copy(self):
        return _copy(self) if self._type is not None else List()

    def _python_items(self):
        """The items as a Python list (read at once for numbers): see python_items."""
        return python_items(self)


def _rebuild(list_type, items):
    result = List() if list_type is None else List.empty_list(list_type.item_type)
    result.extend(items)
    return result


def probe_offset(cls):
    """Where CPython keeps the `_meminfo` slot in a `cls` object (read by boxing's IR)."""
    probe, marker = cls.__new__(cls), object()
    probe._meminfo = marker
    for offset in range(8, cls.__basicsize__, 8):
        if ctypes.c_void_p.from_address(id(probe) + offset).value == id(marker):
            probe._meminfo = 0
            return offset
    raise RuntimeError(f"cannot find the {cls.__name__} object's meminfo slot")


MEMINFO_OFFSET = probe_offset(List)
_DATA_OFFSET = 16  # a meminfo is {refcount, size, data, destructor}


def encode_type(list_type) -> str:
    """The list type as text (its pickle, base64): a constant of the code that boxes it."""
    return base64.b64encode(pickle.dumps(list_type)).decode()


@lru_cache(maxsize=None)
def _decode_type(code: str):
    return pickle.loads(base64.b64decode(code))


def decode_type(code: str):
    return _decode_type(code)


def from_native(address: int, code: str) -> List:
    """A List taking over the reference to the list at `address` (called by boxing)."""
    result = List.__new__(List)
    result._meminfo, result._type = address, _decode_type(code)
    return result


def python_list_from_native(address: int, code: str) -> list:
    """The Python list for a t.List (a list that compiled code made with `[]`, `list()`,
    ...) at `address`, whose reference it releases: the caller's own list when this is the
    copy of a Python list argument (cpu/reflection.py puts the items back after the call),
    else a new list of the items."""
    original = reflection.original_of(address)
    owner = from_native(address, code)
    if original is not None:
        return original
    return python_items(owner)


@reflection.copier(list)
def reflected_copy(items: list) -> List:
    """The typed copy of a Python list argument: a List of its items (typed by the first)
    as the t.List it stands for, which has the same layout and tag."""
    copy = List(items)
    copy._type = t.List(copy._type.item_type)
    return copy


def python_items(lst: List) -> list:
    """The items of `lst` (a List of either kind) as a Python list. A list of numbers is
    read from its buffer at once; other items are boxed one by one (a t.List item becomes
    a Python list in turn)."""
    list_type = lst._type
    if list_type is None or not len(lst):
        return []
    item = list_type.item_type
    if isinstance(item, t.Number) and not isinstance(item, t.Literal):
        data = ctypes.c_void_p.from_address(lst._meminfo + _DATA_OFFSET).value
        items = ctypes.c_void_p.from_address(data + 24).value   # the header's items field
        n = len(lst)
        dtype = np.dtype(item.np_dtype)
        buffer = (ctypes.c_char * (n * dtype.itemsize)).from_address(items)
        return np.frombuffer(buffer, dtype=dtype, count=n).tolist()
    if list_type.reflected:   # read through a typed alias: no specializations for t.List
        lst._type = list_type.as_typed
        try:
            return list(lst)
        finally:
            lst._type = list_type
    return list(lst)


def box_container(api, ty, value, fail, from_native):
    """`from_native(address, type code)`: the Python object owning the container."""
    b = api.builder
    address = api.call("PyLong_FromVoidPtr", dm.ptr, [value])
    code = api.call("PyUnicode_FromString", dm.ptr,
                    [api.context.state.global_string(encode_type(ty))], argtypes=[dm.ptr])
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(from_native), address, code,
                       ir.Constant(dm.ptr, None)], var_arg=True, argtypes=[dm.ptr])
    api.decref(address)
    api.decref(code)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, value)
        fail(b)
    return result


def unbox_container(unboxer, ty, obj, cls, offset, has_tag):
    """The container an object of `cls` holds at `offset` (borrowed, not copied), if the
    tag it carries says it has the type `ty`."""
    b, api = unboxer.b, unboxer.api
    unboxer.require(api.is_type(obj, api.constant_object(cls)))
    meminfo = api.call("PyLong_AsVoidPtr", dm.ptr, [api.read(obj, offset, dm.ptr)])
    unboxer.require(b.icmp_unsigned("!=", meminfo, ir.Constant(dm.ptr, None)))
    unboxer.require(has_tag(b, meminfo, ty))
    return meminfo


instance_checks.boxes_as(t.ListType, List)   # for isinstance, hasattr, getattr


@boxing.boxer(t.ListType)
def _box(api, ty, value, fail):
    """A List that takes over the reference; the list is tagged with its type, so passing
    it back in is checked without Python. A t.List (made by `[]`, `list()`, ...) is a
    Python list instead, as in Numba."""
    from ..library.list_layout import set_tag
    if ty.reflected and not ty.is_undefined:
        set_tag(api.builder, value, ty)
        return box_container(api, ty, value, fail, python_list_from_native)
    if ty.is_undefined:
        raise TypingError("kiln cannot return a list whose item type is not known (nothing "
                          "is ever added to it); make it with List.empty_list(item_type)")
    set_tag(api.builder, value, ty)
    return box_container(api, ty, value, fail, from_native)


@boxing.unboxer(t.ListType)
def _unbox(unboxer, ty, obj):
    """A List's list itself (borrowed, not copied), if it has this type."""
    from ..library.list_layout import has_tag
    return unbox_container(unboxer, ty, obj, List, MEMINFO_OFFSET, has_tag)


@lru_cache(maxsize=None)
def _compiled_empty(list_type):
    make = list_maker(list_type.item_type, list_type.reflected)

    def empty(allocated):
        return make(allocated)
    return njit(empty)


# The compiled functions behind List's methods (njit compiles each per item type on use).
@njit
def _getitem(lst, i):
    return lst[i]


@njit
def _setitem(lst, i, value):
    lst[i] = value


@njit
def _contains(lst, value):
    return value in lst


@njit
def _append(lst, value):
    lst.append(value)


@njit
def _extend(lst, other):
    lst.extend(other)


@njit
def _insert(lst, i, value):
    lst.insert(i, value)


@njit
def _pop(lst, i):
    return lst.pop(i)


@njit
def _remove(lst, value):
    lst.remove(value)


@njit
def _index(lst, value):
    return lst.index(value)


@njit
def _count(lst, value):
    return lst.count(value)


@njit
def _reverse(lst):
    lst.reverse()


@njit
def _sort(lst, reverse):
    lst.sort(reverse=reverse)


@njit
def _clear(lst):
    lst.clear()


@njit
def _copy(lst):
    return lst.copy()


# ---- List in compiled code: List() is list(), List.empty_list(item type) -------------------


@overload(List)
def _typed_list(iterable=None):
    """List() and List(iterable): list() and list(iterable) that stay a kiln.typed.List."""
    return _lists._list_of(iterable, False)


@empty_constructor(List, "empty_list")
def _empty_list(item_type, allocated=None):
    item = type_argument(item_type, "List.empty_list() takes an item type such as kiln.float64")
    make = list_maker(item, False)

    def impl(item_type, allocated=0):
        return make(allocated)
    return impl


@container_output(t.ListType)
def _objmode_output(ty, value, fail, coerce_output):
    """An objmode block's list output: a List of exactly `ty`, or a Python list copied into
    one."""
    if isinstance(value, List) and value._kiln_typeof_() == ty:
        return value
    if not isinstance(value, list):
        fail(f"a {type(value).__name__}, not a list")
    result = List.empty_list(ty.item_type)
    for i, item in enumerate(value):
        result.append(coerce_output(f"item {i}", ty.item_type, item))
    result._type = ty   # (a t.List has the typed list's layout and tag)
    return result

"""Aggregate types: arrays, tuples, ranges, slices and their iterators."""
from __future__ import annotations

from .core import Literal, Number, Type, boolean, int64

LAYOUTS = ("C", "F", "A")


class Array(Type):
    """A NumPy array view: dtype, number of dimensions, layout ('C', 'F' or 'A') and mutability."""

    mutable = True

    def __init__(self, dtype: Number, ndim: int, layout: str = "A", readonly: bool = False):
        if layout not in LAYOUTS:
            raise ValueError(f"array layout must be one of {LAYOUTS}, not {layout!r}")
        if ndim < 0:
            raise ValueError("array ndim must be >= 0")
        self.dtype = dtype
        self.ndim = ndim
        # 0-d and 1-d contiguous arrays are both C and F; call them C.
        self.layout = "C" if (ndim <= 1 and layout == "F") else layout
        self.readonly = readonly
        dims = ", ".join([":"] * ndim)
        if self.layout == "C" and ndim:
            dims = ", ".join([":"] * (ndim - 1) + ["::1"])
        elif self.layout == "F" and ndim:
            dims = ", ".join(["::1"] + [":"] * (ndim - 1))
        ro = ", readonly" if readonly else ""
        self.name = f"array({dtype}, {ndim}d, {self.layout}{ro})"
        self.spelling = f"{dtype}[{dims}]"

    @property
    def key(self):
        return (self.dtype, self.ndim, self.layout, self.readonly)

    def __hash__(self):   # array types key every CUDA launch: hashed once
        found = self.__dict__.get("_hash")
        if found is None:
            found = self._hash = hash((Array, self.key))
        return found

    def __getstate__(self):   # (the hash is this process's: types hash by identity)
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def copy(self, dtype=None, ndim=None, layout=None, readonly=None) -> "Array":
        return Array(self.dtype if dtype is None else dtype,
                     self.ndim if ndim is None else ndim,
                     self.layout if layout is None else layout,
                     self.readonly if readonly is None else readonly)

    @property
    def is_contiguous(self):
        return self.layout in ("C", "F")


def array_from_slices(dtype: Number, spec) -> Array:
    """`float64[:]` → 1-d 'A'; `float64[:, ::1]` → 2-d 'C'; `float64[::1, :]` → 2-d 'F'."""
    if not isinstance(spec, tuple):
        spec = (spec,)
    if not all(isinstance(s, slice) for s in spec):
        raise TypeError(f"array type spec must be slices such as [:] or [:, ::1], not {spec!r}")
    steps = [s.step for s in spec]
    if any(s.start is not None or s.stop is not None for s in spec) or \
            any(step not in (None, 1) for step in steps):
        raise TypeError(f"array type spec allows only ':' and '::1', not {spec!r}")
    layout = "A"
    if steps[-1] == 1 and all(st is None for st in steps[:-1]):
        layout = "C"
    elif steps[0] == 1 and all(st is None for st in steps[1:]):
        layout = "F"
    elif any(st == 1 for st in steps):
        raise TypeError(f"'::1' may mark only the first or last dimension, not {spec!r}")
    return Array(dtype, len(spec), layout)


class BaseTuple(Type):
    types: tuple

    def __len__(self):
        return len(self.types)

    def __iter__(self):
        return iter(self.types)


class UniTuple(BaseTuple):
    """A tuple whose items share one type, so it can be indexed by a runtime integer."""

    def __init__(self, dtype: Type, count: int):
        self.dtype = dtype
        self.count = count
        self.types = (dtype,) * count
        self.name = f"UniTuple({dtype} x {count})"

    @property
    def key(self):
        return (self.dtype, self.count)


def _item_types(types):
    if isinstance(types, Type) or not hasattr(types, "__iter__"):
        from ..errors import TypingError
        raise TypingError(f"Argument 'types' is not iterable: a tuple type takes a sequence "
                          f"of item types, not {types!r}")
    return tuple(types)


class Tuple(BaseTuple):
    """A tuple of mixed item types. `Tuple(types)` of items that share one type is that
    UniTuple, as in Numba."""

    def __new__(cls, types=None, *args):
        if cls is Tuple and types is not None:
            types = _item_types(types)
            if types and all(ty == types[0] for ty in types):
                return UniTuple(types[0], len(types))
        return super().__new__(cls)

    def __init__(self, types):
        self.types = _item_types(types)
        self.name = f"Tuple({', '.join(map(str, self.types))})"

    @property
    def key(self):
        return self.types


def tuple_of(types) -> BaseTuple:
    """The canonical tuple type of these item types (UniTuple when they agree)."""
    types = tuple(types)
    if types and all(t == types[0] for t in types):
        return UniTuple(types[0], len(types))
    return Tuple(types)


class UnicodeType(Type):
    """A Python `str` (library/strings.py): a pointer to an NRT meminfo holding the length,
    a cached hash and the code points. Immutable: every operation makes a new string."""

    name = "unicode_type"


unicode_type = UnicodeType()


class Bytes(Type):
    """A Python `bytes` (library/bytes_values.py): a pointer to an NRT meminfo holding the
    length and the bytes. Immutable."""

    name = "bytes"


bytes_type = Bytes()


class RangeType(Type):
    """The value of `range(...)`: start, stop, step as int64."""

    name = "range"
    item = int64


class SliceType(Type):
    """A slice `a:b:c` over int64 bounds; absent bounds are filled in when it indexes an
    array. Whether it has a step is known at compile time: a step-less slice of a
    contiguous axis stays contiguous."""

    def __init__(self, has_step: bool = True):
        self.has_step = has_step
        self.name = "slice" if has_step else "slice(step=1)"

    @property
    def key(self):
        return (self.has_step,)


# Numba's names: a slice without a step (or with a step of 1) and one with a step
slice2_type, slice3_type = SliceType(has_step=False), SliceType(has_step=True)


class SliceLiteral(SliceType, Literal):
    """A slice known at compile time (Numba's `types.misc.SliceLiteral`): what
    `kiln.literally(s)` compiles a function for. Its bounds are None or int64."""

    def __init__(self, value: slice):
        for bound in (value.start, value.stop, value.step):
            if bound is not None and not (type(bound) in (int, bool) and
                                          -2**63 < bound < 2**63):
                raise ValueError(f"Int value is too large: {bound!r} in {value!r} (a slice's "
                                 "bounds must be None or int64)" if type(bound) is int else
                                 f"a slice literal's bounds must be None or int64, not "
                                 f"{bound!r}")
        super().__init__(has_step=value.step is not None)
        self.value = value
        self.type = SliceType(self.has_step)
        self.name = f"Literal[slice]({value.start}, {value.stop}, {value.step})"

    @property
    def key(self):
        return (self.value.start, self.value.stop, self.value.step)


class Optional(Type):
    """A value of `type` or None (a variable assigned both, a function returning both)."""

    def __init__(self, type_: Type):
        self.type = type_
        self.name = f"OptionalType({type_})"

    @property
    def key(self):
        return (self.type,)


class Undefined(Type):
    """The item type of a list whose items are not known yet (`l = []`): the first call
    that adds items (`l.append(x)`) fixes it, and typing widens the local."""

    name = "undefined"


undefined = Undefined()


def _check_storable(ty, where):
    """Containers copy their items' bytes; a record is a reference into its array, and a
    copy would silently stop writing through to it."""
    from .records import Record
    if isinstance(ty, Record):
        from ..errors import TypingError
        raise TypingError(f"kiln cannot keep a record in {where} (it refers to its array's "
                          "memory); keep the array and the index instead")


class ListType(Type):
    """A growable, reference-counted list of one item type (Numba's `types.ListType`): a
    pointer to its NRT meminfo, so every name bound to a list sees the same items."""

    mutable = True

    def __init__(self, item_type: Type):
        _check_storable(item_type, "a list")
        self.item_type = self.dtype = item_type
        self.name = f"ListType[{item_type}]"

    @property
    def key(self):
        return (self.item_type,)

    @property
    def is_undefined(self):
        return isinstance(self.item_type, Undefined)

    reflected = False   # a Python list in Python (List below), not a kiln.typed.List

    def of(self, item_type: Type) -> "ListType":
        """The list type of this kind (typed or Python) with `item_type` items."""
        return type(self)(item_type)

    @property
    def as_typed(self) -> "ListType":
        return ListType(self.item_type)


class List(ListType):
    """A list that is a Python `list` on the Python side (Numba's `types.List`, the type
    of reflected lists): what a list display, `list()`, a comprehension or `sorted()`
    makes, and a Python list argument. It has ListType's layout and every operation of
    it; only returning it differs: compiled code gives back a Python list (a copy of the
    items, or the caller's own list when it came in as an argument: cpu/reflection.py),
    where a ListType gives a kiln.typed.List. The parameters are Numba's: `reflected` is
    ignored (both kinds of Numba list are this one); `initial_value` is the items of the
    display of constants that made the list (Numba's, None when unknown), which only
    `literally(lst)` asks for (typing/literals.py): a list kiln infers has None. A list
    type with one is another type (overloads are compiled for it)."""

    reflected = True

    def __init__(self, dtype: Type, reflected: bool = False, initial_value=None):
        super().__init__(dtype)
        self.name = f"list({dtype})" + ("" if initial_value is None else
                                         f"<iv={initial_value}>")
        self.initial_value = initial_value

    @property
    def key(self):
        iv = self.initial_value
        return (self.item_type,) if iv is None else (self.item_type, tuple(iv))

    def of(self, item_type: Type) -> "List":
        return List(item_type)


class LiteralList(Type):
    """A list display of items of mixed types (`[1, 'a']`, Numba's `types.LiteralList`):
    the struct of its items, as a tuple's, read by a list's operations that a type per
    item allows (library/literal_lists.py: len, indexing by a constant, `in`, count, copy,
    literal_unroll); nothing mutates it, and it is no tuple."""

    mutable = False

    def __init__(self, literal_value):
        self.types = self.fields = tuple(literal_value)   # fields: laid out as a struct
        self.count = len(self.types)
        self.name = f"LiteralList({list(self.types)})"

    @property
    def key(self):
        return self.types

    @property
    def literal_value(self):
        return list(self.types)

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        return self.types[i]

    def __iter__(self):
        return iter(self.types)


class GeneratorType(Type):
    """What calling a generator function gives (Numba's `types.Generator`): a pointer to
    an NRT meminfo holding the suspended coroutine (codegen/generators.py). Its layout
    depends only on the yield type (the coroutine frame, sized by LLVM, holds the rest),
    so generators of different functions that yield one type are one type."""

    mutable = True

    def __init__(self, yield_type: Type):
        self.yield_type = yield_type
        self.name = f"Generator[{yield_type}]"

    @property
    def key(self):
        return (self.yield_type,)


class DictType(Type):
    """A reference-counted, insertion-ordered hash table (Numba's `types.DictType`): a
    pointer to its NRT meminfo (library/dicts.py). `{}` has undefined key and value types
    until a use (`d[k] = v`) fixes them."""

    mutable = True

    def __init__(self, key_type: Type, value_type: Type):
        _check_storable(key_type, "a dict")
        _check_storable(value_type, "a dict")
        self.key_type, self.value_type = key_type, value_type
        self.name = f"DictType[{key_type},{value_type}]"

    @property
    def key(self):
        return (self.key_type, self.value_type)

    @property
    def is_undefined(self):
        return isinstance(self.key_type, Undefined)


class SetType(Type):
    """A reference-counted hash set (Numba's `types.Set`): the table of a dict whose values
    are unused booleans (library/sets.py), so it shares the dict's layout and code. `set()`
    has an undefined item type until a use (`s.add(x)`) fixes it."""

    mutable = True

    def __init__(self, item_type: Type):
        _check_storable(item_type, "a set")
        self.item_type = self.dtype = self.key_type = item_type
        self.value_type = boolean
        self.name = f"Set[{item_type}]"

    @property
    def key(self):
        return (self.item_type,)

    @property
    def is_undefined(self):
        return isinstance(self.item_type, Undefined)

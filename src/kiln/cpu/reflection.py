"""Python lists and sets passed to compiled functions (or as the items of a tuple passed),
as Numba's reflected lists and sets:
compiled code works on a typed copy (a t.List, or a set's table as a kiln.typed.Dict of its
items to True; the item type from the first item), and the argument gets the copy's items
back after the call, even one that raises, so appends, pops and item writes reach the
caller's list or set; a function that returns it (alone, or in a tuple) gives back the
caller's own object. The copies cost a pass over the items each way (and the call takes
the dispatcher's Python path): a kiln.typed.List is shared without copying.

The copies are made by the families that own those containers (kiln.typed, above this
layer), which register them with `copier`; kiln.typed is one of the library's registrants,
so `library.load()` fills the registry when a call needs it before anything is compiled."""
from __future__ import annotations

_ORIGINALS = {}   # the address of a copy in use -> the caller's list (typedlist's boxing)
_COPIERS = {}     # list, set -> copy(the non-empty list or set) -> its typed copy


def copier(kind):
    """Register the decorated function as the maker of the typed copy of a `kind` (list or
    set) argument; it raises for items of mixed or unsupported types."""
    def register(fn):
        _COPIERS[kind] = fn
        return fn
    return register


def typed_copies(name, args):
    """{position: (the list, its typed copy)} for the Python lists (and sets) among `args`;
    {(position, index): ...} for those that are items of a tuple argument. A list passed
    twice (`f(p, p)`) is one copy, so a change through either name is seen through the
    other, as in Python."""
    copies, made = {}, {}   # made: id of a list (set) -> its copy

    def copy_of(i, value):
        if id(value) not in made:
            made[id(value)] = _copy(name, i, value)
        return made[id(value)]
    for i, value in enumerate(args):
        if type(value) is tuple:
            for j, item in enumerate(value):
                if type(item) in (list, set):
                    copies[(i, j)] = (item, copy_of(i, item))
        elif type(value) in (list, set):
            copies[i] = (value, copy_of(i, value))
    for original, copy in copies.values():
        _ORIGINALS[copy._meminfo] = original
    return copies


_EMPTY = {list: "an empty list: pass kiln.typed.List.empty_list(item_type)",
          set: "an empty set: make it in compiled code with set()"}
_UNFIT = {list: "a Python list as a typed list of its first item's type, and this one does "
                "not fit ({}); pass a kiln.typed.List, a NumPy array or a tuple",
          set: "a Python set as a set of its first item's type, and this one does not fit "
               "({})"}


def _copy(name, i, value):
    kind = type(value)
    if not value:
        raise TypeError(f"{name}(): argument {i + 1}: kiln cannot tell the item type of "
                        f"{_EMPTY[kind]}")
    if kind is list and type(value[0]) in (list, set):   # Numba refuses these, in its words
        raise TypeError(f"{name}(): argument {i + 1}: cannot reflect element of reflected "
                        f"container: kiln takes a Python list as a typed copy, and changes "
                        f"to the {type(value[0]).__name__}s in it could not reach the "
                        "caller's; pass a kiln.typed.List of kiln.typed.Lists, or tuples")
    if kind not in _COPIERS:   # kiln.typed registers them, as the library's registrant
        from .. import library   # (here: a cached hit imports no library module)
        library.load()
    try:
        return _COPIERS[kind](value)
    except Exception as e:   # items of mixed types, lists of lists, objects
        unfit = _UNFIT[kind].format(str(e).splitlines()[0])
        raise TypeError(f"{name}(): argument {i + 1}: kiln takes {unfit}") from None


def with_copies(args, copies):
    args = list(args)
    for key, (_, copy) in copies.items():
        if isinstance(key, int):
            args[key] = copy
        else:   # an item of a tuple argument
            i, j = key
            args[i] = args[i][:j] + (copy,) + args[i][j + 1:]
    return tuple(args)


def original_of(address):
    """The caller's list whose copy is at `address`, or None."""
    return _ORIGINALS.get(address)


def reflect_back(copies):
    """Each list (set) takes its copy's items."""
    for original, copy in copies.values():
        if type(original) is set:
            items = copy._set_items()
            original.clear()
            original.update(items)
        else:
            items = copy._python_items()
            if len(items) != len(original) or not all(map(_same, original, items)):
                original[:] = items   # untouched, it keeps its own objects, as in Python


def _same(old, new):
    """Whether the copy's item is the caller's item's value exactly (a float's sign of zero
    and NaN's bits included)."""
    if old is new:
        return True
    if type(old) is not type(new):
        return False
    if type(old) is float:
        return old == new and (old != 0.0 or str(old) == str(new)) or \
            old != old and _float_bits(old) == _float_bits(new)
    if type(old) is complex:
        return _same(old.real, new.real) and _same(old.imag, new.imag)
    return type(old) in (int, bool, str) and old == new


def _float_bits(x):
    import struct
    return struct.pack("<d", x)


def forget(copies):
    for _, copy in copies.values():
        _ORIGINALS.pop(copy._meminfo, None)

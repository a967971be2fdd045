"""Python lists passed to compiled functions, as Numba's reflected lists: compiled code works
on a typed copy (its type a t.List, the item type from the first item), and the list gets
the copy's items back after the call, so appends, pops and item writes reach the caller's
list; a function that returns the list (alone, or in a tuple) gives back the caller's list.
The copies cost a pass over the list each way (and the call takes the dispatcher's Python
path): a kiln.typed.List is shared without copying."""
from __future__ import annotations

_ORIGINALS = {}   # the address of a copy in use -> the caller's list (typedlist's boxing)


def typed_copies(name, args):
    """{position: (the list, its typed copy)} for the Python lists among `args`."""
    copies = {}
    for i, value in enumerate(args):
        if type(value) is not list:
            continue
        from ..typed import List   # (loaded only for a list: it loads the compiler)
        if not value:
            raise TypeError(f"{name}(): argument {i + 1}: kiln cannot tell the item type of "
                            "an empty list: pass kiln.typed.List.empty_list(item_type)")
        try:
            copy = List(value)
        except Exception as e:   # items of mixed types, lists of lists, objects
            first = str(e).splitlines()[0]
            raise TypeError(f"{name}(): argument {i + 1}: kiln takes a Python list as a "
                            f"typed list of its first item's type, and this one does not "
                            f"fit ({first}); pass a kiln.typed.List, a NumPy array or a "
                            "tuple") from None
        from .. import types as t
        copy._type = t.List(copy._type.item_type)   # (the same layout and tag)
        copies[i] = (value, copy)
        _ORIGINALS[copy._meminfo] = value
    return copies


def with_copies(args, copies):
    return tuple(copies[i][1] if i in copies else a for i, a in enumerate(args))


def original_of(address):
    """The caller's list whose copy is at `address`, or None."""
    return _ORIGINALS.get(address)


def reflect_back(copies):
    """Each list takes its copy's items."""
    for original, copy in copies.values():
        original[:] = copy._python_items()


def forget(copies):
    for _, copy in copies.values():
        _ORIGINALS.pop(copy._meminfo, None)

"""Python lists passed to compiled functions, as Numba's reflected lists: compiled code works
on a typed copy (kiln.typed.List, its item type from the first item), and the list gets the
copy's items back after the call, so appends, pops and item writes reach the caller's list;
a function that returns the list gives back the caller's list. The copies cost a pass over
the list each way (and the call takes the dispatcher's Python path): a kiln.typed.List is
shared without copying."""
from __future__ import annotations


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
            copies[i] = (value, List(value))
        except Exception as e:   # items of mixed types, lists of lists, objects
            first = str(e).splitlines()[0]
            raise TypeError(f"{name}(): argument {i + 1}: kiln takes a Python list as a "
                            f"typed list of its first item's type, and this one does not "
                            f"fit ({first}); pass a kiln.typed.List, a NumPy array or a "
                            "tuple") from None
    return copies


def with_copies(args, copies):
    return tuple(copies[i][1] if i in copies else a for i, a in enumerate(args))


def reflect_back(copies, result):
    """Each list takes its copy's items; a copy returned is its list."""
    for original, copy in copies.values():
        original[:] = list(copy)
    for original, copy in copies.values():
        if type(result) is type(copy) and result._meminfo == copy._meminfo:
            return original
    return result

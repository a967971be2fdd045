"""Literal lists (types/containers.py's LiteralList, Numba's): a list display whose items
have no common type, `[1, 'a']`. Its value is the struct of its items, as a tuple's. What
a list does that a type per item allows works as in Python: len, truth, indexing by a
constant, `in`, count, index, copy, `literal_unroll`, passing it to a function, returning
it to Python (a list). What would need one item type (indexing by a run-time number,
slicing, a plain `for` loop) or change it (every mutation: Numba's "Cannot mutate a literal
list") is a TypingError saying so."""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.boxing import box_tuple, boxer
from ..codegen.ownership import incref
from ..errors import TypingError
from .tuples import count_of
from ..typing.registry import overload, overload_method, template
from ..typing.unify import why_not_unified
from ..typing.unroll import literal_unroll


def build(context, b, ty, values, types_):
    """The display: a struct of the items, each with a reference of its own."""
    items = [context.cast(b, v, vt, it) for v, vt, it in zip(values, types_, ty.types)]
    for item, item_ty in zip(items, ty.types):
        incref(b, item_ty, item)
    return context.make_tuple(b, ty, items)


def _what(lst):
    hint = why_not_unified(*lst.types[:2])   # functions: how to make them one type
    return f"a list of items of mixed types ({lst}, a literal list as Numba types it{hint})"


@template(len)
def _len(tctx, lst):
    if not isinstance(lst, t.LiteralList):
        return None
    return t.int64(lst), lambda context, b, sig, args: context.get_constant(b, t.int64,
                                                                            lst.count)


@overload(bool)
@overload(operator.truth)
def _truth(lst):
    if isinstance(lst, t.LiteralList):
        return lambda lst: True   # items of two types at least


@overload(operator.getitem)
def _getitem(lst, index):
    """A constant index is typing's static_getitem (typing/infer.py); any other has no
    one result type."""
    if isinstance(lst, t.LiteralList):
        raise TypingError(f"Cannot __getitem__ on a literal list, return type cannot be "
                          f"statically determined: {_what(lst)} is indexed by constants only "
                          "(l[0]); loop over it with literal_unroll(l)")


def _mutation(lst, *args):
    if isinstance(lst, t.LiteralList):
        raise TypingError(f"Cannot mutate a literal list: {_what(lst)} cannot change; make "
                          "a list of one item type to change it")


for _op in (operator.setitem, operator.delitem):
    overload(_op)(_mutation)
for _name in ("append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"):
    overload_method(t.LiteralList, _name)(_mutation)


@overload(operator.contains)
def _contains(lst, value):
    if isinstance(lst, t.LiteralList):
        def impl(lst, value):
            for item in literal_unroll(lst):
                if item == value:
                    return True
            return False
        return impl


@overload_method(t.LiteralList, "count")
def _count(lst, value):
    return count_of


@overload_method(t.LiteralList, "index")
def _index(lst, value):
    def impl(lst, value):
        i = 0
        for item in literal_unroll(lst):
            if item == value:
                return i
            i += 1
        raise ValueError("list.index(x): x not in list")
    return impl


@overload_method(t.LiteralList, "copy")
def _copy(lst):
    return lambda lst: lst   # nothing changes it: the copy may be the same value


@boxer(t.LiteralList)
def _box(api, ty, value, fail):
    """Returned to Python: a list of the items, as the display gives in Python."""
    b = api.builder
    items = box_tuple(api, ty, value, fail)
    lst = api.call("PySequence_List", dm.ptr, [items])
    api.decref(items)
    with b.if_then(b.icmp_unsigned("==", lst, ir.Constant(dm.ptr, None)), likely=False):
        fail(b)
    return lst

"""Pickling the ufuncs kiln makes, so they travel to Dask workers: by reference when their
module holds them under their name (NumPy's own way for a ufunc), otherwise by value, as
the recipe that made them (the Python function, signatures, layout, options and source),
compiled again where they are unpickled. A real `numpy.ufunc` cannot carry a `__reduce__`
of its own, so kiln's are found through a copyreg entry for the ufunc type that leaves
every other ufunc to NumPy."""
from __future__ import annotations

import copyreg
import sys

import numpy as np

from ..frontend.by_value import by_value
from ..frontend.source import remember_source, source_for_pickle

_RECIPES = {}   # id(ufunc) -> (the ufunc, its recipe)
_NUMPY_REDUCE = copyreg.dispatch_table.get(np.ufunc, np.ufunc.__reduce__)  # NumPy's own


def recipe(kind, fn, signatures, layout, options):
    return (kind, fn, tuple(signatures), layout, dict(options), source_for_pickle(fn))


def remember(ufunc, made_by):
    """Record how a kiln ufunc was made (ufuncs live as long as the process)."""
    _RECIPES[id(ufunc)] = (ufunc, made_by)


def held_by_module(obj, fn):
    """Whether `fn`'s module holds `obj` under `fn`'s name (then it pickles by name)."""
    module = sys.modules.get(fn.__module__)
    return fn.__module__ != "__main__" and getattr(module, fn.__name__, None) is obj


def rebuild(kind, fn, signatures, layout, options, source):
    from .gufunc import guvectorize  # noqa: F811
    from .vectorize import vectorize
    remember_source(source, fn)
    if kind == "vectorize":
        return vectorize(list(signatures), **options)(fn) if signatures else \
            vectorize(**options)(fn)
    args = (list(signatures), layout) if signatures else (layout,)
    return guvectorize(*args, **options)(fn)


def rebuild_gufunc(fn, layout, options, signatures, is_dynamic, frozen, source):
    """A GUFunc as it was pickled: its loops compiled again, dynamic and frozen as it was."""
    from .gufunc import GUVectorize
    remember_source(source, fn)
    gufunc = GUVectorize(fn, layout, is_dynamic=is_dynamic, **options)
    for sig in signatures:
        gufunc.add(sig)
    if frozen:
        gufunc.disable_compile()
    return gufunc


def _reduce_ufunc(ufunc):
    entry = _RECIPES.get(id(ufunc))
    if entry is None or entry[0] is not ufunc or held_by_module(ufunc, entry[1][1]):
        return _NUMPY_REDUCE(ufunc)
    kind, fn, *rest = entry[1]
    return rebuild, (kind, by_value(fn), *rest)


copyreg.pickle(np.ufunc, _reduce_ufunc)

"""Pickling the ufuncs kiln makes, so they travel to Dask workers: by reference when their
module holds them under their name (NumPy's own way for a ufunc), otherwise by value, as
the recipe that made them (the Python function, signatures, layout, options and source),
compiled again where they are unpickled. A real `numpy.ufunc` cannot carry a `__reduce__`
of its own, so kiln's are found through a copyreg entry for the ufunc type that leaves
every other ufunc to NumPy."""
from __future__ import annotations

import copyreg
import importlib
import io
import marshal
import pickle
import sys
import types

import numpy as np

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


# ---- Python functions by value ----------------------------------------------------------
# A kernel defined inside a function (or a test) has no name pickle can find it by, so it
# travels as its code (marshal), the globals it reads, its defaults and its closure's values,
# as Numba's (cloudpickle's) serialization sends it; modules go by name.

def by_value(fn):
    """`fn`, or when pickle cannot find it by its module and name, a stand-in that pickles
    it by value and unpickles as the function."""
    if not isinstance(fn, types.FunctionType) or _importable(fn):
        return fn
    return _FunctionByValue(fn)


def _importable(obj):
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    if module is None or obj.__module__ == "__main__" and not hasattr(module, "__file__"):
        return False
    found = module
    for part in obj.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is obj


class _FunctionByValue:
    def __init__(self, fn):
        self.fn = fn

    def __reduce__(self):
        buffer = io.BytesIO()
        _Pickler(buffer).dump(self.fn)
        return _load, (buffer.getvalue(),)


def _load(data):
    return pickle.loads(data)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, types.ModuleType):
            return importlib.import_module, (obj.__name__,)
        if isinstance(obj, types.FunctionType) and not _importable(obj):
            code = obj.__code__
            names = _global_names(code)
            module_globals = {k: obj.__globals__[k] for k in names if k in obj.__globals__}
            closure = tuple(c.cell_contents for c in obj.__closure__ or ())
            return _make_function, (marshal.dumps(code), module_globals, obj.__name__,
                                    obj.__qualname__, obj.__module__, obj.__defaults__,
                                    obj.__kwdefaults__, closure, obj.__doc__)
        return NotImplemented


def _global_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


def _make_function(code, module_globals, name, qualname, module, defaults, kwdefaults,
                   closure, doc):
    home = sys.modules.get(module)
    namespace = vars(home) if home is not None else {"__builtins__": __builtins__,
                                                     "__name__": module}
    for key, value in module_globals.items():   # (the module's own names stay its own)
        namespace.setdefault(key, value)
    code = marshal.loads(code)
    cells = tuple(types.CellType(v) for v in closure) if closure else None
    fn = types.FunctionType(code, namespace, name, defaults, cells)
    fn.__qualname__, fn.__module__, fn.__kwdefaults__, fn.__doc__ = \
        qualname, module, kwdefaults, doc
    return fn


copyreg.pickle(np.ufunc, _reduce_ufunc)

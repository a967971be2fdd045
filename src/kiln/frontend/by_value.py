"""Python functions pickled by value, with any pickler: a function defined inside another
(a closure, a kernel made in a test) or by `exec` has no name pickle can find it by, so it
travels as its code (marshal), the globals it reads, its defaults and its closure's values,
as Numba's (cloudpickle's) serialization sends it; modules go by name. Dispatchers and
ufuncs send their Python function this way (with its source: frontend/source.py)."""
from __future__ import annotations

import importlib
import io
import marshal
import pickle
import sys
import types


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

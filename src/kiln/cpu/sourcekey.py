"""The key of a cached specialization that a new process computes without the compiler.

It holds the function's source, the values of the globals and closure variables it reads
(compiled code freezes them, so a changed constant is a different key), the same for each
compiled or plain Python function it reaches through them, its argument types, its
options, kiln's own sources, the BLAS its linear algebra calls (runtime/blas.py: a NumPy
with or without its OpenBLAS, under one version) and the versions and CPU the code was made
for. A value with no description that means the same in every process (an array, a list,
an object kiln cannot name) makes no key, nor do extensions registered outside kiln (their
code is not in the key): the specialization is then compiled and keyed by its IR
(runtime/cache.py)."""
from __future__ import annotations

import builtins
import dataclasses
import enum
import functools
import linecache
import os
import sys
import types

import numpy as np

from .. import types as t
from ..frontend.source import source_lines
from ..runtime.blas import provider
from ..runtime.cache import kiln_stamp, sha256

FORMAT = 2
_PLAIN = (type(None), bool, int, float, complex, str, bytes)

# settings read while compiling (KILN_BOUNDSCHECK is in the options already)
_ENVIRONMENT = ("KILN_VECTOR_WIDTH",)


class Unkeyable(Exception):
    """A value that has no description meaning the same in every process."""


def source_key(dispatcher, argtypes, declared_return, exact_layout, fingerprint):
    """The key of `dispatcher`'s specialization for `argtypes`, or None when it has none."""
    if _extended_outside_kiln():
        return None
    try:
        parts = (FORMAT, fingerprint, kiln_stamp(), sys.version, np.__version__,
                 provider().token,
                 [os.environ.get(name) for name in _ENVIRONMENT],
                 [type_token(ty) for ty in argtypes],
                 None if declared_return is None else type_token(declared_return),
                 exact_layout, _Describer().dispatcher(dispatcher))
    except Unkeyable:
        return None
    return sha256(repr(parts).encode()).hexdigest()


def type_token(ty):
    """A kiln type as its class and key, recursively: its equality, in words."""
    if type(ty) in (t.Function, t.Dispatcher, t.InnerFunction) or \
            type(ty).__module__.endswith((".cffi_types", ".classes")):
        raise Unkeyable(ty)   # keyed by an object's identity in this process
    return (type(ty).__module__, type(ty).__qualname__, _key_token(ty.key))


def _key_token(part):
    if isinstance(part, t.Type):
        return type_token(part)
    if isinstance(part, (tuple, list, frozenset)):
        items = [_key_token(p) for p in part]
        return sorted(items, key=repr) if isinstance(part, frozenset) else items
    if isinstance(part, _PLAIN) or isinstance(part, np.dtype):
        return repr(part)
    if isinstance(part, type):
        return _class_token(part)
    raise Unkeyable(part)


def _library_version(module_name):
    """The version of the installed package the module named comes from, or None when
    it is the user's code (kiln's own is in the key through kiln_stamp)."""
    top = (module_name or "").partition(".")[0]
    if top == "kiln":
        return ""
    module = sys.modules.get(top)
    if module is None:
        return None
    path = getattr(module, "__file__", None)
    if path is None:   # built into the interpreter
        return sys.version
    if not os.path.realpath(path).startswith(_library_dirs()):
        return None
    return str(getattr(module, "__version__", sys.version))


@functools.cache
def _library_dirs():
    """Where installed packages and the standard library live (as `site` lists them:
    importing sysconfig for them took a tenth of a cached hit)."""
    import site
    dirs = [os.path.dirname(os.__file__), *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return tuple({os.path.realpath(d) for d in dirs})


def _class_token(cls):
    version = _library_version(cls.__module__)
    bases = [f"{c.__module__}.{c.__qualname__}" for c in cls.__mro__]
    return ("class", cls.__module__, cls.__qualname__, version, bases)


def _extended_outside_kiln() -> bool:
    """Whether templates from outside kiln are registered (kiln.extending): they change
    what code compiles to, and their code is not in the key."""
    registry = sys.modules.get("kiln.typing.registry")
    if registry is None:
        return False
    for templates in list(registry.registry._templates.values()):
        for template in templates:
            code = getattr(template, "ov", None) or getattr(template, "fn", None) or \
                type(template)   # a template object of its own class
            if not _is_kiln_code(code):
                return True
    return False


def _is_kiln_code(fn) -> bool:
    """`fn` is kiln's, with anything it closes over (register_jitable's lambda holds the
    user's function)."""
    if not (getattr(fn, "__module__", None) or "").startswith("kiln."):
        return False
    cells = getattr(fn, "__closure__", None) or ()
    return all(_is_kiln_code(c.cell_contents) for c in cells
               if isinstance(_cell_value(c), types.FunctionType))


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:   # an empty cell
        return None


def _source_text(fn):
    """What kiln compiles `fn` from, for the key: where it has a file, the file's whole text
    (its digest) and the function's first line (as Numba keys by the file, an edit anywhere
    in it is a miss: finding the function's own lines would tokenize the file, the slowest
    step of a hit); elsewhere its own lines (frontend/source.py finds them)."""
    code = fn.__code__
    if os.path.isfile(code.co_filename):
        linecache.checkcache(code.co_filename)
        lines = linecache.getlines(code.co_filename, fn.__globals__)
        if lines:
            digest = sha256("".join(lines).encode()).hexdigest()
            return (code.co_filename, code.co_firstlineno, digest)
    lines, first, filename = source_lines(fn)
    return (filename, first, "".join(lines))


def _code_names(code, bound=frozenset()) -> set:
    """The global, builtin, closure and attribute names `code` and the functions nested in
    it read (the names their outer function binds left out)."""
    names = (set(code.co_names) | set(code.co_freevars)) - bound
    inner_bound = bound | set(code.co_cellvars) | set(code.co_varnames)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const, inner_bound)
    return names


class _Describer:
    """Describes values as they are frozen into compiled code; each function and module
    once (recursion and cycles refer to the first description by number)."""

    def __init__(self):
        self._seen = {}

    def dispatcher(self, dispatcher):
        options = [(f.name, _key_token(getattr(dispatcher.options, f.name)))
                   for f in dataclasses.fields(dispatcher.options)]
        return ("dispatcher", options, self.function(dispatcher.py_func))

    def _once(self, obj):
        if id(obj) in self._seen:
            return ("seen", self._seen[id(obj)][0])
        self._seen[id(obj)] = (len(self._seen), obj)   # obj: its id stays its own
        return None

    def function(self, fn):
        seen = self._once(fn)
        if seen:
            return seen
        try:
            text = _source_text(fn)
        except Exception:
            raise Unkeyable(fn) from None
        code = fn.__code__
        names = _code_names(code)
        closure = dict(zip(code.co_freevars, fn.__closure__ or ()))
        values = []
        for name in sorted(names):
            if name in closure:
                value = _cell_value(closure[name])
            elif name in fn.__globals__:
                value = fn.__globals__[name]
            elif hasattr(builtins, name):
                value = getattr(builtins, name)
            else:
                continue   # an attribute's name
            values.append((name, self.value(value, names)))
        return ("function", fn.__module__, fn.__qualname__, text,
                self.value(fn.__defaults__ or (), names), values)

    def value(self, value, names):
        """`value` as code that reads `names` sees it (a module by those of its
        attributes)."""
        if isinstance(value, _PLAIN):
            return (type(value).__name__, repr(value))
        if isinstance(value, tuple):
            return ("tuple", [self.value(v, names) for v in value])
        if isinstance(value, np.generic) and not isinstance(value, np.void):
            return ("scalar", value.dtype.str, value.tobytes())
        if isinstance(value, np.dtype):
            return ("dtype", repr(value))
        if isinstance(value, t.Type):
            return ("type", type_token(value))
        if isinstance(value, enum.Enum):
            return ("enum", _class_token(type(value)), value.name, self.value(value.value, names))
        if isinstance(value, types.ModuleType):
            return self._module(value, names)
        from .dispatcher import Dispatcher
        if isinstance(value, Dispatcher):
            return self.dispatcher(value)
        if isinstance(value, type):
            return _class_token(value)
        version = _library_version(getattr(value, "__module__", None))
        if isinstance(value, types.FunctionType) and version is None:
            return self.function(value)   # the user's: compiled from its source
        if callable(value) and version is not None and hasattr(value, "__name__"):
            return ("library", getattr(value, "__module__", None),
                    getattr(value, "__qualname__", value.__name__), version)
        raise Unkeyable(value)

    def _module(self, module, names):
        seen = self._once(module)
        if seen:
            return seen
        version = _library_version(module.__name__)
        attributes = [(name, self.value(getattr(module, name), names))
                      for name in sorted(names) if hasattr(module, name)]
        return ("module", module.__name__, version, attributes)

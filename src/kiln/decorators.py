"""`@njit` and `@jit`, with Numba's spellings: bare, with options, with one signature or a
list of them."""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import threading

import numpy as np

from .options import CompileOptions
from .types import Signature

_OPTION_NAMES = {"nopython", "forceobj", "fastmath", "boundscheck", "nogil", "cache", "parallel",
                 "error_model", "inline", "looplift", "_nrt", "no_cpython_wrapper",
                 "no_cfunc_wrapper", "debug", "locals"}


def _is_signature(obj):
    return isinstance(obj, (str, Signature, tuple))


def warn_if_nopython_false(options, what):
    """Numba's deprecation warning for `nopython=False` (to jit, vectorize, guvectorize),
    shown at the caller of `what`."""
    if options.get("nopython", True) is False:
        import warnings
        from .errors import NumbaDeprecationWarning
        warnings.warn("The keyword argument 'nopython=False' was supplied. kiln compiles in "
                      "nopython mode only (Numba's default since 0.59), so it has no effect; "
                      f"forceobj=True keeps the Python function ({what}).",
                      NumbaDeprecationWarning, stacklevel=3)


def declared_locals(locals) -> dict:
    """jit's `locals={name: type}`: the types checked (kiln types, or NumPy scalar types)."""
    from . import types as t
    declared = {}
    for name, ty in (locals or {}).items():
        if not isinstance(ty, t.Type):
            try:
                ty = t.from_dtype(np.dtype(ty))
            except TypeError:
                raise TypeError(f"locals={{{name!r}: {ty!r}}}: a variable's type is a kiln "
                                "type (kiln.int64) or a NumPy scalar type") from None
        declared[name] = ty
    return declared


def _compiles_nothing(val=True):
    """A forceobj function's `disable_compile()`: it compiles nothing to disable."""


def jit(signature_or_function=None, locals=None, **options):
    """Compile a function for the CPU. `nopython` is the default; `forceobj=True` keeps the
    plain Python function (Numba's object mode without the compiler)."""
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise TypeError(f"unknown option(s) for jit: {', '.join(sorted(unknown))}")
    warn_if_nopython_false(options, "jit")
    if options.get("forceobj") and options.get("nopython"):
        raise ValueError("Only one of 'nopython' or 'forceobj' can be True.")
    if options.get("forceobj"):
        def keep(fn):
            fn.py_func = fn
            fn.nopython_signatures = []     # as Numba's: none compiled in nopython mode
            fn.disable_compile = _compiles_nothing
            return fn
        return keep(signature_or_function) if callable(signature_or_function) else keep
    signatures = None
    if signature_or_function is not None and not callable(signature_or_function):
        if not _is_signature(signature_or_function) and \
                not isinstance(signature_or_function, list):
            raise TypeError("kiln compiles Python functions (def or lambda), given "
                            "directly or after signatures, not "
                            f"{type(signature_or_function).__name__} "
                            f"{signature_or_function!r:.60}")
        signatures = signature_or_function
        if _is_signature(signatures) and not isinstance(signatures, list):
            signatures = [signatures]
        signatures = list(signatures)
    compile_options = CompileOptions.from_kwargs(**options)

    def decorate(fn):
        from .cpu.dispatcher import make_dispatcher
        if not inspect.isfunction(fn):
            raise TypeError(f"kiln compiles Python functions (def or lambda), not "
                            f"{type(fn).__name__} {fn!r:.60}")
        users = not (fn.__module__ or "").startswith("kiln.")   # not kiln's own helpers
        if jit_disabled() and users:
            return _python_function(fn)     # kiln's own helpers (typed containers) compile
        if users:
            init_extensions()
        return make_dispatcher(fn, compile_options.with_locals(fn, declared_locals(locals)),
                               signatures, bool(options.get("cache")))

    if callable(signature_or_function) and not isinstance(signature_or_function, Signature):
        return decorate(signature_or_function)
    return decorate


_extensions_loaded = False
EXTENSION_GROUPS = ("kiln_extensions", "numba_extensions")


def init_extensions():
    """Run the `init` entry point of every installed extension package, once, before the
    first function is compiled (as Numba does when its first dispatcher is made): packages
    declare `[project.entry-points.numba_extensions] init = "pkg.module:init"` (or under
    `kiln_extensions`), and their init registers overloads and types. One that fails
    warns and is passed over, as in Numba."""
    global _extensions_loaded
    if _extensions_loaded:
        return
    _extensions_loaded = True     # first: an extension's init may compile functions
    if not _extensions_declared():
        return
    import warnings
    from importlib.metadata import entry_points
    for group in EXTENSION_GROUPS:
        for entry_point in entry_points(group=group, name="init"):
            try:
                entry_point.load()()
            except Exception as e:
                warnings.warn(f"extension module '{entry_point.module}' ({group} entry "
                              f"point) failed to load due to '{type(e).__name__}({e})'.",
                              stacklevel=3)


def _extensions_declared() -> bool:
    """Whether a distribution on sys.path declares an extension entry point, read from
    its entry_points.txt: importing importlib.metadata takes longer than loading a cached
    function, and most processes have no extension to load. Remembered across processes
    while sys.path's folders, their distributions' folders and entry_points.txt files
    keep their states (installing or removing a distribution changes its folder's)."""
    from .runtime.cache import internal_cache, remembered, sha256
    folders = [os.path.abspath(folder) for folder in sys.path]
    key = sha256(repr(("extensions", folders)).encode()).hexdigest()
    return remembered(internal_cache("extensions"), key, lambda: _scan(folders))


def _scan(folders):
    """(whether a distribution in `folders` declares an extension, the paths read)."""
    headers = tuple(f"[{group}]".encode() for group in EXTENSION_GROUPS)
    paths = []
    for folder in folders:
        paths.append(folder)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            paths.append(os.path.join(folder, name))
            try:   # (one made later changes its distribution folder's state)
                with open(os.path.join(folder, name, "entry_points.txt"), "rb") as f:
                    text = f.read()
            except OSError:
                continue
            paths.append(os.path.join(folder, name, "entry_points.txt"))
            if any(header in text for header in headers):
                return True, paths
    return False, paths


def jit_disabled() -> bool:
    """KILN_DISABLE_JIT (or NUMBA_DISABLE_JIT, or `kiln.config.DISABLE_JIT = 1`): the
    decorators give back the Python function, as Numba's do, to debug it as Python. Read
    when a function is decorated. As in Numba, @vectorize, @guvectorize and @cfunc still
    compile (a ufunc or a C callback needs machine code)."""
    from .options import env_flag
    return env_flag("DISABLE_JIT")


def _python_function(fn):
    """The function itself (Numba gives back the function), with the one dispatcher
    attribute that works the same either way: `.py_func`."""
    fn.py_func = fn
    return fn


@functools.wraps(jit)
def njit(*args, **options):
    """`jit` in nopython mode (the only compiled mode kiln has). As Numba does, it warns
    that a `nopython` or `forceobj` option is ignored."""
    import warnings
    for name in ("nopython", "forceobj"):
        if name in options:
            options.pop(name)
            warnings.warn(f"{name} is set for njit and is ignored", RuntimeWarning,
                          stacklevel=2)
    return jit(*args, **options)


def jit_module(**options):
    """Numba's `jit_module(**options)`, called at the end of a module: every function
    defined in that module (not imported, not already compiled) becomes `jit(**options)`
    of itself, in the module's namespace."""
    module_globals = sys._getframe(1).f_globals
    module_name = module_globals.get("__name__")
    for name, obj in list(module_globals.items()):
        if inspect.isfunction(obj) and obj.__module__ == module_name:
            module_globals[name] = jit(**options)(obj)


_chunk = threading.local()


def get_parallel_chunksize() -> int:
    """The chunk size `set_parallel_chunksize` last set on this thread (0: the default)."""
    return getattr(_chunk, "size", 0)


def set_parallel_chunksize(n: int) -> int:
    """Numba's scheduling hint for parallel loops started from this thread; returns the
    previous value. kiln's thread layer gives each thread one contiguous share of a prange
    whatever the hint, so it changes how the iterations are spread, never the results (as
    in Numba). The value is kept, and read back by get_parallel_chunksize."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"chunk size must be an integer, not {type(n).__name__}")
    if n < 0:
        raise ValueError("chunksize must be greater than or equal to zero")
    old = get_parallel_chunksize()
    _chunk.size = n
    return old


@contextlib.contextmanager
def parallel_chunksize(n: int):
    """`with parallel_chunksize(n):` sets the chunk size for the block (from Python)."""
    old = set_parallel_chunksize(n)
    try:
        yield
    finally:
        set_parallel_chunksize(old)

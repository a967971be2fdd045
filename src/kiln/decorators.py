"""`@njit` and `@jit`, with Numba's spellings: bare, with options, with one signature or a
list of them."""
from __future__ import annotations

import functools
import inspect

from .options import CompileOptions
from .types import Signature

_OPTION_NAMES = {"nopython", "forceobj", "fastmath", "boundscheck", "nogil", "cache", "parallel",
                 "error_model", "inline", "looplift", "_nrt", "no_cpython_wrapper",
                 "no_cfunc_wrapper", "debug", "locals"}


def _is_signature(obj):
    return isinstance(obj, (str, Signature, tuple))


def jit(signature_or_function=None, locals=None, **options):
    """Compile a function for the CPU. `nopython` is the default; `forceobj=True` keeps the
    plain Python function (Numba's object mode without the compiler)."""
    unknown = set(options) - _OPTION_NAMES
    if unknown:
        raise TypeError(f"unknown option(s) for jit: {', '.join(sorted(unknown))}")
    if options.get("forceobj"):
        def keep(fn):
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
        return make_dispatcher(fn, compile_options, signatures, bool(options.get("cache")))

    if callable(signature_or_function) and not isinstance(signature_or_function, Signature):
        return decorate(signature_or_function)
    return decorate


@functools.wraps(jit)
def njit(*args, **options):
    """`jit` in nopython mode (the only compiled mode kiln has)."""
    options.pop("nopython", None)
    return jit(*args, **options)


def rebuild_dispatcher(py_func, options, signatures, cache=False, source=None):
    """Unpickling a dispatcher (e.g. on a Dask worker) compiles it again there, from the
    source that came with it when the worker has no copy of the file."""
    from .cpu.dispatcher import make_dispatcher
    from .frontend.source import remember_source
    remember_source(source, py_func)
    return make_dispatcher(py_func, options, signatures or None, cache)

"""The Dispatcher: what `@njit` returns. It compiles a specialization per argument types
(lazily on first call, or eagerly from signatures) and calls it.

Calls go through the C trampoline (see callable.py); only a miss reaches `_fallback`,
which types the arguments, compiles under a lock (so two threads asking for the same new
specialization get one compile) and calls the new entry point."""
from __future__ import annotations

import collections
import functools
import inspect
import threading
import weakref

from .. import types as t
from ..errors import ArgumentTypingError, KilnError, Location, UnsupportedError
from ..frontend.source import remember_source, source_for_pickle
from ..options import CompileOptions
from ..types.signature import parse_signature
from ..typing.compiled import register_compiled_function
from ..runtime.cache import function_cache
from . import precompiled
from .callable import DispatchTable, entry_callable, vectorcall_arguments

_compile_lock = threading.RLock()


def _mismatch(argtypes, args):
    """The error for arguments an entry point cannot take, as Numba words its unboxing's,
    or None."""
    if len(args) != len(argtypes):
        return TypeError(f"expected {len(argtypes)} arguments, got {len(args)}")
    for ty, value in zip(argtypes, args):
        if isinstance(ty, t.BaseTuple) and isinstance(value, tuple) and len(value) != len(ty):
            return ValueError(f"size mismatch for tuple, expected {len(ty)} element(s) but "
                              f"got {len(value)}")
    return None


@functools.cache
def _compile_stats_type():
    """Numba's CompileStats, made when first asked for: a named tuple's class costs a
    cached hit a fifth of a millisecond."""
    return collections.namedtuple("CompileStats", "cache_path cache_hits cache_misses",
                                  module=__name__)


_REFLECTED = (list, set, tuple)   # the arguments cpu/reflection.py may copy (in a tuple too)


class Specialization:
    """One compiled version of the function, for one tuple of argument types. Its code
    came from the compiler (`cache_hit` None), from the cache keyed by its IR ("ir": the
    optimizer was skipped) or from the cache keyed by its source ("source": nothing was
    compiled; the stages' `result` is made again the first time it is asked for)."""

    def __init__(self, name, argtypes, return_type, entry_address, native_address,
                 result, cache_hit=None):
        self._result = result     # a CompileResult, or what makes it again
        self.argtypes = argtypes
        self.return_type = return_type
        self.entry_address = entry_address
        self.native_address = native_address
        self.cache_hit = cache_hit
        self._callable = entry_callable(name, entry_address)
        self.call = self._callable.function

    @classmethod
    def compiled(cls, result):
        typed = result.typed
        return cls(typed.ir.name, typed.argtypes, typed.return_type,
                   result.compiled.address(result.entry_symbol),
                   result.compiled.address(result.native_symbol), result,
                   "ir" if result.compiled.from_cache else None)

    @property
    def entry_point(self):
        """Numba's: a Python callable running this version on exactly its argument types
        (no conversions, no other version tried); arguments it cannot take raise."""
        def entry_point(*args):
            mismatch = _mismatch(self.argtypes, args)
            if mismatch is not None:
                raise mismatch
            result = self.call(*map(_convert_value, args, self.argtypes))
            if result is NotImplemented:
                raise TypeError(f"can't unbox arguments {args!r:.80} as "
                                f"({', '.join(map(str, self.argtypes))})")
            return result
        return entry_point

    @property
    def result(self):
        if callable(self._result):
            self._result = self._result()
        return self._result

    @property
    def typed(self):
        return self.result.typed

    @property
    def signature(self):
        return t.Signature(self.return_type, self.argtypes)


class Dispatcher:
    """A kiln-compiled function (Numba's CPUDispatcher)."""

    def __init__(self, py_func, options: CompileOptions, signatures=None, cache=False):
        self.py_func = py_func
        self.options = options
        self._cache = function_cache(py_func) if cache else None
        self.__name__ = py_func.__name__
        self.__qualname__ = getattr(py_func, "__qualname__", py_func.__name__)
        self.__doc__ = py_func.__doc__
        self.__module__ = py_func.__module__
        self.__wrapped__ = py_func
        self._pysig = inspect.signature(py_func)
        # with `*args`, the extra arguments are passed as one tuple after the others
        self._positional = [p for p in self._pysig.parameters.values()
                            if p.kind != inspect.Parameter.VAR_POSITIONAL]
        self._star = len(self._positional) < len(self._pysig.parameters)
        # keyword-only parameters come last (frontend); calls are bound by Python's rules
        self._keyword_only = any(p.kind == inspect.Parameter.KEYWORD_ONLY
                                 for p in self._positional)
        self._specializations = {}
        self._signatures = {}   # argument types -> return type, compiled in order
        self._table = None
        self.explicit_signatures = [parse_signature(s) for s in (signatures or ())]
        self.typed_func = register_compiled_function(py_func, self)
        for sig in self.explicit_signatures:
            self.compile(sig)

    @property
    def __code__(self):
        """The Python function's code object, as Numba's dispatchers give it (`func_code`
        too): code that inspects a function's code works on the compiled one."""
        return self.py_func.__code__

    func_code = __code__

    def _kiln_typeof_(self):
        """Passed as an argument, a compiled function is a compile-time constant."""
        return t.Dispatcher(self)

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        """The first call: installs the C trampoline as this dispatcher's `__call__` (not
        with `*args`: an entry point cannot tell a packed tuple from a tuple argument),
        after the call, whose code may come from a cached library that holds the
        trampoline too (cpu/nativelib.py: then LLVM is never loaded)."""
        try:
            return self._fallback(*args, **kwargs)
        finally:
            if not self._star and not self._keyword_only:
                self._install_trampoline()

    def _install_trampoline(self):
        with _compile_lock:
            if self._table is None:
                self._table = DispatchTable(self.__name__, _missed(weakref.ref(self)))
                for spec in self._specializations.values():
                    self._table.add(spec.entry_address)
                type(self).__call__ = self._table.function

    def _trampoline_miss(self, address, nargsf, kwnames):
        args, kwargs = vectorcall_arguments(address, nargsf, kwnames)
        return self._fallback(*args, **kwargs)

    def _fallback(self, *args, **kwargs):
        if kwargs or self._keyword_only:
            args = self._bind_arguments(args, kwargs)
        if not any(type(a) in _REFLECTED for a in args):   # (reflection not imported)
            return self._call_specialization(args)
        from . import reflection
        copies = reflection.typed_copies(self.__name__, args)   # Python lists, as Numba's
        if not copies:
            return self._call_specialization(args)
        try:   # the lists get their items back even when the call raises, as in Numba
            return self._call_specialization(reflection.with_copies(args, copies))
        finally:
            reflection.reflect_back(copies)
            reflection.forget(copies)

    def _call_specialization(self, args):
        spec, args = self._specialization_for(args)
        result = spec.call(*args)
        if result is NotImplemented:  # an argument changed type between the check and now
            raise TypeError(f"{self.__name__}(): internal dispatch error for {spec.signature}")
        return result

    def _bind_arguments(self, args, kwargs):
        try:
            bound = self._pysig.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}(): {e}") from None
        bound.apply_defaults()
        if not self._keyword_only:
            return bound.args
        return tuple(bound.arguments[p.name] for p in self._positional
                     if p.kind != inspect.Parameter.VAR_KEYWORD)

    def _argument_types(self, args):
        n = len(self._positional)
        if len(args) != n and not (self._star and len(args) > n):
            if len(args) < n:
                args = self._bind_arguments(args, {})
            else:
                raise TypeError(f"{self.__name__}() takes {n} positional arguments but "
                                f"{len(args)} were given")
        if self._star:
            args = tuple(args[:n]) + (tuple(args[n:]),)
        types_ = []
        literal = self._literal_parameters()
        for i, (a, name) in enumerate(zip(args, self._pysig.parameters)):
            try:
                types_.append(t.typeof(a))
                if name in literal:   # kiln.literally(name): compiled per value
                    from ..library.literally import literal_argument
                    types_[-1] = literal_argument(name, a, types_[-1])
            except TypeError as e:
                if type(a) is int and any(isinstance(s.args[i], (t.Float, t.Complex))
                                          for s in self.explicit_signatures
                                          if i < len(s.args)):
                    # beyond 64 bits, where a signature declares a float or complex: it
                    # is converted as Python converts it (float(a), complex(a))
                    types_.append(t.float64)
                    continue
                raise ArgumentTypingError(f"{self.__name__}(): argument {i + 1}: {e}") \
                    from None
        return tuple(args), tuple(types_)

    def _literal_parameters(self):
        if not hasattr(self, "_literal"):
            self._literal = ()
            if "literally" in self.py_func.__code__.co_names:   # (no library import if not)
                from ..library.literally import literal_parameters
                self._literal = literal_parameters(self.py_func)
        return self._literal

    def literal_parameters(self):
        """The parameters this function is compiled per value of (kiln.literally): those
        its source passes to `literally`, and those typing asked for since."""
        return self._literal_parameters()

    def require_literal(self, names):
        """Compile for the values of the parameters `names` from now on (typing asked for
        them: typing/literals.py)."""
        self._literal = self._literal_parameters() + tuple(
            n for n in self._pysig.parameters if n in names and n not in self._literal)

    def _specialization_for(self, args):
        given = args
        while True:
            args, argtypes = self._argument_types(given)
            spec = self._specializations.get(argtypes)
            if spec is not None:
                return spec, args
            if self.explicit_signatures:
                return self._convert_to_signature(args, argtypes)
            try:
                with _compile_lock:
                    spec = self._specializations.get(argtypes) or \
                        self._compile_types(argtypes, None)
                return spec, args
            except Exception as request:
                # typing's LiteralRequest (imported only now: a cached hit loads no typing):
                # compile again for those arguments' values
                from ..typing.literals import LiteralRequest, repeated
                if not isinstance(request, LiteralRequest) or \
                        request.owner is not self.typed_func:
                    raise
                if not request.params - set(self._literal_parameters()):
                    raise repeated(self.py_func, request.params).with_traceback(None) \
                        from None
                self.require_literal(request.params)

    def _convert_to_signature(self, args, argtypes):
        """With explicit signatures, accept what converts safely (Numba's rule)."""
        from ..typing.unify import can_convert
        for spec in self._specializations.values():
            if all(map(can_convert, argtypes, spec.argtypes)):
                return spec, tuple(_convert_value(a, ty) for a, ty in zip(args, spec.argtypes))
        accepted = ", ".join(str(s.signature) for s in self._specializations.values())
        raise TypeError(f"{self.__name__}() has no compiled signature for argument types "
                        f"({', '.join(map(str, argtypes))}); accepted: {accepted}")

    def bind_types(self, args, kws):
        """For a call from compiled code: typing/context.py's bind_types of its parameters.
        With `*args`, the types as given (`packed_argtypes` says how they are passed)."""
        from ..typing.context import bind_types
        if self._keyword_only:   # bind_types would take its parameters by position too
            try:
                self._pysig.bind(*args, **kws)
            except TypeError:
                return None
        if self._star and len(args) >= len(self._positional) and not kws:
            return tuple(args), (), [None] * len(args)
        return bind_types(self._positional, args, kws)

    returns_new_reference = True   # a call owns what the compiled function returns

    def check_typed(self, typed):
        """What resolve_dispatcher lets a callee refuse once typed: nothing, on the CPU."""

    def packed_argtypes(self, argtypes):
        """The parameter types of a call with `argtypes`: with `*args`, the extra arguments
        become one tuple (the number of them that stays unpacked, too)."""
        if not self._star:
            return tuple(argtypes), len(argtypes)
        n = len(self._positional)
        return tuple(argtypes[:n]) + (t.tuple_of(argtypes[n:]),), n

    # -- compiling -------------------------------------------------------------------------
    def compile(self, signature):
        """Compile eagerly for a signature ("f8(i4, i4)", a Signature or a tuple of types)."""
        sig = parse_signature(signature)
        with _compile_lock:
            spec = self._specializations.get(tuple(sig.args))
            return spec or self._compile_types(tuple(sig.args), sig.return_type)

    def _compile_types(self, argtypes, declared_return):
        if getattr(self, "_compile_disabled", False):
            raise TypeError(f"{self.__name__}(): no compiled version for "
                            f"({', '.join(map(str, argtypes))}), and compiling is disabled "
                            "(disable_compile())")
        self._check_tuple_sizes(argtypes)
        key = self._source_key(argtypes, declared_return)
        loaded = precompiled.load(self._cache, key) if key else None
        if loaded is not None:
            spec = Specialization(self.__name__, argtypes, loaded.return_type,
                                  loaded.entry_address, loaded.native_address,
                                  lambda: self._run_compiler(argtypes, declared_return,
                                                             load=False), "source")
        else:
            result = self._run_compiler(argtypes, declared_return)
            if key:
                precompiled.save(self._cache, key, result, self.py_func)
            spec = Specialization.compiled(result)
        self._specializations[argtypes] = spec
        self._signatures.setdefault(argtypes, spec.return_type)
        if self._table is not None:
            self._table.add(spec.entry_address)
        return spec

    def _check_tuple_sizes(self, argtypes):
        """A uniform tuple argument of over 1000 items is refused, as Numba does: its code
        would be huge and slow to compile (each item is a value of its own)."""
        for name, ty in zip(self._pysig.parameters, argtypes):
            if isinstance(ty, t.UniTuple) and ty.count > 1000:
                raise UnsupportedError(
                    f"Tuple '{name}' length must be smaller than 1000.\nLarge tuples lead to "
                    "the generation of a prohibitively large LLVM IR which causes excessive "
                    "memory pressure and large compile times.\nAs an alternative, the use of "
                    "a 'list' is recommended in place of a 'tuple' as lists do not suffer "
                    "from this problem.", Location(self.__name__,
                                                   self.py_func.__code__.co_filename,
                                                   self.py_func.__code__.co_firstlineno))

    def _source_key(self, argtypes, declared_return):
        """The key that finds this specialization in the cache without compiling it, or
        None (no cache, or a value it reads has no such key: cpu/sourcekey.py)."""
        if self._cache is None:
            return None
        from .nativelib import fingerprint
        from .sourcekey import source_key
        return source_key(self, argtypes, declared_return, not self.explicit_signatures,
                          fingerprint())

    def _run_compiler(self, argtypes, declared_return, load=True):
        from ..compiler import compile_cpu
        try:
            return compile_cpu(self.typed_func, argtypes, self.options, declared_return,
                               exact_layout=not self.explicit_signatures,
                               cache=self._cache, load=load)
        except KilnError as e:
            shown = ", ".join(map(str, argtypes))
            e.add_context(f"(while compiling {self.__qualname__}({shown}))")
            raise e.with_traceback(None) from None
        except RecursionError:   # the compiler walks the AST recursively
            code = self.py_func.__code__
            raise UnsupportedError(
                f"{self.__qualname__} nests expressions or blocks too deeply for kiln to "
                "compile (Python's recursion limit was reached); split long expressions "
                "into several statements",
                Location(self.__qualname__, code.co_filename, code.co_firstlineno)) from None

    def disable_compile(self, val=True):
        """Numba's: with `val` true, a call with new argument types is a TypeError instead
        of a compile."""
        self._compile_disabled = val

    # -- introspection ---------------------------------------------------------------------
    @property
    def overloads(self):
        """Numba's: argument types -> the compiled version for them (`.signature`,
        `.entry_address`, `.native_address`)."""
        return dict(self._specializations)

    def note_compiled_in(self, argtypes, return_type):
        """A call from compiled code compiled this function for `argtypes` into its
        caller (typing/context.py): a signature it has, as in Numba."""
        self._signatures.setdefault(tuple(argtypes), return_type)

    @property
    def signatures(self):
        """The argument types of every version compiled, as a Python entry or into the
        compiled code that calls it, in the order they were compiled (Numba's)."""
        return list(self._signatures)

    @property
    def nopython_signatures(self):
        return [t.Signature(ret, args) for args, ret in self._signatures.items()]

    @property
    def stats(self):
        """Numba's: the on-disk cache's directory (`cache_path`, None without
        cache=True) and, by argument types, the versions it gave (`cache_hits`) and those
        compiled (`cache_misses`)."""
        hits, misses = collections.Counter(), collections.Counter()
        if self._cache is not None:
            for argtypes, spec in self._specializations.items():
                (hits if spec.cache_hit else misses)[argtypes] += 1
        path = self._cache.directory if self._cache is not None else None
        return _compile_stats_type()(path, hits, misses)

    def _select(self, signature):
        if signature is None:
            return list(self._specializations.items())
        key = tuple(parse_signature(signature).args)
        return [(key, self._specializations[key])]

    def inspect_llvm(self, signature=None):
        """Optimized LLVM IR per signature (a dict), or for one signature (a string)."""
        found = {k: s.result.compiled.optimized_ir for k, s in self._select(signature)}
        return found if signature is None else found[tuple(parse_signature(signature).args)]

    def inspect_asm(self, signature=None):
        found = {k: s.result.compiled.assembly for k, s in self._select(signature)}
        return found if signature is None else found[tuple(parse_signature(signature).args)]

    def inspect_fusion(self, signature=None):
        """The array expressions computed in one loop, per signature (a dict of lists of
        lines), or for one signature (a list)."""
        found = {k: s.result.fusion for k, s in self._select(signature)}
        return found if signature is None else found[tuple(parse_signature(signature).args)]

    def parallel_diagnostics(self, signature=None, level=1, file=None):
        """Print what `parallel=True` did with each prange loop, per specialization: split
        across threads (with its reductions; at level 2 and above also its private and
        shared names) or left serial, and why; which array expressions were fused; and which
        whole-array reductions are split across the threads (those along an axis, of an
        array expression or of floats multiplied stay serial and are not listed)."""
        from ..library.split import SPLIT_ITEMS
        lines = []
        for key, spec in self._select(signature):
            lines.append(f"{self.__qualname__}{key}:")
            loops = spec.typed.prange_loops
            if not self.options.parallel:
                lines.append("  compiled without parallel=True: prange is range")
            elif not loops:
                lines.append("  no prange loops")
            for loop in loops:
                report = loop if level >= 2 else type(loop)(loop.line, loop.parallel,
                                                            loop.reason, loop.reductions)
                lines.append("  " + report.describe())
            if self.options.parallel:
                lines += [f"  array expression, split across the threads when long "
                          f"(C-contiguous operands): {line}" for line in spec.result.fusion]
                lines += [f"  whole-array {name}, split across the threads from {SPLIT_ITEMS} "
                          f"items (a non-contiguous array through its contiguous copy)"
                          for name in spec.result.split_reductions]
        print("\n".join(lines), file=file)

    def inspect_types(self, signature=None, file=None):
        """Print the source annotated with each local's type, per specialization."""
        from .annotate import annotate
        text = "\n".join(annotate(spec.typed) for _, spec in self._select(signature))
        print(text, file=file)

    def __repr__(self):
        return f"<kiln.Dispatcher {self.__qualname__}>"

    def __reduce__(self):
        """By reference when the module holds this dispatcher under its name (the usual
        `@njit def f`); otherwise rebuilt from the Python function, sent by value with any
        pickler (a closure, an exec'd function), and compiled again where it is unpickled
        (e.g. on a Dask worker); what one pickling gives unpickles as one dispatcher."""
        from ..codegen.context import importable_name
        from ..frontend.by_value import by_value
        import uuid
        if self.__module__ != "__main__" and importable_name(self):
            return self.__qualname__
        token = self.__dict__.setdefault("_pickle_token", uuid.uuid4().hex)
        return rebuild_dispatcher, (by_value(self.py_func), self.options,
                                    [str(s) for s in self.explicit_signatures],
                                    self._cache is not None, source_for_pickle(self.py_func),
                                    token)


def _convert_value(value, ty):
    if isinstance(ty, t.Number):
        return ty.np_dtype.type(value) if ty not in (t.int64, t.float64, t.complex128, t.boolean) \
            else {t.int64: int, t.float64: float, t.complex128: complex, t.boolean: bool}[ty](value)
    if isinstance(ty, t.BaseTuple):
        return tuple(_convert_value(v, it) for v, it in zip(value, ty.types))
    return value


def _missed(dispatcher_ref):
    """The trampoline's fallback, holding its dispatcher weakly: its bound method would
    make a cycle (dispatcher, table, method), so a dropped dispatcher waited for the cyclic
    collector, and a first call added a reference to it (Numba's test_closure counts)."""
    def miss(address, nargsf, kwnames):
        return dispatcher_ref()._trampoline_miss(address, nargsf, kwnames)
    return miss


def make_dispatcher(py_func, options, signatures=None, cache=False) -> Dispatcher:
    """A dispatcher with its own class, so its `__call__` slot can be the C trampoline."""
    cls = type("CPUDispatcher", (Dispatcher,), {})
    return cls(py_func, options, signatures, cache)


_rebuilt = weakref.WeakValueDictionary()   # pickled dispatcher's token -> its rebuilt self


def rebuild_dispatcher(py_func, options, signatures, cache=False, source=None, token=None):
    """Unpickling a dispatcher (e.g. on a Dask worker) compiles it again there, from the
    source that came with it when the worker has no copy of the file. The same pickled
    dispatcher (`token`) unpickles as the same dispatcher while that one is alive."""
    found = _rebuilt.get(token) if token is not None else None
    if found is not None:
        return found
    remember_source(source, py_func)
    dispatcher = make_dispatcher(py_func, options, signatures or None, cache)
    if token is not None:
        dispatcher._pickle_token = token
        _rebuilt[token] = dispatcher
    return dispatcher

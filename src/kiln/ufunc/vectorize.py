"""`@vectorize`: a scalar Python function compiled into a NumPy ufunc, with Numba's API.

With signatures (eager) the result is a real `numpy.ufunc` with one loop per signature, so
broadcasting, `out=`, `where=`, `dtype=`, `reduce`, `accumulate`, `outer` and `at` are
NumPy's own. Without them (lazy) the result is a `DUFunc`, which compiles a loop for each
new combination of input dtypes on the call that needs it (as Numba's DUFunc does) and
otherwise hands the call to the ufunc it has built so far.

Kernels are compiled with NumPy's error model, as Numba's are: integer `//` and `%` by zero
give 0, float `/`, `//`, `%` and `**` give NumPy's inf or nan, never ZeroDivisionError or
OverflowError. An exception the kernel raises itself (`raise`, a failed `assert`) stops
the loop and reaches the caller; the elements already written stay written.

With `forceobj=True` (and signatures) the function runs as Python in those loops, as in
Numba's object mode (object_mode.py).
"""
from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from .. import types as t
from ..decorators import warn_if_nopython_false
from ..options import CompileOptions
from ..types.signature import parse_signature
from ..types.ufunc_operands import input_type
from . import no_loop, pickling
from .loops import compile_loop, elementwise_stretch, make_ufunc
from .object_mode import object_mode_kernel

_TARGETS = ("cpu", "parallel")


def vectorize(ftylist_or_function=(), **options):
    """`@vectorize`, `@vectorize()`, `@vectorize(["f8(f8, f8)", ...], target="parallel",
    identity=0, fastmath=True)`."""
    warn_if_nopython_false(options, "vectorize")
    if callable(ftylist_or_function):
        return _build(ftylist_or_function, (), options)
    signatures = ftylist_or_function
    if isinstance(signatures, (str, t.Signature)):
        signatures = [signatures]
    return lambda fn: _build(fn, tuple(signatures), options)


def _build(fn, signatures, options):
    fn = getattr(fn, "py_func", fn)    # an @njit function: its Python function, as Numba
    if options.get("target") == "cuda":
        from ..cuda.ufunc import CUDAUFunc
        check_options(fn, {**options, "target": "cpu"}, "vectorize")
        return CUDAUFunc(fn, signatures)
    target = check_options(fn, options, "vectorize")
    kernel = _Kernel(fn, target == "parallel", options)
    made_by = pickling.recipe("vectorize", fn, signatures, None, options)
    if not signatures:
        return DUFunc(kernel, options.get("identity"), made_by)
    for sig in signatures:
        kernel.compile_signature(sig)
    if kernel.shadowed_loop():
        return DUFunc(kernel, options.get("identity"), made_by, frozen=True)
    ufunc = kernel.ufunc(options.get("identity"))
    pickling.remember(ufunc, made_by)
    return ufunc


class Vectorize:
    """Numba's builder of ufuncs (`numba.np.ufunc.Vectorize`): `Vectorize(fn, target=...,
    identity=..., cache=...)` is a DUFunc without loops; `.add(signature)` compiles one,
    `.disable_compile()` stops the compiling of more, and `.build_ufunc()` gives the ufunc
    (the DUFunc itself; for target='parallel', the NumPy ufunc, as Numba's builder)."""

    def __new__(cls, func, **options):
        func = getattr(func, "py_func", func)
        target = check_options(func, options, "vectorize")
        kernel = _Kernel(func, target == "parallel", options)
        made_by = pickling.recipe("vectorize", func, (), None, options)
        dufunc = DUFunc(kernel, options.get("identity"), made_by)
        dufunc._parallel_builder = target == "parallel"
        return dufunc


class UnrecognizedOptionsError(KeyError, TypeError):
    """An option vectorize/guvectorize do not know: Numba's KeyError ("Unrecognized
    options"), a TypeError too."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


_KNOWN_OPTIONS = ("target", "identity", "nopython", "cache", "fastmath", "forceobj",
                  "boundscheck", "nogil", "writable_args")


def check_options(fn, options, what):
    """The target, after refusing unknown options, targets and non-functions clearly."""
    unknown = set(options) - set(_KNOWN_OPTIONS)
    if unknown:
        raise UnrecognizedOptionsError(
            f"Unrecognized options: {unknown}. Known options are {list(_KNOWN_OPTIONS)} "
            f"(unknown option(s) for {what}: {', '.join(sorted(unknown))})")
    target = options.get("target", "cpu")
    if target not in _TARGETS:   # (target='cuda' is taken before this check)
        raise ValueError(f"unknown {what} target {target!r}: choose 'cpu', 'parallel' or "
                         "'cuda'")
    if not inspect.isfunction(fn):
        raise TypeError(f"{what} compiles Python functions, not {type(fn).__name__}")
    return target


def kernel_cache(fn, options):
    """The on-disk cache of the kernel's loops (`cache=True`), as @njit's."""
    from ..runtime.cache import function_cache
    return function_cache(fn) if options.get("cache") else None


def kernel_options(options):
    """Kernels use NumPy's error model, as NumPy's own loops do."""
    return CompileOptions.from_kwargs(fastmath=options.get("fastmath", False),
                                      boundscheck=options.get("boundscheck"),
                                      error_model="numpy")


class _Kernel:
    """The scalar function and its compiled loops, in the order they were made."""

    def __init__(self, fn, parallel, options):
        self.fn = fn
        self.parallel = parallel
        self.forceobj = bool(options.get("forceobj"))   # run as Python (object_mode.py)
        self.options = kernel_options(options)
        self.cache = kernel_cache(fn, options)
        self.nin = len(inspect.signature(fn).parameters)
        self.loops = {}      # input kiln types -> (address, [NumPy dtypes in and out])
        self.keepalive = []
        self.declared = {}   # input kiln types -> the signature's return type

    def compile_signature(self, sig):
        parsed = parse_signature(sig)
        if parsed.return_type is None:
            raise TypeError(f"vectorize signature {sig!r} has no return type: write it as "
                            "'float64(float64, float64)'")
        self.declared[tuple(parsed.args)] = parsed.return_type
        self.compile(tuple(parsed.args), parsed.return_type)

    def compile(self, argtypes, return_type=None):
        if len(argtypes) != self.nin:
            raise TypeError(f"{self.fn.__name__}() takes {self.nin} arguments; the signature "
                            f"gives {len(argtypes)}")
        for ty in (*argtypes, *(() if return_type is None else (return_type,))):
            if not isinstance(ty, t.Number):
                dtype = getattr(ty, "np_dtype", None)
                raise TypeError(f"vectorize kernels take and return numbers, not {ty}" +
                                (f" (NumPy's dtype {dtype})" if dtype is not None else ""))
        fn = self.fn
        if self.forceobj:
            if return_type is None:
                raise TypeError(f"vectorize({fn.__name__}, forceobj=True) needs signatures: "
                                "the function runs as Python in loops of declared types")
            fn = object_mode_kernel(fn, return_type, argtypes)
        address, typed, keep = compile_loop(fn, argtypes, return_type, self.options,
                                            self.parallel, elementwise_stretch, self.cache)
        if not isinstance(typed.return_type, t.Number):
            raise TypeError(f"{self.fn.__name__}() returns {typed.return_type}; a vectorize "
                            "kernel must return a number")
        self.keepalive.append(keep)
        self.loops[argtypes] = (address, [ty.np_dtype for ty in argtypes] +
                                [typed.return_type.np_dtype])

    def first_safe_loop(self, argtypes, loops=None):
        """The first declared loop (or of `loops`) that every operand casts to safely, in
        the order the signatures were written: NumPy's linear loop search, which Numba
        follows. (NumPy 2 takes a loop matching the dtypes exactly before searching, so a
        real ufunc whose f8 loop comes before its f4 one would give float32 for float32
        input.)"""
        return next((declared for declared in (self.declared if loops is None else loops)
                     if all(np.can_cast(d.np_dtype, a.np_dtype, "safe")
                            for d, a in zip(argtypes, declared))), None)

    def shadowed_loop(self):
        """Whether a declared loop takes inputs an earlier loop also takes safely: then
        NumPy's exact-match preference and the linear search pick differently, and the
        choice has to be kiln's."""
        order = list(self.declared)
        return any(self.first_safe_loop(later) != later for later in order)

    def ufunc(self, identity):
        ufunc = make_ufunc(self.fn.__name__, self.fn.__doc__, list(self.loops.values()),
                           self.nin, 1, identity)
        self.callable_from_compiled_code(ufunc, lazy=False)
        return ufunc

    def callable_from_compiled_code(self, key, lazy, owner=None):
        """Let @njit code call `key` (the ufunc, or the DUFunc) on numbers and arrays, and its
        methods (library/ufunc_methods.py). A call is an elementwise operation whose
        element is the kernel, fused with its neighbours. An
        eager ufunc (or a frozen DUFunc) takes the signature of the operands' dtypes, else
        the first one they cast to safely (as NumPy's loop search does); a lazy one takes a
        loop compiled so far in the same way, else compiles the kernel for the operands'
        dtypes (as Numba's DUFunc)."""
        from ..codegen.array_expressions import dtype_of
        from ..typing.registry import Resolution, template
        from ..library.ufuncs import elementwise_result, elementwise_template
        from ..library import ufunc_methods

        def resolve(tctx, operands):
            if len(operands) != self.nin or \
                    not all(isinstance(o, (t.Array, t.Number)) for o in operands):
                return None
            dtypes = tuple(dtype_of(o) for o in operands)
            if lazy and not getattr(owner, "_frozen", False):
                argtypes = dtypes if dtypes in self.loops else \
                    self.first_safe_loop(dtypes, self.loops) or dtypes
            else:
                argtypes = self.first_safe_loop(dtypes)
                if argtypes is None:
                    from ..errors import TypingError
                    loops = ", ".join(f"{ret}({', '.join(map(str, args))})"
                                      for args, ret in self.declared.items())
                    raise TypingError(f"{self.fn.__name__}() has no loop for "
                                      f"({', '.join(map(str, dtypes))}) that NumPy's safe "
                                      f"casting reaches; its loops: {loops}")
            typed = tctx.type_function(self.fn, argtypes, self.declared.get(argtypes),
                                       self.options)
            if not isinstance(typed.return_type, t.Number):
                return None

            def lower(ctx, builder, sig, llargs):
                return ctx.call_function(builder, typed, llargs)
            element = Resolution(t.Signature(typed.return_type, argtypes), lower,
                                 new_reference=True)
            return elementwise_result(typed.return_type, operands), element, argtypes
        template(key, target="cpu")(elementwise_template(resolve))
        ufunc_methods.register(key, self.nin,
                               owner._ufunc_for if owner is not None else lambda _: key)


def _operand_key(value):
    """What decides an operand's loop, cheap to find and hash: an array's (or NumPy
    scalar's) dtype character, a Python float's, bool's or complex's type, a Python int's
    when int64 holds it; None for anything else (a list: its dtype depends on its items)."""
    kind = type(value)
    if kind is np.ndarray:
        return value.dtype.char
    if kind is float or kind is bool or kind is complex:
        return kind
    if kind is int:
        return kind if -2**63 <= value < 2**63 else None
    try:
        return value.dtype.char
    except AttributeError:
        return None


def _overriding(args, kwargs):
    """The operands (and outputs) whose type overrides `__array_ufunc__`, NumPy's order."""
    out = kwargs.get("out", ())
    values = args + (out if isinstance(out, tuple) else (out,))
    return [v for v in values if type(v) is not np.ndarray and
            getattr(type(v), "__array_ufunc__", None) not in (None, np.ndarray.__array_ufunc__)]


def _deferred(ufunc, overriding, args, kwargs):
    """NEP 13's dispatch, with the DUFunc as the ufunc (NumPy would hand over the ufunc of
    the loops compiled so far, which may lack the one needed): each overriding type in
    turn, a subclass before its base; NumPy's TypeError when all return NotImplemented."""
    kinds = list(dict.fromkeys(type(v) for v in overriding))
    kinds.sort(key=lambda kind: -sum(issubclass(kind, other) for other in kinds))
    for kind in kinds:
        operand = next(v for v in overriding if type(v) is kind)
        result = operand.__array_ufunc__(ufunc, "__call__", *args, **kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"operand type(s) all returned NotImplemented from __array_ufunc__"
                    f"({ufunc!r}, '__call__', ...): "
                    f"{', '.join(repr(type(a).__name__) for a in args)}")


class Growing:
    """A kernel whose loops are compiled as calls need them, the NumPy ufunc built from the
    loops so far (`ufunc`), and pickling by its recipe."""

    def __init__(self, kernel, made_by):
        self._kernel = kernel
        self._made_by = made_by
        self._lock = threading.Lock()
        self.ufunc = None
        functools.update_wrapper(self, kernel.fn)

    @property
    def nin(self):
        return self._kernel.nin

    @property
    def ntypes(self):
        return len(self._kernel.loops)

    @property
    def types(self):
        return [] if self.ufunc is None else self.ufunc.types

    def __reduce__(self):
        if pickling.held_by_module(self, self._kernel.fn):
            return self.__qualname__
        kind, fn, *rest = self._made_by
        return pickling.rebuild, (kind, pickling.by_value(fn), *rest)


class DUFunc(Growing):
    """A ufunc that grows: each new combination of input dtypes compiles another loop.
    A frozen one (eager signatures whose order NumPy would not respect) compiles nothing
    more: it takes the first declared loop the operands cast to safely."""

    def __init__(self, kernel, identity, made_by, frozen=False):
        super().__init__(kernel, made_by)
        self._identity = identity
        self._frozen = frozen
        self._parallel_builder = False
        self._signatures = {}   # operand keys (_operand_key) -> the loop's 'dd->d'
        self.ufunc = kernel.ufunc(identity)
        kernel.callable_from_compiled_code(self, lazy=not frozen, owner=self)

    # -- Numba's builder API ---------------------------------------------------------------
    def add(self, sig):
        """Compile the loop of `sig` ('float64(float64, float64)')."""
        with self._lock:
            self._kernel.compile_signature(sig)
            self._rebuilt()

    def build_ufunc(self):
        return self.ufunc if self._parallel_builder else self

    def disable_compile(self):
        """Compile nothing more: calls take the first loop their dtypes cast to safely."""
        for argtypes in self._kernel.loops:
            self._kernel.declared.setdefault(argtypes, None)
        self._frozen = True
        self._signatures.clear()

    def _rebuilt(self):
        self.ufunc = self._kernel.ufunc(self._identity)
        self._signatures.clear()   # NumPy may now pick another loop for known dtypes
        return self.ufunc

    def _ensure(self, argtypes):
        if self._frozen:
            return self.ufunc
        with self._lock:
            if argtypes not in self._kernel.loops:
                self._kernel.compile(argtypes)
                self._rebuilt()
        return self.ufunc

    def _argtypes(self, operands):
        """The loop's input types; None for a frozen ufunc without a loop for them (NumPy's
        own search then decides, and its error names the loops)."""
        if not self._frozen:
            return tuple(input_type(o) for o in operands)
        try:
            return self._kernel.first_safe_loop(tuple(input_type(o) for o in operands))
        except TypeError:   # a dtype kiln has no type for: no loop takes it
            return None

    def _loop_for(self, operands, kwargs):
        """The ufunc with a loop for these operands, and the call's keywords. A `dtype=`
        asks for the loop of that dtype; otherwise the loop of the operands' own dtypes is
        named in `signature=`, so NumPy's search, which takes the first loop the inputs
        cast to safely, cannot pick an older one (int32 and a Python int would otherwise
        go to a float64 loop made earlier). Known operand dtypes find their signature in
        one dictionary look-up."""
        dtype = kwargs.get("dtype")
        if dtype is not None:
            return self._ensure((t.from_dtype(np.dtype(dtype)),) * self._kernel.nin), kwargs
        if "signature" in kwargs:
            return self._ensure(tuple(input_type(o) for o in operands)), kwargs
        key = tuple(map(_operand_key, operands))
        signature = self._signatures.get(key)
        if signature is None:
            argtypes = self._argtypes(operands)
            if argtypes is None:
                return self.ufunc, kwargs
            self._ensure(argtypes)
            chars = [np.dtype(d).char for d in self._kernel.loops[argtypes][1]]
            signature = "".join(chars[:-1]) + "->" + chars[-1]
            if None not in key:
                self._signatures[key] = signature
        return self.ufunc, dict(kwargs, signature=signature)

    def __call__(self, *args, **kwargs):
        """As Numba's: NumPy's ufunc takes the call when one of the loops compiled so far
        takes its dtypes (NumPy's search: an exact match, else the first loop they cast to
        safely); otherwise a loop for the operands' own dtypes is compiled first. An
        operand that overrides `__array_ufunc__` (NEP 13: Dask, xarray) takes the call."""
        nin = self._kernel.nin
        if len(args) < nin:
            raise TypeError(f"{self.__name__}() takes {nin} arguments, {len(args)} given")
        overriding = _overriding(args, kwargs)
        if overriding:
            return _deferred(self, overriding, args, kwargs)
        if not self._frozen and "dtype" not in kwargs and "signature" not in kwargs \
                and self._kernel.loops:
            try:
                return self.ufunc(*args, **kwargs)
            except TypeError as e:
                if not no_loop.is_no_loop(e):
                    raise
        elif self._frozen and "dtype" not in kwargs and "signature" not in kwargs:
            signature = self._signatures.get(tuple(map(_operand_key, args[:nin])))
            if signature is not None:
                return self.ufunc(*args, signature=signature, **kwargs)
        ufunc, kwargs = self._loop_for(args[:nin], kwargs)
        return ufunc(*args, **kwargs)

    def _ufunc_for(self, argtypes):
        """The ufunc with a loop for these input types (a frozen one as it is: NumPy's
        search decides, as a ufunc's reduce and at do); compiled code's methods ask too."""
        return self.ufunc if self._frozen else self._ensure(argtypes)

    def _method(self, name, operands, *args, **kwargs):
        dtype = kwargs.get("dtype")
        argtypes = () if self._frozen else \
            (t.from_dtype(np.dtype(dtype)),) * self._kernel.nin if dtype is not None \
            else tuple(input_type(o) for o in operands)
        return getattr(self._ufunc_for(argtypes), name)(*args, **kwargs)

    def _reduction_operands(self, array, kwargs, uniform=False):
        """What a reduction's loop takes: the accumulator, which NumPy keeps in out='s dtype
        when one is given, and the items (of that dtype too where NumPy asks for one dtype:
        accumulate, reduceat)."""
        out = kwargs.get("out")
        out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        if out is None:
            return (array,) * self._kernel.nin
        return ((out, out if uniform else array))[-self._kernel.nin:]

    def reduce(self, array, *args, **kwargs):
        return self._method("reduce", self._reduction_operands(array, kwargs), array, *args,
                            **kwargs)

    def accumulate(self, array, *args, **kwargs):
        return self._method("accumulate", self._reduction_operands(array, kwargs, True), array,
                            *args, **kwargs)

    def reduceat(self, array, *args, **kwargs):
        return self._method("reduceat", self._reduction_operands(array, kwargs, True), array,
                            *args, **kwargs)

    def outer(self, a, b, **kwargs):
        ufunc, kwargs = self._loop_for((a, b), kwargs)
        return ufunc.outer(a, b, **kwargs)

    def at(self, a, indices, b=None):
        operands = (a,) if b is None else (a, b)
        return self._method("at", operands, a, indices, *(() if b is None else (b,)))

    @property
    def nout(self):
        return 1

    @property
    def nargs(self):
        return self._kernel.nin + 1

    @property
    def identity(self):
        return self._identity

    def __repr__(self):
        return f"<kiln.DUFunc {self.__name__!r}>"

"""The typing context of one target: resolves calls through the registry and types (and
caches) every function compiled for that target, user functions and library
implementations alike."""
from __future__ import annotations

import inspect
import threading

from .. import types as t
from ..errors import TypingError
from .registry import Resolution, registry
from ..types.typeof import typeof_global
from .compiled import compiled_functions as _compiled_functions
from .unify import can_convert, unify


class TypingContext:
    def __init__(self, target: str):
        self.target = target
        self._typed = {}           # (pyfunc, argtypes, options) -> TypedFunction
        self._in_progress = {}     # same key -> declared return type (for recursion)
        self._called_while_typed = set()  # keys of functions in a cycle of calls
        self._calling = []         # per function being typed, the keys it calls
        self._lock = threading.RLock()

    # -- calls -----------------------------------------------------------------------------
    def resolve(self, key, args, kws=None) -> Resolution | None:
        for template in registry.templates(key, self.target):
            found = template.resolve(self, tuple(args), dict(kws or {}))
            if found is not None:
                return found
        return None

    def has_templates(self, key) -> bool:
        return bool(registry.templates(key, self.target))

    def prefers_literals(self, key) -> bool:
        """Whether an overload of `key` sees constants as literal types first (Numba's
        prefer_literal=True): a call then passes its int constants as IntegerLiteral."""
        return any(getattr(tmpl, "prefer_literal", None) for tmpl in registry.templates(
            key, self.target))

    def global_type(self, value) -> t.Type | None:
        """The type of a frozen global, closure value or module attribute (a compiled
        function says its own type, through `_kiln_typeof_`)."""
        ty = typeof_global(value)
        if ty is None and (registry.has(value) or callable(value)):
            return t.Function(value)
        if self.target == "cuda" and isinstance(ty, t.Array):   # a copy in the module's
            ty = ty.copy(layout="C", readonly=True)              # constants (codegen)
        return ty

    def unbound_dispatcher(self, caller, name):
        """The compiled function that a call by `name` in `caller` means while its global is
        not bound yet: `caller` itself, or a function of the same module being typed (its
        decoration compiles it, so mutual recursion reaches it before its name exists)."""
        if name == caller.__name__:
            return _compiled_functions.get(caller)
        with self._lock:
            for pyfunc, *_ in self._in_progress:
                if getattr(pyfunc, "__name__", None) == name and \
                        getattr(pyfunc, "__globals__", None) is caller.__globals__:
                    return _compiled_functions.get(pyfunc)
        return None

    # -- functions -------------------------------------------------------------------------
    def type_function(self, pyfunc, argtypes, declared_return=None, options=None):
        """Type `pyfunc` for `argtypes` once per context. A recursive call before the
        return type is known is typed on a second attempt, with the type of the returns
        that do not recurse (results.RecursionPending)."""
        from .results import RecursionPending
        from ..options import CompileOptions
        options = options or CompileOptions()
        # the declared return type too: a C callback of `float64(int64)` of a function also
        # compiled lazily (returning int64) must convert its result
        key = (pyfunc, tuple(argtypes), options, declared_return)
        with self._lock:
            self._note_call(key)
            if key in self._typed:
                return self._typed[key]
            if key in self._in_progress:
                declared = self._in_progress[key]
                if declared is None:
                    raise RecursionPending({key})
                self._called_while_typed.add(key)
                return _PendingFunction(self, key, declared)
            self._in_progress[key] = declared_return
            self._calling.append(set())
            try:
                typed = self._infer_recursive(key, declared_return)
            finally:
                del self._in_progress[key]
                called = self._calling.pop()
            typed.callees = frozenset(called)
            typed.recursive = key in self._called_while_typed  # every cycle has one such
            self._typed[key] = typed
            return typed

    MAX_RETURN_GUESSES = 8

    def _infer_recursive(self, key, declared_return):
        """Infer `key`'s function; while it waits on its own return type, again with the
        type its other returns give (widened until the result agrees with it). What was
        typed during a guess that proved wrong is typed again (it may have used it)."""
        from .infer import infer_function
        from .results import RecursionPending
        pyfunc, argtypes, options, _ = key
        for _ in range(self.MAX_RETURN_GUESSES):
            before = set(self._typed)
            guess = self._in_progress[key]
            try:
                typed = infer_function(self, pyfunc, argtypes, declared_return, options)
            except RecursionPending as pending:
                if key not in pending.keys or declared_return is not None:
                    raise     # a function further out is waited on
                if pending.partial is None:
                    raise TypingError(
                        f"cannot type infer runaway recursion: {pyfunc.__qualname__!r} calls "
                        "itself on every path that returns; kiln infers a recursive "
                        "function's return type from a return that does not recurse (a base "
                        "case): add one, or an explicit signature, e.g. "
                        "@njit('int64(int64)')", pending.where) from None
                found = pending.partial
            else:
                if guess is None or typed.return_type == guess:
                    return typed
                found = typed.return_type
            widened = found if guess is None else unify(guess, found)
            if widened is None or widened == guess:
                raise TypingError(f"{pyfunc.__qualname__!r} is recursive and returns {guess} "
                                  f"on some paths and {found} on others; give it an explicit "
                                  "signature")
            self._in_progress[key] = widened
            for stale in set(self._typed) - before:
                del self._typed[stale]
        raise TypingError(f"Return type of recursive function does not converge: the return "
                          f"type of {pyfunc.__qualname__!r} grows with each guess; give it an "
                          "explicit signature")

    def typed_inner(self, fn, argtypes, options):
        """A nested function typed (once per argument types and options) from its AST, with
        the captured outer locals as trailing arguments."""
        from ..frontend import build_nested_ir
        from .infer import infer_ir
        key = (fn.node, tuple(argtypes), options)
        with self._lock:
            self._note_call(key)
            if key not in self._typed:
                if key in self._in_progress:
                    raise TypingError(f"nested function {fn.node.name!r} calls itself; "
                                      "kiln compiles recursion only in @njit functions "
                                      "with an explicit signature")
                self._in_progress[key] = None
                self._calling.append(set())
                try:
                    ir = build_nested_ir(fn.node, fn.outer, fn.captured)
                    typed = infer_ir(self, ir, tuple(argtypes), None, options)
                finally:
                    del self._in_progress[key]
                    called = self._calling.pop()
                typed.callees = frozenset(called)
                self._typed[key] = typed
            return self._typed[key]

    def _note_call(self, key):
        """Record that the function being typed (if any) calls `key`'s function."""
        if self._calling:
            self._calling[-1].add(key)

    def callees(self, typed):
        """The typed functions `typed` calls (None for one whose typing was abandoned)."""
        return [self._typed.get(key) for key in typed.callees]

    def resolve_inner(self, fn, argtypes, options, filled=()) -> Resolution:
        """A call of a nested function from a function compiled with `options`; `filled`:
        the (type, value) of the defaults of the parameters it leaves out, which come
        before the captured locals at the end of `argtypes`."""
        cut = len(argtypes) - len(fn.captured)
        full = tuple(argtypes[:cut]) + tuple(ty for ty, _ in filled) + tuple(argtypes[cut:])
        typed = self.typed_inner(fn, full, options)

        def lower(ctx, builder, sig, llargs):
            llargs = list(llargs[:cut]) + [ctx.get_constant(builder, ty, value)
                                           for ty, value in filled] + list(llargs[cut:])
            return ctx.call_function(builder, self.typed_inner(fn, full, ctx.options),
                                     llargs)
        return Resolution(t.Signature(typed.return_type, tuple(argtypes)), lower,
                          new_reference=True)

    def lookup_typed(self, key):
        return self._typed[key]

    def resolve_dispatcher(self, disp, args, kws) -> Resolution | None:
        """A call from compiled code to another kiln function (a CPU dispatcher, or a CUDA
        device function seen through cuda/nvvm.py's CalledDeviceFunction): type (and later
        lower) the callee's specialization for these argument types."""
        bound = disp.bind_types(args, kws)
        if bound is None:
            return None
        types, kw_order, fill = bound
        full, unpacked = disp.packed_argtypes(types)
        declared = None
        if disp.explicit_signatures:
            matches = [s for s in disp.explicit_signatures
                       if len(s.args) == len(full) and all(map(can_convert, full, s.args))]
            if not matches:
                return None
            full, declared = tuple(matches[0].args), matches[0].return_type
        typed = self.type_function(disp.typed_func, full, declared, disp.options)
        disp.check_typed(typed)
        if hasattr(disp, "note_compiled_in"):
            disp.note_compiled_in(full, typed.return_type)

        packed = unpacked < len(full)          # `*args`: the rest passed as one tuple
        targets = full[:unpacked] + tuple(full[-1].types) if packed else full
        passed = given_types(targets, fill)

        def lower(ctx, builder, sig, llargs):
            llargs = with_defaults(ctx, builder, llargs, fill, targets)
            if packed:
                llargs[unpacked:] = [ctx.make_tuple(builder, full[-1], llargs[unpacked:])]
            return ctx.call_function(builder, typed.resolved(), llargs)
        return Resolution(t.Signature(typed.return_type, passed), lower, kw_order,
                          new_reference=disp.returns_new_reference)


def bind_types(params, args, kws):
    """A call from compiled code bound to `params` (inspect.Parameters, no `*args`): the
    types of every parameter in order, the keyword names in that order, and per parameter
    None where the call gives it (its positionals, then its keywords, in that order) or
    the (type, value) of the default filled in; None when the call does not bind."""
    if len(args) > len(params):
        return None
    types, kw_order, fill = list(args), [], [None] * len(args)
    for p in params[len(args):]:
        if p.name in kws:
            types.append(kws[p.name])
            kw_order.append(p.name)
            fill.append(None)
        elif p.default is not inspect.Parameter.empty:
            types.append(t.typeof(p.default))
            fill.append((types[-1], p.default))
        else:
            return None
    return tuple(types), tuple(kw_order), fill


def given_types(types, fill) -> tuple:
    """Of the parameters' `types`, those the call gives (bind_types), in its order."""
    return tuple(ty for ty, filled in zip(types, fill) if filled is None)


def with_defaults(ctx, builder, llargs, fill, targets):
    """The call's LLVM arguments in parameter order: those it gives, and the defaults'
    constants (bind_types's `fill`) converted to their parameters' `targets`."""
    given = iter(llargs)
    return [next(given) if filled is None else
            ctx.cast(builder, ctx.get_constant(builder, filled[0], filled[1]), filled[0], target)
            for filled, target in zip(fill, targets)]


class _PendingFunction:
    """Stands for a function still being typed (a recursive call): its signature is declared,
    and by the time code is generated the real typed function exists."""

    def __init__(self, tctx, key, return_type):
        self._tctx = tctx
        self._key = key
        self.return_type = return_type

    def resolved(self):
        return self._tctx.lookup_typed(self._key)

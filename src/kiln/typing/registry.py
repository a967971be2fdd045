"""The registry of everything compiled code can call, and the extension API built on it.

Each entry is a *template* keyed by what the user's code calls (a Python function such as
`math.sin`, an operator such as `operator.add`, `("method", "sum")`, `("attr", "shape")`).
A template turns argument types into a `Resolution`: the signature chosen (the argument
types to convert to and the result type) and how to generate its code. Typing and
implementation of one function live together, and every template says which targets
(cpu, cuda) it serves.
"""
from __future__ import annotations

import inspect
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

from .. import types as t
from ..types import Signature

ALL_TARGETS = frozenset({"cpu", "cuda"})


def _targets(target) -> frozenset:
    if target in (None, "generic"):
        return ALL_TARGETS
    if isinstance(target, str):
        return frozenset({target})
    return frozenset(target)


@dataclass(frozen=True)
class Resolution:
    """A chosen implementation: arguments are converted to `signature.args` before `lower`."""

    signature: Signature
    lower: Callable  # (codegen_context, builder, signature, llvm_args) -> llvm value
    kw_order: tuple = ()  # keyword arguments' names in the order they follow the positionals
    # Whether `lower` returns a new reference (a compiled function's result, a new array)
    # rather than a value borrowed from the arguments (a view, an item).
    new_reference: bool = False
    # An `array_expressions.Consumer` when `lower` can take array expressions for some arguments.
    fusion: object = None


class Template:
    """Turns argument types into a Resolution, or None when it does not apply."""

    targets = ALL_TARGETS

    def resolve(self, tctx, args: tuple, kws: dict) -> Resolution | None:
        raise NotImplementedError


class IntrinsicTemplate(Template):
    """`fn(typingctx, *argtypes)` returns `(signature, codegen)` or None; codegen builds LLVM IR.
    With Numba's `prefer_literal=True` it sees the constants' literal types first (then the
    plain types, if it refuses them)."""

    def __init__(self, fn, targets=ALL_TARGETS, prefer_literal=False):
        self.fn = fn
        self.targets = targets
        self.prefer_literal = prefer_literal

    def resolve(self, tctx, args, kws):
        if self.prefer_literal:
            from ..errors import KilnError
            try:
                found = self._resolve(tctx, args, kws)
            except KilnError:
                found = None
            if found is not None:
                return found
        # intrinsics type values, not constants; a string constant stays one (a C type
        # name, a dtype name), as a template may need its text
        return self._resolve(tctx, *_unliteral(args, kws, strings=False))

    def _resolve(self, tctx, args, kws):
        kw_order = ()
        if kws:
            params = list(inspect.signature(self.fn).parameters)[1:]
            kw_order = tuple(p for p in params[len(args):] if p in kws)
            if len(kw_order) != len(kws):
                return None
            args = args + tuple(kws[k] for k in kw_order)
        result = self.fn(tctx, *args)
        if result is None:
            return None
        sig, codegen = result
        return Resolution(sig, codegen, kw_order, getattr(codegen, "new_reference", False),
                          getattr(codegen, "fusion", None))


def _unliteral(args, kws, strings=True):
    def strip(ty):
        return ty if not strings and isinstance(ty, t.StringLiteral) else t.unliteral(ty)
    return tuple(map(strip, args)), {k: strip(v) for k, v in kws.items()}


def omitted(ty):
    """Whether an optional argument is left out (its default None) or given as None."""
    return ty is None or isinstance(ty, t.NoneType)


def literal_flag(ty, what):
    """The value of a bool argument that changes what a function returns, for its
    overload: a constant (types.BooleanLiteral; an omitted argument is its default, and
    None is False), else a TypingError naming `what` (e.g. "np.histogram's density")."""
    if ty is None or isinstance(ty, (bool, t.NoneType)):
        return bool(ty)
    if isinstance(ty, t.BooleanLiteral):
        return ty.value
    from ..errors import TypingError
    raise TypingError(f"{what} must be the constant True or False in compiled code (it "
                      f"changes what is returned), not a {ty}")


class OverloadTemplate(Template):
    """`ov(*argtypes, **kwtypes)` returns a Python implementation that kiln compiles, or None.

    Which argument types it sees first (Numba's `prefer_literal`): kiln's own library
    (None) and `prefer_literal=True` see the types as given, constants as literal types,
    then the plain types if that fails; `prefer_literal=False`, the plain types first. A
    call passes its int and str constants as literal types only where some overload of the
    function prefers literals (`infer.with_literals`), as kiln's library wants only bools."""

    def __init__(self, ov, targets=ALL_TARGETS, receiver=None, prefer_literal=None):
        self.ov = ov
        self.targets = targets
        self.receiver = receiver  # for methods and attributes: the type class of `self`
        self.prefer_literal = prefer_literal
        self._cache = {}

    def resolve(self, tctx, args, kws):
        if self.receiver is not None and not (args and isinstance(args[0], self.receiver)):
            return None
        key = (tctx.target, args, tuple(sorted(kws.items())))
        if key not in self._cache:
            self._cache[key] = self._resolve(tctx, args, kws)
        return self._cache[key]

    def _resolve(self, tctx, args, kws):
        """The overload for the types as given (constants as literal types); where that
        fails and some are literals, for their plain types too, as Numba tries both."""
        from ..errors import KilnError
        from .literals import LiteralRequest
        plain, plain_kws = _unliteral(args, kws)
        attempts = [(tuple(args), kws)]
        if plain != tuple(args) or plain_kws != kws:
            attempts.insert(0 if self.prefer_literal is False else 1, (plain, plain_kws))
        failure = None
        for attempt_args, attempt_kws in attempts:
            if self.receiver is not None and not isinstance(attempt_args[0], self.receiver):
                continue   # (a method of string constants, say: not of plain strings)
            try:
                found = self._resolve_for(tctx, attempt_args, attempt_kws)
            except LiteralRequest:
                raise
            except KilnError as e:
                found, failure = None, failure or e
            except Exception:
                if failure is None:
                    raise
                continue   # a second try the overload was not written for: its first error
            if found is not None:
                return found
        if failure is not None:
            raise failure
        return None

    def _resolve_for(self, tctx, args, kws):
        try:  # an overload that does not take these arguments does not apply
            inspect.signature(self.ov).bind(*args, **kws)
        except TypeError:
            return None
        impl = self.ov(*args, **kws)   # sees constants (BooleanLiteral), compiled without
        if impl is None:
            return None
        star = next((i for i, p in enumerate(inspect.signature(impl).parameters.values())
                     if p.kind is p.VAR_POSITIONAL), None)
        if star is not None:
            return _resolve_star_args(tctx, impl, args, kws, star)
        seen, seen_kws = args, kws     # (a literal the implementation asks for: _type_impl)
        args, kws = _unliteral(args, kws)
        params = list(inspect.signature(impl).parameters.values())[len(args):]
        # Each parameter after the positionals is a keyword the call gives or its default
        # (a constant): `plan` says which, in parameter order.
        plan, kw_order = [], []
        for p in params:
            if p.name in kws:
                plan.append(("kw", kws[p.name]))
                kw_order.append(p.name)
            elif p.default is not inspect.Parameter.empty:
                plan.append(("default", p.default))
            else:
                return None
        if len(kw_order) != len(kws):
            return None
        from ..types.typeof import typeof_global
        argtypes = tuple(args) + tuple(v if kind == "kw" else typeof_global(v)
                                       for kind, v in plan)
        kw_names = [p.name if kind == "kw" else None for p, (kind, _) in zip(params, plan)]
        typed, argtypes = _type_impl(tctx, impl, argtypes, seen, seen_kws, kw_names)
        kws = {name: ty for name, ty in zip(kw_names, argtypes[len(args):]) if name}
        args = argtypes[:len(args)]
        sig = Signature(typed.return_type, tuple(args) + tuple(kws[k] for k in kw_order))

        def lower(ctx, builder, sig, llargs):
            # Compiled with the caller's options (fast-math, bounds checks); types are the same.
            typed_here = tctx.type_function(impl, argtypes, options=ctx.options)
            given = iter(llargs[len(args):])
            full = list(llargs[:len(args)])
            for ty, (kind, value) in zip(argtypes[len(args):], plan):
                full.append(next(given) if kind == "kw" else ctx.get_constant(builder, ty, value))
            return ctx.call_function(builder, typed_here, full)
        return Resolution(sig, lower, tuple(kw_order), new_reference=True)


def _resolve_star_args(tctx, impl, args, kws, n):
    """An implementation taking `*args` (a register_jitable function, say): the arguments
    after its first n are passed as one tuple, as Python passes them."""
    if kws or len(args) < n:
        return None
    args, _ = _unliteral(args, {})
    packed = tuple(args[:n]) + (t.tuple_of(args[n:]),)
    typed = tctx.type_function(impl, packed)

    def lower(ctx, builder, sig, llargs):
        rest = ctx.make_tuple(builder, packed[-1], list(llargs[n:]))
        return ctx.call_function(builder, tctx.type_function(impl, packed, options=ctx.options),
                                 list(llargs[:n]) + [rest])
    return Resolution(Signature(typed.return_type, tuple(args)), lower, new_reference=True)


def _type_impl(tctx, impl, argtypes, seen, seen_kws, kw_names):
    """Type an overload's implementation for `argtypes` (its arguments' plain types). When
    its typing asks for some of its parameters as compile-time values (`literally`, a call
    passing one on: typing/literals.py), it is typed again with the literal types the call
    gave for them (`seen`, `seen_kws`), or the call is asked for them (CALL)."""
    from ..errors import TypingError
    from .literals import CALL, LiteralRequest, repeated
    params = list(inspect.signature(impl).parameters)
    argtypes = list(argtypes)
    while True:
        try:
            return tctx.type_function(impl, tuple(argtypes)), tuple(argtypes)
        except LiteralRequest as request:
            if request.owner is not impl:
                raise
            ask, granted = set(), False
            for name in request.params:
                i = params.index(name) if name in params else len(argtypes)
                key = i if i < len(seen) else \
                    kw_names[i - len(seen)] if i < len(argtypes) else None
                if key is None:
                    raise TypingError(f"Cannot request literal type: the parameter {name!r} "
                                      f"of {impl.__qualname__}() is not given by the call")
                lit = seen[i] if i < len(seen) else seen_kws[key]
                if not isinstance(lit, t.Literal):
                    ask.add(key)
                elif argtypes[i] != lit:
                    argtypes[i], granted = lit, True
            if ask:
                raise LiteralRequest(CALL, ask, request.why) from None
            if not granted:
                raise repeated(impl, request.params) from request


class Registry:
    """Templates by key; later registrations are tried first, so users can override."""

    def __init__(self):
        self._templates = defaultdict(list)

    def register(self, key, template: Template):
        self._templates[key].insert(0, template)

    def has(self, key) -> bool:
        try:
            return key in self._templates
        except TypeError:  # unhashable
            return False

    def templates(self, key, target):
        return [t for t in self._templates.get(key, ()) if target in t.targets]


registry = Registry()


# ---- the extension API (public as kiln.extending) ---------------------------------------

def overload(func, target="generic", prefer_literal=None, **jit_options):
    """Implement `func` for compiled code: the decorated function receives argument *types*
    and returns a Python implementation (compiled by kiln) or None if it does not apply.
    `prefer_literal`: OverloadTemplate says which types it sees first."""
    def decorate(ov):
        registry.register(func, OverloadTemplate(ov, _targets(target),
                                                 prefer_literal=prefer_literal))
        return ov
    return decorate


def overload_method(typeclass, name, target="generic", prefer_literal=None, **jit_options):
    """Implement `obj.name(...)` for values whose type is an instance of `typeclass`."""
    def decorate(ov):
        registry.register(("method", name), OverloadTemplate(ov, _targets(target), typeclass,
                                                             prefer_literal=prefer_literal))
        return ov
    return decorate


def overload_attribute(typeclass, name, target="generic", **jit_options):
    """Implement `obj.name` for values whose type is an instance of `typeclass`."""
    def decorate(ov):
        registry.register(("attr", name), OverloadTemplate(ov, _targets(target), typeclass))
        return ov
    return decorate


class Intrinsic:
    """A function callable from compiled code whose body is LLVM IR built by `codegen`."""

    def __init__(self, fn, targets, prefer_literal=False):
        self._fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        registry.register(self, IntrinsicTemplate(fn, targets, prefer_literal))

    def __call__(self, *args, **kwargs):
        raise TypeError(f"intrinsic {self.__name__!r} can only be called from compiled code")

    def __repr__(self):
        return f"<intrinsic {self.__name__}>"


def intrinsic(fn=None, *, target="generic", prefer_literal=False):
    """Decorate `fn(typingctx, *argtypes) -> (signature, codegen)`; usable bare or with
    target= (and Numba's prefer_literal=: IntrinsicTemplate)."""
    if fn is None:
        return lambda f: Intrinsic(f, _targets(target), prefer_literal)
    return Intrinsic(fn, _targets(target), prefer_literal)


def register_jitable(fn=None, **options):
    """Make a plain Python function callable from compiled code (compiled on demand) while
    keeping it callable from Python."""
    def decorate(f):
        overload(f, **options)(lambda *args, **kws: f)
        return f
    return decorate(fn) if fn is not None else decorate


def template(key, target="generic"):
    """Register a low-level template function `fn(tctx, *argtypes) -> (sig, codegen) | None`
    under `key`: the form kiln's own operators use (an intrinsic keyed by what it implements)."""
    def decorate(fn):
        registry.register(key, IntrinsicTemplate(fn, _targets(target)))
        return fn
    return decorate


__all__ = ["Resolution", "Template", "Registry", "registry", "overload", "overload_method",
           "overload_attribute", "intrinsic", "register_jitable", "template"]

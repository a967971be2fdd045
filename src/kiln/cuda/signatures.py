"""Explicit signatures of kernels and device functions (`@cuda.jit("void(f4[:], i4)")`):
parsing, checking that kernels return void, and matching launch arguments against them."""
from __future__ import annotations

import numpy as np

from kiln import types
from kiln.errors import TypingError

from .devicearray import DeviceNDArray


def parse(name, kind, sigs, nparams) -> list:
    """The parsed signatures (a str, Signature, or a list of them)."""
    if not isinstance(sigs, list):
        sigs = [sigs]
    parsed = []
    for sig in sigs:
        sig = types.parse_signature(sig)
        if kind == "kernel" and sig.return_type not in (None, types.void):
            raise TypingError(f"kernel '{name}' is declared to return {sig.return_type}; "
                              "CUDA kernels return void: write results into an array argument")
        if len(sig.args) != nparams:
            raise TypeError(f"{kind} '{name}' takes {nparams} arguments but its signature "
                            f"{sig} has {len(sig.args)}")
        parsed.append(sig)
    return parsed


_PYTHON_SCALARS = {float: types.float64, bool: types.boolean, complex: types.complex128}


def _typeof(value):
    """The kiln type of a launch argument, or None for what kiln types do not cover. Every
    launch types its arguments (a device array keeps its type)."""
    try:
        if isinstance(value, DeviceNDArray):
            return value._kiln_type
        scalar = _PYTHON_SCALARS.get(type(value))
        if scalar is not None:
            return scalar
        if isinstance(value, tuple):
            items = [_typeof(v) for v in value]
            return None if None in items else types.tuple_of(items)
        return types.typeof(value)
    except (TypeError, ValueError):
        return None


def argument_types(name, args) -> tuple:
    """The kiln types a lazily typed kernel is compiled for, from its launch arguments."""
    actual = tuple(_typeof(a) for a in args)
    for i, (ty, value) in enumerate(zip(actual, args)):
        if ty is None:
            what = type(value).__name__ + (f" of dtype {value.dtype}"
                                           if isinstance(value, DeviceNDArray) else "")
            raise TypeError(f"kernel '{name}': argument {i + 1} ({what}) has no kiln type a "
                            "kernel can take")
    return actual


def _spell(t):
    return getattr(t, "spelling", str(t))


_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _accepts(expected, actual):
    if isinstance(expected, types.Array):
        return isinstance(actual, types.Array) and actual.dtype == expected.dtype and \
            actual.ndim == expected.ndim and expected.layout in ("A", actual.layout)
    if isinstance(expected, types.Number):
        if not isinstance(actual, types.Number):
            return False
        # bool -> int -> float -> complex: never to a narrower kind (no float -> int).
        return _RANK[actual.np_dtype.kind] <= _RANK[expected.np_dtype.kind]
    return True  # tuples, records...: left to the back-end


def _cost(expected, actual) -> int:
    """How far `actual` is from a type `expected` accepts: 0 the same type, 1 a safe
    conversion (no value lost: int32 -> int64, float32 -> float64, an array to layout A),
    2 an unsafe one (float64 -> float32)."""
    if expected == actual:
        return 0
    if isinstance(expected, types.Number) and isinstance(actual, types.Number):
        return 1 if np.can_cast(actual.np_dtype, expected.np_dtype, "safe") else 2
    return 1


def select(sigs, args):
    """The signature that accepts the arguments' types with the fewest unsafe, then safe,
    conversions (the first such, as Numba resolves overloads), or None."""
    actual = [_typeof(a) for a in args]
    best, best_cost = None, None
    for sig in sigs:
        if all(_accepts(e, a) for e, a in zip(sig.args, actual)):
            costs = [_cost(e, a) for e, a in zip(sig.args, actual)]
            cost = (costs.count(2), costs.count(1))
            if best_cost is None or cost < best_cost:
                best, best_cost = sig, cost
    return best


def _convert(dtype, value):
    """`value` as a scalar of `dtype`; a Python int out of an integer type's range wraps
    to its width, as C's conversion (and Numba's) does: 0xFFFFFFFF as int32 is -1."""
    if dtype.kind in "iu" and isinstance(value, int) and not isinstance(value, bool):
        bits = dtype.itemsize * 8
        value &= (1 << bits) - 1
        if dtype.kind == "i" and value >> (bits - 1):
            value -= 1 << bits
    return dtype.type(value)


def match(name, sigs, args) -> tuple:
    """`args` with scalars converted to the first signature that accepts them all."""
    sig = select(sigs, args)
    if sig is not None:
        return tuple(_convert(e.np_dtype, v) if isinstance(e, types.Number) else v
                     for e, v in zip(sig.args, args))
    actual = [_typeof(a) for a in args]
    given = ", ".join(_spell(a) if a is not None else type(v).__name__
                      for a, v in zip(actual, args))
    known = "; ".join(f"({', '.join(map(_spell, s.args))})" for s in sigs)
    raise TypeError(f"kernel '{name}' has no signature for arguments ({given}); it was "
                    f"compiled for {known}")

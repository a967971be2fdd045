"""Bit-exact outcomes: a value (or the class of the exception raised) turned into plain data
that compares equal exactly when the two results are the same, bit for bit. Floats compare
by their bits (so -0.0 differs from 0.0) except that every NaN is the same; ints and bools
exactly and by type; tuples element-wise; arrays by dtype, shape and bits."""
from __future__ import annotations

import math
import struct

import numpy as np


def _float_bits(value):
    return "nan" if math.isnan(value) else struct.pack("<d", value).hex()


def encode(value):
    """The outcome of a call that returned `value`."""
    if isinstance(value, np.ndarray) and value.dtype.names is not None:   # field by field
        return ("records",) + tuple(encode(value[name]) for name in value.dtype.names)
    if isinstance(value, np.ndarray):
        data = value.astype(value.dtype, copy=True)
        if data.dtype.kind == "f":
            data[np.isnan(data)] = np.nan          # one NaN bit pattern
        return ("array", data.dtype.str, data.shape, np.ascontiguousarray(data).tobytes().hex())
    if isinstance(value, tuple):
        return ("tuple",) + tuple(encode(v) for v in value)
    if isinstance(value, np.generic):        # a NumPy scalar where Python's type was expected
        return ("numpy", type(value).__name__, encode(value.item()))
    if isinstance(value, bool) or value is None:
        return (type(value).__name__, value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", _float_bits(value))
    return ("other", type(value).__name__, repr(value))


def raised(exc: BaseException):
    """The outcome of a call that raised `exc`: its class, and the arguments of one that the
    program raised itself (its first argument is "fuzz"; the messages of the errors Python
    raises on its own are not compared)."""
    if exc.args and exc.args[0] == "fuzz":
        return ("raise", type(exc).__name__, encode(exc.args))
    return ("raise", type(exc).__name__)


def describe(outcome) -> str:
    """A readable form of an outcome for reports."""
    kind = outcome[0]
    if kind == "float":
        return "nan" if outcome[1] == "nan" else repr(struct.unpack("<d", bytes.fromhex(outcome[1]))[0])
    if kind == "tuple":
        return "(" + ", ".join(describe(o) for o in outcome[1:]) + ")"
    if kind == "array":
        data = np.frombuffer(bytes.fromhex(outcome[3]), dtype=outcome[1]).reshape(outcome[2])
        return f"array({data.tolist()!r}, dtype={data.dtype})"
    if kind == "raise":
        return f"raises {outcome[1]}" + (describe(outcome[2]) if len(outcome) > 2 else "")
    if kind in ("int", "bool", "NoneType"):
        return repr(outcome[1])
    if kind == "other":
        return outcome[2]
    if kind == "compiled":
        return "compiled for the GPU (or refused at a line)"
    return repr(outcome)

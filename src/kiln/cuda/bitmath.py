"""`cuda.popc`, `brev`, `clz`, `ffs` (bit operations on integers) and `fma`, `cbrt`: what
they compute in the simulator. The compiled back-end gives them the GPU's instructions
(cuda/nvvm.py): the same integer results, and for fma the same single rounding.

An integer argument keeps its width (a NumPy integer's, int64 for a Python int); popc, brev
and clz return that type (brev unsigned), ffs a uint32 (the 1-based index of the lowest set
bit, 0 for 0)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np


def _bits(x):
    """(the two's-complement bits of x as a Python int, its width, its NumPy type)."""
    kind = type(x) if isinstance(x, np.integer) else np.int64
    width = np.dtype(kind).itemsize * 8
    return int(x) & ((1 << width) - 1), width, kind


def popc(x):
    bits, _, kind = _bits(x)
    return kind(bin(bits).count("1"))


def brev(x):
    bits, width, _ = _bits(x)
    return np.dtype(f"u{width // 8}").type(int(f"{bits:0{width}b}"[::-1], 2))


def clz(x):
    bits, width, kind = _bits(x)
    return kind(width - bits.bit_length())


def ffs(x):
    bits, _, _ = _bits(x)
    return np.uint32((bits & -bits).bit_length())


def fma(a, b, c):
    """a * b + c rounded once, in float32 when every argument is a float32, else float64."""
    kind = np.float32 if all(isinstance(v, np.float32) for v in (a, b, c)) else np.float64
    a, b, c = kind(a), kind(b), kind(c)
    if not all(np.isfinite(v) for v in (a, b, c)):
        with np.errstate(all="ignore"):
            return kind(a * b + c)
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if exact == 0:   # then a * b is -c exactly, and IEEE's rules give the zero's sign
        return kind(a * b + c)
    return _nearest(exact, kind)


def _nearest(exact, kind):
    """The `kind` float nearest `exact` (ties to even), by comparing its neighbours
    exactly (rounding through float64 first could round twice)."""
    try:
        with np.errstate(all="ignore"):
            guess = kind(float(exact))
    except OverflowError:
        return kind(np.inf if exact > 0 else -np.inf)
    if not np.isfinite(guess):
        return guess
    candidates = [guess, np.nextafter(guess, kind(np.inf)), np.nextafter(guess, kind(-np.inf))]
    best = min((v for v in candidates if np.isfinite(v)),
               key=lambda v: (abs(Fraction(float(v)) - exact),
                              int(v.view(f"u{v.itemsize}")) & 1))
    return -best if best == 0 and exact < 0 else best   # an underflow keeps its sign


def cbrt(x):
    """The cube root: a float32 for a float32 (computed in float64, then rounded), else a
    float64."""
    kind = np.float32 if isinstance(x, np.float32) else np.float64
    return kind(np.cbrt(np.float64(x)))

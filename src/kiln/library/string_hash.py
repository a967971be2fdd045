"""A string's `hash()`: CPython's own (SipHash-1-3 keyed with the process's hash secret,
over the string's bytes in CPython's narrowest 1, 2 or 4-byte form), so that compiled code
and Python agree on `hash(s)` and on the order of a set of strings.

The key is read when the code runs, from CPython's `_Py_HashSecret` (a symbol bound by
runtime/symbols.py), never baked into the code: it differs per process (PYTHONHASHSEED),
and compiled code may be cached to disk. A Python built to hash strings otherwise (FNV,
SipHash-2-4, a small-string cutoff) gets a warning when the library loads.
"""
from __future__ import annotations

import sys
import warnings

import numpy as np
from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import KilnWarning
from ..typing.registry import intrinsic, register_jitable
from .strings import _str_cache_hash, _str_cached_hash, _str_get, _str_len

def algorithm_warning(info):
    """The warning for a Python whose `sys.hash_info` is `info`, or None where kiln's hash
    of a str is its own: CPython's default, SipHash-1-3 with no small-string cutoff."""
    if info.algorithm == "siphash13" and info.cutoff == 0:
        return None
    numba = " (as Numba's: FNV hashing is not implemented in Numba. See PEP 456)" \
        if info.algorithm == "fnv" else ""
    return (f"this Python hashes strings with {info.algorithm} (cutoff {info.cutoff}), and "
            "kiln with SipHash-1-3, CPython's default: hash() of a str in compiled code "
            f"differs from Python's, and so may the order of a set of strings{numba}")


if algorithm_warning(sys.hash_info):
    warnings.warn(algorithm_warning(sys.hash_info), KilnWarning)

SECRET_SYMBOL = "_Py_HashSecret"   # a union whose first two words are SipHash's k0, k1
_SECRET = ir.ArrayType(dm.i64, 3)


@intrinsic
def _hash_secret(tctx):
    """The process's SipHash key (k0, k1)."""
    def codegen(context, b, sig, args):
        secret = b.module.globals.get(SECRET_SYMBOL)
        if secret is None:
            secret = ir.GlobalVariable(b.module, _SECRET, name=SECRET_SYMBOL)
            secret.linkage = "external"
        key = ir.Constant(dm.value_type(sig.return_type), ir.Undefined)
        for i in range(2):
            index = [ir.Constant(dm.i32, 0), ir.Constant(dm.i32, i)]
            key = b.insert_value(key, b.load(b.gep(secret, index, inbounds=True), typ=dm.i64), i)
        return key
    return t.UniTuple(t.uint64, 2)(), codegen


@register_jitable
def _rotate(x, n):
    return (x << np.uint64(n)) | (x >> np.uint64(64 - n))


@register_jitable
def _round(v0, v1, v2, v3):
    """SipHash's SINGLE_ROUND (two HALF_ROUNDs), as CPython's pyhash.c."""
    v0 += v1
    v2 += v3
    v1 = _rotate(v1, 13) ^ v0
    v3 = _rotate(v3, 16) ^ v2
    v0 = _rotate(v0, 32)
    v2 += v1
    v0 += v3
    v1 = _rotate(v1, 17) ^ v2
    v3 = _rotate(v3, 21) ^ v0
    v2 = _rotate(v2, 32)
    return v0, v1, v2, v3


@register_jitable
def _word(s, first, count, width):
    """`count` code points from `first`, each `width` bytes, as a little-endian word."""
    word = np.uint64(0)
    for j in range(count):
        word |= np.uint64(_str_get(s, first + j)) << np.uint64(8 * width * j)
    return word


@register_jitable
def _siphash13(s, n, width):
    k0, k1 = _hash_secret()
    v0 = k0 ^ np.uint64(0x736f6d6570736575)
    v1 = k1 ^ np.uint64(0x646f72616e646f6d)
    v2 = k0 ^ np.uint64(0x6c7967656e657261)
    v3 = k1 ^ np.uint64(0x7465646279746573)
    per_word = 8 // width
    words = n // per_word
    for i in range(words):
        m = _word(s, i * per_word, per_word, width)
        v3 ^= m
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
        v0 ^= m
    last = (np.uint64(n * width) << np.uint64(56)) | \
        _word(s, words * per_word, n - words * per_word, width)
    v3 ^= last
    v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    v0 ^= last
    v2 ^= np.uint64(0xff)
    for _ in range(3):
        v0, v1, v2, v3 = _round(v0, v1, v2, v3)
    return (v0 ^ v1) ^ (v2 ^ v3)


@register_jitable
def string_hash(s):
    """CPython's hash of `s`, cached in the string (-1 there means not computed yet)."""
    h = _str_cached_hash(s)
    if h != -1:
        return h
    n = _str_len(s)
    h = 0   # CPython: the empty string hashes to 0
    if n > 0:
        widest = 0
        for k in range(n):
            widest = max(widest, _str_get(s, k))
        width = 1 if widest < 0x100 else (2 if widest < 0x10000 else 4)
        h = np.int64(_siphash13(s, n, width))
        if h == -1:
            h = -2
    _str_cache_hash(s, h)
    return h

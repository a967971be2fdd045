"""Python's `random` module inside compiled code: seed, random, uniform, gauss, randint.

CPython's own generator: MT19937 seeded by init_by_array over the 32-bit words of
abs(seed), doubles from two draws, gauss by Box-Muller with its cached second value,
randint by rejection over getrandbits; so after `random.seed(n)` inside compiled code the
numbers are those CPython's `random` gives after the same seed. As in Numba, the state is
kiln's own (random.py's second generator): separate from CPython's and from np.random's,
seeded from the operating system at first use.
"""
from __future__ import annotations

import math
import random

import numpy as np

from .. import types as t
from ..typing.registry import overload, register_jitable
from .random import PY_FIRST, gauss_cache_of, seeding, state_view, uint32_draws

_init_genrand = seeding(PY_FIRST)
_uint32 = uint32_draws(PY_FIRST)
_twister = state_view(PY_FIRST, 624, t.uint32)
_gauss_next = gauss_cache_of(PY_FIRST)
_MASK = 0xFFFFFFFF


@register_jitable
def _mix(mt, i, factor):
    """mt[i] ^ ((mt[i-1] ^ (mt[i-1] >> 30)) * factor), as an int64 (of which the low 32 bits
    are CPython's uint32 result)."""
    before = np.int64(mt[i - 1])
    return np.int64(mt[i]) ^ ((before ^ (before >> 30)) * factor)


@register_jitable
def _init_by_array(low, high, length):
    """CPython's init_by_array over the key [low, high][:length]."""
    _init_genrand(19650218)
    mt = _twister()
    i, j = 1, 0
    for _ in range(624):
        key = low if j == 0 else high
        mt[i] = (_mix(mt, i, 1664525) + key + j) & _MASK
        i += 1
        j += 1
        if i >= 624:
            mt[0] = mt[623]
            i = 1
        if j >= length:
            j = 0
    for _ in range(623):
        mt[i] = (_mix(mt, i, 1566083941) - i) & _MASK
        i += 1
        if i >= 624:
            mt[0] = mt[623]
            i = 1
    mt[0] = 0x80000000


@overload(random.seed)
def _seed(a=None):
    if not (isinstance(a, t.Integer) and (a.signed or a.bitwidth < 64)):
        return None

    def seed_(a=None):
        n = np.int64(a)
        if n < 0:
            n = -n          # -2**63 stays itself, whose words are those of 2**63
        high = (n >> 32) & _MASK
        _init_by_array(n & _MASK, high, 2 if high else 1)
    return seed_


@register_jitable
def _random():
    a = _uint32() >> 5
    b = _uint32() >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@overload(random.random)
def _random_ov():
    return lambda: _random()


@overload(random.uniform)
def _uniform(a, b):
    if not all(isinstance(x, (t.Integer, t.Float)) for x in (a, b)):
        return None
    return lambda a, b: a + (b - a) * _random()


@overload(random.gauss)
def _gauss(mu=0.0, sigma=1.0):
    # a float, not a type, is an argument left out (its default)
    if not all(isinstance(x, (float, t.Integer, t.Float)) for x in (mu, sigma)):
        return None

    def gauss(mu=0.0, sigma=1.0):
        cache = _gauss_next()
        if cache[0] != 0.0:
            cache[0] = 0.0
            z = cache[1]
        else:
            x2pi = _random() * (2.0 * math.pi)
            g2rad = math.sqrt(-2.0 * math.log(1.0 - _random()))
            z = math.cos(x2pi) * g2rad
            cache[0], cache[1] = 1.0, math.sin(x2pi) * g2rad
        return mu + z * sigma
    return gauss


@register_jitable
def _getrandbits(k):
    """CPython's getrandbits(k) for 0 < k < 64: 32-bit words, least significant first, the
    last one's low bits dropped."""
    if k <= 32:
        return _uint32() >> (32 - k)
    low = _uint32()
    return ((_uint32() >> (64 - k)) << 32) | low


@register_jitable
def _below(n):
    """CPython's _randbelow_with_getrandbits(n), n > 0."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    r = _getrandbits(k)
    while r >= n:
        r = _getrandbits(k)
    return r


@overload(random.randint)
def _randint(a, b):
    if not (isinstance(a, t.Integer) and isinstance(b, t.Integer)):
        return None

    def randint(a, b):
        a, b = np.int64(a), np.int64(b)
        if b < a:
            raise ValueError("empty range for randint()")
        width = b - a + 1
        if width <= 0:
            raise OverflowError("randint(): the range is wider than int64")
        return a + _below(width)
    return randint

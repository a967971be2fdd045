"""Simulated atomics: read-modify-write under one lock, so concurrent threads never lose an
update (a plain `a[i] += 1` in a kernel can, as on a GPU). Integer results wrap silently."""
from __future__ import annotations

import threading

import numpy as np

_lock = threading.Lock()


def _isnan(x):
    return x != x


def _max(old, val):   # a NaN on either side leaves the element as it is (Numba's)
    return val if val > old else old


def _min(old, val):
    return val if val < old else old


def _nanmax(old, val):
    return val if _isnan(old) else old if _isnan(val) or old >= val else val


def _nanmin(old, val):
    return val if _isnan(old) else old if _isnan(val) or old <= val else val


UPDATES = {
    "add": lambda old, val: old + val,
    "sub": lambda old, val: old - val,
    "and": lambda old, val: old & val,
    "or": lambda old, val: old | val,
    "xor": lambda old, val: old ^ val,
    "exch": lambda old, val: val,
    "max": _max, "min": _min, "nanmax": _nanmax, "nanmin": _nanmin,
    "inc": lambda old, val: 0 if old >= val else old + 1,
    "dec": lambda old, val: val if old == 0 or old > val else old - 1,
    "cas": lambda old, expected, val: val if old == expected else old,
}


def apply(op, ary, idx, operands):
    """ary[idx] = UPDATES[op](ary[idx], *operands), atomically; returns the old value."""
    update = UPDATES[op]
    with _lock, np.errstate(over="ignore"):
        old = ary[idx]
        ary[idx] = update(old, *operands)
    return old

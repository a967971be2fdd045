"""`cuda.random`: the xoroshiro128+ generator (Blackman and Vigna), one state per thread.

    states = create_xoroshiro128p_states(n_threads, seed=1)
    ... in a kernel: x = xoroshiro128p_uniform_float32(states, thread_id)

State 0 is SplitMix64's first output for the seed, in both words (Numba's seeding, so a
seed gives Numba's streams); state i is state 0 advanced by i jumps of 2**64 steps, so
threads draw from non-overlapping subsequences. Seeding runs on the host: a jump is linear over GF(2), so it
is precomputed once as a 128x128 bit matrix and applied to each state with popcounts.
"""
from __future__ import annotations

import math

import numpy as np

from .host import to_device
from .kernel import jit

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
_TWO_PI = 2.0 * math.pi


@jit(device=True)
def rotl(x, k):
    """Rotate the uint64 x left by k bits."""
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """Advance states[index] one step; returns the next 64-bit output (uint64, wrapping as
    on the GPU: the simulator runs kernels without overflow warnings)."""
    s0 = states[index]["s0"]
    s1 = states[index]["s1"]
    result = s0 + s1
    s1 ^= s0
    states[index]["s0"] = rotl(s0, 55) ^ s1 ^ (s1 << np.uint64(14))
    states[index]["s1"] = rotl(s1, 36)
    return result


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1)."""
    return np.float64((xoroshiro128p_next(states, index) >> np.uint64(11)) *
                      (1.0 / 9007199254740992.0))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1)."""
    return np.float32((xoroshiro128p_next(states, index) >> np.uint64(40)) *
                      (1.0 / 16777216.0))


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A float64 from the standard normal distribution (Box-Muller)."""
    u1 = 1.0 - xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return np.float64(math.sqrt(-2.0 * math.log(u1)) * math.cos(_TWO_PI * u2))


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A float32 from the standard normal distribution (Box-Muller)."""
    return np.float32(xoroshiro128p_normal_float64(states, index))


# -- seeding, on the host -------------------------------------------------------------------
def _step(s0, s1):
    """One generator step on Python ints (the host's copy of xoroshiro128p_next)."""
    s1 ^= s0
    return (((s0 << 55) | (s0 >> 9)) & _MASK) ^ s1 ^ ((s1 << 14) & _MASK), \
        ((s1 << 36) | (s1 >> 28)) & _MASK


def _jump_once(s0, s1):
    j0 = j1 = 0
    for word in _JUMP:
        for bit in range(64):
            if word >> bit & 1:
                j0 ^= s0
                j1 ^= s1
            s0, s1 = _step(s0, s1)
    return j0, j1


_jump_rows = None


def _jump_matrix():
    """Row k of the jump matrix, as a 128-bit int over the state bits (s0 | s1 << 64)."""
    global _jump_rows
    if _jump_rows is None:
        columns = []
        for k in range(128):
            j0, j1 = _jump_once((1 << k) & _MASK, (1 << k) >> 64)
            columns.append(j0 | j1 << 64)
        _jump_rows = [sum(((col >> k) & 1) << j for j, col in enumerate(columns))
                      for k in range(128)]
    return _jump_rows


def _jump(state, rows):
    out = 0
    for k, row in enumerate(rows):
        out |= ((row & state).bit_count() & 1) << k
    return out


def _splitmix64(seed):
    """SplitMix64's first output for `seed`."""
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _seeded_states(n, seed, subsequence_start):
    z = _splitmix64(int(seed) & _MASK)
    state = z | z << 64
    rows = _jump_matrix()
    for _ in range(subsequence_start):
        state = _jump(state, rows)
    host = np.empty(n, xoroshiro128p_dtype)
    for i in range(n):
        host[i] = (state & _MASK, state >> 64)
        state = _jump(state, rows)
    return host


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Seed a device array of states in place."""
    states.copy_to_device(_seeded_states(states.size, seed, subsequence_start), stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A device array of `n` seeded generator states (one per thread)."""
    return to_device(_seeded_states(n, seed, subsequence_start), stream=stream)

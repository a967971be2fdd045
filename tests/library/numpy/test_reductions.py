"""Whole-array reductions against NumPy: bit for bit, NaN and empty arrays included."""
import re

import numpy as np
import pytest

from helpers import same
from kiln import njit


def reductions(a):
    return (a.sum(), np.sum(a), a.mean(), np.mean(a), a.prod(), a.min(), np.max(a),
            a.argmin(), np.argmax(a), a.any(), np.all(a))


rng = np.random.default_rng(7)


@pytest.mark.parametrize("a", [
    rng.random(1000), rng.random(100_001) - 0.5, np.arange(12.0).reshape(3, 4)[:, ::2],
    np.array([1.0, np.nan, 3.0, np.inf]), np.array([-0.0, -0.0]), rng.integers(-9, 9, 20_001),
    # NumPy adds the pairwise sum to the identity, +0.0 (fuzz seed 3424)
    np.full(8, -0.0), np.full(300, -0.0, np.float32), np.full((4, 300), -0.0)[:, ::2],
    (rng.random(300) * 100).astype(np.float32), np.array([True, False, True]),
    np.arange(24, dtype=np.int8).reshape(2, 3, 4), np.asfortranarray(rng.random((5, 7)))],
    ids=lambda a: f"{a.dtype}{a.shape}")
def test_reductions_match_numpy(a):
    with np.errstate(all="ignore"):
        want = reductions(a)
    got = njit(reductions)(a)
    for g, w in zip(got, want):
        assert same(w, g), (g, w)


def minimum(a):
    return a.min()


def arg(a):
    return np.argmax(a)


def total(a):
    return a.sum()


def test_empty_arrays():
    with pytest.raises(ValueError, match="zero-size array"):
        njit(minimum)(np.zeros(0))
    with pytest.raises(ValueError, match="empty sequence"):
        njit(arg)(np.zeros(0))
    assert njit(total)(np.zeros(0)) == 0.0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_min_and_max_are_simd_loops_that_keep_nan_and_zero_signs(dtype):
    compiled = njit(minimum)
    for values in ([3.0, -0.0, 2.0], [0.0, 3.0], [np.nan, 1.0], [1.0, np.nan],
                   [-np.inf, np.nan, np.inf], [np.inf, 5.0], [3.0, -0.0, 0.0], [0.0, -0.0]):
        for n in (1, 2, 1001):   # the special values at the front, the middle and the end
            a = np.full(n + len(values), 7.0, dtype)
            a[n // 2:n // 2 + len(values)] = values
            # of 0.0 and -0.0, NumPy returns either (by its SIMD lanes), kiln the first
            first_zero = a[a == 0][:1]
            assert same(np.min(a) if len(first_zero) == 0 or np.isnan(a).any()
                        else first_zero[0], compiled(a))
    # the loop has no early exit for a NaN, so LLVM vectorizes it (minnum on vectors)
    assert re.search(r"minnum\.v\d+f(32|64)", compiled.inspect_llvm(compiled.signatures[-1]))

"""Whole programs of the kind users write, each checked against CPython."""
import numpy as np
import pytest

from helpers import check
from kiln import njit


def sieve(flags):
    n = flags.shape[0]
    count = 0
    for i in range(2, n):
        if flags[i]:
            count += 1
            for j in range(i * i, n, i):
                flags[j] = False
    return count


def matmul(a, b, out):
    m, k = a.shape
    n = b.shape[1]
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for p in range(k):
                acc += a[i, p] * b[p, j]
            out[i, j] = acc


def cumsum(x, out):
    total = 0
    for i, v in enumerate(x):
        total += v
        out[i] = total
    return total


def argmax(x):
    best = 0
    for i in range(1, len(x)):
        if x[i] > x[best]:
            best = i
    return best


def binary_search(sorted_values, target):
    lo, hi = 0, len(sorted_values) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if sorted_values[mid] == target:
            return mid
        elif sorted_values[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def fib_pair(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a, b


def normalize_rows(a):
    for row in a:
        norm = 0.0
        for v in row:
            norm += v * v
        norm = norm ** 0.5
        if norm > 0:
            for j in range(row.shape[0]):
                row[j] /= norm


def stats(x):
    n = x.size
    mean = 0.0
    for v in x:
        mean += v
    mean /= n
    var = 0.0
    for v in x:
        var += (v - mean) ** 2
    return mean, var / n, min(x), max(x)


def tuple_arg(point, scale):
    x, y, z = point
    return (x * scale, y * scale, z * scale), len(point)


def mixed_dtypes(a, b):
    total = 0.0
    for i in range(min(len(a), len(b))):
        total += a[i] * b[i]
    return total


def test_sieve():
    check(sieve, np.ones(100, dtype=np.bool_))


def test_matmul_against_numpy():
    rng = np.random.default_rng(1)
    a, b = rng.random((5, 7)), rng.random((7, 3))
    out = np.zeros((5, 3))
    njit(matmul)(a, b, out)
    assert np.allclose(out, a @ b)
    check(matmul, a, b, np.zeros((5, 3)))
    check(matmul, np.asfortranarray(a), b[:, ::-1], np.zeros((5, 3)))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64])
def test_cumsum(dtype):
    x = np.arange(-5, 10).astype(dtype)
    check(cumsum, x, np.zeros_like(x))


def test_argmax_and_search():
    x = np.array([3.0, 9.0, -1.0, 9.0, np.nan])
    check(argmax, x)
    s = np.arange(0, 100, 3)
    for target in (0, 3, 99, 50, -3, 1000):
        check(binary_search, s, target)


@pytest.mark.parametrize("n", [1, 7, 27, 97])
def test_collatz(n):
    check(collatz_steps, n)


def test_fibonacci_tuple_swap_and_wrapping():
    check(fib_pair, 50)
    # Python's ints grow; kiln's int64 wraps like Numba's.
    got = njit(fib_pair)(100)
    a, b = fib_pair(100)
    wrap = lambda v: (v + 2**63) % 2**64 - 2**63  # noqa: E731
    assert got == (wrap(a), wrap(b))


def test_in_place_row_normalization():
    check(normalize_rows, np.arange(12.0).reshape(3, 4) - 3)


def test_stats_tuple_result():
    check(stats, np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))


def test_tuple_argument_and_result():
    check(tuple_arg, (1.0, 2.0, 3.0), 2)
    check(tuple_arg, (1, 2, 3), 0.5)


def test_mixed_dtype_arrays():
    # NumPy 2 keeps `0.0 + float32` in float32 (a Python float is "weak"); kiln, like Numba,
    # accumulates in the local's float64: equal up to float32 rounding.
    check(mixed_dtypes, np.arange(5, dtype=np.int16), np.linspace(0, 1, 7).astype(np.float32),
          rtol=1e-6)
    check(mixed_dtypes, np.arange(5, dtype=np.uint8), np.arange(5.0))

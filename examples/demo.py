"""kiln in one minute: compile four numeric kernels and compare with plain Python and NumPy.

Run:  python examples/demo.py
"""
import time

import numpy as np

from kiln import njit


def sum_of_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def horner(coeffs, x):
    result = 0.0
    for c in coeffs:
        result = result * x + c
    return result


def stencil(a, out):
    for i in range(1, a.shape[0] - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]


def bubblesort(x):
    n = x.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if x[j] > x[j + 1]:
                x[j], x[j + 1] = x[j + 1], x[j]


def best_of(fn, *args, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    rng = np.random.default_rng(0)
    x = rng.random(1_000_000)
    small = x[:20_000]
    unsorted = rng.random(1_000).astype(np.float32)
    cases = [
        ("sum of squares", sum_of_squares, (x,), lambda: np.dot(x, x)),
        ("Horner polynomial", horner, (x, 0.5), None),
        ("1-d stencil", stencil, (x, np.empty_like(x)),
         lambda: 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]),
        ("bubblesort", bubblesort, (unsorted,), None),
    ]
    print(f"{'kernel':20s} {'compile':>10s} {'kiln':>10s} {'Python':>10s} {'NumPy':>10s}")
    for name, fn, args, numpy_version in cases:
        compiled = njit(fn)
        fresh = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
        start = time.perf_counter()
        compiled(*fresh)
        compile_time = time.perf_counter() - start
        if fn is bubblesort:  # sorts in place: time it on a fresh copy each run
            kiln_time = best_of(lambda: compiled(unsorted.copy()))
            py_time = best_of(lambda: fn(unsorted.copy()), repeat=1)
        else:
            kiln_time = best_of(compiled, *args)
            # Plain Python on a slice of the input, scaled to the full size.
            py_args = tuple(a[:len(small)].copy() if isinstance(a, np.ndarray) else a
                            for a in args)
            py_time = best_of(fn, *py_args, repeat=1) * len(args[0]) / len(small)
        np_text = f"{best_of(numpy_version) * 1e3:8.2f}ms" if numpy_version else f"{'-':>10s}"
        print(f"{name:20s} {compile_time * 1e3:8.1f}ms {kiln_time * 1e3:8.2f}ms "
              f"{py_time * 1e3:8.1f}ms {np_text}   "
              f"({py_time / kiln_time:,.0f}x faster than Python)")


if __name__ == "__main__":
    main()

"""Timing and checking primitives: fresh inputs, first call, steady-state median, copy bandwidth."""
from __future__ import annotations

import statistics
import time

import numpy as np

from bench.registry import Benchmark


def fresh(args: tuple) -> tuple:
    """A private copy of the inputs, so no backend sees another's writes."""
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def output_of(bench: Benchmark, args: tuple, result):
    """The kernel's output: its return value, or the output arguments it wrote."""
    if not bench.outputs:
        return result
    outs = tuple(args[i] for i in bench.outputs)
    return outs[0] if len(outs) == 1 else outs


def check(bench: Benchmark, out, ref, args: tuple, tol: tuple) -> None:
    """Raise AssertionError, with a one-line message, when `out` does not match `ref`."""
    if bench.check is not None:
        bench.check(out, ref, args)
        return
    pairs = zip(out, ref) if isinstance(ref, tuple) else [(out, ref)]
    for o, r in pairs:
        try:
            np.testing.assert_allclose(np.asarray(o), np.asarray(r), rtol=tol[0], atol=tol[1])
        except AssertionError as exc:
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            raise AssertionError("; ".join(lines[:3])) from None


def steady_median(func, args: tuple, *, mutates: bool, budget: float,
                  min_repeats: int = 3, max_repeats: int = 25) -> tuple[float, int]:
    """Median seconds per call after warm-up (the caller warms up), and the sample count.

    Kernels that consume their inputs get a fresh copy per call, outside the timed region;
    the others are called in batches long enough (>= 1 ms) for the clock to resolve.
    """
    number = 1
    if not mutates:
        while number < 1_000_000:
            t = _batch(func, args, number)
            if t >= 1e-3:
                break
            number *= 10
    samples: list[float] = []
    spent = 0.0
    while len(samples) < max_repeats and (len(samples) < min_repeats or spent < budget):
        call_args = fresh(args) if mutates else args
        t = _batch(func, call_args, number)
        samples.append(t / number)
        spent += t
    return statistics.median(samples), len(samples)


def _batch(func, args: tuple, number: int) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        func(*args)
    return time.perf_counter() - t0


def copy_bandwidth(nbytes: int, repeats: int = 5) -> dict:
    """The machine's memory-bandwidth ceiling: a large np.copyto, read + write bytes / time."""
    src = np.ones(nbytes // 8)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # touch every page before timing
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    median = statistics.median(times)
    return {"array_bytes": src.nbytes, "median_s": median,
            "bytes_per_s": 2 * src.nbytes / median}

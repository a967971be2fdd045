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


def steady_median(func, args: tuple, **kwargs) -> tuple[float, int]:
    """`steady_medians` for one function."""
    return steady_medians({"f": func}, args, **kwargs)["f"]


def steady_medians(funcs: dict, args: tuple, *, mutates: bool, budget: float,
                   min_repeats: int = 3, max_repeats: int = 25) -> dict:
    """{name: (median seconds per call, samples)} after warm-up (the caller warms up)."""
    samples = steady_samples(funcs, args, mutates=mutates, budget=budget,
                             min_repeats=min_repeats, max_repeats=max_repeats)
    return {name: (statistics.median(s), len(s)) for name, s in samples.items()}


def steady_samples(funcs: dict, args: tuple, *, mutates: bool, budget: float,
                   min_repeats: int = 3, max_repeats: int = 25) -> dict:
    """{name: [seconds per call of each sample]} after warm-up (the caller warms up).

    The functions are sampled in turn, round after round, so that load from other work on
    a shared machine falls on all of them alike and their ratios stay meaningful.  Kernels
    that consume their inputs get a fresh copy per call, outside the timed region; the
    others are called in batches long enough (>= 1 ms) for the clock to resolve.
    """
    numbers = {name: 1 if mutates else _calibrate(f, args) for name, f in funcs.items()}
    samples: dict = {name: [] for name in funcs}
    spent = dict.fromkeys(funcs, 0.0)

    def wants_more(name):
        n = len(samples[name])
        return n < max_repeats and (n < min_repeats or spent[name] < budget)

    while active := [name for name in funcs if wants_more(name)]:
        for name in active:
            t = _batch(funcs[name], fresh(args) if mutates else args, numbers[name])
            samples[name].append(t / numbers[name])
            spent[name] += t
    return samples


def _calibrate(func, args: tuple) -> int:
    number = 1
    while number < 1_000_000 and _batch(func, args, number) < 1e-3:
        number *= 10
    return number


def _batch(func, args: tuple, number: int) -> float:
    t0 = time.perf_counter()
    for _ in range(number):
        func(*args)
    return time.perf_counter() - t0


def copy_bandwidth(nbytes: int, repeats: int = 7) -> dict:
    """The machine's memory-bandwidth ceiling: a large np.copyto, read + write bytes / time."""
    src = np.ones(nbytes // 8)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # touch every page before timing
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - t0)
    # A ceiling: the best copy, since other work on the machine only ever slows it.
    return {"array_bytes": src.nbytes, "best_s": min(times),
            "median_s": statistics.median(times), "bytes_per_s": 2 * src.nbytes / min(times)}

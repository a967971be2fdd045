"""The idiom sweep (issue 33): `python bench/sweep.py [--only power,flat] [--sizes small,large]`.

Each idiom is a plain Python function written once, compiled by kiln and by Numba, and run
on the same inputs at a small, a medium and a large size. The outputs are compared first
(a mismatch is reported and that case is not timed); then both are timed in turn, round
after round (bench/timing.py), so that load from other work falls on both alike. It prints
every case with kiln / Numba, lists the cliffs (kiln slower than Numba by more than 10%),
and writes the figures to bench/results/sweep.json (`--json` to change that).

The sweep covers the idioms issue 33 found slow (integer powers, multi-dimensional
iteration, median/percentile/partition, sorting, reversed cumsum, small-array
expressions); add a case with `case(...)` below.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

BLAS_THREADS = os.environ.get("KILN_BENCH_BLAS_THREADS", "1")
if BLAS_THREADS != "0":
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = BLAS_THREADS

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

from bench.timing import steady_medians  # noqa: E402

SIZES = ("small", "medium", "large")
CASES: list = []


@dataclass
class Case:
    name: str
    topic: str
    func: Callable
    make: Callable            # n -> argument tuple
    sizes: dict               # size name -> n
    label: str = "{n}"
    rtol: float = 0.0         # 0: outputs must be equal (NaN equal to NaN)
    note: str = ""
    extra: dict = field(default_factory=dict)


def case(name, topic, sizes=(1_000, 100_000, 1_000_000), label="{n} float64", rtol=0.0,
         make=None, note=""):
    def register(func):
        CASES.append(Case(name, topic, func, make or _floats, dict(zip(SIZES, sizes)),
                          label, rtol, note))
        return func
    return register


def _rng():
    return np.random.default_rng(20261128)


def _floats(n):
    return (_rng().standard_normal(n),)


def _two_floats(n):
    g = _rng()
    return g.standard_normal(n), g.standard_normal(n)


def _square(n, dtype=np.float64):
    side = max(int(math.isqrt(n)), 1)
    return (_rng().integers(-50, 50, (side, side)).astype(dtype),)


SQUARE = (1_024, 102_400, 1_000_000)


# ---- integer powers --------------------------------------------------------------------------

# kiln's x ** 3 .. x ** 8 are correctly rounded; Numba multiplies (an ulp or two off)
PRODUCTS = "compared with rtol 1e-15: Numba's plain products are not correctly rounded"

@case("array ** 2", "power")
def power_2(a):
    return a ** 2


@case("array ** 3", "power", rtol=1e-15, note=PRODUCTS)
def power_3(a):
    return a ** 3


@case("array ** 4", "power", rtol=1e-15, note=PRODUCTS)
def power_4(a):
    return a ** 4


@case("np.power(array, 5)", "power", rtol=1e-15, note=PRODUCTS)
def power_5(a):
    return np.power(a, 5)


@case("array ** 3 in an expression", "power", rtol=1e-15, make=_two_floats, note=PRODUCTS)
def power_in_expression(a, b):
    return np.abs(a) ** 3 + 0.5 * b ** 2      # no cancellation: rtol compares the powers


@case("loop: out[i] = (u[i-1] + u[i+1] - 2u[i]) / dx**2", "power",
      make=lambda n: (_rng().standard_normal(n), 0.01))
def laplacian_loop(u, dx):
    out = np.zeros_like(u)
    for i in range(1, u.shape[0] - 1):
        out[i] = (u[i - 1] + u[i + 1] - 2.0 * u[i]) / dx ** 2
    return out


@case("loop: s += x ** 3", "power", rtol=1e-12)
def cube_sum_loop(a):
    s = 0.0
    for x in a:
        s += x ** 3
    return s


@case("loop: s += x ** 2", "power", rtol=1e-12)
def square_sum_loop(a):
    s = 0.0
    for x in a:
        s += x ** 2
    return s


# ---- multi-dimensional iteration -------------------------------------------------------------

@case("for v in a.flat (int32, C)", "iteration", SQUARE, "{side}x{side} int32",
      make=lambda n: _square(n, np.int32))
def flat_sum(a):
    total = 0
    for v in a.flat:
        total += v
    return total


@case("for v in a.T.flat (float64)", "iteration", SQUARE, "{side}x{side} float64",
      make=_square)
def flat_sum_transposed(a):
    total = 0.0
    for v in a.T.flat:
        total += v
    return total


@case("for x in np.nditer(a)", "iteration", SQUARE, "{side}x{side} float64", make=_square)
def nditer_sum(a):
    total = 0.0
    for x in np.nditer(a):
        total += x.item()
    return total


@case("for idx in np.ndindex(a.shape)", "iteration", SQUARE, "{side}x{side} float64",
      make=_square)
def ndindex_sum(a):
    total = 0.0
    for idx in np.ndindex(a.shape):
        total += a[idx]
    return total


@case("for idx, v in np.ndenumerate(a)", "iteration", SQUARE, "{side}x{side} float64",
      make=_square)
def ndenumerate_sum(a):
    total = 0.0
    for idx, v in np.ndenumerate(a):
        total += v * idx[1]
    return total


# ---- selection and statistics ----------------------------------------------------------------

# kiln interpolates as NumPy 2 does ('linear', from the nearer neighbour); Numba's formula
# can differ in the last bit
INTERPOLATION = "compared with rtol 1e-12: Numba's interpolation rounds differently"

@case("np.median", "statistics")
def median(a):
    return np.median(a)


@case("np.percentile(a, 90)", "statistics", rtol=1e-12, note=INTERPOLATION)
def percentile(a):
    return np.percentile(a, 90.0)


@case("np.quantile(a, [0.1, 0.5, 0.9])", "statistics", rtol=1e-12, note=INTERPOLATION)
def quantiles(a):
    return np.quantile(a, np.array([0.1, 0.5, 0.9]))


@case("np.partition(a, n // 2)", "statistics")
def partition(a):
    k = a.shape[0] // 2
    return np.partition(a, k)[k]


# ---- sorting ---------------------------------------------------------------------------------

@case("np.sort (random floats)", "sorting")
def sort(a):
    return np.sort(a)


@case("np.argsort (random floats)", "sorting")
def argsort(a):
    return np.argsort(a)


@case("np.sort (random int64)", "sorting", label="{n} int64",
      make=lambda n: (_rng().integers(-10 ** 9, 10 ** 9, n),))
def sort_ints(a):
    return np.sort(a)


@case("a.sort() (random float32)", "sorting", label="{n} float32",
      make=lambda n: (_rng().standard_normal(n).astype(np.float32),))
def sort_method(a):
    b = a.copy()
    b.sort()
    return b


@case("np.sort (sorted floats)", "sorting", make=lambda n: (np.sort(_floats(n)[0]),))
def sort_sorted(a):
    return np.sort(a)


@case("np.sort (reversed int32)", "sorting", label="{n} int32",
      make=lambda n: (np.sort(_rng().integers(-10 ** 9, 10 ** 9, n).astype(np.int32))[::-1]
                      .copy(),))
def sort_reversed(a):
    return np.sort(a)


@case("np.sort (int64 in 0..9: duplicates)", "sorting", label="{n} int64",
      make=lambda n: (_rng().integers(0, 10, n),))
def sort_duplicates(a):
    return np.sort(a)


# argsort's inputs have no ties: Numba's argsort orders the indices of ties as its quicksort
# happens to, kiln's as NumPy's stable sort (the outputs are compared before timing)
@case("np.argsort (int64 permutation)", "sorting", label="{n} int64",
      make=lambda n: (_rng().permutation(n) - n // 2,))
def argsort_ints(a):
    return np.argsort(a)


@case("np.argsort (distinct float32)", "sorting", label="{n} float32",
      make=lambda n: ((_rng().permutation(n) / n - 0.5).astype(np.float32),))
def argsort_float32(a):
    return np.argsort(a)


# ---- small and reversed arrays ---------------------------------------------------------------

@case("np.cumsum(a[::-1])", "arrays", rtol=1e-12)
def reversed_cumsum(a):
    return np.cumsum(a[::-1])


@case("np.sqrt(a*a + b*b) (small arrays)", "arrays", (100, 1_000, 10_000), make=_two_floats)
def hypot_small(a, b):
    return np.sqrt(a * a + b * b)


# ---- the harness -----------------------------------------------------------------------------

def compare(got, want, rtol):
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            compare(g, w, rtol)
        return
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        raise AssertionError(f"shape {got.shape} != {want.shape}")
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def label_of(c, n, args):
    side = args[0].shape[0] if hasattr(args[0], "shape") and args[0].ndim == 2 else n
    return c.label.format(n=f"{n:,}", side=side)


def run(cases, sizes, budget):
    import kiln
    import numba
    rows = []
    for c in cases:
        kiln_f, numba_f = kiln.njit(c.func), numba.njit(c.func)
        for size in sizes:
            n = c.sizes[size]
            args = c.make(n)
            row = {"name": c.name, "topic": c.topic, "size": size, "n": n,
                   "label": label_of(c, n, args), "note": c.note}
            try:
                want = numba_f(*args)
                got = kiln_f(*args)
                compare(got, want, c.rtol)
            except Exception as exc:   # a failure is a figure, not a crash
                line = next((s for s in str(exc).splitlines() if s.strip()), "")
                row["status"] = f"{type(exc).__name__}: {line.strip()}"[:200]
                rows.append(row)
                print(f"  {c.name} [{size}]: {row['status']}", flush=True)
                continue
            times = steady_medians({"kiln": kiln_f, "numba": numba_f}, args, mutates=False,
                                   budget=budget, min_repeats=5, max_repeats=41)
            row.update(status="ok", kiln_s=times["kiln"][0], numba_s=times["numba"][0],
                       ratio=times["kiln"][0] / times["numba"][0])
            rows.append(row)
            print(f"  {c.name:52s} {size:6s} {row['label']:>22s}  kiln {fmt(row['kiln_s'])}"
                  f"  Numba {fmt(row['numba_s'])}  {row['ratio']:6.2f}", flush=True)
    return rows


def fmt(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:7.3g} {unit:2s}"
    return f"{seconds / 1e-9:7.3g} ns"


def summary(rows):
    timed = [r for r in rows if r.get("status") == "ok"]
    cliffs = [r for r in timed if r["ratio"] > 1.10]
    gmean = math.exp(sum(math.log(r["ratio"]) for r in timed) / len(timed)) if timed else None
    return {"cases": len(rows), "timed": len(timed), "geometric_mean": gmean,
            "worst": max((r["ratio"] for r in timed), default=None),
            "cliffs": [(r["name"], r["size"], round(r["ratio"], 2)) for r in cliffs],
            "failed": [(r["name"], r["size"], r["status"]) for r in rows
                       if r.get("status") != "ok"]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="comma-separated substrings of case names or topics")
    p.add_argument("--sizes", default=",".join(SIZES))
    p.add_argument("--budget", type=float, default=0.3, help="seconds of samples per column")
    p.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "sweep.json")
    args = p.parse_args(argv)
    wanted = [w for w in args.only.split(",") if w]
    cases = [c for c in CASES if not wanted or
             any(w in c.name or w == c.topic or w in c.func.__name__ for w in wanted)]
    sizes = [s for s in args.sizes.split(",") if s]
    import kiln
    import numba
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    print(f"kiln {getattr(kiln, '__version__', '?')} ({Path(kiln.__file__).parent}), "
          f"Numba {numba.__version__}, NumPy {np.__version__}; {os.cpu_count()} CPUs, "
          f"load {load}", flush=True)
    started = time.time()
    rows = run(cases, sizes, args.budget)
    result = {"machine": {"cpus": os.cpu_count(), "load_at_start": load,
                          "load_at_end": os.getloadavg()[0] if load is not None else None,
                          "python": platform.python_version(), "numpy": np.__version__,
                          "numba": numba.__version__, "kiln_path": str(Path(kiln.__file__).parent)},
              "seconds": time.time() - started, "rows": rows, "summary": summary(rows)}
    s = result["summary"]
    print()
    if s["geometric_mean"] is not None:
        print(f"{s['timed']} cases timed: geometric mean kiln/Numba {s['geometric_mean']:.2f}, "
              f"worst {s['worst']:.2f}")
    print("cliffs (kiln slower than Numba by more than 10%):" if s["cliffs"] else
          "no case slower than Numba by more than 10%")
    for name, size, ratio in s["cliffs"]:
        print(f"  {ratio:6.2f}  {name} [{size}]")
    for name, size, status in s["failed"]:
        print(f"  not timed: {name} [{size}]: {status}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.json}")
    return result


if __name__ == "__main__":
    main()

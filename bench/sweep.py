"""The idiom sweep (issue 33): `python bench/sweep.py [--only power,flat] [--sizes small,large]`.

Each idiom is a plain Python function written once, compiled by kiln and by Numba, and run
on the same inputs at a small, a medium and a large size. The outputs are compared first
(a mismatch is reported and that case is not timed); then both are timed in turn, round
after round (bench/timing.py), so that load from other work falls on both alike. It prints
every case with kiln / Numba, lists the cliffs (kiln slower than Numba by more than 10%),
and writes the figures to bench/results/sweep.json (`--json` to change that).

The sweep covers the idioms issue 33 found slow (integer powers, multi-dimensional
iteration, median/percentile/partition, sorting, reversed cumsum, small-array
expressions) and the language idioms (str methods and building, a word count, dict/set/list
operations, jitclass methods over a typed list, generators, np.random draws, k-means); add
a case with `case(...)` below.
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
import functools  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

from bench.backends import Backend  # noqa: E402
from bench.timing import steady_samples  # noqa: E402

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
    rebound: dict = field(default_factory=dict)   # global name -> factory(compiler module)
    per_compiler: bool = False                    # make(n, compiler module): own objects


def case(name, topic, sizes=(1_000, 100_000, 1_000_000), label="{n} float64", rtol=0.0,
         make=None, note="", rebound=None, per_compiler=False):
    def register(func):
        CASES.append(Case(name, topic, func, make or _floats, dict(zip(SIZES, sizes)),
                          label, rtol, note, rebound or {}, per_compiler))
        return func
    return register


def _bind(func, rebound, mod):
    """func with the globals named in `rebound` bound to the compiler's own objects."""
    return Backend(mod.__name__, mod).bind(func, rebound)


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


# ---- language idioms: strings, containers, classes, generators, np.random --------------------

WORDS = (1_000, 100_000, 1_000_000)


def _text(n):
    """n words drawn (Zipf-like) from 5,000 words of 2-9 letters, some capitalized, some
    with a trailing comma or full stop."""
    g = _rng()
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(g.choice(letters, size=int(k))) for k in g.integers(2, 10, size=5_000)]
    vocab = [w.capitalize() if i % 7 == 0 else w + "," if i % 11 == 0 else
             w + "." if i % 13 == 0 else w for i, w in enumerate(vocab)]
    picks = np.minimum(g.zipf(1.3, size=n), len(vocab)) - 1
    return (" ".join(vocab[i] for i in picks),)


@case("str: split, strip, lower, startswith, find", "strings", WORDS, "{n} words", make=_text)
def str_methods(text):
    total = 0
    for w in text.split():
        w = w.strip(".,").lower()
        if w.startswith("a") or w.endswith("e") or w.find("qu") >= 0:
            total += len(w)
    return total


# Numba copies the string at each += (quadratic): smaller sizes
@case("str: build with += (per word)", "strings", (1_000, 10_000, 30_000), "{n} words",
      make=_text)
def str_build_words(text):
    out = ""
    for w in text.split():
        if len(w) > 3:
            out += w
            out += ";"
    return out


@case("str: build with += (per character)", "strings", (100, 1_000, 10_000), "{n} words",
      make=_text)
def str_build_chars(text):
    out = ""
    for ch in text:
        if ch != " ":
            out += ch
    return out


@case("word count (str.split, lower, dict)", "strings", WORDS, "{n} words", make=_text)
def word_count(text):
    counts = {}
    for w in text.split():
        w = w.lower()
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    best = 0
    for w, c in counts.items():
        if c > best:
            best = c
    return len(counts), best


def _keys(n):
    return (_rng().integers(0, max(n // 2, 1), n),)


@case("dict[int, int]: get, set, in, pop", "containers", label="{n} int64", make=_keys)
def dict_ops(keys):
    d = {keys[0]: 0}
    for k in keys:
        d[k] = d.get(k, 0) + 1
    total = 0
    for k in keys:
        if k + 1 in d:
            total += d[k + 1]
    for i in range(0, keys.shape[0], 2):
        total += d.pop(keys[i], 0)
    return len(d), total


@case("set[int]: add, in, discard", "containers", label="{n} int64", make=_keys)
def set_ops(keys):
    s = set()
    for k in keys:
        s.add(k)
    hits = 0
    for k in keys:
        if k + 1 in s:
            hits += 1
    for i in range(0, keys.shape[0], 2):
        s.discard(keys[i])
    return len(s), hits


@case("list: comprehension, append, index, pop", "containers", rtol=1e-12)
def list_ops(a):
    values = [x * 2.0 for x in a if x > 0.0]
    for x in a:
        if x <= 0.0:
            values.append(-x)
    total = 0.0
    for i in range(len(values)):
        total += values[i] * (i % 3)
    while len(values) > 0:
        total -= values.pop()
    return total


def _particle_class(mod):
    """A jitclass (kiln's or Numba's) of a particle on a line."""
    spec = [("x", mod.float64), ("v", mod.float64), ("m", mod.float64)]

    class Particle:
        def __init__(self, x, v, m):
            self.x = x
            self.v = v
            self.m = m

        def step(self, dt):
            self.x += self.v * dt

        def energy(self):
            return 0.5 * self.m * self.v * self.v

    return mod.experimental.jitclass(spec)(Particle)


def _build_particles(xs, vs):
    particles = List()
    for i in range(xs.shape[0]):
        particles.append(Particle(xs[i], vs[i], 1.0 + (i % 3)))
    return particles


def _particles(n, mod):
    """A typed list of n particles built by the compiler's own code."""
    import importlib
    importlib.import_module(f"{mod.__name__}.experimental")
    importlib.import_module(f"{mod.__name__}.typed")
    build = _bind(_build_particles, {"List": lambda m: m.typed.List,
                                     "Particle": _particle_class}, mod)
    g = _rng()
    return (mod.njit(build)(g.standard_normal(n), g.standard_normal(n)),)


@case("jitclass: method calls and attributes over a typed list", "jitclass",
      label="{n} objects", rtol=1e-12, make=_particles, per_compiler=True)
def jitclass_methods(particles):
    energy = 0.0
    position = 0.0
    for p in particles:
        p.step(0.0)
        energy += p.energy()
        position += p.x * p.m
    return energy, position


def _squares_of_evens(x):
    for v in x:
        if v % 2 == 0:
            yield v * v


def _residues(values):
    for s in values:
        yield s % 7


GENERATORS = {"_squares_of_evens": lambda m: m.njit(_squares_of_evens),
              "_residues": lambda m: m.njit(_residues)}


@case("generators: a generator over a generator", "generators", label="{n} int64",
      make=lambda n: (_rng().integers(-1000, 1000, n),), rebound=GENERATORS)
def generator_pipeline(x):
    total = 0
    for r in _residues(_squares_of_evens(x)):
        total += r
    return total


@case("np.random.random() per draw (Monte Carlo pi)", "random", label="{n} draws",
      make=lambda n: (n, 42))
def monte_carlo_pi(n, seed):
    np.random.seed(seed)
    hits = 0
    for i in range(n // 2):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y <= 1.0:
            hits += 1
    return 4.0 * hits / (n // 2)


@case("np.random.normal() per draw (random walk)", "random", label="{n} draws", rtol=1e-12,
      make=lambda n: (n, 42))
def random_walk(n, seed):
    np.random.seed(seed)
    x = 0.0
    far = 0.0
    for i in range(n):
        x += np.random.normal(0.0, 1.0)
        far = max(far, abs(x))
    return far


@case("np.random.random(n), np.random.standard_normal(n)", "random", label="{n} draws",
      rtol=1e-15, make=lambda n: (n, 42))
def random_arrays(n, seed):
    np.random.seed(seed)
    return np.random.random(n), np.random.standard_normal(n)


def _clusters(n):
    g = _rng()
    centres = g.uniform(-10, 10, (8, 2))
    points = centres[g.integers(0, 8, n)] + g.standard_normal((n, 2))
    return points, points[:8].copy(), 5


@case("k-means (Lloyd, 8 centres in 2-d, 5 rounds)", "random", label="{n} points",
      rtol=1e-12, make=_clusters)
def kmeans(points, centres, rounds):
    n, d = points.shape
    k = centres.shape[0]
    centres = centres.copy()
    labels = np.zeros(n, np.int64)
    for _ in range(rounds):
        for i in range(n):
            best, nearest = 0, np.inf
            for j in range(k):
                dist = 0.0
                for c in range(d):
                    diff = points[i, c] - centres[j, c]
                    dist += diff * diff
                if dist < nearest:
                    best, nearest = j, dist
            labels[i] = best
        sums = np.zeros((k, d))
        counts = np.zeros(k)
        for i in range(n):
            counts[labels[i]] += 1.0
            for c in range(d):
                sums[labels[i], c] += points[i, c]
        for j in range(k):
            if counts[j] > 0:
                for c in range(d):
                    centres[j, c] = sums[j, c] / counts[j]
    return centres, labels


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


def run(cases, sizes, budget, statistic="median"):
    import kiln
    import numba
    rows = []
    for c in cases:
        kiln_f = kiln.njit(_bind(c.func, c.rebound, kiln))
        numba_f = numba.njit(_bind(c.func, c.rebound, numba))
        for size in sizes:
            n = c.sizes[size]
            row = {"name": c.name, "topic": c.topic, "size": size, "n": n, "note": c.note}
            try:
                if c.per_compiler:
                    kiln_args, numba_args = c.make(n, kiln), c.make(n, numba)
                else:
                    kiln_args = numba_args = c.make(n)
                row["label"] = label_of(c, n, numba_args)
                want = numba_f(*numba_args)
                got = kiln_f(*kiln_args)
                compare(got, want, c.rtol)
            except Exception as exc:   # a failure is a figure, not a crash
                line = next((s for s in str(exc).splitlines() if s.strip()), "")
                row["status"] = f"{type(exc).__name__}: {line.strip()}"[:200]
                rows.append(row)
                print(f"  {c.name} [{size}]: {row['status']}", flush=True)
                continue
            if c.per_compiler:      # each its own arguments: bound in C, no Python frame
                funcs = {"kiln": functools.partial(kiln_f, *kiln_args),
                         "numba": functools.partial(numba_f, *numba_args)}
                args = ()
            else:
                funcs, args = {"kiln": kiln_f, "numba": numba_f}, kiln_args
            samples = steady_samples(funcs, args, mutates=False,
                                     budget=budget, min_repeats=5, max_repeats=41)
            pick = min if statistic == "best" else statistics.median
            kiln_s, numba_s = pick(samples["kiln"]), pick(samples["numba"])
            row.update(status="ok", kiln_s=kiln_s, numba_s=numba_s, ratio=kiln_s / numba_s,
                       statistic=statistic, samples=len(samples["kiln"]))
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
    p.add_argument("--statistic", choices=("median", "best"), default="median",
                   help="of each side's samples; 'best' (the fastest) is steadier on a "
                        "loaded machine, where preemption inflates medians at random")
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
    rows = run(cases, sizes, args.budget, args.statistic)
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

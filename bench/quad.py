"""`scipy.integrate.quad` with a compiled C integrand (`@cfunc` as a LowLevelCallable)
against the same integrand as a plain Python function: `python bench/quad.py`.

Each integrand is checked against the Python one first (same value and error estimate);
times are steady-state medians of whole `quad` calls, sampled in turn (bench/timing.py).
Numba's `@cfunc` is timed too when Numba is installed.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: import the harness as the `bench` package
    ROOT = Path(__file__).resolve().parent.parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
    sys.path.insert(0, str(ROOT))

from bench.backends import load_backends  # noqa: E402
from bench.timing import steady_medians  # noqa: E402

SIGNATURE = "float64(float64)"
# oscillating and peaked: quad needs a few thousand evaluations for these limits
LIMITS = (0.0, 200.0)


def integrand(x):
    d = x - 100.0
    return math.exp(-0.01 * x) * math.cos(x * x / 50.0) + 1.0 / (1.0 + d * d)


def main() -> int:
    from scipy import LowLevelCallable, integrate

    def quad(f):
        return integrate.quad(f, *LIMITS, limit=500)

    calls = {"python": lambda: quad(integrand)}
    for backend in load_backends():
        if backend.missing is None:
            c_integrand = backend.module.cfunc(SIGNATURE)(integrand)
            callable_ = LowLevelCallable(c_integrand.ctypes)
            calls[f"{backend.name} cfunc"] = lambda callable_=callable_: quad(callable_)
    expected = calls["python"]()
    for name, call in calls.items():
        value, error = call()
        if not (math.isclose(value, expected[0], rel_tol=1e-12) and
                math.isclose(error, expected[1], rel_tol=1e-6)):
            raise AssertionError(f"{name}: quad gave {(value, error)}, Python {expected}")
    evaluations = integrate.quad(integrand, *LIMITS, limit=500, full_output=1)[2]["neval"]
    times = steady_medians({k: (lambda c=c: c()) for k, c in calls.items()}, (),
                           mutates=False, budget=1.0)
    python = times["python"][0]
    print(f"quad of a {evaluations}-evaluation integrand over {LIMITS}:")
    print("| integrand | time per quad | speedup over Python |")
    print("|---|---|---|")
    for name, (seconds, _) in times.items():
        print(f"| {name} | {seconds * 1e6:.1f} µs | {python / seconds:.1f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

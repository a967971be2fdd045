"""@vectorize kernels: scalar functions turned into NumPy ufuncs (logistic, hypot, Black-Scholes)."""
import math

import numpy as np

from bench.registry import Benchmark, Sizes, register, rng

F8 = "float64"


def logistic(x):
    return 1.0 / (1.0 + math.exp(-x))


register(Benchmark(
    name="logistic", topic="ufunc", kind="vectorize", pyfunc=logistic,
    signatures=(f"{F8}({F8})",), make_inputs=lambda n: (rng().standard_normal(n) * 4,),
    sizes=Sizes(full=5_000_000, quick=500_000, python=20_000), label="{n} float64",
    numpy_ref=lambda x: 1.0 / (1.0 + np.exp(-x)), rtol=1e-14,
    bytes_touched=lambda args: 2 * args[0].nbytes))


def hypot(x, y):
    return math.sqrt(x * x + y * y)


def _two_vectors(n):
    g = rng()
    return g.standard_normal(n), g.standard_normal(n)


register(Benchmark(
    name="hypot", topic="ufunc", kind="vectorize", pyfunc=hypot,
    signatures=(f"{F8}({F8}, {F8})",), make_inputs=_two_vectors,
    sizes=Sizes(full=5_000_000, quick=500_000, python=20_000), label="{n} float64",
    numpy_ref=np.hypot, rtol=1e-14, bytes_touched=lambda args: 3 * args[0].nbytes))

register(Benchmark(
    name="hypot_parallel", topic="ufunc", kind="vectorize", pyfunc=hypot,
    signatures=(f"{F8}({F8}, {F8})",), make_inputs=_two_vectors,
    options={"target": "parallel"},
    sizes=Sizes(full=10_000_000, quick=1_000_000, python=20_000), label="{n} float64",
    numpy_ref=np.hypot, rtol=1e-14, bytes_touched=lambda args: 3 * args[0].nbytes))

SQRT2 = math.sqrt(2.0)


def black_scholes_call(s, k, t, r, sigma):
    sqrt_t = math.sqrt(t)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    nd1 = 0.5 * (1.0 + math.erf(d1 / SQRT2))
    nd2 = 0.5 * (1.0 + math.erf(d2 / SQRT2))
    return s * nd1 - k * math.exp(-r * t) * nd2


def _options(n):
    g = rng()
    return (g.uniform(10.0, 50.0, n), g.uniform(10.0, 50.0, n), g.uniform(0.1, 2.0, n),
            0.02, 0.3)


def _np_cnd(d):
    """Normal CDF by Abramowitz & Stegun 26.2.17 (|error| < 7.5e-8): NumPy has no erf."""
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))))
    w = 1.0 - np.exp(-0.5 * d * d) / np.sqrt(2 * np.pi) * poly
    return np.where(d < 0, 1.0 - w, w)


def _np_black_scholes(s, k, t, r, sigma):
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * sqrt_t)
    d2 = d1 - sigma * sqrt_t
    return s * _np_cnd(d1) - k * np.exp(-r * t) * _np_cnd(d2)


register(Benchmark(
    name="black_scholes", topic="ufunc", kind="vectorize", pyfunc=black_scholes_call,
    signatures=(f"{F8}({F8}, {F8}, {F8}, {F8}, {F8})",), make_inputs=_options,
    sizes=Sizes(full=2_000_000, quick=200_000, python=10_000), label="{n} options",
    # The NumPy version's CDF is a polynomial approximation: prices agree to ~1e-5.
    numpy_ref=_np_black_scholes, rtol=1e-12, numpy_tol=(0.0, 1e-4)))

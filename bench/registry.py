"""The benchmark registry: one `Benchmark` record per kernel, filled in by bench/kernels/*.

A kernel is a plain Python function, written once; the harness decorates the very same
function with kiln's and Numba's decorators, so the compilers are compared on one source.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# Kernels call `prange(...)`.  Run as plain Python it is `range`; the harness rebinds the
# name to the backend's own `prange` when it compiles a kernel that uses it.
prange = range

KINDS = ("njit", "vectorize", "cuda")


@dataclass(frozen=True)
class Sizes:
    """Problem sizes: `full` for the report, `quick` for --quick, `python` for CPython."""

    full: int
    quick: int
    python: int

    def get(self, mode: str) -> int:
        return getattr(self, mode)


@dataclass(frozen=True)
class Benchmark:
    """Everything the harness needs to build, run, check and time one kernel.

    `make_inputs(n)` returns the argument tuple for size n (deterministic: seeded).  The
    output is the return value, or, when `outputs` names argument positions, those
    arguments after the call (kernels write into arrays passed in, since compiled code
    that allocates arrays is not something every compiler under test supports yet).
    """

    name: str
    topic: str
    pyfunc: Callable
    make_inputs: Callable[[int], tuple]
    sizes: Sizes
    label: str                                   # size, e.g. "{n} float64" ({n} filled in)
    kind: str = "njit"
    options: dict = field(default_factory=dict)  # jit options: fastmath, parallel
    signatures: tuple = ()                       # vectorize signatures
    numpy_ref: Callable | None = None            # idiomatic NumPy, same args -> output
    outputs: tuple = ()
    mutates: bool = False                        # inputs are consumed: fresh copy per call
    work: Callable[[int], float] = float         # work units of size n (CPython extrapolation)
    bytes_touched: Callable[[tuple], int] | None = None  # memory-bound kernels
    rtol: float = 1e-9                           # tolerance against CPython's output
    atol: float = 0.0
    numpy_tol: tuple | None = None               # (rtol, atol) against NumPy's, if different
    check: Callable[[Any, Any, tuple], None] | None = None  # custom check(out, ref, args)
    gpu_launch: Callable | None = None           # cuda kind: (cuda, kernel, args) -> (run, fetch)
    # Globals of the kernel that each compiler gets its own object for (name -> a function
    # of the compiler's module); plain Python keeps the module's own.
    rebound: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {KINDS}")
        if self.kind == "cuda" and self.gpu_launch is None:
            raise ValueError(f"{self.name}: a cuda benchmark needs gpu_launch")


REGISTRY: dict[str, Benchmark] = {}


def register(bench: Benchmark) -> Benchmark:
    if bench.name in REGISTRY:
        raise ValueError(f"benchmark {bench.name!r} registered twice")
    REGISTRY[bench.name] = bench
    return bench


def nbytes(*positions: int) -> Callable[[tuple], int]:
    """bytes_touched for kernels that stream once through the arrays at `positions`."""
    return lambda args: sum(args[i].nbytes for i in positions)


def rng(seed: int = 12345) -> np.random.Generator:
    return np.random.default_rng(seed)


def square(n: int) -> float:
    return float(n) * n


def human(n: int) -> str:
    """10000000 -> '10M', 20000 -> '20k', 2000 -> '2000': sizes as people say them."""
    if n >= 1_000_000 and n % 100_000 == 0:
        return f"{n / 1_000_000:g}M"
    if n >= 10_000 and n % 100 == 0:
        return f"{n / 1_000:g}k"
    return str(n)

"""Container kernels: building and sorting a list of floats, deduplicating with a set, a
generator pipeline."""
import numpy as np

from bench.registry import Benchmark, Sizes, register, rng


def list_sort(x):
    """Append every value to a list, sort it, and sum a sample weighted by position (a
    checksum that sees the order)."""
    values = []
    for v in x:
        values.append(v)
    values.sort()
    total = 0.0
    for i in range(0, len(values), 997):
        total += values[i] * i
    return total


def _np_list_sort(x):
    s = np.sort(x)
    idx = np.arange(0, s.shape[0], 997)
    return float(np.sum(s[idx] * idx))


register(Benchmark(
    name="list_sort", topic="containers", pyfunc=list_sort,
    make_inputs=lambda n: (rng().standard_normal(n),),
    sizes=Sizes(full=1_000_000, quick=1_000_000, python=1_000_000), label="{n} float64",
    numpy_ref=_np_list_sort, rtol=1e-12, work=lambda n: n * np.log2(max(n, 2))))


def set_dedup(x):
    """The distinct values of x through a set, and a checksum of them (order-free)."""
    seen = set()
    for v in x:
        seen.add(v)
    total = 0
    for v in seen:
        total += v * v % 1000003
    return len(seen), total


def _np_set_dedup(x):
    u = np.unique(x)
    return len(u), int(np.sum(u * u % 1000003))


register(Benchmark(
    name="set_dedup", topic="containers", pyfunc=set_dedup,
    make_inputs=lambda n: (rng().integers(0, n // 2, n),),
    sizes=Sizes(full=1_000_000, quick=100_000, python=1_000_000), label="{n} int64",
    numpy_ref=_np_set_dedup, rtol=0.0, work=float))


def squares_of_evens(x):
    """A generator: the squares of the even items, one at a time."""
    for v in x:
        if v % 2 == 0:
            yield v * v


def residues(values):
    """A generator over a generator: each value modulo 7."""
    for s in values:
        yield s % 7


def generator_pipeline(x):
    """Two generators feeding a loop (two suspensions per item)."""
    total = 0
    for r in residues(squares_of_evens(x)):
        total += r
    return total


def _np_generator_pipeline(x):
    evens = x[x % 2 == 0]
    return int(np.sum(evens * evens % 7))


register(Benchmark(
    name="generator_pipeline", topic="containers", pyfunc=generator_pipeline,
    make_inputs=lambda n: (rng().integers(-1000, 1000, n),),
    sizes=Sizes(full=1_000_000, quick=100_000, python=1_000_000), label="{n} int64",
    numpy_ref=_np_generator_pipeline, rtol=0.0, work=float,
    rebound={"squares_of_evens": lambda compiler: compiler.njit(squares_of_evens),
             "residues": lambda compiler: compiler.njit(residues)}))

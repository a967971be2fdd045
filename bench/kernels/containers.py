"""Container kernels: building and sorting a list of floats."""
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

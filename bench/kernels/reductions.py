"""Reductions: sum of squares (issue 2's headline kernel), np.sum/max/argmin, row-wise dot,
column sums, histogram."""
import numpy as np

from bench.registry import Benchmark, Sizes, nbytes, prange, register, rng, square


def sum_of_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s


def sum_of_squares_prange(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i] * x[i]
    return s


def _vector(n):
    return (rng().standard_normal(n),)


def _np_sum_of_squares(x):
    return np.dot(x, x)


_SUMSQ_SIZES = Sizes(full=10_000_000, quick=1_000_000, python=100_000)
for _name, _func, _opts, _rtol in [
    ("sum_of_squares", sum_of_squares, {}, 1e-12),
    ("sum_of_squares_fastmath", sum_of_squares, {"fastmath": True}, 1e-9),
    ("sum_of_squares_parallel", sum_of_squares_prange, {"parallel": True}, 1e-9),
]:
    register(Benchmark(
        name=_name, topic="reduction", pyfunc=_func, make_inputs=_vector,
        sizes=_SUMSQ_SIZES, label="{n} float64", options=_opts,
        numpy_ref=_np_sum_of_squares, rtol=_rtol, bytes_touched=nbytes(0)))


def row_dot(a, v, out):
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        out[i] = s


def _row_dot_inputs(rows):
    g = rng()
    return g.standard_normal((rows, 256)), g.standard_normal(256), np.zeros(rows)


def row_dot_prange(a, v, out):
    for i in prange(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * v[j]
        out[i] = s


for _name, _func, _opts in [("row_dot", row_dot, {}),
                            ("row_dot_parallel", row_dot_prange, {"parallel": True})]:
    register(Benchmark(
        name=_name, topic="reduction", pyfunc=_func, make_inputs=_row_dot_inputs,
        sizes=Sizes(full=20_000, quick=2_000, python=200), label="{n}x256 float64",
        options=_opts, numpy_ref=lambda a, v, out: np.dot(a, v, out=out), outputs=(2,),
        rtol=1e-10, bytes_touched=nbytes(0, 1, 2)))


def array_sum(x):
    return np.sum(x)


for _name, _opts in [("np_sum", {}), ("np_sum_parallel", {"parallel": True})]:
    # NumPy's pairwise sum; in parallel, split along its recursion (the same bits)
    register(Benchmark(
        name=_name, topic="reduction", pyfunc=array_sum, make_inputs=_vector,
        sizes=_SUMSQ_SIZES, label="{n} float64", options=_opts, numpy_ref=np.sum,
        rtol=1e-12, bytes_touched=nbytes(0)))


def array_max(x):
    return np.max(x)


def array_argmin(x):
    return np.argmin(x)


for _func, _ref in [(array_max, np.max), (array_argmin, np.argmin)]:
    for _suffix, _opts in [("", {}), ("_parallel", {"parallel": True})]:
        # in parallel, 64 pieces on the threads joined in order (library/split.py)
        register(Benchmark(
            name=f"np_{_func.__name__[6:]}{_suffix}", topic="reduction", pyfunc=_func,
            make_inputs=_vector, sizes=_SUMSQ_SIZES, label="{n} float64", options=_opts,
            numpy_ref=_ref, bytes_touched=nbytes(0)))


def max_abs_diff(a, b):
    """A convergence test: the largest change between two iterates, one fused pass."""
    return np.max(np.abs(a - b))


def _two_vectors(n):
    return (rng(1).standard_normal(n), rng(2).standard_normal(n))


for _suffix, _opts in [("", {}), ("_parallel", {"parallel": True})]:
    # folded where it is computed (no temporaries); in parallel, equal ranges on the threads
    register(Benchmark(
        name=f"max_abs_diff{_suffix}", topic="reduction", pyfunc=max_abs_diff,
        make_inputs=_two_vectors, sizes=_SUMSQ_SIZES, label="{n} float64", options=_opts,
        numpy_ref=max_abs_diff, bytes_touched=nbytes(0, 1)))


def empty_region(x):
    """Opens and closes one parallel region with one iteration per thread: the cost of
    the region itself."""
    for i in prange(x.shape[0]):
        x[i] = i


register(Benchmark(
    name="empty_parallel_region", topic="reduction", pyfunc=empty_region,
    make_inputs=lambda n: (np.zeros(n),), sizes=Sizes(full=2, quick=2, python=2),
    label="{n} iterations", options={"parallel": True}, outputs=(0,)))


def column_sums(a, out):
    for j in range(a.shape[1]):
        out[j] = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[i, j]


def _column_sums_inputs(n):
    return rng().standard_normal((n, n)), np.zeros(n)


register(Benchmark(
    name="column_sums", topic="reduction", pyfunc=column_sums,
    make_inputs=_column_sums_inputs, sizes=Sizes(full=2_000, quick=500, python=150),
    label="{n}x{n} float64", numpy_ref=lambda a, out: np.sum(a, axis=0, out=out),
    outputs=(1,), rtol=1e-10, atol=1e-10, work=square, bytes_touched=nbytes(0, 1)))


def histogram(x, lo, hi, counts):
    nbins = counts.shape[0]
    for k in range(nbins):
        counts[k] = 0
    scale = nbins / (hi - lo)
    for i in range(x.shape[0]):
        k = int((x[i] - lo) * scale)
        if k == nbins and x[i] == hi:
            k = nbins - 1
        if 0 <= k < nbins:
            counts[k] += 1


def _histogram_inputs(n):
    # Bins of width 1/64 on [0, 1): the bin index is exact, so it matches np.histogram.
    return rng().random(n), 0.0, 1.0, np.zeros(64, dtype=np.int64)


def _np_histogram(x, lo, hi, counts):
    return np.histogram(x, bins=counts.shape[0], range=(lo, hi))[0]


register(Benchmark(
    name="histogram", topic="reduction", pyfunc=histogram, make_inputs=_histogram_inputs,
    sizes=Sizes(full=10_000_000, quick=1_000_000, python=100_000), label="{n} float64, 64 bins",
    numpy_ref=_np_histogram, outputs=(3,), rtol=0, bytes_touched=nbytes(0)))

"""Loop kernels with no BLAS to hide behind: bubblesort, Horner, 1-D stencil, LCS recurrence."""
import numpy as np

from bench.registry import Benchmark, Sizes, nbytes, register, rng, square


def bubblesort(a):
    n = a.shape[0]
    for i in range(n - 1):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                t = a[j]
                a[j] = a[j + 1]
                a[j + 1] = t


register(Benchmark(
    name="bubblesort", topic="loops", pyfunc=bubblesort,
    make_inputs=lambda n: (rng().standard_normal(n).astype(np.float32),),
    sizes=Sizes(full=2_000, quick=1_000, python=200), label="{n} float32",
    numpy_ref=np.sort, outputs=(0,), mutates=True, rtol=0, work=square))


def horner(coeffs, x):
    acc = 0.0
    for i in range(coeffs.shape[0]):
        acc = acc * x + coeffs[i]
    return acc


def _np_horner(coeffs, x):
    # coeffs[0] is the leading coefficient.
    return np.dot(coeffs[::-1], x ** np.arange(coeffs.shape[0], dtype=np.float64))


register(Benchmark(
    name="horner", topic="loops", pyfunc=horner,
    make_inputs=lambda n: (rng().standard_normal(n), 0.9999),
    sizes=Sizes(full=10_000_000, quick=1_000_000, python=100_000),
    label="{n} coefficients", numpy_ref=_np_horner, rtol=1e-8, bytes_touched=nbytes(0)))


def stencil_1d(a, out):
    n = a.shape[0]
    out[0] = a[0]
    out[n - 1] = a[n - 1]
    for i in range(1, n - 1):
        out[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0


def _np_stencil_1d(a, out):
    out[0], out[-1] = a[0], a[-1]
    out[1:-1] = (a[:-2] + a[1:-1] + a[2:]) / 3.0
    return out


register(Benchmark(
    name="stencil_1d", topic="loops", pyfunc=stencil_1d,
    make_inputs=lambda n: (rng().standard_normal(n), np.zeros(n)),
    sizes=Sizes(full=5_000_000, quick=500_000, python=100_000), label="{n} float64",
    numpy_ref=_np_stencil_1d, outputs=(1,), rtol=1e-15, bytes_touched=nbytes(0, 1)))


def lcs_length(a, b, row):
    """Longest common subsequence by the classic DP recurrence, one row kept."""
    m = b.shape[0]
    for j in range(m + 1):
        row[j] = 0
    for i in range(a.shape[0]):
        diag = 0
        for j in range(1, m + 1):
            above = row[j]
            if a[i] == b[j - 1]:
                row[j] = diag + 1
            elif row[j - 1] > above:
                row[j] = row[j - 1]
            diag = above
    return row[m]


def _lcs_inputs(n):
    g = rng()
    return g.integers(0, 4, n), g.integers(0, 4, n), np.zeros(n + 1, dtype=np.int64)


register(Benchmark(
    name="lcs", topic="loops", pyfunc=lcs_length, make_inputs=_lcs_inputs,
    sizes=Sizes(full=3_000, quick=1_000, python=200), label="{n} x {n} int64, 4 letters",
    rtol=0, work=square))

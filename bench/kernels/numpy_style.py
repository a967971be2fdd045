"""NumPy-style kernels (issue 13): whole-array code written once, run as plain NumPy and
compiled by kiln and Numba. Their "CPython" column is the same code under the interpreter,
that is NumPy itself."""
import numpy as np

from bench.registry import Benchmark, Sizes, nbytes, register, rng


def _register(name, pyfunc, make_inputs, sizes, label, rtol=1e-12, **extra):
    register(Benchmark(name=name, topic="numpy", pyfunc=pyfunc, make_inputs=make_inputs,
                       sizes=sizes, label=label, numpy_ref=pyfunc, rtol=rtol, **extra))


def smooth_1d(x):
    """The seeds' three-point stencil, with the output allocated inside."""
    out = np.empty_like(x)
    out[0] = x[0]
    out[-1] = x[-1]
    out[1:-1] = (x[:-2] + x[1:-1] + x[2:]) / 3.0
    return out


_register("smooth_1d", smooth_1d, lambda n: (rng().standard_normal(n),),
          Sizes(full=10_000_000, quick=1_000_000, python=1_000_000), "{n} float64",
          bytes_touched=lambda args: 2 * args[0].nbytes)


def allocate_fill_reduce(n):
    a = np.arange(n) % 1000
    return np.sum(a * a)


_register("allocate_fill_reduce", allocate_fill_reduce, lambda n: (n,),
          Sizes(full=10_000_000, quick=1_000_000, python=1_000_000), "{n} int64", rtol=0.0)


def hypot_arrays(a, b):
    return np.sqrt(a * a + b * b)


def _two(n):
    g = rng()
    return g.standard_normal(n), g.standard_normal(n)


_register("hypot_arrays", hypot_arrays, _two,
          Sizes(full=10_000_000, quick=1_000_000, python=1_000_000), "{n} float64",
          bytes_touched=lambda args: 3 * args[0].nbytes)


def dot_by_sum(a, b):
    """A reduction of an expression: NumPy (and Numba) make the product array first."""
    return np.sum(a * b)


_register("dot_by_sum", dot_by_sum, _two,
          Sizes(full=10_000_000, quick=1_000_000, python=1_000_000), "{n} float64",
          bytes_touched=nbytes(0, 1))


def stable_logistic(x):
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-x)), np.exp(x) / (1.0 + np.exp(x)))


_register("stable_logistic", stable_logistic, lambda n: (rng().standard_normal(n) * 10,),
          Sizes(full=5_000_000, quick=500_000, python=500_000), "{n} float64", rtol=1e-14)


def pairwise_distances(X):
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


_register("pairwise_distances_broadcast", pairwise_distances,
          lambda n: (rng().standard_normal((n, 3)),),
          Sizes(full=1_000, quick=300, python=300), "{n}x3 float64", rtol=1e-12)


def diffusion_step(u):
    """One explicit step of the 2-D heat equation, into a new array."""
    out = u.copy()
    out[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                             + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return out


_register("diffusion_step", diffusion_step, lambda n: (rng().standard_normal((n, n)),),
          Sizes(full=1_000, quick=300, python=300), "{n}x{n} float64",
          bytes_touched=lambda args: 3 * args[0].nbytes)


def l2_norm_rows(X):
    return np.sqrt(np.sum(X ** 2, axis=1))


_register("l2_norm_rows", l2_norm_rows, lambda n: (rng().standard_normal((n, 64)),),
          Sizes(full=100_000, quick=10_000, python=10_000), "{n}x64 float64",
          bytes_touched=nbytes(0))


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


_register("softmax", softmax, lambda n: (rng().standard_normal(n),),
          Sizes(full=5_000_000, quick=500_000, python=500_000), "{n} float64", rtol=1e-12)


def solve_system(a, b):
    return np.linalg.solve(a, b)


def _system(n):
    g = rng()
    return g.standard_normal((n, n)) + n * np.eye(n), g.standard_normal(n)


_register("linalg_solve", solve_system, _system,
          Sizes(full=500, quick=200, python=200), "{n}x{n} float64", rtol=1e-9)


def random_walk(n):
    """np.random inside the kernel: seeded, so every column gives the same walk."""
    np.random.seed(42)
    steps = np.where(np.random.random(n) < 0.5, -1.0, 1.0)
    return np.cumsum(steps)


_register("random_walk", random_walk, lambda n: (n,),
          Sizes(full=10_000_000, quick=1_000_000, python=1_000_000), "{n} steps", rtol=0.0)

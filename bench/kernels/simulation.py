"""Classic numeric workloads: n-body, Mandelbrot, Jacobi, pairwise distances, Monte-Carlo pi."""
import math

import numpy as np

from bench.registry import Benchmark, Sizes, register, rng, square

EPS2 = 1e-3  # softening: the self-interaction term is exactly zero, so no i != j test


def nbody_step(pos, vel, mass, dt, new_pos, new_vel):
    n = pos.shape[0]
    for i in range(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            r2 = dx * dx + dy * dy + dz * dz + EPS2
            s = mass[j] / (r2 * math.sqrt(r2))
            ax += dx * s
            ay += dy * s
            az += dz * s
        new_vel[i, 0] = vel[i, 0] + dt * ax
        new_vel[i, 1] = vel[i, 1] + dt * ay
        new_vel[i, 2] = vel[i, 2] + dt * az
        for k in range(3):
            new_pos[i, k] = pos[i, k] + dt * new_vel[i, k]


def _bodies(n):
    g = rng()
    return (g.standard_normal((n, 3)), g.standard_normal((n, 3)) * 0.1,
            g.uniform(0.5, 1.0, n), 0.01, np.zeros((n, 3)), np.zeros((n, 3)))


def _np_nbody_step(pos, vel, mass, dt, new_pos, new_vel):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = (d * d).sum(axis=-1) + EPS2
    acc = (d * (mass[None, :] / (r2 * np.sqrt(r2)))[:, :, None]).sum(axis=1)
    new_vel[:] = vel + dt * acc
    new_pos[:] = pos + dt * new_vel
    return new_pos, new_vel


register(Benchmark(
    name="nbody", topic="simulation", pyfunc=nbody_step, make_inputs=_bodies,
    sizes=Sizes(full=2_000, quick=500, python=80), label="{n} bodies, one step",
    numpy_ref=_np_nbody_step, outputs=(4, 5), rtol=1e-9, atol=1e-9, work=square))


def mandelbrot(xs, ys, max_iter, out):
    for i in range(ys.shape[0]):
        ci = ys[i]
        for j in range(xs.shape[0]):
            cr = xs[j]
            zr = 0.0
            zi = 0.0
            k = 0
            while k < max_iter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                k += 1
            out[i, j] = k


def _plane(n):
    h = n * 3 // 4
    return (np.linspace(-2.0, 0.6, n), np.linspace(-1.0, 1.0, h), 100,
            np.zeros((h, n), dtype=np.int64))


def _np_mandelbrot(xs, ys, max_iter, out):
    cr, ci = xs[None, :], ys[:, None]
    zr = np.zeros(out.shape)
    zi = np.zeros(out.shape)
    out[:] = 0
    for _ in range(max_iter):
        alive = zr * zr + zi * zi <= 4.0
        if not alive.any():
            break
        t = zr * zr - zi * zi + cr
        zi = np.where(alive, 2.0 * zr * zi + ci, zi)
        zr = np.where(alive, t, zr)
        out += alive
    return out


def _nearly_all_equal(out, ref, args):
    """Escape counts may differ on a few boundary pixels if a compiler contracts to FMA."""
    mismatched = np.count_nonzero(np.asarray(out) != np.asarray(ref))
    assert mismatched <= 1e-3 * np.size(ref), f"{mismatched} of {np.size(ref)} pixels differ"


register(Benchmark(
    name="mandelbrot", topic="simulation", pyfunc=mandelbrot, make_inputs=_plane,
    sizes=Sizes(full=800, quick=300, python=60), label="{n} wide, 100 iterations",
    numpy_ref=_np_mandelbrot, outputs=(3,), check=_nearly_all_equal, work=square))


def jacobi_2d(u, v, iters):
    n = u.shape[0]
    m = u.shape[1]
    for it in range(iters):
        for i in range(1, n - 1):
            for j in range(1, m - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u, v = v, u


def _grid(n):
    u = rng().random((n, n))
    return u, u.copy(), 20  # an even number of sweeps leaves the result in u


def _np_jacobi_2d(u, v, iters):
    result = u
    for _ in range(iters):
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u, v = v, u
    return result


register(Benchmark(
    name="jacobi_2d", topic="simulation", pyfunc=jacobi_2d, make_inputs=_grid,
    sizes=Sizes(full=1_000, quick=300, python=50), label="{n}x{n}, 20 sweeps",
    numpy_ref=_np_jacobi_2d, outputs=(0,), mutates=True, rtol=1e-14, work=square))


def pairwise_distances(x, out):
    n = x.shape[0]
    d = x.shape[1]
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(d):
                t = x[i, k] - x[j, k]
                s += t * t
            out[i, j] = math.sqrt(s)


def _np_pairwise(x, out):
    diff = x[:, None, :] - x[None, :, :]
    return np.sqrt((diff * diff).sum(axis=-1), out=out)


register(Benchmark(
    name="pairwise_distances", topic="simulation", pyfunc=pairwise_distances,
    make_inputs=lambda n: (rng().standard_normal((n, 3)), np.zeros((n, n))),
    sizes=Sizes(full=2_000, quick=500, python=60), label="{n} points in 3-D",
    numpy_ref=_np_pairwise, outputs=(1,), rtol=1e-12, atol=1e-14, work=square))


def monte_carlo_pi(n, seed):
    np.random.seed(seed)
    hits = 0
    for i in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y <= 1.0:
            hits += 1
    return 4.0 * hits / n


def _np_monte_carlo_pi(n, seed):
    g = np.random.default_rng(seed)
    x, y = g.random(n), g.random(n)
    return 4.0 * np.count_nonzero(x * x + y * y <= 1.0) / n


def _near_pi(out, ref, args):
    """Different generators draw different samples: check the estimate, within 6 sigma."""
    n = args[0]
    assert abs(out - math.pi) < 6 * 1.65 / math.sqrt(n), f"{out} is not pi to 6 sigma"


register(Benchmark(
    name="monte_carlo_pi", topic="simulation", pyfunc=monte_carlo_pi,
    make_inputs=lambda n: (n, 42), sizes=Sizes(full=10_000_000, quick=1_000_000, python=100_000),
    label="{n} samples", numpy_ref=_np_monte_carlo_pi, check=_near_pi))

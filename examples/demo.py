"""What kiln is for, in one run: loops and array code that NumPy cannot fuse or vectorize,
each compiled by kiln and timed against the NumPy way of writing it and against plain Python.

Run:  python examples/demo.py

Every row computes the same result three ways and checks they agree before timing:
- kiln: the function compiled with `@njit` (compile time: its first call, on a small input);
- NumPy: the idiomatic whole-array version (temporary arrays, or extra work a loop skips);
- Python: the loop in the interpreter, timed on a slice and scaled to the full size (†).
Times are the best of a few calls, on one core. On a busy machine they move; the ratios
within a row are what to read. docs/performance.md has the careful measurements, against
Numba too.
"""
import math
import time

import numpy as np

from kiln import njit


# ---- 1. A polynomial at many points: kiln runs Horner's rule per point in registers; NumPy's
#         polyval sweeps the whole array once per coefficient, through temporaries. --------

def polynomial(coeffs, x, out):
    for i in range(x.shape[0]):
        result = 0.0
        for c in coeffs:
            result = result * x[i] + c
        out[i] = result
    return out


def polynomial_numpy(coeffs, x, out):
    out[:] = np.polyval(coeffs, x)
    return out


# ---- 2. A stencil: NumPy makes a temporary array for each term. ---------------------------

def smooth(a, out):
    for i in range(1, a.shape[0] - 1):
        out[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]
    return out


def smooth_numpy(a, out):
    out[1:-1] = 0.25 * a[:-2] + 0.5 * a[1:-1] + 0.25 * a[2:]
    return out


# ---- 3. An early exit: NumPy computes every running sum to find the first one over. -------

def first_over(x, limit):
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
        if total > limit:
            return i
    return -1


def first_over_numpy(x, limit):
    over = np.cumsum(x) > limit
    return int(np.argmax(over)) if over.any() else -1


# ---- 4. Branchy inner loops: Mandelbrot escape counts. NumPy iterates every pixel to the end,
#         masking the ones that escaped. ---------------------------------------------------

def mandelbrot(width, height, iterations):
    counts = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.2 + 2.4 * row / height)
            z = 0j
            n = 0
            while n < iterations and z.real * z.real + z.imag * z.imag <= 4.0:
                z = z * z + c
                n += 1
            counts[row, col] = n
    return counts


def mandelbrot_numpy(width, height, iterations):
    cols = -2.0 + 3.0 * np.arange(width) / width
    rows = -1.2 + 2.4 * np.arange(height) / height
    c = cols[None, :] + 1j * rows[:, None]
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    alive = np.ones(c.shape, dtype=bool)
    for _ in range(iterations):
        alive &= z.real * z.real + z.imag * z.imag <= 4.0
        z[alive] = z[alive] * z[alive] + c[alive]
        counts += alive
    return counts


# ---- 5. Whole-array code, compiled as it is: kiln fuses the expression into one loop. -----
#         The NumPy column is the same function run by the interpreter.

def norm_sum(a, b):
    return np.sum(np.sqrt(a * a + b * b))


def norm_sum_python(a, b):
    total = 0.0
    for i in range(len(a)):
        total += math.sqrt(a[i] * a[i] + b[i] * b[i])
    return total


# ---- timing ----------------------------------------------------------------------------------

def best_of(fn, args, repeat=5, budget=0.5):
    """The best time of up to `repeat` calls, stopping once `budget` seconds are spent."""
    best, spent = float("inf"), 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        took = time.perf_counter() - start
        best, spent = min(best, took), spent + took
        if spent > budget:
            break
    return best


def show(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def cases(rng):
    n = 1_000_000
    x = rng.random(n)
    coeffs = rng.random(16) - 0.5
    steps = rng.random(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    out = np.zeros(n)
    out2 = np.zeros(n)
    # name, size, kiln/Python function, NumPy function, full args, small args (compile and
    # the Python run), how the Python time scales from the small args to the full ones
    return [
        ("polynomial of degree 15", "at 1M points", polynomial, polynomial_numpy,
         (coeffs, x, out), (coeffs, x[:20_000], np.zeros(20_000)), 50),
        ("3-point stencil", "1M float64", smooth, smooth_numpy,
         (x, out2), (x[:20_000], np.zeros(20_000)), 50),
        ("first running sum over a limit", "exits at 0.9M of 1M", first_over,
         first_over_numpy, (steps, steps[:900_000].sum()),
         (steps[:20_000], steps[:18_000].sum()), 50),
        ("Mandelbrot escape counts", "300x200, 100 iterations", mandelbrot, mandelbrot_numpy,
         (300, 200, 100), (30, 20, 100), 100),
        ("np.sum(np.sqrt(a*a + b*b))", "1M float64", norm_sum, norm_sum,
         (a, b), (a[:20_000], b[:20_000]), 50, norm_sum_python),
    ]


def agree(x, y):
    return np.allclose(x, y, rtol=1e-9, atol=0) if not isinstance(x, np.ndarray) or \
        x.dtype.kind == "f" else np.array_equal(x, y)


def main():
    rng = np.random.default_rng(0)
    print(f"{'':31s} {'':24s} {'compile':>8s} {'kiln':>9s} {'NumPy':>9s} {'Python †':>9s}"
          f"   kiln's speed-up over")
    for name, size, fn, numpy_fn, args, small, scale, *python_fn in cases(rng):
        python_fn = python_fn[0] if python_fn else fn
        compiled = njit(fn)
        start = time.perf_counter()
        compiled(*small)                      # compiles, and runs on the small input
        compile_time = time.perf_counter() - start

        # The same answer three ways, before any timing.
        expected = numpy_fn(*args)
        assert agree(compiled(*args), expected), f"{name}: kiln and NumPy disagree"
        assert agree(python_fn(*small), compiled(*small)), f"{name}: kiln and Python disagree"

        kiln_time = best_of(compiled, args)
        numpy_time = best_of(numpy_fn, args)
        python_time = best_of(python_fn, small, repeat=1) * scale
        print(f"{name:31s} {size:24s} {show(compile_time):>8s} {show(kiln_time):>9s} "
              f"{show(numpy_time):>9s} {show(python_time):>9s}   "
              f"{numpy_time / kiln_time:4.0f}x NumPy, {python_time / kiln_time:5.0f}x Python")
    print("\n† plain Python, timed on a smaller input and scaled to the full size by the work.")
    print("compile: the first call (kiln compiles then; later calls reuse the machine code).")


if __name__ == "__main__":
    main()

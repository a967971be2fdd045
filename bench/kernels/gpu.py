"""CUDA kernels (SAXPY, shared-memory tiled matmul, `cuda.reduce`, the host's cost of a
launch), in Numba's CUDA dialect.

They run only where a GPU is present (or a CUDA simulator is switched on); elsewhere the
report lists them as "no GPU".
"""
import numpy as np

from bench.registry import Benchmark, Sizes, register, rng

cuda = None  # bound to kiln.cuda or numba.cuda by the harness when it compiles a kernel
TPB = 16     # tile width: threads per block along each axis


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = a * x[i] + y[i]


def _saxpy_inputs(n):
    g = rng()
    x, y = (g.standard_normal(n).astype(np.float32) for _ in range(2))
    return np.float32(2.5), x, y, np.zeros(n, dtype=np.float32)


def _launch_saxpy(cu, kernel, args):
    a, x, y, out = args
    dx, dy, dout = (cu.to_device(v) for v in (x, y, out))
    blocks = (x.shape[0] + 255) // 256

    def run():
        kernel[blocks, 256](a, dx, dy, dout)
        cu.synchronize()
    return run, dout.copy_to_host


register(Benchmark(
    name="saxpy_gpu", topic="gpu", kind="cuda", pyfunc=saxpy, make_inputs=_saxpy_inputs,
    sizes=Sizes(full=50_000_000, quick=1_000_000, python=1_000), label="{n} float32",
    # (atol: a compiler that fuses the multiply-add, as numba-cuda does, rounds once, so a
    # result near 0 may differ from NumPy's by an ulp of a*x)
    numpy_ref=lambda a, x, y, out: a * x + y, rtol=1e-6, atol=1e-6, gpu_launch=_launch_saxpy,
    bytes_touched=lambda args: 3 * args[1].nbytes))


def matmul_tiled(a, b, c):
    """c = a @ b for square matrices whose side is a multiple of TPB."""
    sa = cuda.shared.array((TPB, TPB), np.float32)
    sb = cuda.shared.array((TPB, TPB), np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(cuda.gridDim.x):
        sa[tx, ty] = a[x, ty + t * TPB]
        sb[tx, ty] = b[tx + t * TPB, y]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[tx, k] * sb[k, ty]
        cuda.syncthreads()
    c[x, y] = acc


def _matrices(n):
    g = rng()
    a, b = (g.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    return a, b, np.zeros((n, n), dtype=np.float32)


def _launch_matmul(cu, kernel, args):
    a, b, c = args
    da, db, dc = (cu.to_device(v) for v in (a, b, c))
    blocks = a.shape[0] // TPB

    def run():
        kernel[(blocks, blocks), (TPB, TPB)](da, db, dc)
        cu.synchronize()
    return run, dc.copy_to_host


register(Benchmark(
    name="matmul_tiled_gpu", topic="gpu", kind="cuda", pyfunc=matmul_tiled,
    make_inputs=_matrices, sizes=Sizes(full=4_096, quick=512, python=32),
    label="{n}x{n} float32", numpy_ref=lambda a, b, c: a @ b, rtol=1e-3, atol=1e-3,
    gpu_launch=_launch_matmul))


def add(a, b):
    return a + b


def _reduce_inputs(n):
    return (rng().standard_normal(n).astype(np.float32),)


def _launch_reduce(cu, kernel, args):
    """`cuda.reduce` over a device array: the two-pass tree, the result copied back."""
    (values,) = args
    reducer = cu.reduce(kernel.py_func)
    dvalues = cu.to_device(values)
    total = np.zeros(1, np.float32)

    def run():
        total[0] = reducer(dvalues)   # a host scalar: waits for the device
    return run, lambda: total


register(Benchmark(
    name="reduce_gpu", topic="gpu", kind="cuda", pyfunc=add, make_inputs=_reduce_inputs,
    sizes=Sizes(full=1 << 27, quick=1 << 20, python=1_000), label="{n} float32",
    numpy_ref=lambda values: np.array([values.sum(dtype=np.float64)], np.float32),
    rtol=1e-3, gpu_launch=_launch_reduce, bytes_touched=lambda args: args[0].nbytes))


LAUNCHES = 100   # per timed run of launch_overhead_gpu


def touch(a, x, y, out):
    if cuda.grid(1) == 0:
        out[0] = a + x[0] + y[0]


def _touch_inputs(n):
    x, y = np.ones(n, np.float32), np.full(n, 2.0, np.float32)
    return np.float32(0.5), x, y, np.zeros(1, np.float32)


def _launch_touch(cu, kernel, args):
    """LAUNCHES launches of a one-block kernel taking three device arrays and a scalar,
    then one synchronize: the time is the host's cost of a launch, times LAUNCHES."""
    a, x, y, out = args
    dx, dy, dout = (cu.to_device(v) for v in (x, y, out))

    def run():
        for _ in range(LAUNCHES):
            kernel[1, 32](a, dx, dy, dout)
        cu.synchronize()
    return run, dout.copy_to_host


register(Benchmark(
    name="launch_overhead_gpu", topic="gpu", kind="cuda", pyfunc=touch,
    make_inputs=_touch_inputs, sizes=Sizes(full=1024, quick=1024, python=32),
    label=f"{LAUNCHES} launches", numpy_ref=lambda a, x, y, out: np.array([a + 3.0],
                                                                          np.float32),
    gpu_launch=_launch_touch))

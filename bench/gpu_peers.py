"""kiln.cuda beside the GPU libraries of the same machine, in one process: the issue's speed
targets (docs/gpu.md) as figures, `python bench/gpu_peers.py [--json PATH] [--quick]`.

- the device-to-device copy (kiln, CuPy, PyTorch): the bandwidth floor of the others;
- SAXPY over 2^27 float32 (kiln, CuPy's elementwise kernel, Triton, PyTorch), and kiln's
  with four elements per thread (grid-strided, or consecutive);
- a sum over 2^27 float32 (`cuda.reduce`, its first pass alone, `cupy.sum`, `torch.sum`);
- the 16x16 tiled float32 matmul at n=4096, as the seed has it and with threads along
  rows (kiln; cuBLAS through CuPy for scale);
- the host's cost of a launch with three arrays and a scalar: kiln with its device arrays,
  CuPy arrays and PyTorch tensors, against a CuPy RawKernel of the same kernel;
- each kiln kernel beside the same Python kernel compiled by numba-cuda, where it imports,
  and both PTX of the matmul written beside the JSON.

Each figure is the best of a few timed batches of back-to-back launches closed by one
synchronize, so no library's launch latency hides in a bandwidth. Bandwidth counts bytes
read and written. A library that is not installed, or a section that fails, is reported
and skipped: one failure does not hide the other figures."""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import traceback
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.backends import numba_cuda_on_new_numpy  # noqa: E402
from bench.kernels.gpu import TPB, matmul_tiled, saxpy, touch  # noqa: E402
from kiln import cuda  # noqa: E402

FIGURES: dict = {}


def best_time(run, sync, batch, repeats=5) -> float:
    """Seconds per call of `run`: the best of `repeats` batches of `batch` calls."""
    run()
    sync()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            run()
        sync()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def record(section, name, value, unit):
    FIGURES.setdefault(section, {})[name] = value
    print(f"  {section:>8} {name:<34} {value:12.3f} {unit}", flush=True)


def agreement(section_name, name, got, expected):
    """How many elements differ from NumPy's (a*x + y rounded twice): a compiler that fuses
    the multiply-add into an FMA (numba-cuda, Triton by default) rounds once."""
    differ = int(np.count_nonzero(got != expected))
    FIGURES.setdefault(section_name, {})[f"{name} elements unlike NumPy's"] = differ
    print(f"  {name}: {differ} of {got.size} elements differ from NumPy's", flush=True)


def section(function):
    """Run one section; on failure print the error and carry on."""
    print(f"[{function.__name__}]", flush=True)
    try:
        function()
    except Exception:
        FIGURES.setdefault(function.__name__, {})["error"] = traceback.format_exc(limit=3)
        traceback.print_exc(limit=6)


def optional(name):
    try:
        return __import__(name)
    except Exception as exc:   # not installed, or breaks on this NumPy
        print(f"  {name} unavailable: {type(exc).__name__}: {exc}"[:300], flush=True)
        return None


cupy, torch, triton = optional("cupy"), optional("torch"), optional("triton")
numba_cuda_on_new_numpy()
numba_cuda = getattr(optional("numba.cuda"), "cuda", None)
if numba_cuda is not None and not numba_cuda.is_available():
    print("  numba-cuda imports but finds no GPU", flush=True)
    numba_cuda = None
COMPILERS = {"kiln": cuda} | ({"numba-cuda": numba_cuda} if numba_cuda is not None else {})
N = 1 << 27          # elements of the bandwidth figures
MATMUL_N = 4096
LAUNCHES = 20_000    # per timed batch of the launch figures
A = np.float32(2.5)
OUT_DIR = None       # where the matmul's PTX goes (beside --json)


def compiled(module, func):
    """`func` jitted by `module` (kiln.cuda or numba.cuda), its `cuda` global bound to it."""
    scope = dict(func.__globals__, cuda=module)
    clone = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__)
    clone.__module__, clone.__qualname__ = func.__module__, func.__qualname__
    return module.jit(clone)


def host_data(n):
    g = np.random.default_rng(0)
    return g.standard_normal(n).astype(np.float32), g.standard_normal(n).astype(np.float32)


def copy():
    x, _ = host_data(N)
    gb = 2 * x.nbytes / 1e9
    dx, dy = cuda.to_device(x), cuda.device_array_like(x)
    record("copy", "kiln copy_to_device", gb / best_time(
        lambda: dy.copy_to_device(dx), cuda.synchronize, 20), "GB/s")
    assert (dy.copy_to_host() == x).all()
    if cupy is not None:
        cx, cy = cupy.asarray(x), cupy.empty_like(cupy.asarray(x))
        sync = cupy.cuda.Device().synchronize
        record("copy", "cupy copyto", gb / best_time(lambda: cupy.copyto(cy, cx), sync, 20),
               "GB/s")
    if torch is not None:
        tx = torch.from_numpy(x).cuda()
        ty = torch.empty_like(tx)
        record("copy", "torch copy_", gb / best_time(lambda: ty.copy_(tx),
                                                     torch.cuda.synchronize, 20), "GB/s")


def saxpy_four(a, x, y, out):
    """SAXPY with four elements per thread, strided by the grid: eight loads in flight per
    thread, not two (the loads come first: `out` may alias `x` or `y`)."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i + 3 * stride < x.shape[0]:
        x0, x1, x2, x3 = x[i], x[i + stride], x[i + 2 * stride], x[i + 3 * stride]
        y0, y1, y2, y3 = y[i], y[i + stride], y[i + 2 * stride], y[i + 3 * stride]
        out[i] = a * x0 + y0
        out[i + stride] = a * x1 + y1
        out[i + 2 * stride] = a * x2 + y2
        out[i + 3 * stride] = a * x3 + y3
        i += 4 * stride
    while i < x.shape[0]:
        out[i] = a * x[i] + y[i]
        i += stride


def saxpy_consecutive(a, x, y, out):
    """SAXPY with four consecutive elements per thread (a warp's loads cover 512 bytes)."""
    i = 4 * cuda.grid(1)
    if i + 3 < x.shape[0]:
        x0, x1, x2, x3 = x[i], x[i + 1], x[i + 2], x[i + 3]
        y0, y1, y2, y3 = y[i], y[i + 1], y[i + 2], y[i + 3]
        out[i] = a * x0 + y0
        out[i + 1] = a * x1 + y1
        out[i + 2] = a * x2 + y2
        out[i + 3] = a * x3 + y3
    else:
        while i < x.shape[0]:
            out[i] = a * x[i] + y[i]
            i += 1


def matmul_rows(a, b, c):
    """The seed's tiled matmul with threadIdx.x along a row (the CUDA guide's layout):
    consecutive threads read consecutive floats of A's and B's rows."""
    sa = cuda.shared.array((TPB, TPB), np.float32)
    sb = cuda.shared.array((TPB, TPB), np.float32)
    col, row = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(cuda.gridDim.x):
        sa[ty, tx] = a[row, tx + t * TPB]
        sb[ty, tx] = b[ty + t * TPB, col]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def saxpy_section():
    x, y = host_data(N)
    expected = A * x + y
    gb = 3 * x.nbytes / 1e9
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    dout = cuda.device_array_like(dx)
    blocks = (N + 255) // 256
    for name, module in COMPILERS.items():
        kernel = compiled(module, saxpy)
        mx, my, mout = (dx, dy, dout) if module is cuda else \
            (module.as_cuda_array(dx), module.as_cuda_array(dy), module.as_cuda_array(dout))
        configured = kernel[blocks, 256]
        record("saxpy", name, gb / best_time(lambda: configured(A, mx, my, mout),
                                             module.synchronize, 20), "GB/s")
        agreement("saxpy", name, dout.copy_to_host(), expected)
        print(f"  {name} saxpy registers per thread:", kernel.get_regs_per_thread())
    for name, kernel in (("4 elements per thread", saxpy_four),
                         ("4 consecutive elements per thread", saxpy_consecutive)):
        configured = cuda.jit(kernel)[-(-N // 1024), 256]
        record("saxpy", f"kiln, {name}", gb / best_time(
            lambda: configured(A, dx, dy, dout), cuda.synchronize, 20), "GB/s")
        agreement("saxpy", f"kiln, {name}", dout.copy_to_host(), expected)
    configured = compiled(cuda, saxpy)[blocks, 256]
    if cupy is not None:
        kernel = cupy.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 out",
                                        "out = a * x + y", "kiln_peer_saxpy")
        cx, cy = cupy.asarray(x), cupy.asarray(y)
        cout = cupy.empty_like(cx)
        record("saxpy", "cupy ElementwiseKernel", gb / best_time(
            lambda: kernel(A, cx, cy, cout), cupy.cuda.Device().synchronize, 20), "GB/s")
        # kiln's kernel on CuPy's arrays, read through __cuda_array_interface__
        record("saxpy", "kiln on cupy arrays", gb / best_time(
            lambda: configured(A, cx, cy, cout), cuda.synchronize, 20), "GB/s")
        agreement("saxpy", "kiln on cupy arrays", cupy.asnumpy(cout), expected)
    if torch is not None:
        tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        tout = torch.empty_like(tx)
        record("saxpy", "torch add(alpha=)", gb / best_time(
            lambda: torch.add(ty, tx, alpha=float(A), out=tout), torch.cuda.synchronize, 20),
            "GB/s")
        if triton is not None:
            record("saxpy", "triton", gb / best_time(triton_saxpy(tx, ty, tout),
                                                     torch.cuda.synchronize, 20), "GB/s")
            agreement("saxpy", "triton", tout.cpu().numpy(), expected)


def triton_saxpy(tx, ty, tout):
    import triton.language as tl

    @triton.jit
    def kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, a * x + y, mask=mask)
    grid = (triton.cdiv(N, 1024),)
    return lambda: kernel[grid](tx, ty, tout, float(A), N, BLOCK=1024)


def reduce_section():
    x, _ = host_data(N)
    gb = x.nbytes / 1e9
    expected = x.sum(dtype=np.float64)
    total = cuda.reduce(lambda a, b: a + b)
    dx = cuda.to_device(x)
    record("reduce", "kiln cuda.reduce", gb / best_time(lambda: total(dx), cuda.synchronize,
                                                        5), "GB/s")
    got = float(total(dx))
    print("  kiln sum", got, "float64 sum", expected)
    assert abs(got - expected) <= 1e-4 * np.abs(x).sum(dtype=np.float64), (got, expected)
    # its first pass alone, back to back: the kernel's bandwidth without the host's part
    fold = total._kernels[x.dtype]
    plan = next(iter(total._plans.values()))
    first_pass = fold[plan.blocks, 256]
    record("reduce", f"kiln first pass alone ({plan.blocks} blocks)", gb / best_time(
        lambda: first_pass(dx, plan.partials, N, np.float32(0), True), cuda.synchronize, 20),
        "GB/s")
    if numba_cuda is not None:
        numba_total = numba_cuda.reduce(lambda a, b: a + b)
        nx = numba_cuda.as_cuda_array(dx)
        record("reduce", "numba-cuda cuda.reduce", gb / best_time(
            lambda: numba_total(nx), numba_cuda.synchronize, 5), "GB/s")
    if cupy is not None:
        cx = cupy.asarray(x)
        record("reduce", "cupy.sum", gb / best_time(lambda: float(cupy.sum(cx)),
                                                    cupy.cuda.Device().synchronize, 5), "GB/s")
    if torch is not None:
        tx = torch.from_numpy(x).cuda()
        record("reduce", "torch.sum", gb / best_time(lambda: float(torch.sum(tx)),
                                                     torch.cuda.synchronize, 5), "GB/s")


def matmul_section():
    n = MATMUL_N
    g = np.random.default_rng(1)
    a, b = (g.standard_normal((n, n)).astype(np.float32) for _ in range(2))
    da, db = cuda.to_device(a), cuda.to_device(b)
    dc = cuda.device_array((n, n), np.float32)
    tflops = 2 * n ** 3 / 1e12
    rows = slice(0, min(n, 64))
    for (name, module), (layout, func) in itertools.product(
            COMPILERS.items(), (("", matmul_tiled), (", threads along rows", matmul_rows))):
        kernel = compiled(module, func)
        ma, mb, mc = (da, db, dc) if module is cuda else \
            (module.as_cuda_array(da), module.as_cuda_array(db), module.as_cuda_array(dc))
        configured = kernel[(n // TPB, n // TPB), (TPB, TPB)]
        record("matmul", f"{name} tiled 16x16{layout}", tflops / best_time(
            lambda: configured(ma, mb, mc), module.synchronize, 3, repeats=3), "TFLOP/s")
        np.testing.assert_allclose(dc.copy_to_host()[rows], a[rows].astype(np.float64) @ b,
                                   rtol=1e-3, atol=1e-2)
        compiled_ptx = kernel.inspect_asm()   # per launched signature (none simulated)
        if OUT_DIR is not None and compiled_ptx and not layout:
            (OUT_DIR / f"{name}_matmul.ptx").write_text(next(iter(compiled_ptx.values())))
    if cupy is not None:
        ca, cb = cupy.asarray(a), cupy.asarray(b)
        record("matmul", "cupy matmul (cuBLAS)", tflops / best_time(
            lambda: ca @ cb, cupy.cuda.Device().synchronize, 3, repeats=3), "TFLOP/s")


def launch_section():
    launches = LAUNCHES
    x = np.ones(1024, np.float32)
    dx, dy, dout = cuda.to_device(x), cuda.to_device(x), cuda.device_array(1, np.float32)

    def per_launch(name, launch, sync):
        record("launch", name, 1e6 * best_time(launch, sync, launches, repeats=3), "us")
    for name, module in COMPILERS.items():
        kernel = compiled(module, touch)
        mx, my, mout = (dx, dy, dout) if module is cuda else \
            (module.as_cuda_array(dx), module.as_cuda_array(dy), module.as_cuda_array(dout))
        per_launch(f"{name}, device arrays, kernel[1, 32]",
                   lambda: kernel[1, 32](A, mx, my, mout), module.synchronize)
    touch_kiln = compiled(cuda, touch)
    configured = touch_kiln[1, 32]
    per_launch("kiln, device arrays, configured", lambda: configured(A, dx, dy, dout),
               cuda.synchronize)
    per_launch("kiln, Python float scalar", lambda: configured(2.5, dx, dy, dout),
               cuda.synchronize)
    assert dout.copy_to_host()[0] == 4.5
    if cupy is not None:
        cx, cy, cout = cupy.asarray(x), cupy.asarray(x), cupy.zeros(1, np.float32)
        per_launch("kiln, cupy arrays", lambda: configured(A, cx, cy, cout),
                   cuda.synchronize)
        raw = cupy.RawKernel(r'''extern "C" __global__ void touch(float a, const float *x,
            const float *y, float *out) {
            if (blockIdx.x * blockDim.x + threadIdx.x == 0) out[0] = a + x[0] + y[0]; }''',
                             "touch")
        per_launch("cupy RawKernel, cupy arrays", lambda: raw((1,), (32,), (A, cx, cy, cout)),
                   cupy.cuda.Device().synchronize)
    if torch is not None:
        tx, ty, tout = (torch.ones(1024, device="cuda"), torch.ones(1024, device="cuda"),
                        torch.zeros(1, device="cuda"))
        per_launch("kiln, torch tensors", lambda: configured(A, tx, ty, tout),
                   cuda.synchronize)
        assert float(tout[0]) == 4.5


def main(argv=None):
    global N, MATMUL_N, LAUNCHES, OUT_DIR
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, to check the script (in the simulator too)")
    args = parser.parse_args(argv)
    if args.quick:
        N, MATMUL_N, LAUNCHES = 1 << 10, 32, 20
    OUT_DIR = args.json.parent if args.json else None
    if OUT_DIR is not None:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
    print("kiln.cuda available:", cuda.is_available(), cuda.cuda_error() or "")
    cuda.detect()
    for run in (copy, saxpy_section, reduce_section, matmul_section, launch_section):
        section(run)
    if args.json:
        args.json.write_text(json.dumps(FIGURES, indent=1, default=str))


if __name__ == "__main__":
    main()

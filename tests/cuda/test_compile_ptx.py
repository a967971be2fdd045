"""The compiled back-end's compiler: kernels to PTX through LLVM NVPTX (cuda/ptx.py).

No GPU is needed: every kernel is compiled for sm_70 and sm_90 and assembled by ptxas (from
the nvidia-cuda-nvcc-cu12 wheel), and the PTX is checked for the instructions that matter.
The seeds' kernels also run in the simulator against NumPy, so the Python they are written
in is known to compute the right thing; whether the PTX computes it waits for a GPU."""
import itertools
import linecache
import math
import re
import struct

import numpy as np
import pytest
import test_seeds as seeds
from helpers import slow_except

from kiln import cuda, njit, types
from kiln.cuda import toolkit
from kiln.cuda.abi import Layout, parameter_types
from kiln.errors import TypingError, UnsupportedError

CCS = [(7, 0), (9, 0)]
needs_ptxas = pytest.mark.skipif(toolkit.ptxas_path() is None,
                                 reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")
needs_libdevice = pytest.mark.skipif(toolkit.libdevice_path() is None,
                                     reason=f"libdevice not installed: {toolkit.INSTALL_HINT}")
simulated = pytest.mark.cuda   # runs the kernel in the simulator (tests/cuda/conftest.py)


def ptx_for(kernel, sig, cc=(9, 0), **options):
    """The PTX of `kernel`, assembled by ptxas for `cc` (when ptxas is installed)."""
    ptx, return_type = cuda.compile_ptx(kernel, sig, cc=cc, **options)
    if toolkit.ptxas_path() is not None:
        toolkit.check_ptx(ptx, cc)
    return ptx


_sources = itertools.count()


def kernel_from_source(text):
    """The function `kernel` defined by `text`, whose source kiln can read (linecache)."""
    filename = f"<compile_ptx test {next(_sources)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"cuda": cuda, "math": math}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["kernel"]


def generic_data_accesses(ptx):
    """Loads and stores not qualified by a state space (parameters aside)."""
    return re.findall(r"^\s*(?:ld|st)\.(?!global|shared|local|param|const)\S+", ptx, re.M)


# -- the seeds -------------------------------------------------------------------------------
@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_vector_add_ptx(cc):
    ptx = ptx_for(vector_add, "void(float32[:], float32[:], float32[:])", cc)
    assert f".target sm_{cc[0]}{cc[1]}" in ptx
    assert ".visible .entry vector_add(" in ptx
    for register in ("%tid.x", "%ctaid.x", "%ntid.x"):
        assert register in ptx
    assert ptx.count("ld.global.") == 2 and ptx.count("st.global.") == 1
    assert "add.rn.f32" in ptx
    assert not generic_data_accesses(ptx)
    assert ".local" not in ptx   # nothing spilled


@simulated
@pytest.mark.parametrize("n", [1, 33, 1000])
def test_vector_add_computes_numpy(n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a[0], b[-1] = np.inf, np.nan
    c = np.zeros(n, np.float32)
    vector_add[(n + 31) // 32, 32](a, b, c)
    np.testing.assert_array_equal(c, a + b)


@cuda.jit
def block_sum(a, out):
    s = cuda.shared.array(128, types.float32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    s[tid] = a[i] if i < a.size else 0
    cuda.syncthreads()
    step = 64
    while step > 0:
        if tid < step:
            s[tid] += s[tid + step]
        cuda.syncthreads()
        step //= 2
    if tid == 0:
        cuda.atomic.add(out, 0, s[0])


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_shared_memory_reduction_ptx(cc):
    ptx = ptx_for(block_sum, "void(float32[:], float32[:])", cc)
    assert re.search(r"\.shared \.align 16 \.b8 kiln_shared_0\[512\]", ptx)
    assert "bar.sync" in ptx
    assert "st.shared.b32" in ptx and "ld.shared.b32" in ptx
    assert "atom.global.add.f32" in ptx


@simulated
@pytest.mark.parametrize("n", [1, 128, 300])
def test_shared_memory_reduction_computes_numpy(n):
    a = np.arange(n, dtype=np.float32) - n / 2
    out = np.zeros(1, np.float32)
    block_sum[(n + 127) // 128, 128](a, out)
    assert out[0] == np.sum(a, dtype=np.float64)


@cuda.jit
def stencil(u, v):
    i, j = cuda.grid(2)
    if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])


@cuda.jit
def int64_prefix(a, out):
    i = cuda.grid(1)
    if 0 < i < a.shape[0]:
        out[i] = a[i] - a[i - 1]


@needs_ptxas
def test_int64_accesses_are_64_bit():
    """The PTX module's data layout is in force when the IR is parsed: LLVM's default one
    aligns i64 to 4 bytes, which split each int64 load and store in two."""
    ptx = ptx_for(int64_prefix, "void(int64[:], int64[:])")
    assert ptx.count("ld.global.b64") == 2 and "st.global.b64" in ptx
    assert not re.search(r"(ld|st)\.global\.b32", ptx)


@cuda.jit
def lanes(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = cuda.laneid * 100 + cuda.warpsize


@needs_ptxas
def test_laneid_is_the_special_register():
    ptx = ptx_for(lanes, "void(int32[:])")
    assert "%laneid" in ptx


@simulated
def test_laneid_computes_the_lane():
    out = np.zeros(70, np.int32)
    lanes[1, 70](out)
    np.testing.assert_array_equal(out, np.arange(70) % 32 * 100 + 32)


def test_laneid_outside_a_kernel():
    @njit
    def on_the_cpu():
        return cuda.laneid

    with pytest.raises(TypingError, match="kiln.cuda.laneid has no meaning"):
        on_the_cpu()


@cuda.jit
def half_math(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        x, y = a[i], b[i]
        out[i, 0] = cuda.fp16.hadd(x, y)
        out[i, 1] = cuda.fp16.hsub(x, y)
        out[i, 2] = cuda.fp16.hmul(x, y)
        out[i, 3] = cuda.fp16.hdiv(x, y)
        out[i, 4] = cuda.fp16.hfma(x, y, x)
        out[i, 5] = cuda.fp16.hneg(x)
        out[i, 6] = cuda.fp16.habs(x)
        out[i, 7] = cuda.fp16.hmax(x, y)
        out[i, 8] = cuda.fp16.hmin(x, y)
        out[i, 9] = cuda.fp16.hsqrt(y)
        out[i, 10] = cuda.fp16.hexp(x)
        out[i, 11] = cuda.fp16.hlog(y)
        out[i, 12] = cuda.fp16.hsin(x)
        out[i, 13] = cuda.fp16.hexp10(x)
        out[i, 14] = cuda.fp16.hrcp(y)
        out[i, 15] = cuda.fp16.hfloor(x)
        out[i, 16] = cuda.fp16.hlt(x, y)
        out[i, 17] = cuda.fp16.hne(x, y)
        out[i, 18] = x * y + x          # float16 arithmetic, one rounding per operation


def half_math_by_numpy(a, b):
    h, f = np.float16, np.float32
    with np.errstate(all="ignore"):
        return np.stack([
            a + b, a - b, a * b, (a.astype(f) / b).astype(h),
            (a.astype(np.float64) * b + a).astype(h), -a, np.abs(a), np.fmax(a, b),
            np.fmin(a, b), np.sqrt(b.astype(f)).astype(h), np.exp(a.astype(f)).astype(h),
            np.log(b.astype(f)).astype(h), np.sin(a.astype(f)).astype(h),
            (f(10) ** a.astype(f)).astype(h), (1 / b.astype(f)).astype(h),
            np.floor(a), (a < b).astype(h), ((a != b) & (a == a) & (b == b)).astype(h),
            a * b + a], axis=1)


@simulated
def test_fp16_functions_compute_numpy():
    a = np.array([1.5, -2.0, np.nan, 0.0, 65504, -0.1], np.float16)
    b = np.array([0.25, 4.0, 1.0, 0.0, 2.0, np.nan], np.float16)
    out = np.zeros((len(a), 19), np.float16)
    half_math[1, 8](a, b, out)
    np.testing.assert_array_equal(out, half_math_by_numpy(a, b))


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("cc", CCS)
def test_fp16_ptx(cc):
    ptx = ptx_for(half_math, "void(float16[:], float16[:], float16[:, :])", cc)
    native = ("abs.f16", "max.f16", "min.f16") if cc >= (8, 0) else ()   # sm_70: in f32
    for instruction in ("add.rn.f16", "sub.rn.f16", "mul.rn.f16", "fma.rn.f16", "neg.f16",
                        "setp.lt.f16", "setp.ne.f16", "sqrt.rn.f32", "cvt.rn.f16.f32",
                        "cvt.f32.f16", "cvt.rmi.f32.f32") + native:
        assert instruction in ptx, instruction
    assert not generic_data_accesses(ptx)


WEIGHTS = np.linspace(-1, 1, 9, dtype=np.float32)
TABLE = np.arange(20000, dtype=np.float64).reshape(100, 200)[:, ::2]   # 80 KB, strided


@cuda.jit
def weighted(x, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        w = cuda.const.array_like(WEIGHTS)
        out[i] = w[i % 9] * x[i] + WEIGHTS[0]


@cuda.jit
def from_table(out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = TABLE[i % 100, i % 100]


@needs_ptxas
def test_global_arrays_are_copied_into_the_module():
    """The GPU cannot read host memory: a global array's bytes go into the PTX, in
    constant memory while they fit its 64 KiB, else in global memory."""
    ptx = ptx_for(weighted, "void(float32[:], float32[:])")
    assert ptx.count(".const .align 16 .b8") == 1 and "ld.const.b32" in ptx
    assert f"{WEIGHTS.view(np.uint8)[4]}, {WEIGHTS.view(np.uint8)[5]}" in ptx
    big = ptx_for(from_table, "void(float64[:])")
    assert ".global .align 16 .b8" in big and "[80000]" in big and "ld.global" in big


@simulated
def test_global_arrays_compute_numpy():
    x = np.arange(20, dtype=np.float32)
    out = np.zeros(20, np.float32)
    weighted[1, 32](x, out)
    np.testing.assert_array_equal(out, WEIGHTS[np.arange(20) % 9] * x + WEIGHTS[0])
    t = np.zeros(150)
    from_table[1, 150](t)
    np.testing.assert_array_equal(t, TABLE[np.arange(150) % 100, np.arange(150) % 100])


def test_global_arrays_are_read_only_in_kernels():
    @cuda.jit
    def writes_a_global(out):
        WEIGHTS[0] = 1.0

    with pytest.raises(TypingError, match="read-only"):
        cuda.compile_ptx(writes_a_global, "void(float32[:])")

    @cuda.jit
    def const_of_an_argument(a):
        c = cuda.const.array_like(a)
        a[0] = c[1]

    with pytest.raises(TypingError, match="takes a global array"):
        cuda.compile_ptx(const_of_an_argument, "void(float32[:])")


PARTICLE = np.dtype([("x", np.float32), ("v", np.float32), ("hits", np.int32),
                     ("id", np.int64)], align=True)


@cuda.jit
def move_particles(particles, dt, wall):
    i = cuda.grid(1)
    if i < particles.shape[0]:
        p = particles[i]
        p.x += p.v * dt
        if p.x > wall:
            p.x = 2 * wall - p.x
            p["v"] = -p.v
            p.hits += 1


def moved_by_numpy(particles, dt, wall):
    out = particles.copy()
    out["x"] += out["v"] * dt
    over = out["x"] > wall
    out["x"][over] = 2 * wall - out["x"][over]
    out["v"][over] = -out["v"][over]
    out["hits"][over] += 1
    return out


@simulated
@pytest.mark.parametrize("n", [0, 1, 100])
def test_record_kernel_computes_numpy(n):
    rng = np.random.default_rng(n)
    particles = np.zeros(n, PARTICLE)
    particles["x"] = rng.random(n, dtype=np.float32)
    particles["v"] = rng.standard_normal(n).astype(np.float32)
    particles["id"] = np.arange(n)
    expected = moved_by_numpy(particles, np.float32(0.5), np.float32(0.75))
    d = cuda.to_device(particles)
    move_particles[max(1, -(-n // 32)), 32](d, np.float32(0.5), np.float32(0.75))
    got = d.copy_to_host()
    np.testing.assert_allclose(got["x"], expected["x"], rtol=1e-6)
    np.testing.assert_array_equal(got[["v", "hits", "id"]], expected[["v", "hits", "id"]])


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_record_kernel_ptx(cc):
    record = types.from_dtype(PARTICLE)
    ptx = ptx_for(move_particles, (record[::1], types.float32, types.float32), cc)
    # fields at their offsets from the record, with their own widths
    assert re.search(r"ld\.global\.b32\s+%r\w+, \[%rd\d+\+4\]", ptx)    # v
    assert re.search(r"st\.global\.b32\s+\[%rd\d+\+8\]", ptx)            # hits
    assert "+16]" not in ptx                                                 # id: untouched
    assert not generic_data_accesses(ptx)


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_stencil_ptx(cc):
    ptx = ptx_for(stencil, "void(float64[:, :], float64[:, :])", cc)
    for register in ("%tid.x", "%tid.y", "%ctaid.y", "%ntid.y"):
        assert register in ptx
    assert ptx.count("ld.global.b64") >= 4 and "st.global.b64" in ptx
    assert not generic_data_accesses(ptx)


@simulated
def test_stencil_computes_numpy():
    u = np.random.default_rng(0).standard_normal((9, 7))
    v = np.zeros_like(u)
    stencil[(2, 1), (8, 8)](u, v)
    expected = np.zeros_like(u)
    expected[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    np.testing.assert_array_equal(v, expected)


@cuda.jit
def histogram(x, bins):
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.size:
        cuda.atomic.add(bins, x[i] % bins.size, 1)
        i += stride


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_histogram_ptx(cc):
    ptx = ptx_for(histogram, "void(int64[:], int32[:])", cc)
    assert "%nctaid.x" in ptx
    assert re.search(r"atom\.global\.add\.[us]32", ptx)


@simulated
def test_histogram_computes_numpy():
    x = np.array([-7, -1, 0, 1, 2, 3, 9, 10, 10, 2**40], dtype=np.int64)
    bins = np.zeros(4, np.int32)
    histogram[2, 4](x, bins)
    np.testing.assert_array_equal(bins, np.bincount(x % 4, minlength=4))


SEEDS = [(seeds.increment_by_one, "void(float64[:])"), (seeds.double_2d, "void(float32[:, :])"),
         (seeds.polar_kernel, "void(float64[:], float64[:], float64[:], float64[:])"),
         (seeds.saxpy, "void(float32, float32[:], float32[:], float32[:])"),
         (seeds.matmul_tiled, "void(float32[:, :], float32[:, :], float32[:, :])"),
         (seeds.bubblesort, "void(int64[:])"),
         (seeds.sum_with_atomics, "void(int64[:], int64[:])"),
         (seeds.block_sum_then_atomic, "void(int64[:], int64[:])")]


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("kernel, sig", SEEDS, ids=[k.__name__ for k, _ in SEEDS])
def test_seed_kernels_assemble(kernel, sig, cc):
    """Every kernel of test_seeds.py (which runs them in the simulator against NumPy)."""
    ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc)
    report = toolkit.check_ptx(ptx, cc)
    assert "0 bytes spill stores" in report
    assert not generic_data_accesses(ptx)


@needs_ptxas
def test_tiled_matmul_uses_two_shared_tiles():
    ptx = ptx_for(seeds.matmul_tiled, "void(float32[:, :], float32[:, :], float32[:, :])")
    assert len(re.findall(r"\.shared \.align 16 \.b8 kiln_shared_\d\[1024\]", ptx)) == 2
    assert ptx.count("bar.sync") == 2


@njit
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def calls_njit(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = clamp(x[i], -1.0, 1.0)


@needs_ptxas
def test_kernel_calls_an_njit_function():
    ptx = ptx_for(calls_njit, "void(float64[:])")
    assert ".extern" not in ptx and "ld.global.b64" in ptx


# -- every intrinsic -------------------------------------------------------------------------
def geometry(out):
    out[0] = cuda.threadIdx.x + cuda.threadIdx.y + cuda.threadIdx.z
    out[1] = cuda.blockIdx.x + cuda.blockIdx.y + cuda.blockIdx.z
    out[2] = cuda.blockDim.x + cuda.blockDim.y + cuda.blockDim.z
    out[3] = cuda.gridDim.x + cuda.gridDim.y + cuda.gridDim.z
    x, y, z = cuda.grid(3)
    p, q = cuda.gridsize(2)
    out[4] = x + y + z + p + q + cuda.grid(1) + cuda.gridsize(1)
    a, b = cuda.grid(2)
    r, s, t = cuda.gridsize(3)
    out[5] = a + b + r + s + t


@needs_ptxas
def test_thread_geometry():
    ptx = ptx_for(geometry, "void(int64[:])")
    for register in ("tid", "ctaid", "ntid", "nctaid"):
        for axis in "xyz":
            assert f"%{register}.{axis}" in ptx


def barriers(out, flag):
    cuda.syncthreads()
    cuda.threadfence()
    cuda.threadfence_block()
    cuda.threadfence_system()
    out[0] = cuda.syncthreads_count(flag[0] > 0)
    out[1] = cuda.syncthreads_and(cuda.threadIdx.x)
    out[2] = cuda.syncthreads_or(flag[1])


@needs_ptxas
def test_barriers_and_fences():
    ptx = ptx_for(barriers, "void(int32[:], float64[:])")
    for instruction in ("bar.sync", "membar.gl", "membar.cta", "membar.sys",
                        "bar.red.popc.u32", "bar.red.and.pred", "bar.red.or.pred"):
        assert instruction in ptx


def arrays(out):
    tile = cuda.shared.array((16, 8), np.float64)
    counts = cuda.shared.array(shape=32, dtype=types.int16)
    scratch = cuda.local.array(4, types.int32)
    i = cuda.threadIdx.x
    scratch[i % 4] = i
    tile[i % 16, i % 8] = scratch[i % 4]
    counts[i % 32] = 1
    cuda.syncthreads()
    out[i] = tile[i % 16, 7 - i % 8] + counts[31 - i % 32] + tile.shape[0] * tile.shape[1]


@needs_ptxas
def test_static_shared_and_local_arrays():
    ptx = ptx_for(arrays, "void(float64[:])")
    assert re.search(r"\.shared \.align 16 \.b8 kiln_shared_0\[1024\]", ptx)   # 16*8 doubles
    assert re.search(r"\.shared \.align 16 \.b8 kiln_shared_1\[64\]", ptx)     # 32 int16
    assert "st.shared.b64" in ptx and "st.shared.b16" in ptx


def aligned(out):
    wide = cuda.shared.array(8, np.float32, alignment=64)
    scratch = cuda.local.array((2, 2), types.int8, 8)
    i = cuda.threadIdx.x
    scratch[i % 2, 0] = i
    wide[i % 8] = scratch[i % 2, 0]
    out[i] = wide[7 - i % 8]


@needs_ptxas
def test_array_alignment():
    assert re.search(r"\.shared \.align 64 \.b8 kiln_shared_0\[32\]", ptx_for(aligned,
                                                                           "void(float32[:])"))


def dynamic(out):
    buffer = cuda.shared.array(0, np.float32)
    buffer[cuda.threadIdx.x] = cuda.threadIdx.x
    cuda.syncthreads()
    out[0] = buffer.size


@needs_ptxas
def test_dynamic_shared_array():
    ptx = ptx_for(dynamic, "void(int64[:])")
    assert ".extern .shared .align 16 .b8 kiln_dynamic_shared[]" in ptx
    assert "%dynamic_smem_size" in ptx


ATOMICS = [  # (function, dtype, what the PTX must contain)
    ("add", "int32", r"atom\.global\.add\.[us]32"), ("add", "uint64", r"atom\.global\.add\.u64"),
    ("add", "float32", r"atom\.global\.add\.f32"), ("add", "float64", r"atom\.global\.add\.f64"),
    ("sub", "int32", r"atom\.global\.add\.[us]32"), ("sub", "float32", r"atom\.global\.add\.f32"),
    ("and_", "int32", r"atom\.global\.and\.b32"), ("or_", "uint32", r"atom\.global\.or\.b32"),
    ("xor", "int64", r"atom\.global\.xor\.b64"),
    ("max", "int32", r"atom\.global\.max\.s32"), ("max", "uint32", r"atom\.global\.max\.u32"),
    ("min", "int64", r"atom\.global\.min\.s64"), ("min", "uint64", r"atom\.global\.min\.u64"),
    ("max", "float64", r"atom\.[\w.]*cas\.b64"), ("min", "float32", r"atom\.[\w.]*cas\.b32"),
    ("nanmax", "float32", r"atom\.[\w.]*cas\.b32"), ("nanmin", "float64", r"atom\.[\w.]*cas\.b64"),
    ("exch", "int32", r"atom\.global\.exch\.b32"), ("exch", "float64", r"atom\.global\.exch\.b64"),
    ("inc", "uint32", r"atom\.global\.inc\.u32"), ("dec", "uint32", r"atom\.global\.dec\.u32"),
]


@needs_ptxas
@pytest.mark.parametrize("op, dtype, expected", ATOMICS)
def test_atomic(op, dtype, expected):
    kernel = kernel_from_source(
        f"def kernel(a, v, old):\n    old[0] = cuda.atomic.{op}(a, cuda.threadIdx.x, v)\n")
    ptx = ptx_for(kernel, f"void({dtype}[:], {dtype}, {dtype}[:])")
    assert re.search(expected, ptx), expected


def cas_kernels(a, f, m):
    a[1] = cuda.atomic.cas(a, 0, 1, 2)
    f[1] = cuda.atomic.cas(f, -1, 1.5, 2.5)
    a[2] = cuda.atomic.compare_and_swap(a, 3, 4)
    cuda.atomic.add(m, (1, -1), 1.0)
    cuda.atomic.add(a, (0,), 1)


@needs_ptxas
def test_compare_and_swap_and_tuple_indices():
    ptx = ptx_for(cas_kernels, "void(int32[:], float32[:], float64[:, :])")
    assert len(re.findall(r"atom\.[\w.]*global[\w.]*cas\.b32", ptx)) == 3
    assert "atom.global.add.f64" in ptx and re.search(r"atom\.global\.add\.[us]32", ptx)


def shared_atomic(out):
    counts = cuda.shared.array(4, types.uint32)
    cuda.atomic.add(counts, cuda.threadIdx.x % 4, 1)
    cuda.syncthreads()
    out[cuda.threadIdx.x] = counts[cuda.threadIdx.x % 4]


@needs_ptxas
def test_atomic_on_shared_memory():
    assert "atom.shared.add.u32" in ptx_for(shared_atomic, "void(uint32[:])")


@cuda.jit
def warp_sums(x, out):
    """Each warp adds its 32 values with shuffles; lane 0 writes the sum."""
    i = cuda.grid(1)
    value = x[i] if i < x.size else 0.0
    offset = 16
    while offset > 0:
        value += cuda.shfl_down_sync(0xFFFFFFFF, value, offset)
        offset //= 2
    if cuda.threadIdx.x % 32 == 0 and i < x.size:
        out[i // 32] = value


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_warp_shuffle_reduction_ptx(cc):
    ptx = ptx_for(warp_sums, "void(float64[:], float64[:])", cc)
    # the loop unrolled: 5 steps, each moving a float64 as two 32-bit words
    offsets = re.findall(r"shfl\.sync\.down\.b32\s+%r\d+, %r\d+, (\d+), 31, -1;", ptx)
    assert offsets == ["16", "16", "8", "8", "4", "4", "2", "2", "1", "1"]
    assert "bar.sync" not in ptx


@simulated
def test_warp_shuffle_reduction_computes_numpy():
    x = np.linspace(-3.0, 5.0, 70)
    out = np.zeros(3)
    warp_sums[1, 96](x, out)
    padded = np.concatenate([x, np.zeros(26)]).reshape(3, 32)
    np.testing.assert_allclose(out, padded.sum(axis=1), rtol=1e-15)


def warp_votes(x, f, out):
    i = cuda.threadIdx.x
    active = cuda.activemask()
    out[0] = cuda.ballot_sync(active, x[i] > 0) + cuda.all_sync(active, x[i])
    out[1] = cuda.any_sync(0xFFFFFFFF, f[i]) + cuda.eq_sync(active, f[i] > 1.0)
    out[2] = cuda.shfl_sync(active, x[i], 0) + cuda.shfl_up_sync(active, x[i], 1)
    out[3] = cuda.shfl_xor_sync(active, f[i], 1) + cuda.lanemask_lt()
    cuda.syncwarp()
    cuda.syncwarp(active)


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_warp_votes_and_shuffles(cc):
    ptx = ptx_for(warp_votes, "void(int32[:], float32[:], float32[:])", cc)
    for instruction in ("activemask.b32", "vote.sync.ballot.b32", "vote.sync.all.pred",
                        "vote.sync.any.pred", "vote.sync.uni.pred", "shfl.sync.idx.b32",
                        "shfl.sync.up.b32", "shfl.sync.bfly.b32", "%lanemask_lt",
                        "bar.warp.sync \t-1", "bar.warp.sync \t%r"):
        assert instruction in ptx, instruction


@cuda.jit
def warp_matches(keys, any_out, all_out, agree_out):
    i = cuda.threadIdx.x
    any_out[i] = cuda.match_any_sync(0xFFFFFFFF, keys[i])
    lanes, agree = cuda.match_all_sync(0xFFFFFFFF, keys[i])
    all_out[i] = lanes
    agree_out[i] = agree


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_warp_matches_ptx(cc):
    ptx = ptx_for(warp_matches, "void(float64[:], uint32[:], uint32[:], boolean[:])", cc)
    assert "match.any.sync.b64" in ptx and "match.all.sync.b64" in ptx


@simulated
@pytest.mark.parametrize("keys", [np.arange(32.0) % 3, np.full(32, -0.5)])
def test_warp_matches_compute_what_python_says(keys):
    any_out, all_out = np.zeros(32, np.uint32), np.zeros(32, np.uint32)
    agree_out = np.zeros(32, np.bool_)
    warp_matches[1, 32](keys, any_out, all_out, agree_out)
    same = [sum(1 << j for j in range(32) if keys[j] == keys[i]) for i in range(32)]
    np.testing.assert_array_equal(any_out, same)
    everyone = bool(np.all(keys == keys[0]))
    np.testing.assert_array_equal(all_out, np.full(32, 0xFFFFFFFF if everyone else 0))
    np.testing.assert_array_equal(agree_out, np.full(32, everyone))


# -- math --------------------------------------------------------------------------------------
MATH = ["sqrt", "exp", "log", "log10", "log2", "sin", "cos", "tan", "asin", "acos", "atan",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "expm1", "log1p", "erf", "erfc",
        "lgamma", "gamma", "cbrt", "exp2", "fabs", "floor", "ceil", "trunc"]


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("dtype", slow_except(["float64", "float32"], "float64"))   # float32: long run
@pytest.mark.parametrize("name", slow_except(MATH, "sqrt", "exp", "sin", "atanh", "lgamma",
                                             "floor"))   # the others: the long run
def test_math_function(name, dtype):
    kernel = kernel_from_source(f"def kernel(x, y):\n    i = cuda.grid(1)\n"
                                f"    if i < x.size:\n        y[i] = math.{name}(x[i])\n")
    ptx = ptx_for(kernel, f"void({dtype}[:], {dtype}[:])")
    assert ".extern" not in ptx   # libdevice linked in, nothing left to resolve
    if name == "sqrt":
        assert f"sqrt.rn.f{dtype[-2:]}" in ptx


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("name", ["atan2", "hypot", "pow", "copysign", "fmod"])
def test_math_two_arguments(name):
    kernel = kernel_from_source(f"def kernel(x, y):\n    y[0] = math.{name}(x[0], x[1])\n")
    for dtype in ("float32", "float64"):
        assert ".extern" not in ptx_for(kernel, f"void({dtype}[:], {dtype}[:])")


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@needs_ptxas
def test_fastmath_contracts_to_fma():
    sig = "void(float32, float32[:], float32[:], float32[:])"
    exact = ptx_for(saxpy, sig)
    assert "fma" not in exact and "mul.rn.f32" in exact and "add.rn.f32" in exact
    assert "fma.rn.f32" in ptx_for(saxpy, sig, fastmath=True)
    assert ".local" not in exact


# -- device functions, arguments, versions -------------------------------------------------------
@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    return rho * math.cos(theta), rho * math.sin(theta)


@cuda.jit("float64(float64)", device=True)
def twice(x):
    return 2 * x


@cuda.jit
def polar(rho, theta, x, y):
    i = cuda.grid(1)
    if i < x.size:
        x[i], y[i] = polar_to_cartesian(rho[i], theta[i])
        y[i] += twice(1)


@needs_ptxas
@needs_libdevice
def test_kernel_calls_device_functions():
    ptx = ptx_for(polar, "void(float32[:], float32[:], float32[:], float32[:])")
    assert ".entry polar(" in ptx and ".extern" not in ptx


@simulated
def test_kernel_with_device_functions_computes_numpy():
    rho, theta = np.array([1.0, 2.0, 0.0]), np.array([0.0, math.pi / 3, -1.0])
    x, y = np.zeros(3), np.zeros(3)
    polar[1, 4](rho, theta, x, y)
    np.testing.assert_allclose(x, rho * np.cos(theta))
    np.testing.assert_allclose(y, rho * np.sin(theta) + 2)


@cuda.jit(device=True)
def row_of(a, i):
    return a[i]


@cuda.jit
def sum_rows_through_a_device_function(a, out):
    i = cuda.grid(1)
    if i < out.size:
        r = row_of(a, i)
        out[i] = r[0] + r[r.size - 1]


@simulated
def test_a_device_function_returns_a_view():
    """An array a device function returns is a view of its argument, not an allocation
    (once refused as one: calls through resolve_dispatcher took the CPU's ownership)."""
    a = np.arange(12.0).reshape(4, 3)
    out = np.zeros(4)
    sum_rows_through_a_device_function[1, 8](a, out)
    np.testing.assert_array_equal(out, a[:, 0] + a[:, -1])
    ptx = ptx_for(sum_rows_through_a_device_function, "void(float64[:, ::1], float64[::1])")
    assert "ld.global" in ptx and "kiln_nrt" not in ptx


def device_madd(x, y):
    return x * y + 1.0


@needs_ptxas
def test_device_function_ptx():
    ptx, return_type = cuda.compile_ptx(device_madd, "float64(float64, float64)", device=True)
    assert return_type == types.float64
    assert ".visible .func  (.param .b32 func_retval0) device_madd(" in ptx
    toolkit.check_ptx(ptx, (9, 0))


def flags(flag, pair, out):
    if flag:
        out[0] = pair[0] + pair[1]


@needs_ptxas
def test_kernel_parameters():
    sig = types.void(types.boolean, types.UniTuple(types.int32, 2), types.float32[:, ::1])
    ptx = ptx_for(flags, sig)
    params = re.findall(r"\.param (\.\S+)(?: \.ptr)?(?: \.global)?(?: \.align \d+)? flags_param_",
                        ptx)
    # bool as a byte, the tuple's two items, the array's 5 fields + 2 shape + 2 strides
    assert params == [".u8", ".u32", ".u32"] + [".u64"] * 9
    assert len(parameter_types(types.float64[:, :, :])) == 11


def complex_sum(z, out):
    out[0] = z.real + z.imag


@needs_ptxas
def test_complex_parameter_is_one_aggregate():
    ptx = ptx_for(complex_sum, types.void(types.complex128, types.float64[:]))
    assert ".param .align 8 .b8 complex_sum_param_0[16]" in ptx


@cuda.jit(["void(float32, float32[:], float32[:], float32[:])",
           "void(float64, float64[:], float64[:], float64[:])"], fastmath=True)
def saxpy_kernel(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@simulated
def test_inspect_llvm_and_asm_per_signature():
    llvm = saxpy_kernel.inspect_llvm()
    assert set(llvm) == {(types.float32, types.float32[:], types.float32[:], types.float32[:]),
                         (types.float64, types.float64[:], types.float64[:], types.float64[:])}
    assert all('!"kernel"' in text and re.search(r'define void @"?saxpy_kernel"?\(', text)
               for text in llvm.values())
    asm = saxpy_kernel.inspect_asm()
    cc = cuda.get_current_device().compute_capability
    assert all(f".target sm_{cc[0]}{cc[1]}" in ptx for ptx in asm.values())
    one = saxpy_kernel.inspect_asm("void(float64, float64[:], float64[:], float64[:])", cc=(7, 0))
    assert "fma.rn.f64" in one and ".target sm_70" in one   # the kernel's fastmath=True


def test_inspect_types_per_signature():
    import io
    out = io.StringIO()
    saxpy_kernel.inspect_types(file=out)
    text = out.getvalue()
    assert text.count("saxpy_kernel (a: float32, x: array(float32, 1d, A)") == 1
    assert text.count("saxpy_kernel (a: float64, x: array(float64, 1d, A)") == 1
    assert "i = cuda.grid(1)    # i = int64" in text
    out = io.StringIO()
    saxpy_kernel.inspect_types("void(float32, float32[:], float32[:], float32[:])", file=out)
    assert "float64" not in out.getvalue()


def test_ptx_version_follows_compute_capability():
    assert re.search(r"\.version 6\.3\s+\.target sm_70", cuda.compile_ptx(saxpy, "void(float32, "
                     "float32[:], float32[:], float32[:])", cc=(7, 0))[0])
    ptx, return_type = cuda.compile_ptx(vector_add, "void(int64[:], int64[:], int64[:])")
    assert re.search(r"\.version 7\.8\s+\.target sm_90", ptx) and return_type == types.none
    with pytest.raises(ValueError, match=r"compute capability \(1, 0\) is not supported"):
        cuda.compile_ptx(vector_add, "void(int64[:], int64[:], int64[:])", cc=(1, 0))


@simulated
def test_compile_for_current_device():
    ptx, _ = cuda.compile_ptx_for_current_device(vector_add, "void(f4[:], f4[:], f4[:])")
    cc = cuda.get_current_device().compute_capability
    assert f".target sm_{cc[0]}{cc[1]}" in ptx


def raises(x):
    if x[0] < 0:
        raise ValueError("negative")
    x[0] = x[0] // x[1]


@needs_ptxas
def test_exceptions_end_the_thread():
    ptx = ptx_for(raises, "void(int64[:])")
    assert "PyExc" not in ptx and ".extern" not in ptx and "ValueError" not in ptx


# -- errors ---------------------------------------------------------------------------------
def allocates(x):
    y = np.zeros(3)
    x[0] = y[0]


def array_arithmetic(x):
    y = x + 1
    x[0] = y[0]


def returns(x):
    return x[0]


def runtime_grid(x, n):
    x[0] = cuda.grid(n)


def runtime_shape(x, n):
    s = cuda.shared.array(n, types.float32)
    x[0] = s[0]


def four_axes(x):
    x[0] = cuda.grid(4)


def empty_local(x):
    s = cuda.local.array(0, types.float32)
    x[0] = s[0]


def odd_alignment(x):
    s = cuda.shared.array(4, types.float32, alignment=3)
    x[0] = s[0]


def byte_atomic(x):
    cuda.atomic.add(x, 0, 1)


def calls_print(x):
    print(x[0])


@pytest.mark.parametrize("kernel, sig, error, message, line", [
    (allocates, "void(float64[:])", UnsupportedError, r"cannot allocate memory \(np\.zeros",
     "y = np.zeros(3)"),
    (array_arithmetic, "void(float64[:])", UnsupportedError, r"cannot allocate memory \(x \+ 1",
     "y = x + 1"),
    (returns, "void(float64[:])", TypingError, r"kernel 'returns' returns a value", None),
    (returns, "float64(float64[:])", TypingError, r"kernel 'returns' returns a value", None),
    (runtime_grid, "void(int64[:], int64)", UnsupportedError, "constant known at compile time",
     "x[0] = cuda.grid(n)"),
    (runtime_shape, "void(float32[:], int64)", UnsupportedError, "constant known at compile",
     "cuda.shared.array(n, types.float32)"),
    (empty_local, "void(float32[:])", TypingError, r"local\.array\(\) takes its shape as a "
     "constant positive int", "cuda.local.array(0, types.float32)"),
    (odd_alignment, "void(float32[:])", TypingError, "alignment as a constant power of two, "
     "not 3", "alignment=3"),
    (four_axes, "void(int64[:])", TypingError, r"constant 1, 2 or 3, not 4", "cuda.grid(4)"),
    (byte_atomic, "void(int8[:])", TypingError, r"atomic\.add\(\) does not support arrays of "
     "int8", "cuda.atomic.add(x, 0, 1)"),
    (calls_print, "void(float64[:])", UnsupportedError, "print", "print(x[0])"),
])
def test_errors_name_the_function_and_line(kernel, sig, error, message, line):
    with pytest.raises(error, match=message) as info:
        cuda.compile_ptx(kernel, sig)
    if line is not None:
        assert f"in {kernel.__name__}" in str(info.value) and line in str(info.value)


@njit
def make_zeros(n):
    return np.zeros(n)


def calls_allocating_njit(x):
    x[0] = make_zeros(3)[0]


def test_allocation_in_a_called_function_is_refused_at_its_line():
    with pytest.raises(UnsupportedError, match="device code cannot allocate memory") as info:
        cuda.compile_ptx(calls_allocating_njit, "void(float64[:])")
    assert f"line {line_of(make_zeros, 'np.zeros(n)')}, in make_zeros" in str(info.value)


RECORD = np.dtype([("flag", "?"), ("v", "<f8"), ("k", "<i8")])


def min_of_a_field(out, rec):
    out[0] = rec["v"].min()


def test_a_library_temporary_is_refused_at_the_users_line():
    """`rec['v'].min()` reduces a C-ordered copy of the strided field: refused at the
    user's line, not at kiln's library line that makes the copy (nor later as a CPU
    runtime symbol). Fuzzing found it."""
    sig = types.void(types.float64[::1], types.Array(types.from_dtype(RECORD), 1, "C"))
    with pytest.raises(UnsupportedError, match="device code cannot allocate memory") as info:
        cuda.compile_ptx(min_of_a_field, sig)
    assert f"line {line_of(min_of_a_field, '.min()')}, in min_of_a_field" in str(info.value)


def raises_with_values(out, x):
    if x > 1:
        raise ValueError("too big", x, out[0])
    out[0] = x


@needs_ptxas
def test_raise_with_run_time_arguments_compiles_without_python():
    """Device code keeps no exception arguments (the thread ends; no Python sees them): a
    raise with run-time values used to need PyTuple_New. Fuzzing found it."""
    ptx = ptx_for(raises_with_values, "void(float64[:], float64)")
    assert "PyTuple" not in ptx


@cuda.jit(device=True)
def counts_keys(a, b):
    seen = {}
    seen[a] = b
    return len(seen)


def calls_counts_keys(out, a, b):
    out[0] = counts_keys(a, b)


def test_device_function_compiled_from_a_kernel_is_checked_at_its_line():
    """Compiled (not only in the simulator), what a device function cannot do on a GPU is
    refused at its line, not later as a CPU runtime symbol the kernel needs."""
    with pytest.raises(UnsupportedError, match="device function 'counts_keys' uses a dict") \
            as info:
        cuda.compile_ptx(calls_counts_keys, "void(int64[:], int64, int64)")
    assert f"line {line_of(counts_keys, 'seen = {}')}" in str(info.value)


def line_of(fn, text):
    """The line number of the first line of `fn`'s source that contains `text`."""
    import inspect
    lines, first = inspect.getsourcelines(getattr(fn, "py_func", fn))
    return first + next(i for i, line in enumerate(lines) if text in line)


def located_lines(ptx):
    """{file index: path} and the set of (file index, line) of the `.loc` directives."""
    files = dict(re.findall(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', ptx, re.M))
    lines = {(f, int(n)) for f, n in re.findall(r"^\s*\.loc\s+(\d+)\s+(\d+)", ptx, re.M)}
    return files, lines


@needs_ptxas
def test_lineinfo_locates_the_kernel_lines():
    sig = "void(f4[:], f4[:], f4[:])"
    ptx = ptx_for(vector_add, sig, lineinfo=True)
    files, lines = located_lines(ptx)
    (index, path), = files.items()
    assert path == __file__
    assert (index, line_of(vector_add, "c[i] = a[i] + b[i]")) in lines
    assert (index, line_of(vector_add, "i = cuda.grid(1)")) in lines
    assert ".debug_info" not in ptx and ".debug_abbrev" not in ptx   # lines only
    assert ".loc" not in ptx_for(vector_add, sig)


@needs_ptxas
@needs_libdevice
def test_lineinfo_follows_inlined_device_functions():
    ptx = ptx_for(polar, "void(float32[:], float32[:], float32[:], float32[:])",
                  lineinfo=True)
    files, lines = located_lines(ptx)
    here = [index for index, path in files.items() if path == __file__]
    assert (here[0], line_of(polar_to_cartesian, "return rho")) in lines
    assert (here[0], line_of(polar, "y[i] += twice(1)")) in lines


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("kernel, sig", [
    (stencil, "void(float64[:, :], float64[:, :])"),
    (half_math, "void(float16[:], float16[:], float16[:, :])"),
    (weighted, "void(float32[:], float32[:])"),
    (lanes, "void(int32[:])"),
])
def test_lineinfo_assembles(kernel, sig):
    assert ".loc" in ptx_for(kernel, sig, lineinfo=True, cc=(7, 0))


def test_jit_lineinfo_option():
    kernel = cuda.jit("void(f4[:], f4[:], f4[:])", lineinfo=True)(vector_add.py_func)
    assert ".loc" in kernel.inspect_asm()[(types.float32[:],) * 3]


class Negative(Exception):
    pass


def divides(out, a, b):
    if a < 0:
        raise Negative("a is negative")
    out[cuda.grid(1)] = a // b


@needs_ptxas
def test_debug_records_the_first_exception_for_the_host():
    """debug=True: the kernel entry swaps the raised exception's code into kiln_exception
    and writes where it ran; the table of codes travels in the PTX; lines are described."""
    from kiln.cuda.debug import table_of
    sig = "void(int64[:], int64, int64)"
    ptx = ptx_for(divides, sig, debug=True)
    assert ".visible .global .align 8 .b8 kiln_exception[32]" in ptx
    assert re.search(r"atom(\.\w+)*\.cas\.b64\s+%rd\d+, \[kiln_exception\]", ptx)
    assert ptx.count("[kiln_exception+") == 3 and ".loc" in ptx
    assert table_of(ptx) == [(Negative, "a is negative"),
                             (ZeroDivisionError, "integer division or modulo by zero")]
    plain = ptx_for(divides, sig)
    assert "kiln_exception" not in plain and table_of(plain) == [] and ".loc" not in plain


# -- launch parameters ---------------------------------------------------------------------------
def many(a, n, flags, z, b):
    if flags[0] and flags[1]:
        a[0, 0] = n + z.real + b[0]


MANY = types.void(types.float64[:, :], types.int32, types.UniTuple(types.boolean, 2),
                  types.complex128, types.int16[::1])


def ptx_parameter_buffer_size(ptx, name):
    """The end of the last parameter when each sits at its natural (or declared) alignment."""
    end = 0
    for kind, align, count in re.findall(
            rf"\.param (?:\.align (\d+) \.b8|\.[usfb](\d+))(?: \.ptr)?(?: \.global)?"
            rf"(?: \.align \d+)? {name}_param_\d+(?:\[(\d+)\])?", ptx):
        size = int(count) if kind else int(align) // 8
        alignment = int(kind) if kind else size
        end = -(-end // alignment) * alignment + size
    return end


@needs_ptxas
def test_parameter_buffer_matches_the_ptx():
    ptx = ptx_for(many, MANY)
    assert Layout(MANY.args).size == ptx_parameter_buffer_size(ptx, "many") == \
        9 * 8 + 4 + 2 + 2 + 16 + 7 * 8


@simulated
def test_parameters_packed_from_device_arrays_and_scalars():
    host = np.arange(12.0).reshape(3, 4)
    whole = cuda.to_device(host)
    view = whole[:, 1:]
    small = cuda.to_device(np.array([5, 6], np.int16))
    layout = Layout(MANY.args)
    packed = layout.pack([view, 7, (True, False), 1.5 - 2j, small])
    values = struct.unpack("@QQqqQqqqq i ?? dd QQqqQqq".replace(" ", ""), packed)
    assert values[:9] == (0, 0, 9, 8, whole.device_ctypes_pointer.value + 8, 3, 3, 32, 8)
    assert values[9:14] == (7, True, False, 1.5, -2.0)
    assert values[14:] == (0, 0, 2, 2, small.device_ctypes_pointer.value, 2, 2)
    empty = cuda.device_array(0, np.int16)
    assert struct.unpack_from("@Q", layout.pack([view, 0, (0, 0), 0j, empty]),
                              layout.size - 3 * 8)[0] == 0   # an empty array has no data


def sines(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = math.sin(x[i])


@needs_ptxas
@needs_libdevice
def test_unoptimized_ptx_still_assembles():
    unoptimized = ptx_for(sines, "void(float64[:])", opt=False)
    assert len(unoptimized) > len(ptx_for(sines, "void(float64[:])"))
    assert ".extern" not in unoptimized


# -- what a compiled kernel uses of the device -----------------------------------------------------
RESOURCE_TABLE = np.arange(12, dtype=np.float64)


@cuda.jit("void(float32[:])")
def uses_resources(out):
    scratch = cuda.local.array(40, np.float64)
    tile = cuda.shared.array(64, np.float32)
    i = cuda.grid(1)
    for j in range(40):
        scratch[j] = i * j + RESOURCE_TABLE[j % 12]
    tile[i % 64] = scratch[i % 40]
    cuda.syncthreads()
    out[i] = tile[(i + 1) % 64] + scratch[(i * 7) % 40]


@simulated
@needs_ptxas
def test_kernel_resources_from_ptxas():
    """Without a GPU, the simulator reports what ptxas says the kernel uses on its sm_80."""
    sig = (types.float32[:],)
    assert uses_resources.get_shared_mem_per_block(sig) == 64 * 4
    assert uses_resources.get_local_mem_per_thread("void(float32[:])") == 40 * 8
    assert uses_resources.get_const_mem_size(sig) >= RESOURCE_TABLE.nbytes   # .const copy
    assert 0 < uses_resources.get_regs_per_thread(sig) <= 255
    assert uses_resources.get_max_threads_per_block(sig) == 1024
    assert uses_resources.get_regs_per_thread() == {
        sig: uses_resources.get_regs_per_thread(sig)}   # a dict per explicit signature


# -- bit operations, fma and cbrt --------------------------------------------------------------
from kiln.cuda import popc  # noqa: E402 - a plain name, as users import it


@cuda.jit
def bit_ops(x32, x64, out32, out64, ffs_out):
    i = cuda.grid(1)
    if i < x32.size:
        out32[i, 0] = popc(x32[i])
        out32[i, 1] = cuda.brev(x32[i])
        out32[i, 2] = cuda.clz(x32[i])
        out64[i, 0] = cuda.popc(x64[i])
        out64[i, 1] = cuda.brev(x64[i])
        out64[i, 2] = cuda.clz(x64[i])
        ffs_out[i, 0] = cuda.ffs(x32[i])
        ffs_out[i, 1] = cuda.ffs(x64[i])


def bits_of(value, width):
    return int(value) & ((1 << width) - 1)


@simulated
def test_bit_operations_compute_python():
    x32 = np.array([0, 1, -1, 8, 2 ** 31 - 1, -2 ** 31, 0x0F0F0F0F, 12345], np.int32)
    x64 = np.array([0, 1, -1, 2 ** 40, 2 ** 63 - 1, -2 ** 63, 0x0F0F0F0F0F, -12345], np.int64)
    out32 = np.zeros((8, 3), np.uint32)
    out64 = np.zeros((8, 3), np.uint64)
    ffs_out = np.zeros((8, 2), np.uint32)
    bit_ops[1, 8](x32, x64, out32, out64, ffs_out)
    for i in range(8):
        for width, x, out in ((32, x32[i], out32[i]), (64, x64[i], out64[i])):
            bits = bits_of(x, width)
            assert out[0] == bin(bits).count("1")
            assert out[1] == int(f"{bits:0{width}b}"[::-1], 2)
            assert out[2] == width - bits.bit_length()
        assert ffs_out[i, 0] == (bits_of(x32[i], 32) & -bits_of(x32[i], 32)).bit_length()
        assert ffs_out[i, 1] == (bits_of(x64[i], 64) & -bits_of(x64[i], 64)).bit_length()


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_bit_operations_ptx(cc):
    ptx = ptx_for(bit_ops, "void(int32[:], int64[:], uint32[:, :], uint64[:, :], "
                           "uint32[:, :])", cc)
    for instruction in ("popc.b32", "popc.b64", "brev.b32", "brev.b64", "clz.b32", "clz.b64"):
        assert instruction in ptx, instruction


@cuda.jit
def fused(a, b, c, out, roots):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = cuda.fma(a[i], b[i], c[i])
        roots[i] = cuda.cbrt(a[i])


@simulated
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_rounds_once_and_cbrt(dtype):
    from fractions import Fraction
    eps = np.finfo(dtype).eps
    a = np.array([1 + 2 * eps, 0.1, -0.0, 3.0, np.inf, np.nan, 27.0, -8.0], dtype)
    b = np.array([1 + 2 * eps, 0.1, 1.0, 1e-30, 1.0, 1.0, 1.0, 1.0], dtype)
    c = np.array([-1.0, -0.01, -0.0, 2.0, -np.inf, 0.0, 0.0, 0.0], dtype)
    out, roots = np.zeros_like(a), np.zeros_like(a)
    fused[1, 8](a, b, c, out, roots)
    for i in range(4):   # finite: the float nearest the exact a * b + c
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        error = abs(Fraction(float(out[i])) - exact)
        for neighbour in (np.nextafter(out[i], dtype(np.inf)),
                          np.nextafter(out[i], dtype(-np.inf))):
            assert error <= abs(Fraction(float(neighbour)) - exact)
    assert out[0] != (a[0] * b[0]).astype(dtype) + c[0]   # not the twice-rounded sum
    assert np.signbit(out[2]) and np.isnan(out[4]) and np.isnan(out[5])
    np.testing.assert_allclose(roots[4:], [np.inf, np.nan, 3.0, -2.0])
    assert roots.dtype == dtype


@needs_ptxas
@needs_libdevice
def test_fma_and_cbrt_ptx():
    ptx32 = ptx_for(fused, "void(float32[:], float32[:], float32[:], float32[:], float32[:])")
    ptx64 = ptx_for(fused, "void(float64[:], float64[:], float64[:], float64[:], float64[:])")
    assert "fma.rn.f32" in ptx32 and "fma.rn.f64" in ptx64
    assert ".extern" not in ptx32   # cbrt from libdevice, linked in


@cuda.jit
def select_and_sleep(x, lim, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.nanosleep(i * 10)
        out[i] = cuda.selp(x[i] > lim, x[i], lim)


@simulated
def test_selp_picks_as_python_and_nanosleep_returns():
    x = np.array([1.5, np.nan, -3.0, np.inf, 2.0, -0.0])
    out = np.zeros_like(x)
    select_and_sleep[1, 8](x, 2.0, out)
    np.testing.assert_array_equal(out, [v if v > 2.0 else 2.0 for v in x])
    assert cuda.is_float16_supported()


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_selp_and_nanosleep_ptx(cc):
    for t in ("float32", "int64", "uint16"):
        ptx = ptx_for(select_and_sleep, f"void({t}[:], {t}, {t}[:])", cc)
        # a select (which LLVM may make a max for integers), not a branch
        assert "nanosleep.u32" in ptx and ("selp" in ptx or "max." in ptx), t


def test_selp_needs_both_values_of_one_type():
    def mixed(out, a):
        out[0] = cuda.selp(a > 0, a, 1)
    with pytest.raises(TypingError, match=r"cuda.selp\(\) takes two values of one type, not "
                                          r"int32 and int64"):
        cuda.compile_ptx(mixed, "void(int32[:], int32)")


@cuda.jit("int64(int64)", device=True)
def fib_declared(n):
    if n < 2:
        return n
    return fib_declared(n - 1) + fib_declared(n - 2)


@cuda.jit(device=True)
def fib_inferred(n):
    if n < 2:
        return n
    return fib_inferred(n - 1) + fib_inferred(n - 2)


@cuda.jit(device=True)
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@cuda.jit(device=True)
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@cuda.jit
def recursive_calls(out, flags):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = fib_declared(i)
        out[i, 1] = fib_inferred(i)
        flags[i] = is_even(i)


def test_recursive_device_functions_run_as_python():
    """Self and mutual recursion in device functions, with and without a signature (the
    call inside a function still being typed used to fail the allocation check)."""
    out, flags = np.zeros((12, 2), np.int64), np.zeros(12, np.bool_)
    recursive_calls[1, 16](out, flags)
    fib = [0, 1]
    while len(fib) < 12:
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(out, np.array([fib, fib]).T)
    np.testing.assert_array_equal(flags, [i % 2 == 0 for i in range(12)])


@needs_ptxas
@pytest.mark.parametrize("cc", CCS)
def test_recursive_device_functions_ptx(cc):
    ptx = ptx_for(recursive_calls, "void(int64[:, :], boolean[:])", cc)
    assert "call" in ptx   # (recursion stays calls, with a stack ptxas sizes)


@cuda.jit(device=True)
def scaled(x, factor=2.0, shift=0):
    return x * factor + shift


@cuda.jit("float64(float64, float64)", device=True)
def declared_default(x, factor=3.0):
    return x * factor


@cuda.jit
def calls_with_defaults_and_keywords(out, x):
    i = cuda.grid(1)
    if i < x.size:
        out[i, 0] = scaled(x[i])
        out[i, 1] = scaled(x[i], 3.0)
        out[i, 2] = scaled(x[i], shift=5)
        out[i, 3] = scaled(x[i], factor=0.5, shift=1)
        out[i, 4] = declared_default(x[i])


def test_device_functions_take_defaults_and_keywords_as_python():
    x = np.array([1.5, -2.0, 0.0, np.inf])
    out = np.zeros((4, 5))
    calls_with_defaults_and_keywords[1, 4](out, x)
    with pytest.raises(TypeError, match="kernel 'calls_with_defaults_and_keywords' is "
                                        "launched with positional arguments only, not x="):
        calls_with_defaults_and_keywords[1, 4](out, x=x)
    want = np.array([[v * 2.0, v * 3.0, v * 2.0 + 5, v * 0.5 + 1, v * 3.0] for v in x])
    np.testing.assert_array_equal(out, want)


@needs_ptxas
def test_device_functions_take_defaults_and_keywords_ptx():
    ptx = ptx_for(calls_with_defaults_and_keywords, "void(float64[:, :], float64[:])")
    assert "st.global.b64" in ptx


STRING_KERNEL = '''
from kiln import cuda
def string_constants(out, a):
    i = cuda.grid(1)
    if i < out.size:
        s = "héllo" if i % 2 else "hello"
        out[i] = len(s) * 10 + (s == "hello") + ("é" in s) * 2 + s.startswith("hé") * 4 + a
ptx, _ = cuda.compile_ptx(string_constants, "void(int64[:], int64)")
print(ptx)
'''


@needs_ptxas
def test_string_constants_in_device_code(tmp_path):
    """A string constant is a global meminfo whose data is another global: one global
    pointing into itself made NVPTX abort the process (fuzzing found it), so the PTX is
    compiled in a child process here."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", STRING_KERNEL], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    toolkit.check_ptx(done.stdout, (9, 0))
    # and launched (a module of its own: kiln compiles from the source file)
    import importlib.util
    (tmp_path / "string_kernel.py").write_text(STRING_KERNEL.split("ptx, _")[0])
    spec = importlib.util.spec_from_file_location("string_kernel", tmp_path / "string_kernel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = np.zeros(7, np.int64)
    cuda.jit(module.string_constants)[1, 8](out, 3)
    words = ["héllo" if i % 2 else "hello" for i in range(7)]
    np.testing.assert_array_equal(out, [len(s) * 10 + (s == "hello") + ("é" in s) * 2 +
                                        s.startswith("hé") * 4 + 3 for s in words])


def divide(out, a, b):
    out[0] = a / b


def test_a_zero_divisor_takes_numpys_model_unless_debug():
    """As Numba's CUDA target: without debug=True nothing could report a ZeroDivisionError,
    so the division is IEEE's (inf, nan), not a test that ends the thread."""
    plain, _ = cuda.compile_ptx(divide, "void(float64[:], float64, float64)")
    checked, _ = cuda.compile_ptx(divide, "void(float64[:], float64, float64)", debug=True)
    assert "div.rn.f64" in plain and "setp.eq.f64" not in plain
    assert "setp.eq.f64" in checked


@needs_ptxas
def test_dynamic_and_static_shared_arrays_stay_in_shared_memory():
    def tiles(out, n):
        dyn = cuda.shared.array(0, np.float32)
        tile = cuda.shared.array((8, 8), np.float64)
        t = cuda.threadIdx.x
        dyn[t] = t
        tile[t % 8, t // 8] = t
        cuda.syncthreads()
        out[t] = dyn[(t * 4) % n] + dyn[(t * 4) % n + 1] + tile[t % 8, 0] + tile[t % 8, 1]

    ptx, _ = cuda.compile_ptx(tiles, "void(float32[::1], int64)")
    toolkit.check_ptx(ptx, (9, 0))
    assert "st.shared" in ptx and "ld.shared" in ptx and "ld.param" in ptx


@needs_ptxas
def test_unoptimized_ptx_of_an_array_kernel_assembles():
    """opt=False: nothing removes the CPU runtime's helpers the kernel never calls but the
    clean-up kiln runs (they were refused as calls of the CPU runtime)."""
    ptx, _ = cuda.compile_ptx(seeds.matmul_tiled, "void(float32[:, ::1], float32[:, ::1], "
                              "float32[:, ::1])", opt=False)
    toolkit.check_ptx(ptx, (9, 0))
    assert "kiln_nrt" not in ptx

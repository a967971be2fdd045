"""The in-kernel API: geometry, shared/local/const memory, barriers, atomics, warps, fp16
and the dtype names in the cuda namespace."""
import numpy as np
import pytest

from kiln import cuda
from kiln.errors import TypingError

pytestmark = pytest.mark.cuda


def test_thread_geometry_registers():
    @cuda.jit
    def geometry(out):
        t = cuda.threadIdx.x + cuda.threadIdx.y * 2 + cuda.threadIdx.z * 6 + \
            (cuda.blockIdx.x + cuda.blockIdx.y * 2) * 24
        out[t, 0] = cuda.threadIdx.x
        out[t, 1] = cuda.threadIdx.y
        out[t, 2] = cuda.threadIdx.z
        out[t, 3] = cuda.blockDim.x * 100 + cuda.blockDim.y * 10 + cuda.blockDim.z
        out[t, 4] = cuda.gridDim.x * 10 + cuda.gridDim.y + cuda.gridDim.z * 100
        out[t, 5] = cuda.laneid
        out[t, 6] = cuda.warpsize

    out = np.zeros((24 * 4, 7), np.int64)
    geometry[(2, 2), (2, 3, 4)](out)
    assert set(out[:, 3]) == {234} and set(out[:, 4]) == {122} and set(out[:, 6]) == {32}
    assert sorted(out[:24, 5]) == list(range(24))
    assert sorted(map(tuple, out[:24, :3].tolist())) == \
        [(x, y, z) for x in range(2) for y in range(3) for z in range(4)]


def test_grid_and_gridsize():
    @cuda.jit
    def positions(out1, out2, sizes):
        i = cuda.grid(1)
        x, y = cuda.grid(2)
        out1[i] = i
        out2[x, y] = x * 100 + y
        if i == 0:
            sizes[0] = cuda.gridsize(1)
            sizes[1], sizes[2] = cuda.gridsize(2)

    out1 = np.zeros(12, np.int64)
    out2 = np.zeros((12, 1), np.int64)
    sizes = np.zeros(3, np.int64)
    positions[3, 4](out1, out2, sizes)
    np.testing.assert_array_equal(out1, np.arange(12))
    np.testing.assert_array_equal(out2[:, 0], np.arange(12) * 100)
    np.testing.assert_array_equal(sizes, [12, 12, 1])


def test_laneid_outside_a_kernel():
    with pytest.raises(RuntimeError, match="cuda.laneid can only be used inside"):
        cuda.laneid


def test_shared_memory_is_per_block():
    @cuda.jit
    def block_sums(values, out):
        acc = cuda.shared.array(1, dtype=np.int64)
        if cuda.threadIdx.x == 0:
            acc[0] = 0
        cuda.syncthreads()
        cuda.atomic.add(acc, 0, values[cuda.grid(1)])
        cuda.syncthreads()
        if cuda.threadIdx.x == 0:
            out[cuda.blockIdx.x] = acc[0]

    values = np.arange(64, dtype=np.int64)
    out = np.zeros(4, np.int64)
    block_sums[4, 16](values, out)
    np.testing.assert_array_equal(out, values.reshape(4, 16).sum(axis=1))


def test_dynamic_shared_arrays_alias_one_buffer():
    @cuda.jit
    def alias(out):
        f = cuda.shared.array(0, dtype=np.float32)
        i = cuda.shared.array(0, dtype=np.int32)
        if cuda.threadIdx.x == 0:
            f[0] = 1.0
        cuda.syncthreads()
        out[0] = i[0]
        out[1] = f.size

    out = np.zeros(2, np.int64)
    alias[1, 2, 0, 16](out)
    assert out[0] == np.float32(1.0).view(np.int32) and out[1] == 4


def test_static_shared_memory_over_the_limit():
    @cuda.jit
    def too_big(a):   # more than any device's 227 KiB a block may opt in to
        big = cuda.shared.array(60000, dtype=np.float32)
        big[cuda.threadIdx.x] = 1
        cuda.syncthreads()
        a[0] = big[59999 - cuda.threadIdx.x]

    with pytest.raises(MemoryError, match="kernel 'too_big' uses 240000 bytes of shared "
                       "memory"):
        too_big[1, 1](np.zeros(1))


def test_dynamic_shared_memory_past_48_kib_up_to_the_opt_in_limit():
    """Dynamic shared memory may exceed the 48 KiB static limit, up to the device's opt-in
    limit (the driver back-end opts the function in; the simulated device has 163 KiB)."""
    @cuda.jit
    def reverse(a, out):
        buf = cuda.shared.array(0, np.float32)
        t = cuda.threadIdx.x
        for i in range(t, a.size, cuda.blockDim.x):
            buf[i] = a[i]
        cuda.syncthreads()
        for i in range(t, a.size, cuda.blockDim.x):
            out[i] = buf[a.size - 1 - i]

    a = np.random.default_rng(0).random(25600).astype(np.float32)   # 100 KiB
    out = np.zeros_like(a)
    reverse[1, 64, 0, a.nbytes](a, out)
    np.testing.assert_array_equal(out, a[::-1])
    limit = cuda.get_current_device().MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    with pytest.raises(ValueError, match=f"{limit + 1} bytes of dynamic shared memory exceed "
                       f"the device's {limit} per block"):
        reverse[1, 64, 0, limit + 1](a, out)


def test_local_array_is_per_thread():
    @cuda.jit
    def local_scratch(out):
        scratch = cuda.local.array((2, 3), dtype=cuda.int32)
        t = cuda.grid(1)
        for r in range(2):
            for c in range(3):
                scratch[r, c] = t * 10 + r * 3 + c
        cuda.syncthreads()
        total = 0
        for r in range(2):
            for c in range(3):
                total += scratch[r, c]
        out[t] = total

    out = np.zeros(64, np.int64)
    local_scratch[2, 32](out)
    np.testing.assert_array_equal(out, np.arange(64) * 60 + 15)


COEFFS = np.array([1.0, 2.0, 3.0])


def test_const_array_like():
    @cuda.jit
    def poly(x, out):
        c = cuda.const.array_like(COEFFS)
        i = cuda.grid(1)
        out[i] = c[0] + c[1] * x[i] + c[2] * x[i] * x[i]

    x = np.arange(4.0)
    out = np.zeros(4)
    poly[1, 4](x, out)
    np.testing.assert_array_equal(out, 1 + 2 * x + 3 * x * x)


def test_writing_to_a_const_array_names_the_kernel():
    @cuda.jit
    def writes_const(out):
        c = cuda.const.array_like(COEFFS)
        c[0] = 5.0

    # the simulator finds the write when it runs; the compiler types the array read-only
    with pytest.raises((ValueError, TypingError), match=r"(?s)(writes to a read-only array.*"
                       r"kernel 'writes_const'|read-only array.*writes_const)"):
        writes_const[1, 1](np.zeros(1))


def test_read_only_host_array_is_read_only_in_the_kernel():
    @cuda.jit
    def writes_arg(a):
        a[0] = 1

    a = np.zeros(2)
    a.flags.writeable = False
    # the simulator finds the write when it runs; the compiler types the array read-only
    with pytest.raises((ValueError, TypingError), match="read-only"):
        writes_arg[1, 1](a)
    assert not a.any()


def test_syncthreads_count_and_or():
    @cuda.jit
    def votes(out):
        t = cuda.threadIdx.x
        out[t, 0] = cuda.syncthreads_count(t % 3 == 0)
        out[t, 1] = cuda.syncthreads_and(t >= 0)
        out[t, 2] = cuda.syncthreads_and(t > 0)
        out[t, 3] = cuda.syncthreads_or(t == 5)
        out[t, 4] = cuda.syncthreads_or(t > 100)
        cuda.threadfence()
        cuda.threadfence_block()
        cuda.threadfence_system()

    out = np.zeros((12, 5), np.int64)
    votes[1, 12](out)
    np.testing.assert_array_equal(out, np.tile([4, 1, 0, 1, 0], (12, 1)))


@pytest.mark.parametrize("op, dtype, start, values, expected", [
    ("add", np.int32, 0, [1, 2, 3, 4], 10),
    ("add", np.float64, 0.5, [1.5, 2.0], 4.0),
    ("sub", np.int64, 10, [1, 2, 3], 4),
    ("max", np.float32, -1.0, [3.0, 7.0, 5.0], 7.0),
    ("min", np.int32, 100, [30, 7, 50], 7),
    ("nanmax", np.float64, np.nan, [3.0, 1.0], 3.0),
    ("nanmin", np.float64, np.nan, [3.0, 1.0], 1.0),
    ("and_", np.uint32, 0xFF, [0xF0, 0x3C], 0x30),
    ("or_", np.uint32, 0, [1, 4, 16], 21),
    ("xor", np.int64, 0, [5, 3], 6),
])
def test_atomics(op, dtype, start, values, expected):
    atomic_op = getattr(cuda.atomic, op)

    @cuda.jit
    def apply(target, vals, olds):
        i = cuda.grid(1)
        olds[i] = atomic_op(target, 0, vals[i])

    target = np.array([start], dtype)
    olds = np.zeros(len(values), dtype)
    apply[1, len(values)](target, np.array(values, dtype), olds)
    assert target[0] == dtype(expected)
    if not np.isnan(start):
        assert dtype(start) in olds  # the first thread to get there saw the start value


def test_atomic_max_min_leave_the_element_when_either_side_is_nan():
    """Numba's rule: a NaN element or a NaN value changes nothing (Python's max(old, val)
    and min(old, val)); the old value comes back."""
    @cuda.jit
    def amax(a, v, olds):
        olds[0] = cuda.atomic.max(a, 0, v[0])
        olds[1] = cuda.atomic.min(a, 1, v[0])

    for start, value in [(1.0, np.nan), (np.nan, 3.0), (1.0, 3.0), (5.0, 3.0)]:
        for dtype in (np.float32, np.float64):
            a = np.array([start, start], dtype)
            olds = np.zeros(2, dtype)
            amax[1, 1](a, np.array([value], dtype), olds)
            expected = [max(dtype(start), dtype(value)), min(dtype(start), dtype(value))]
            np.testing.assert_array_equal(a, np.array(expected, dtype))
            np.testing.assert_array_equal(olds, np.array([start, start], dtype))


def test_integer_arguments_wrap_to_the_declared_width():
    """A Python int past an int32 parameter's range wraps, as C's conversion does."""
    @cuda.jit("void(int64[:], int32, uint8)")
    def store(out, x, y):
        out[0] = x
        out[1] = y

    out = np.zeros(2, np.int64)
    store[1, 1](out, 0xFFFFFFFF, 257)
    assert list(out) == [np.array(0xFFFFFFFF, np.uint32).view(np.int32), 1]
    store[1, 1](out, 0x80000000, -1)
    assert list(out) == [-2**31, 255]


def test_atomic_exch_cas_inc_dec_return_old_values():
    @cuda.jit
    def ops(a, out):
        out[0] = cuda.atomic.exch(a, 0, 9)
        out[1] = cuda.atomic.cas(a, 1, 5, 6)     # matches: 5 -> 6
        out[2] = cuda.atomic.cas(a, 1, 5, 7)     # no match: stays 6
        out[3] = cuda.atomic.inc(a, 2, 3)        # 3 >= 3 -> 0
        out[4] = cuda.atomic.inc(a, 2, 3)        # 0 -> 1
        out[5] = cuda.atomic.dec(a, 3, 4)        # 0 -> 4
        out[6] = cuda.atomic.dec(a, 3, 4)        # 4 -> 3
        out[7] = cuda.atomic.compare_and_swap(a, 9, 1)
        out[8] = cuda.atomic.add(a, (4,), 2)     # tuple index

    a = np.array([1, 5, 3, 0, 0], np.uint32)
    out = np.zeros(9, np.uint32)
    ops[1, 1](a, out)
    np.testing.assert_array_equal(out, [1, 5, 6, 3, 0, 0, 4, 9, 0])
    np.testing.assert_array_equal(a, [1, 6, 1, 3, 2])


def test_atomic_inc_is_atomic_across_threads():
    @cuda.jit
    def count(counter):
        for _ in range(20):
            cuda.atomic.add(counter, 0, 1)

    counter = np.zeros(1, np.int64)
    count[4, 64](counter)
    assert counter[0] == 4 * 64 * 20


def test_warp_votes_and_ballot():
    @cuda.jit
    def votes(out):
        lane = cuda.laneid
        full = 0xFFFFFFFF
        out[lane, 0] = cuda.all_sync(full, lane < 32)
        out[lane, 1] = cuda.all_sync(full, lane < 31)
        out[lane, 2] = cuda.any_sync(full, lane == 7)
        out[lane, 3] = cuda.ballot_sync(full, lane % 2 == 0)
        out[lane, 4] = cuda.eq_sync(full, lane >= 0)
        out[lane, 5] = cuda.activemask()
        out[lane, 6] = cuda.lanemask_lt()
        cuda.syncwarp()

    out = np.zeros((32, 7), np.int64)
    votes[1, 32](out)
    assert (out[:, :3] == [1, 0, 1]).all()
    assert (out[:, 3] == 0x55555555).all() and (out[:, 4] == 1).all()
    assert (out[:, 5] == 0xFFFFFFFF).all()
    np.testing.assert_array_equal(out[:, 6], (1 << np.arange(32)) - 1)


def test_warp_shuffles_and_shuffle_reduction():
    @cuda.jit
    def shuffles(values, out, sums):
        lane = cuda.laneid
        v = values[cuda.grid(1)]
        full = 0xFFFFFFFF
        out[cuda.grid(1), 0] = cuda.shfl_sync(full, v, 3)
        out[cuda.grid(1), 1] = cuda.shfl_up_sync(full, v, 1)
        out[cuda.grid(1), 2] = cuda.shfl_down_sync(full, v, 1)
        out[cuda.grid(1), 3] = cuda.shfl_xor_sync(full, v, 1)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(full, v, offset)
            offset //= 2
        if lane == 0:
            sums[cuda.grid(1) // 32] = v

    values = np.arange(64, dtype=np.int64)
    out = np.zeros((64, 4), np.int64)
    sums = np.zeros(2, np.int64)
    shuffles[1, 64](values, out, sums)
    lanes = np.arange(64) % 32
    base = np.arange(64) - lanes
    np.testing.assert_array_equal(out[:, 0], base + 3)
    np.testing.assert_array_equal(out[:, 1], np.where(lanes > 0, values - 1, values))
    np.testing.assert_array_equal(out[:, 2], np.where(lanes < 31, values + 1, values))
    np.testing.assert_array_equal(out[:, 3], base + (lanes ^ 1))
    np.testing.assert_array_equal(sums, [values[:32].sum(), values[32:].sum()])


def test_match_sync():
    @cuda.jit
    def match(out):
        lane = cuda.laneid
        out[lane, 0] = cuda.match_any_sync(0xFF, lane // 4)
        m, pred = cuda.match_all_sync(0xFF, 1)
        out[lane, 1] = m
        out[lane, 2] = pred

    out = np.zeros((8, 3), np.int64)
    match[1, 8](out)
    np.testing.assert_array_equal(out[:, 0], [0x0F] * 4 + [0xF0] * 4)
    assert (out[:, 1] == 0xFF).all() and (out[:, 2] == 1).all()


def test_fp16_basics():
    @cuda.jit
    def half_ops(a, b, out):
        i = cuda.grid(1)
        out[i, 0] = cuda.fp16.hadd(a[i], b[i])
        out[i, 1] = cuda.fp16.hmul(a[i], b[i])
        out[i, 2] = cuda.fp16.hfma(a[i], b[i], a[i])
        out[i, 3] = cuda.fp16.hsub(a[i], b[i])
        out[i, 4] = cuda.fp16.hneg(a[i])
        out[i, 5] = cuda.fp16.hmax(a[i], b[i])
        out[i, 6] = cuda.fp16.hsqrt(b[i])
        out[i, 7] = cuda.fp16.hlt(a[i], b[i])

    a = np.array([1.5, -2.0], np.float16)
    b = np.array([0.25, 4.0], np.float16)
    out = np.zeros((2, 8), np.float16)
    half_ops[1, 2](a, b, out)
    expected = np.stack([a + b, a * b, a * b + a, a - b, -a, np.maximum(a, b), np.sqrt(b),
                         (a < b).astype(np.float16)], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_dtype_names_in_the_cuda_namespace():
    import kiln
    assert cuda.float32 is kiln.float32 and cuda.int32 is kiln.int32
    assert cuda.float64.np_dtype == np.float64 and cuda.uint8.np_dtype == np.uint8

    @cuda.jit
    def tiles(out):
        a = cuda.shared.array(shape=(4, 4), dtype=cuda.float32)
        b = cuda.shared.array((2,), np.int16)
        c = cuda.local.array(3, np.dtype("f8"))
        out[0] = a.dtype.itemsize
        out[1] = b.dtype.itemsize
        out[2] = c.dtype.itemsize

    out = np.zeros(3, np.int64)
    tiles[1, 1](out)
    np.testing.assert_array_equal(out, [4, 2, 8])

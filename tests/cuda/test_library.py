"""cuda.reduce and cuda.random."""
import math
import re
import warnings

import numpy as np
import pytest

from helpers import slow_except
from kiln import cuda
from kiln.cuda.random import (create_xoroshiro128p_states, init_xoroshiro128p_states,
                              xoroshiro128p_normal_float32, xoroshiro128p_normal_float64,
                              xoroshiro128p_uniform_float32, xoroshiro128p_uniform_float64)

pytestmark = pytest.mark.cuda


@cuda.reduce
def sum_reduce(a, b):
    return a + b


@cuda.reduce
def max_reduce(a, b):
    return max(a, b)


@pytest.mark.parametrize("n", [1, 5, 128, 129, 1000])
def test_reduce_sum(n):
    values = np.arange(n, dtype=np.float64)
    assert sum_reduce(values) == values.sum()


@cuda.reduce
def min_reduce(a, b):
    return min(a, b)


REDUCE_DTYPES = [np.int8, np.uint16, np.uint32, np.int64, np.float32, np.float64, np.complex128]


# 700 threads are slow to simulate: int8 (the shared-memory fold) by default, the rest in the
# long run; one thread: int8 and float64, 33 threads: one dtype of each fold by default
@pytest.mark.parametrize("n, dtype", slow_except(
    [(n, dtype) for n in (1, 33, 700) for dtype in REDUCE_DTYPES],
    *[(33, dtype) for dtype in (np.int8, np.float64, np.complex128)], (1, np.int8),
    (1, np.float64), (700, np.int8), rows=True), ids=lambda v: getattr(v, "__name__", str(v)))
def test_reduce_dtypes_against_numpy(dtype, n):
    """Shuffled (32/64-bit) and shared-memory (int8, uint16, complex) block folds."""
    rng = np.random.default_rng(n)
    values = rng.integers(-20, 20, n).astype(dtype) if np.dtype(dtype).kind != "c" else \
        (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dtype)
    expected = values.sum(dtype=dtype)   # wraps for int8 as the kernel's int8 adds do
    got = sum_reduce(values)
    assert got.dtype == np.dtype(dtype)
    if np.dtype(dtype).kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    else:
        assert got == expected
    if np.dtype(dtype).kind != "c":   # init (0 by default, as in Numba) is folded in too
        assert min_reduce(values, init=values[-1]) == values.min()
        assert max_reduce(values, init=values[0]) == values.max()


@pytest.mark.parametrize("n", slow_except([5000, 768 * 4, 768 * 4 + 1, 768 * 5 - 1, 768 * 9 + 5],
                                         768 * 4 + 1))
def test_reduce_many_blocks(monkeypatch, n):
    """More values than threads: blocks fold grid-strided slices, then one block folds
    their values (as many blocks as the device holds at once: 3 here)."""
    from kiln.cuda import backend, reduction
    monkeypatch.setattr(backend.active, "max_cooperative_blocks", lambda *args: 3)
    values = np.arange(n, dtype=np.int64) ** 2
    assert reduction.Reduce(lambda a, b: a + b)(values, init=7) == values.sum() + 7


def test_reduce_nan_and_inf():
    assert sum_reduce(np.array([1.0, np.nan, 2.0] * 100)) != sum_reduce(np.ones(3))
    assert np.isnan(sum_reduce(np.array([1.0, np.nan, 2.0] * 100)))
    assert sum_reduce(np.array([1.0, np.inf] * 300)) == np.inf


@pytest.mark.slow   # ~100 s under the simulator: the long run (CI) keeps it
def test_reduce_calls_from_threads_and_streams_keep_their_partials():
    """Calls on stream 0 share one array of partial values (one at a time); calls on other
    streams have their own."""
    from concurrent.futures import ThreadPoolExecutor
    arrays = [np.arange(n, dtype=np.float64) for n in (3000, 5000, 7001, 9000)] * 3
    total = cuda.reduce(lambda a, b: a + b)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(total, arrays))
    assert got == [a.sum() for a in arrays]
    stream = cuda.stream()
    on_stream = [total(cuda.to_device(a, stream), stream=stream) for a in arrays[:4]]
    assert on_stream == [a.sum() for a in arrays[:4]]


def test_reduce_options():
    values = np.arange(300, dtype=np.int64)
    assert sum_reduce(values, init=10) == values.sum() + 10
    assert sum_reduce(values, size=100) == values[:100].sum()
    assert sum_reduce(np.zeros(0, np.int64), init=5) == 5
    assert max_reduce(cuda.to_device(-np.abs(np.arange(-50, 50)))) == 0
    res = cuda.device_array(1, np.int64)
    assert sum_reduce(values, res=res) is None
    assert res.copy_to_host()[0] == values.sum()
    with pytest.raises(TypeError, match="1-d array"):
        sum_reduce(np.zeros((2, 2)))


@cuda.jit
def draw(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = xoroshiro128p_uniform_float32(states, i)
        out[i, 1] = xoroshiro128p_uniform_float64(states, i)
        out[i, 2] = xoroshiro128p_normal_float32(states, i)
        out[i, 3] = xoroshiro128p_normal_float64(states, i)


def test_xoroshiro128p_distributions():
    n = 256
    states = create_xoroshiro128p_states(n, seed=42)
    assert states.shape == (n,) and states.dtype.names == ("s0", "s1")
    out = np.zeros((n, 4))
    for _ in range(4):
        draw[2, 128](states, out)
    assert ((out[:, :2] >= 0) & (out[:, :2] < 1)).all()
    assert abs(out[:, 1].mean() - 0.5) < 0.1
    assert abs(out[:, 3].mean()) < 0.25 and 0.7 < out[:, 3].std() < 1.3
    assert len(np.unique(out[:, 1])) == n  # threads draw from different subsequences


def test_xoroshiro128p_is_reproducible_and_seeded():
    a = create_xoroshiro128p_states(8, seed=7).copy_to_host()
    b = cuda.device_array(8, dtype=a.dtype)
    init_xoroshiro128p_states(b, seed=7)
    np.testing.assert_array_equal(a, b.copy_to_host())
    assert not np.array_equal(a, create_xoroshiro128p_states(8, seed=8).copy_to_host())
    shifted = create_xoroshiro128p_states(4, seed=7, subsequence_start=2).copy_to_host()
    np.testing.assert_array_equal(shifted, a[2:6])


def test_estimate_pi():
    @cuda.jit
    def inside(states, counts, iterations):
        i = cuda.grid(1)
        hits = 0
        for _ in range(iterations):
            x = xoroshiro128p_uniform_float64(states, i)
            y = xoroshiro128p_uniform_float64(states, i)
            if x * x + y * y <= 1.0:
                hits += 1
        counts[i] = hits

    states = create_xoroshiro128p_states(64, seed=3)
    counts = np.zeros(64, np.int64)
    inside[1, 64](states, counts, 100)
    assert abs(4 * counts.sum() / 6400 - math.pi) < 0.15


def test_xoroshiro128p_stream_matches_the_generator():
    """Each draw is the next output of the thread's state, advanced exactly as the host's
    reference step advances it (uint64 arithmetic wrapping, no overflow warnings)."""
    from kiln.cuda.random import _MASK, _step

    @cuda.jit
    def raw(states, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            for k in range(out.shape[1]):
                out[i, k] = xoroshiro128p_uniform_float64(states, i)

    n, draws = 8, 5
    states = create_xoroshiro128p_states(n, seed=11)
    start = states.copy_to_host()
    out = np.zeros((n, draws))
    with warnings.catch_warnings():   # uint64 additions wrap without an overflow warning
        warnings.simplefilter("error")
        raw[1, n](states, out)
    for i in range(n):
        s0, s1 = int(start[i]["s0"]), int(start[i]["s1"])
        for k in range(draws):
            assert out[i, k] == (((s0 + s1) & _MASK) >> 11) * 2.0 ** -53
            s0, s1 = _step(s0, s1)
        assert (s0, s1) == tuple(int(v) for v in states.copy_to_host()[i])


def test_xoroshiro128p_compiles_to_ptx():
    from kiln import from_dtype
    from kiln.cuda import toolkit
    from kiln.cuda.random import xoroshiro128p_dtype
    if toolkit.libdevice_path() is None:
        pytest.skip(f"libdevice not installed: {toolkit.INSTALL_HINT}")
    state = from_dtype(xoroshiro128p_dtype)
    ptx, _ = cuda.compile_ptx(draw, (state[::1], from_dtype(np.float64)[:, ::1]), cc=(9, 0))
    if toolkit.ptxas_path() is not None:
        toolkit.check_ptx(ptx, (9, 0))
    # the state's two words, each one 64-bit access
    assert re.search(r"ld\.global\.(b|u)64", ptx) and re.search(r"st\.global\.(b|u)64", ptx)
    assert not re.search(r"ld\.global\.(b|u)32", ptx)
    assert "cvt.rn.f64.u64" in ptx                               # the 53 bits to a double
    assert "cvt.rn.f32.f64" in ptx                               # normal_float32


@pytest.mark.parametrize("dtype, shuffles", [(np.float32, True), (np.int64, True),
                                             (np.int8, False), (np.complex64, False)])
def test_reduce_kernel_ptx(dtype, shuffles):
    """32- and 64-bit values fold across a warp with shuffles, others in shared memory."""
    from kiln.cuda import toolkit
    from kiln.cuda.reduction import _make_kernel
    from kiln import from_dtype
    ty = from_dtype(dtype)
    kernel = _make_kernel(sum_reduce._device_fn, np.dtype(dtype))
    ptx, _ = cuda.compile_ptx(kernel, (ty[::1], ty[::1], from_dtype(np.int64), ty,
                                       from_dtype(np.bool_)))
    if toolkit.ptxas_path() is not None:
        report = toolkit.check_ptx(ptx, (9, 0))
        assert "0 bytes spill stores" in report
    assert ("shfl.sync.down" in ptx) == shuffles
    assert "bar.sync" in ptx and ".shared" in ptx

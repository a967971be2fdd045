"""Cooperative groups: `cuda.cg.this_grid().sync()`, a barrier for every thread of a launch.

In the simulator the blocks of a kernel that syncs its grid run at once (checked against
NumPy, with the deadlocks and errors a GPU would hang or fail on reported); compiled, the
barrier is a counter and a generation in global memory (the PTX assembled by ptxas); on the
driver back-end such a kernel is launched with cuLaunchCooperativeKernel (fake driver)."""
import numpy as np
import pytest

from kiln import cuda
from kiln.cuda import toolkit
from kiln.cuda.errors import CudaAPIError, DeadlockError

simulated = pytest.mark.cuda
simulator_only = pytest.mark.cudasim_only   # a GPU hangs on these, or has other limits
needs_ptxas = pytest.mark.skipif(toolkit.ptxas_path() is None,
                                 reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")


@cuda.jit
def shift_after_update(a, out):
    """Every thread updates its item, then reads its neighbour's: right only if the whole
    grid has updated first."""
    i = cuda.grid(1)
    g = cuda.cg.this_grid()
    if i < a.size:
        a[i] += 1
    g.sync()
    if i < a.size:
        out[i] = a[(i + 1) % a.size]


@cuda.jit(device=True)
def everyone_done():
    cuda.cg.this_grid().sync()


@cuda.jit
def smooth(u, scratch, steps):
    """`steps` Jacobi sweeps over a ring, the grid synced between reads and writes (the
    sync in a device function)."""
    i = cuda.grid(1)
    n = u.size
    for _ in range(steps):
        if i < n:
            scratch[i] = (u[(i - 1) % n] + u[i] + u[(i + 1) % n]) / 3.0
        everyone_done()
        if i < n:
            u[i] = scratch[i]
        everyone_done()


@simulated
@pytest.mark.parametrize("n, blocks", [(1, 1), (100, 4), (128, 4)])
def test_grid_sync_orders_the_whole_grid(n, blocks):
    a = np.arange(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    shift_after_update[blocks, 32](a, out)
    expected = np.arange(n, dtype=np.float32) + 1
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(out, np.roll(expected, -1))


@simulated
def test_repeated_grid_syncs_from_a_device_function():
    rng = np.random.default_rng(3)
    u = rng.standard_normal(90)
    u[7] = np.inf
    expected = u.copy()
    for _ in range(4):
        expected = (np.roll(expected, 1) + expected + np.roll(expected, -1)) / 3.0
    scratch = np.zeros_like(u)
    smooth[3, 32](u, scratch, 4)
    np.testing.assert_allclose(u, expected, rtol=1e-13)
    assert smooth.cooperative and not cuda.jit(lambda a: None).cooperative


@simulated
@simulator_only
def test_grid_sync_deadlocks_are_reported():
    @cuda.jit
    def some_leave(a):
        if cuda.grid(1) < 50:
            return
        cuda.cg.this_grid().sync()

    with pytest.raises(DeadlockError, match="50 have exited without reaching it"):
        some_leave[4, 32](np.zeros(1))

    @cuda.jit
    def mixed(a):
        if cuda.threadIdx.x == 0:
            cuda.syncthreads()
        else:
            cuda.cg.this_grid().sync()

    with pytest.raises(DeadlockError, match=r"syncthreads\(\).*cg.this_grid\(\).sync\(\)"):
        mixed[2, 32](np.zeros(1))


@simulated
@simulator_only
def test_an_error_in_one_block_ends_the_cooperative_kernel():
    @cuda.jit
    def fails(a):
        if cuda.grid(1) == 40:
            raise ValueError("fuzz: block 1 fails")
        cuda.cg.this_grid().sync()

    with pytest.raises(ValueError, match=r"block 1 fails \[in kernel 'fails' at "
                                         r"blockIdx=\(1, 0, 0\)"):
        fails[3, 32](np.zeros(1))


@simulated
@simulator_only
def test_cooperative_grids_must_fit_the_device():
    sig = cuda.jit("void(float32[:], float32[:])")(shift_after_update.py_func)
    limit = sig.max_cooperative_grid_blocks(128)
    device = cuda.get_current_device()
    assert limit == device.MULTIPROCESSOR_COUNT * (device.MAX_THREADS_PER_MULTIPROCESSOR // 128)
    assert sig.max_cooperative_grid_blocks((64, 2)) == limit
    a = np.zeros(4, np.float32)
    with pytest.raises(CudaAPIError, match="COOPERATIVE_LAUNCH_TOO_LARGE"):
        sig[limit + 1, 128](a, a)
    with pytest.raises(TypeError, match="exactly one signature"):
        shift_after_update.max_cooperative_grid_blocks(128)


@needs_ptxas
@pytest.mark.parametrize("cc", [(7, 0), (9, 0)])
def test_grid_sync_ptx(cc):
    ptx, _ = cuda.compile_ptx(smooth, "void(float64[:], float64[:], int64)", cc=cc)
    toolkit.check_ptx(ptx, cc)
    assert ptx.count(".global .align 8 .b8 kiln_grid_barrier[8]") == 1   # one per module
    assert "atom.global.add.u32" in ptx and "membar.gl" in ptx
    # two per grid sync, inlined twice: a copy more is one in divergent paths (the
    # `if i < n` around it), where `bar.sync` waits forever on the GPU
    assert ptx.count("bar.sync") == 4


def test_driver_launches_grid_syncing_kernels_cooperatively(monkeypatch):
    from fake_cuda_driver import FakeDriver

    from kiln.cuda import backend
    from kiln.cuda.driver import DriverBackend, api
    fake = FakeDriver()
    monkeypatch.setattr(backend, "active", DriverBackend(api.Driver(fake)))
    a = cuda.device_array(64, np.float32)
    shift_after_update[2, 32](a, a)
    assert fake.cooperative_launches == ["shift_after_update"]
    assert fake.names().count("cuLaunchKernel") == 0
    sig = cuda.jit("void(float32[:], float32[:])")(shift_after_update.py_func)
    assert sig.max_cooperative_grid_blocks(256) == (2048 // 256) * 132   # 132 SMs
    assert "cuOccupancyMaxActiveBlocksPerMultiprocessor" in fake.names()

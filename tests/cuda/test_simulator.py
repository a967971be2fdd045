"""What the simulator adds: errors that name the thread and block, deadlock reports
instead of hangs, real concurrency within a block, wall-time events, and the choice of
back-end at import."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from kiln import cuda

pytestmark = [pytest.mark.cuda, pytest.mark.cudasim_only]


def test_out_of_bounds_names_thread_and_block():
    @cuda.jit
    def overrun(a):
        a[cuda.grid(1)] = 1

    with pytest.raises(IndexError, match=r"index 6 is out of bounds.*kernel 'overrun' at "
                                         r"blockIdx=\(1, 0, 0\), threadIdx=\(2, 0, 0\)"):
        overrun[2, 4](np.zeros(6))


def test_negative_indices_wrap_as_in_numba():
    @cuda.jit
    def last(a):
        a[-1] = 7

    a = np.zeros(3)
    last[1, 1](a)
    assert a[2] == 7


def test_barrier_not_reached_by_all_threads_is_a_deadlock():
    @cuda.jit
    def early_exit(a):
        if cuda.threadIdx.x == 1:
            return
        cuda.syncthreads()

    with pytest.raises(cuda.DeadlockError, match=r"deadlock in kernel 'early_exit', block "
                       r"\(0, 0, 0\): threads \(0, 0, 0\), \(2, 0, 0\), \(3, 0, 0\) wait in "
                       r"syncthreads\(\); threads \(1, 0, 0\) have exited"):
        early_exit[1, 4](np.zeros(1))


def test_warp_operation_deadlock():
    @cuda.jit
    def partial_warp(a):
        if cuda.laneid < 16:
            a[cuda.laneid] = cuda.shfl_sync(0xFFFFFFFF, 1, 0)

    with pytest.raises(cuda.DeadlockError, match=r"wait in shfl_sync\(mask=0xffffffff\)"):
        partial_warp[1, 32](np.zeros(32))


def test_error_in_one_thread_releases_the_others():
    @cuda.jit
    def one_fails(a):
        if cuda.threadIdx.x == 3:
            a[100] = 1
        cuda.syncthreads()
        a[cuda.threadIdx.x] = 1

    a = np.zeros(8)
    with pytest.raises(IndexError, match=r"threadIdx=\(3, 0, 0\)"):
        one_fails[1, 8](a)
    assert not a.any()  # a failed launch copies nothing back


def test_returned_value_is_caught_without_source():
    # A code object renamed to a file nobody has: kiln finds no text for it anywhere.
    namespace = {}
    exec("def no_source(a):\n    return 1\n", namespace)
    func = namespace["no_source"]
    func.__code__ = func.__code__.replace(co_filename="<no text anywhere>")
    kernel = cuda.jit(func)
    with pytest.raises(TypeError, match=r"kernel 'no_source' returned 1; CUDA kernels return "
                                        r"nothing"):
        kernel[1, 1](np.zeros(1))


def test_a_stale_text_under_the_same_name_is_not_checked_as_the_kernel():
    # Another exec'd text registered as "<string>" in linecache must not be taken for
    # this kernel's source (it once made a correct kernel fail the return check).
    import linecache
    namespace = {}
    exec("def fills(a):\n    a[0] = 1\n", namespace)
    linecache.cache["<string>"] = (30, None, ["def fills(a):\n", "    return a\n"], "<string>")
    a = np.zeros(1)
    cuda.jit(namespace["fills"])[1, 1](a)
    assert a[0] == 1


def test_threads_of_a_block_run_concurrently():
    @cuda.jit
    def handshake(flags):
        # Thread 0 waits (without a barrier) for thread 1: needs real concurrency.
        if cuda.threadIdx.x == 1:
            cuda.atomic.exch(flags, 0, 1)
        else:
            while cuda.atomic.add(flags, 0, 0) == 0:
                pass
            flags[1] = 1

    flags = np.zeros(2, np.int32)
    handshake[1, 2](flags)
    assert flags[1] == 1


def test_events_measure_wall_time():
    start, end = cuda.event(), cuda.event()
    start.record()
    time.sleep(0.05)
    end.record()
    assert 45 < cuda.event_elapsed_time(start, end) < 1000


def _run(code, **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("KILN_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM")}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environ,
                          capture_output=True, text=True, timeout=120)


def test_without_simulator_or_gpu_kernels_fail_clearly():
    result = _run("""
        import sys
        import numpy as np
        import kiln
        assert "kiln.cuda" not in sys.modules, "import kiln must not import kiln.cuda"
        from kiln import cuda
        assert not cuda.is_available()
        assert not cuda.detect()

        @cuda.jit
        def k(a):
            a[0] = 1

        for attempt in (lambda: k[1, 1](np.zeros(1)), lambda: cuda.to_device(np.zeros(1))):
            try:
                attempt()
            except cuda.CudaSupportError as e:
                assert "KILN_ENABLE_CUDASIM=1" in str(e), e
            else:
                raise AssertionError("no error")
        print("ok")
    """, KILN_ENABLE_CUDASIM="0")
    assert result.stdout.strip().endswith("ok"), result.stderr


def test_numba_variable_enables_the_simulator():
    result = _run("""
        from kiln import cuda
        print(cuda.is_available(), cuda.get_current_device().name)
    """, NUMBA_ENABLE_CUDASIM="1")
    assert result.stdout.strip() == "True kiln CUDA simulator", result.stderr


def test_a_kernel_called_from_a_kernel_is_a_device_function():
    """As in Numba: a @cuda.jit function called from device code runs as a device
    function and may return a value; called from the host, it needs a launch config."""
    @cuda.jit
    def twice(x):
        return 2 * x

    @cuda.jit
    def kernel(out, x):
        out[0] = twice(x)

    out = np.zeros(1)
    kernel[1, 1](out, 2.5)
    assert out[0] == 5.0
    with pytest.raises(ValueError, match="launch configuration was not specified"):
        twice(1)


def test_namedtuple_and_enum_arguments():
    import enum
    from collections import namedtuple
    Point = namedtuple("Point", ("x", "y"))

    class Color(enum.Enum):
        red = 1
        green = 2

    @cuda.jit
    def kernel(out, p, c):
        out[0] = p.x + p.y[1]
        out[1] = c == Color.green

    out = np.zeros(2)
    kernel[1, 1](out, Point(1.5, np.arange(3.0)), Color.green)
    assert list(out) == [2.5, 1.0]


def test_overloads_and_cooperative_grid_blocks():
    from kiln import types

    @cuda.jit("void(int32[:, ::1])")
    def rows(a):
        cuda.cg.this_grid().sync()

    overload = rows.overloads[(types.int32[:, ::1],)]
    assert overload.cooperative
    per_block = overload.max_cooperative_grid_blocks(256)
    assert per_block == overload.max_cooperative_grid_blocks((16, 16)) == \
        overload.max_cooperative_grid_blocks((16, 4, 4)) == rows.max_cooperative_grid_blocks(256)


@pytest.mark.parametrize("key, kind, words", [
    ((2.0, 3), TypeError, "griddim must be a sequence of integers, got [2.0]"),
    ((2, 3.0), TypeError, "blockdim must be a sequence of integers, got [3.0]"),
    (((1, 2, 3, 4), 5), ValueError, "griddim must be a sequence of 1, 2 or 3 integers, "
                                    "got [1, 2, 3, 4]"),
])
def test_launch_configuration_errors_say_numbas_words(key, kind, words):
    @cuda.jit
    def noop(x):
        pass

    with pytest.raises(kind) as raised:
        noop[key]
    assert words in str(raised.value)


def test_launch_extensions_see_the_arguments_first():
    """Numba's kernel.extensions: prepare_args may wrap an argument (here: cuda.In, so
    the array is not copied back)."""
    from kiln.cuda.args import wrap_arg

    class DefaultIn:
        def prepare_args(self, ty, val, **kwargs):
            return ty, wrap_arg(val, default=cuda.In)

    @cuda.jit
    def set_three(a):
        a[0] = 3

    host = np.zeros(1, np.int64)
    set_three[1, 1](host)
    assert host[0] == 3
    set_three.extensions.append(DefaultIn())
    host[0] = 0
    set_three[1, 1](host)
    assert host[0] == 0
    set_three[1, 1](cuda.InOut(host))   # an explicit hint stays as it is
    assert host[0] == 3

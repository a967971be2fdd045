"""Where kiln.cuda behaves as numba-cuda does for code ported from it: functions given an
implementation by @overload called from kernels, print() in the simulator, the random
generators' seeding."""
import io
import sys
import time
from math import ldexp

import numpy as np
import pytest

from kiln import cuda
from kiln.extending import overload

pytestmark = pytest.mark.cuda


def forty_two(a):
    return 42


@overload(forty_two)
def _forty_two(a):
    return lambda a: 42


def first_or_self(a, b=None):
    if isinstance(b, tuple):
        b = b[0]
    return b


@overload(first_or_self)
def _first_or_self(a, b=None):
    from kiln import types
    if isinstance(b, types.BaseTuple):
        return lambda a, b=None: b[0]
    return lambda a, b=None: b


def overloaded_calls(out, flag):
    s = forty_two(5) if flag else 99
    out[0] = s
    out[1] = first_or_self(1, (7, 8))
    out[2] = first_or_self(1, 9)


def test_overloaded_function_called_from_kernel():
    out = np.zeros(3, np.int64)
    cuda.jit(overloaded_calls)[1, 1](out, True)
    np.testing.assert_array_equal(out, [42, 7, 9])


def test_overloaded_function_compiles_for_the_gpu():
    ptx, _ = cuda.compile_ptx(overloaded_calls, "void(int64[::1], boolean)")
    assert ".entry overloaded_calls" in ptx and "call." not in ptx   # the overloads, inlined
    assert "42" in ptx and "99" in ptx


def test_plain_python_function_is_still_refused():
    def plain(a):
        return a

    def kernel(out):
        out[0] = plain(1)

    with pytest.raises(Exception, match="calls 'plain', a plain Python function"):
        cuda.jit(kernel)[1, 1](np.zeros(1))


class _YieldingStream(io.StringIO):
    """A stdout that lets other threads run in each write, as a pipe's may."""

    def write(self, text):
        time.sleep(0)
        return super().write(text)


@pytest.mark.cudasim_only
def test_print_writes_whole_lines(monkeypatch):
    @cuda.jit
    def hello():
        i = cuda.grid(1)
        print(i, "hop!", 999)
        print(-i)

    stream = _YieldingStream()
    monkeypatch.setattr(sys, "stdout", stream)
    hello[2, 32]()
    assert sys.stdout is stream
    assert sorted(stream.getvalue().splitlines()) == sorted(
        [f"{i} hop! 999" for i in range(64)] + [str(-i) for i in range(64)])


@pytest.mark.cudasim_only
def test_print_of_thread_index_is_its_tuple(capsys):
    @cuda.jit
    def where():
        print(cuda.threadIdx, cuda.blockIdx)

    where[2, (2, 1, 2)]()
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines) == sorted(f"{t} {(b, 0, 0)}" for b in range(2)
                                   for t in np.ndindex(2, 1, 2))
    assert str(cuda.threadIdx) == "cuda.threadIdx"   # outside a kernel: the stub's name


def test_random_states_are_seeded_by_splitmix64():
    """State 0 holds SplitMix64's first output for the seed in both words (as Numba seeds
    it; 0xE220A8397B1DCDAF is SplitMix64's published first output for seed 0), so a seed
    gives Numba's streams."""
    from kiln.cuda.random import create_xoroshiro128p_states
    state = create_xoroshiro128p_states(1, seed=0).copy_to_host()[0]
    assert int(state["s0"]) == int(state["s1"]) == 0xE220A8397B1DCDAF


@pytest.mark.cudasim_only
def test_debug_kernel_zero_divisor_raises():
    def divide(r, x, y):
        r[0] = y[0] / x[0]
        r[1] = y[0]

    r = np.zeros(2)
    with pytest.raises(FloatingPointError, match="divide by zero"):
        cuda.jit(debug=True, opt=False)(divide)[1, 1](r, np.zeros(1), np.ones(1))
    np.testing.assert_array_equal(r, [0, 0])        # the thread stopped at the division
    cuda.jit(divide)[1, 1](r, np.zeros(1), np.ones(1))
    np.testing.assert_array_equal(r, [np.inf, 1])   # without debug: inf, as on a GPU


def test_forall_refuses_a_negative_task_count():
    kernel = cuda.jit(lambda a: None)
    with pytest.raises(ValueError, match="negative task count"):
        kernel.forall(-1)


def test_is_supported_version():
    assert cuda.is_supported_version() is cuda.is_available()


def test_device_array_shape_from_an_array():
    assert cuda.device_array(np.array([3, 4]), np.bool_).shape == (3, 4)
    assert cuda.device_array(np.int64(5)).shape == (5,)


@pytest.mark.parametrize("target, value", [(35, np.ones((1, 2, 3))), (5, [1, 3])])
def test_assigning_what_does_not_broadcast_says_numpys_words(target, value):
    with pytest.raises(ValueError) as numpy_error:
        np.arange(target)[:] = value
    with pytest.raises(ValueError) as error:
        cuda.to_device(np.arange(target))[:] = value
    assert str(error.value) == str(numpy_error.value)


def test_launch_takes_the_signature_closest_to_the_arguments():
    """The signature needing the fewest unsafe, then safe, conversions, not the first that
    accepts the arguments (Python floats are float64: 1 + 2**-25 is not 1 there)."""
    def add(r, x, y):
        r[0] = x + y

    kernel = cuda.jit(["void(float64[::1], float32, float32)",
                       "void(float64[::1], float64, float64)"])(add)
    r = np.zeros(1)
    kernel[1, 1](r, np.float32(1), np.float32(2 ** -25))
    assert r[0] == np.float32(1) + np.float32(2 ** -25) == 1.0
    kernel[1, 1](r, 1, 2 ** -25)
    assert r[0] == 1 + 2 ** -25


def test_a_fixed_setting_may_be_given_its_own_value():
    """As numba-cuda's tests do (override_config("ENABLE_CUDASIM", 1) under the simulator):
    nothing changes, so nothing is refused; another value still is."""
    import os

    import kiln.config
    current, environment = kiln.config.ENABLE_CUDASIM, dict(os.environ)
    kiln.config.ENABLE_CUDASIM = current
    assert dict(os.environ) == environment
    with pytest.raises(AttributeError, match="cannot change now"):
        kiln.config.ENABLE_CUDASIM = not current


SCALE = 2


@cuda.jit(device=True)
def _scaled(x, e):
    return ldexp(x, e + SCALE)


def test_simulated_round_and_ldexp_mean_what_compiled_code_does():
    """On the NumPy scalars a simulated kernel computes with, round() is NumPy's (not
    correctly rounded) and math.ldexp refuses NumPy integers: kernels see compiled
    code's meanings, in device functions too (and globals as they are at the launch)."""
    import math

    from kiln import njit

    def kernel(out, x, e):
        out[0] = math.ldexp(x, e)
        out[1] = round(x, e + 1)
        out[2] = _scaled(x, e)

    compiled = njit(lambda x, n: round(x, n))
    launch = cuda.jit("void(float32[::1], float32, int32)")(kernel)
    out = np.zeros(3, np.float32)
    launch[1, 1](out, 0.3425, 2)
    assert out[0] == np.float32(0.3425) * 4
    assert out[1] == np.float32(compiled(np.float32(0.3425), 3)) == np.float32(round(0.3425, 3))
    assert out[2] == np.float32(0.3425) * 16
    global SCALE
    SCALE = 3
    try:
        launch[1, 1](out, 0.3425, 2)
        assert out[2] == np.float32(0.3425) * 32
    finally:
        SCALE = 2

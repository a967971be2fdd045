"""Kernels: decoration forms, launch configurations, signatures and the errors for bad
launches, each naming the kernel."""
import numpy as np
import pytest

from kiln import cuda
from kiln.errors import TypingError, UnsupportedError

pytestmark = pytest.mark.cuda


@cuda.jit
def record_geometry(out):
    x, y, z = cuda.grid(3)
    gx, gy, gz = cuda.gridsize(3)
    row = z * gy * gx + y * gx + x
    out[row, 0] = x
    out[row, 1] = y
    out[row, 2] = z
    out[row, 3] = cuda.blockIdx.x
    out[row, 4] = cuda.blockIdx.y
    out[row, 5] = cuda.blockIdx.z


def _dim3(d):
    d = [int(n) for n in d] if isinstance(d, (tuple, list)) else [int(d)]
    return d + [1] * (3 - len(d))


@pytest.mark.parametrize("blocks, threads", [
    (3, 4), ((3,), (4,)), ((2, 3), (2, 2)), ((2, 1, 2), (1, 2, 3)), (np.int64(2), [3, 2])])
def test_grids_given_as_ints_or_tuples(blocks, threads):
    bdim, tdim = _dim3(blocks), _dim3(threads)
    size = [b * t for b, t in zip(bdim, tdim)]
    out = np.full((int(np.prod(size)), 6), -1, np.int64)
    record_geometry[blocks, threads](out)
    for x, y, z, bx, by, bz in out:
        assert (bx, by, bz) == (x // tdim[0], y // tdim[1], z // tdim[2])
    assert sorted(map(tuple, out[:, :3].tolist())) == sorted(
        (x, y, z) for z in range(size[2]) for y in range(size[1]) for x in range(size[0]))


def test_launch_with_stream_and_dynamic_shared_memory():
    @cuda.jit
    def reverse(a):
        buf = cuda.shared.array(0, dtype=cuda.float32)
        i = cuda.threadIdx.x
        buf[i] = a[i]
        cuda.syncthreads()
        a[i] = buf[cuda.blockDim.x - 1 - i]

    a = np.arange(32, dtype=np.float32)
    stream = cuda.stream()
    reverse[1, 32, stream, 32 * 4](a)
    stream.synchronize()
    np.testing.assert_array_equal(a, np.arange(32)[::-1])
    reverse.configure(1, 32, 0, 128)(a)
    np.testing.assert_array_equal(a, np.arange(32))


def test_forall_launches_one_thread_per_task():
    @cuda.jit
    def fill(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = i

    a = np.zeros(300, np.int32)
    fill.forall(a.size)(a)
    np.testing.assert_array_equal(a, np.arange(300))


def test_eager_signature_converts_scalars_and_rejects_mismatches():
    @cuda.jit("void(float32[:], int32)")
    def add(a, k):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += k

    assert [str(s) for s in add.signatures] == ["none(array(float32, 1d, A), int32)"]
    a = np.zeros(8, np.float32)
    add[1, 8](a, 3)
    np.testing.assert_array_equal(a, 3)
    with pytest.raises(TypeError, match=r"kernel 'add' has no signature for arguments "
                                        r"\(float64\[::1\], int64\)"):
        add[1, 8](np.zeros(8), 3)


def test_eager_signature_list_picks_the_matching_one():
    @cuda.jit(["void(int32[::1])", "void(float64[::1])"])
    def twice(a):
        a[cuda.grid(1)] *= 2

    for dtype in (np.int32, np.float64):
        a = np.arange(4, dtype=dtype)
        twice[1, 4](a)
        np.testing.assert_array_equal(a, [0, 2, 4, 6])


def test_kernel_signature_must_return_void():
    with pytest.raises(TypingError, match="kernel 'bad' is declared to return float32"):
        @cuda.jit("float32(float32[:])")
        def bad(a):
            pass


def test_device_function_with_signature():
    @cuda.jit("float64(float64)", device=True)
    def square(x):
        return x * x

    @cuda.jit
    def apply(a):
        i = cuda.grid(1)
        a[i] = square(a[i])

    a = np.arange(4.0)
    apply[1, 4](a)
    np.testing.assert_array_equal(a, [0, 1, 4, 9])


# -- bad input ------------------------------------------------------------------------------
@cuda.jit
def store_one(a):
    a[cuda.grid(1)] = 1


def test_launch_without_configuration():
    with pytest.raises(ValueError, match=r"kernel 'store_one' was called without a launch "
                                         r"configuration.*store_one\[blocks, threads\]"):
        store_one(np.zeros(4))


@pytest.mark.parametrize("key, message", [
    (4, r"a launch configuration is \[blocks, threads\]"),
    ((1, 2, 0, 0, 5), r"a launch configuration is"),
    ((1, 2048), r"kernel 'store_one': 2048 threads along x exceed the device's limit of 1024"),
    ((1, (32, 64)), r"2048 threads per block exceed the device's limit of 1024"),
    ((1, (1, 1, 65)), r"65 threads along z exceed"),
    ((0, 32), r"kernel 'store_one': the grid 0 must be positive"),
    (((1, 1, 1, 1), 1), r"has 4 dimensions"),
    ((1.5, 1), r"kernel 'store_one': the grid must be an int or a tuple"),
    ((1, 1, "s"), r"the stream must be 0 or a stream"),
    ((1, 1, 0, 10**6), r"bytes of dynamic shared memory exceed"),
])
def test_bad_launch_configuration(key, message):
    with pytest.raises((ValueError, TypeError), match=message):
        store_one[key]


def test_wrong_argument_count():
    with pytest.raises(TypeError, match=r"kernel 'store_one' takes 1 arguments \(a\) but was "
                                        r"launched with 2"):
        store_one[1, 1](np.zeros(1), 2)
    with pytest.raises(TypeError, match=r"launched with 0"):
        store_one[1, 1]()


def test_unsupported_argument_type():
    with pytest.raises(TypeError, match=r"kernel 'store_one': argument 1 is a list"):
        store_one[1, 1]([1.0, 2.0])


def test_kernel_returning_a_value_is_a_typing_error():
    @cuda.jit
    def returns(a):
        a[0] = 1
        return a[0]

    with pytest.raises(TypingError, match=r"kernel 'returns' returns a value; CUDA kernels "
                                          r"return nothing") as info:
        returns[1, 1](np.zeros(1))
    assert "return a[0]" in str(info.value)


def test_nested_function_may_return():
    @cuda.jit
    def uses_inner(a):
        def inner(x):
            return x + 1
        a[0] = inner(a[0])

    a = np.zeros(1)
    uses_inner[1, 1](a)
    assert a[0] == 1


@pytest.mark.parametrize("body, what", [
    ("    try:\n        a[0] = 1\n    except IndexError:\n        pass\n", "try/except"),
    ("    xs = [1, 2]\n    a[0] = xs[0]\n", "a list, which CUDA code does not support "
                                            r"\(the GPU has no heap"),
    ("    d = {1: 2}\n", "a dict"),
    ("    a[0] = sum([i for i in range(3)])\n", "a list"),
    ("    with open('x') as f:\n        pass\n", "a with statement"),
    ("    import math\n", "an import"),
    ("    print(f'{a[0]}')\n", "an f-string"),
    ("    yield a[0]\n", r"yield \(generators\)"),
    ("    global counter\n", "a global statement"),
    ("    f = lambda x: x\n", "a lambda"),
])
def test_unsupported_python_names_the_kernel(body, what, tmp_path):
    namespace = {"cuda": cuda}
    source = f"def bad_kernel(a):\n{body}"
    path = tmp_path / "bad_kernel.py"
    path.write_text(source)
    exec(compile(source, str(path), "exec"), namespace)
    kernel = cuda.jit(namespace["bad_kernel"])
    with pytest.raises(UnsupportedError, match=rf"kernel 'bad_kernel' uses {what}"):
        kernel[1, 1](np.zeros(1))


def helper(x):
    return x + 1


def test_calling_a_plain_python_function_is_an_error():
    @cuda.jit
    def calls_helper(a):
        a[0] = helper(a[0])

    with pytest.raises(UnsupportedError, match=r"kernel 'calls_helper' calls 'helper', a "
                                               r"plain Python function.*device=True"):
        calls_helper[1, 1](np.zeros(1))


def test_device_function_is_checked_too():
    @cuda.jit(device=True)
    def bad_device(x):
        return [x][0]

    @cuda.jit
    def calls_bad(a):
        a[0] = bad_device(a[0])

    with pytest.raises(UnsupportedError, match="device function 'bad_device' uses a list"):
        calls_bad[1, 1](np.zeros(1))


def test_device_function_outside_a_kernel():
    @cuda.jit(device=True)
    def dev(x):
        return x

    with pytest.raises(TypeError, match="device function 'dev' can only be called from a "
                                        "kernel"):
        dev(1)
    with pytest.raises(TypeError, match="device function 'dev' cannot be launched"):
        dev[1, 1]


def test_intrinsics_outside_a_kernel():
    with pytest.raises(RuntimeError, match=r"cuda.syncthreads\(\) can only be used inside a "
                                           "CUDA kernel"):
        cuda.syncthreads()
    with pytest.raises(RuntimeError, match=r"cuda.threadIdx can only be used inside"):
        cuda.threadIdx.x


def test_intrinsics_imported_by_name_and_through_closures():
    from kiln.cuda import grid, syncthreads, threadIdx

    def make(scale, module):
        @module.jit
        def kernel(a):
            i = grid(1)
            syncthreads()
            a[i] = threadIdx.x * scale + module.blockIdx.x
        return kernel

    a = np.zeros(8)
    make(3, cuda)[2, 4](a)
    np.testing.assert_array_equal(a, [0, 3, 6, 9, 1, 4, 7, 10])


def test_scalar_type_converts_a_value_in_a_kernel():
    @cuda.jit
    def convert(out):
        out[0] = cuda.float32(0.1) * 2

    out = np.zeros(1)
    convert[1, 1](out)
    assert out[0] == float(np.float32(0.1) * 2) and out[0] != 0.2


def test_unknown_jit_option():
    with pytest.raises(TypeError, match="unknown option.*nopython_please"):
        cuda.jit(nopython_please=True)


def test_kernel_attributes():
    assert store_one.__name__ == "store_one"
    assert store_one.py_func.__name__ == "store_one"
    assert "store_one" in repr(store_one[1, 1])


def test_specialize_compiles_for_the_arguments_types_only():
    @cuda.jit
    def add_to(a, v):
        i = cuda.grid(1)
        if i < a.size:
            a[i] += v

    dev = cuda.to_device(np.zeros(4, np.float32))
    one = add_to.specialize(dev, np.float32(1))
    assert one.specialized and not add_to.specialized
    assert one is add_to.specialize(dev, np.float32(5))      # kept per argument types
    assert [tuple(map(str, sig.args)) for sig in one.signatures] == \
        [("array(float32, 1d, C)", "float32")]
    one[1, 4](dev, 2.5)                                       # converted as a signature does
    np.testing.assert_array_equal(dev.copy_to_host(), np.full(4, 2.5, np.float32))
    with pytest.raises(RuntimeError, match="'add_to' is already specialized"):
        one.specialize(dev, np.float32(1))
    with pytest.raises(TypeError):
        one[1, 4](cuda.to_device(np.zeros(4)), 1.0)           # float64 array: not its types

"""`@vectorize([...], target='cuda')` in the simulator against NumPy on the same inputs:
loop choice, broadcasting, scalars, host and device arrays in and out, `out=`, and the
errors; and its kernel through the compiled back-end's compiler to PTX."""
import numpy as np
import pytest

from kiln import cuda, vectorize
from kiln.cuda import toolkit

from foreign_array import Foreign

pytestmark = pytest.mark.cuda


def rel_diff(x, y):
    return 2 * (x - y) / (x + y)


gpu_rel_diff = vectorize(["float32(float32, float32)", "float64(float64, float64)"],
                         target="cuda")(rel_diff)


@vectorize(["int64(int64, int64, int64)"], target="cuda")
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def same(got, want):
    return np.asarray(got).dtype == np.asarray(want).dtype and \
        np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_host_arrays_against_numpy(dtype, n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n)).astype(dtype)
    if n > 3:
        a[0], b[1], a[2], b[2] = np.nan, np.inf, 0.0, -0.0
    with np.errstate(all="ignore"):
        want = rel_diff(a, b)
    assert same(gpu_rel_diff(a, b), want)


def test_loops_broadcasting_and_python_scalars_as_numpy_chooses():
    a = np.arange(1.0, 7.0).reshape(2, 3)
    b = np.array([1.0, 2.0, 4.0])
    assert same(gpu_rel_diff(a, b), rel_diff(a, b))                       # (2, 3) with (3,)
    f32 = np.arange(1, 4, dtype=np.float32)
    assert same(gpu_rel_diff(f32, 3), rel_diff(f32, np.float32(3)))       # weak scalar: f4
    assert same(gpu_rel_diff(f32, f32.astype(np.int16)), rel_diff(f32, f32))  # i2 -> f4
    assert same(gpu_rel_diff(f32, np.ones(3, np.int64)), rel_diff(f32.astype(np.float64),
                                                                  1.0))  # i8 -> f8
    got = gpu_rel_diff(3.0, 1.0)                                          # scalars: a scalar
    assert isinstance(got, np.float64) and got == rel_diff(3.0, 1.0)
    v = np.array([-5, 0, 3, 12])
    assert same(clamp(v, 0, 10), np.clip(v, 0, 10))


def test_device_arrays_stay_on_the_device():
    a, b = np.arange(1.0, 9.0), np.linspace(1, 2, 8)
    got = gpu_rel_diff(cuda.to_device(a), cuda.to_device(b))
    assert isinstance(got, cuda.DeviceNDArray)
    assert same(got.copy_to_host(), rel_diff(a, b))
    mixed = gpu_rel_diff(cuda.to_device(a), 2.0)          # a device input: a device result
    assert isinstance(mixed, cuda.DeviceNDArray) and same(mixed.copy_to_host(), rel_diff(a, 2.0))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning",
                            "ignore:divide by zero:RuntimeWarning")
def test_device_inputs_broadcast_strided_converted_and_foreign():
    """Device inputs are read where they are, as NumPy computes on the same values: a row
    broadcast against a matrix and a one-element array against both (zero strides, nothing
    copied), strided and transposed views, int32 and float32 arrays converted element by
    element for the float64 loop, other libraries' arrays, and a strided device `out`."""
    a = np.arange(-5.0, 7.0).reshape(3, 4)
    a[0, 1], a[1, 2] = np.nan, np.inf
    row = np.array([1.5, -2.0, 0.0, 3.0])
    d_a, d_row = cuda.to_device(a), cuda.to_device(row)
    cases = [((d_a, d_row), (a, row)),
             ((d_row, d_a), (row, a)),
             ((d_a, cuda.to_device(np.array([2.0]))), (a, np.array([2.0]))),
             ((d_a[:, ::2], d_row[1::2]), (a[:, ::2], row[1::2])),
             ((d_a.T, cuda.to_device(np.arange(3.0))), (a.T, np.arange(3.0))),
             ((cuda.to_device(np.arange(-3, 5, dtype=np.int32).reshape(2, 4)),
               cuda.to_device(row.astype(np.float32))),
              (np.arange(-3, 5, dtype=np.int32).reshape(2, 4), row.astype(np.float32))),
             ((Foreign(d_a), Foreign(d_row)), (a, row)),
             ((cuda.device_array((0, 4)), d_row), (np.empty((0, 4)), row))]
    for device_args, host_args in cases:
        got = gpu_rel_diff(*device_args)
        assert isinstance(got, cuda.DeviceNDArray)
        assert same(got.copy_to_host(), rel_diff(*host_args))
    d_out = cuda.device_array((3, 8))[:, ::2]
    foreign_out = Foreign(d_out)
    assert gpu_rel_diff(d_a, 2.0, out=foreign_out) is foreign_out
    assert same(d_out.copy_to_host(), rel_diff(a, 2.0))
    assert gpu_rel_diff(a, d_row, out=d_out) is d_out
    assert same(d_out.copy_to_host(), rel_diff(a, row))


def test_out_on_the_host_and_on_the_device():
    a = np.arange(1.0, 5.0)
    out = np.empty(4)
    assert gpu_rel_diff(a, 0.5, out=out) is out and same(out, rel_diff(a, 0.5))
    d_out = cuda.device_array(4)
    assert gpu_rel_diff(a, 0.5, out=d_out) is d_out and same(d_out.copy_to_host(), out)
    with pytest.raises(ValueError, match="out must be a float64 array of shape"):
        gpu_rel_diff(a, 0.5, out=cuda.device_array(3))


def test_errors_name_the_function_and_say_why():
    with pytest.raises(TypeError, match=r"rel_diff\(\): no loop for inputs \(complex128"):
        gpu_rel_diff(np.ones(2, complex), 1.0)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        gpu_rel_diff(np.ones(2))
    with pytest.raises(ValueError, match=r"rel_diff\(\): operands could not be broadcast"):
        gpu_rel_diff(np.ones(3), np.ones(4))
    with pytest.raises(TypeError, match="needs a return type"):
        vectorize(["(float64, float64)"], target="cuda")(rel_diff)


@pytest.mark.skipif(toolkit.ptxas_path() is None,
                    reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")
def test_the_kernel_compiles_to_ptx_for_each_loop():
    """The kernel over flattened C-contiguous operands, and the one over two loop
    dimensions (strided or broadcast operands), with the loop's casts."""
    for t in ("float32", "float64"):
        casts = {"as0": np.dtype(t).type, "as1": np.dtype(t).type}
        for loop_ndim, operand in ((None, f"{t}[::1]"), (2, f"{t}[:, :]")):
            kernel = gpu_rel_diff._kernels.kernel(loop_ndim, casts).py_func
            ptx, _ = cuda.compile_ptx(kernel, f"void({', '.join([operand] * 3)}, int64)",
                                      cc=(7, 0))
            toolkit.check_ptx(ptx, (7, 0))
            assert "ld.global" in ptx and "st.global" in ptx


@vectorize(["float64(float64)", "float32(float32)"], target="cuda")
def halve(x):
    return x / 2


def test_an_exact_loop_first_as_numba_and_lists_and_host_out_with_device_inputs():
    f32 = np.array([1.0, -3.0, np.inf], np.float32)
    assert same(halve(f32), f32 / 2)                     # float32 has its own loop
    assert same(halve(np.arange(3, dtype=np.int16)), np.arange(3) / 2)   # else the first
    assert same(gpu_rel_diff([3.0, 1.0], [1.0, 1.0]), rel_diff(np.array([3.0, 1.0]), 1.0))
    out = np.full(3, np.nan)
    a = np.array([1.0, 2.0, 4.0])
    assert gpu_rel_diff(cuda.to_device(a), cuda.to_device(a + 1), out=out) is out
    assert same(out, rel_diff(a, a + 1))


@vectorize(["int64(int64, int64)", "float64(float64, float64)"], target="cuda")
def gpu_add(a, b):
    return a + b


@vectorize(["int32(int32, int32)"], target="cuda")
def gpu_max(a, b):
    return a if a > b else b


@vectorize(["float64(float32, float32)"], target="cuda")
def widening(a, b):
    return a + b


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 129, 1001])
def test_reduce_folds_pairwise_against_numpy(n):
    rng = np.random.default_rng(n)
    ints = rng.integers(-2**40, 2**40, n)
    got = gpu_add.reduce(ints)
    assert type(got) is np.int64 and got == ints.sum()
    floats = rng.standard_normal(n)
    assert np.isclose(gpu_add.reduce(cuda.to_device(floats)), floats.sum(), rtol=1e-12,
                      atol=1e-12)
    small = rng.integers(-1000, 1000, n).astype(np.int32)
    assert gpu_max.reduce(small) == small.max()
    assert gpu_max.reduce(small[::-2]) == small[::-2].max()        # a strided host view
    d_small = cuda.to_device(small)
    assert gpu_max.reduce(d_small[::-2]) == small[::-2].max()      # and a device one
    assert np.array_equal(d_small.copy_to_host(), small)


def test_reduce_leaves_a_device_array_as_it_was_and_refuses_what_it_cannot_do():
    d = cuda.to_device(np.arange(5))
    assert gpu_add.reduce(d) == 10 and np.array_equal(d.copy_to_host(), np.arange(5))
    with pytest.raises(TypeError, match="gpu_add.reduce.. of an empty array"):
        gpu_add.reduce(np.zeros(0, np.int64))
    with pytest.raises(ValueError, match=r"takes a 1-d array, not one of shape \(2, 2\)"):
        gpu_add.reduce(np.ones((2, 2)))
    with pytest.raises(TypeError, match="needs a function of two arguments, not 3"):
        clamp.reduce(np.ones(3, np.int64))
    with pytest.raises(TypeError, match=r"result has its inputs' type; for float32 it has "
                                        r"\(float32, float32\) -> float64"):
        widening.reduce(np.ones(3, np.float32))


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_an_out_overlapping_an_input_gives_numpys_result():
    """NumPy computes as if overlapping inputs were copied first: an out that is a reversed
    or shifted input is computed apart, then copied in; the input itself element for
    element is written in place."""
    host = np.arange(1.0, 7.0)
    for make_args in (lambda d: (d, d[::-1], d), lambda d: (d[1:], d[:-1], d[:-1]),
                      lambda d: (d, d, d), lambda d: (d[::2], d[1::2], d[1::2])):
        d, h = cuda.to_device(host), host.copy()
        x, y, out = make_args(d)
        want = rel_diff(*make_args(h)[:2])
        assert gpu_rel_diff(x, y, out=out) is out
        assert same(out.copy_to_host(), want)
    with pytest.raises(TypeError, match=r"rel_diff\(\): out must be an array, not list"):
        gpu_rel_diff(host, 1.0, out=[0.0] * 6)


def test_loop_axes_that_step_as_one_are_merged():
    """A C-contiguous array beside a broadcast scalar runs the kernel of one loop axis (no
    division per element to find its index); a row broadcast over a matrix stays 2-d, a
    transposed one too; the results are NumPy's whichever kernel runs."""
    ufunc = vectorize(["float64(float64, float64)"], target="cuda")(rel_diff)
    a = np.arange(1.0, 25.0).reshape(2, 3, 4)
    d = cuda.to_device(a)
    row = np.linspace(1, 2, 4)
    for device_args, host_args, loop_axes in [
            ((d, 2.0), (a, 2.0), 1),
            ((d, cuda.to_device(row)), (a, row), 2),
            ((d[:, :, ::2], 3.0), (a[:, :, ::2], 3.0), 1),
            ((cuda.to_device(a[0]).T, 2.0), (a[0].T, 2.0), 2)]:
        before = set(ufunc._kernels._kernels)
        got = ufunc(*device_args)
        assert same(got.copy_to_host(), rel_diff(*host_args))
        assert {key[0] for key in set(ufunc._kernels._kernels) - before} <= {loop_axes}
    assert {key[0] for key in ufunc._kernels._kernels} == {1, 2}


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning",
                            "ignore:invalid value:RuntimeWarning")
def test_without_signatures_a_loop_per_input_types_as_the_cpu_vectorize():
    """A CUDA ufunc without signatures adds the loop of each new combination of input
    types, its result type the function's: the same dtypes as kiln's CPU `@vectorize`
    without signatures gives, and the same values as it (NaN and inf included)."""
    def scaled(x, y):
        return x * 2 + y

    gpu, cpu = vectorize(target="cuda")(scaled), vectorize(scaled)
    f32 = np.array([1.5, -np.inf, np.nan, 0.0], np.float32)
    i32 = np.array([1, -2, 3, 2 ** 20], np.int32)   # (the simulator wraps int32 math)
    cases = [(f32, f32), (f32, 2.0), (i32, i32), (i32, 7), (i32, f32), (2, 3), (2.5, i32),
             (np.arange(6.0).reshape(2, 3), np.arange(3, dtype=np.int16))]
    for args in cases:
        want = cpu(*args)
        got = gpu(*args)
        assert same(got, want), args
        got = gpu(*[cuda.to_device(np.asarray(a)) if isinstance(a, np.ndarray) else a
                    for a in args])
        if isinstance(got, cuda.DeviceNDArray):
            got = got.copy_to_host()
        assert same(got, want), args
    assert len(gpu.types) == len({tuple(np.asarray(a).dtype for a in args)
                                  for args in cases})
    # pairwise: [f(1, 3), f(2, 4)] = [5, 8]; the odd 5 joins the first: f(5, 5) = 15;
    # then f(15, 8) = 38
    assert gpu.reduce(np.arange(1, 6, dtype=np.int64)) == 38

    def pair(x):
        return x, x
    with pytest.raises(TypeError, match=r"pair\(\) returns UniTuple\(float64 x 2\) for "
                                        r"\(float64\); vectorize\(target='cuda'\) needs a "
                                        "number"):
        vectorize(target="cuda")(pair)(np.ones(2))


@vectorize(["float64(float64, float64)", "int64(int64, int64)"], target="cuda")
def gpu_sub(x, y):
    return x - y


def _random_view(rng, dev_or_host, ndim):
    """A random basic-indexing view: steps of +-1..3, offsets, some axes of one."""
    key = []
    for n in dev_or_host.shape[:ndim]:
        step = int(rng.choice([1, 2, 3, -1, -2]))
        start = int(rng.integers(0, max(n // 2, 1)))
        key.append(slice(start, None, step) if step > 0 else slice(n - 1 - start, None, step))
    return tuple(key)


@pytest.mark.parametrize("seed", range(40))
def test_random_views_broadcasts_and_overlaps_against_numpy(seed):
    """Random programs of this session's kind: two operands taken as random strided views
    of device arrays (or host arrays, or scalars), broadcast against each other by random
    axes of one, sometimes written into a view of one of them; the result must be NumPy's
    `x - y` on the same values."""
    rng = np.random.default_rng(seed)
    dtype = rng.choice([np.float64, np.int64])
    base_shape = tuple(int(n) for n in rng.integers(1, 6, size=int(rng.integers(1, 4))))
    host = [rng.integers(-50, 50, size=base_shape).astype(dtype) for _ in range(2)]
    dev = [cuda.to_device(h) for h in host]
    if rng.random() < 0.4:   # both operands views of one array: an out may overlap either
        host[1], dev[1] = host[0], dev[0]
    operands, values = [], []
    for k in range(2):
        kind = rng.choice(["device", "host", "scalar"], p=[0.6, 0.25, 0.15])
        if kind == "scalar":
            value = dtype(rng.integers(-9, 9)).item()
            operands.append(value)
            values.append(value)
            continue
        key = _random_view(rng, host[k], len(base_shape))
        view_host = host[k][key]
        if rng.random() < 0.3 and view_host.ndim:   # an axis of one, to broadcast
            axis = int(rng.integers(0, view_host.ndim))
            key = key[:axis] + (slice(0, 1),) + key[axis + 1:]
            view_host = host[k][key]
        operands.append(dev[k][key] if kind == "device" else view_host)
        values.append(view_host.copy())
        if k == 0:
            key_of_first = key
    try:
        want = np.subtract(*values)
    except ValueError:
        with pytest.raises(ValueError, match="could not be broadcast"):
            gpu_sub(*operands)
        return
    target = None
    if np.ndim(want) and rng.random() < 0.4 and isinstance(operands[0], cuda.DeviceNDArray) \
            and operands[0].shape == np.shape(want):
        target = operands[0]   # in place into the first operand (overlaps when views differ)
    got = gpu_sub(*operands, out=target)
    got = got.copy_to_host() if isinstance(got, cuda.DeviceNDArray) else got
    if target is not None:   # what else the out's array holds is as it was
        rest = host[0].copy()
        rest[key_of_first] = want
        np.testing.assert_array_equal(dev[0].copy_to_host(), rest)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == np.asarray(want).dtype

"""`@guvectorize([...], layout, target='cuda')` in the simulator against NumPy or a plain
Python loop on the same inputs: loop choice, broadcasting and flattening of the loop
dimensions, empty loops and cores, NaN/inf, non-contiguous host inputs, host and device
arrays in and out, "()" core dimensions as numbers and as one-element arrays, several
outputs, the errors; and its kernel through the compiled back-end's compiler to PTX."""
import numpy as np
import pytest

from kiln import cuda, guvectorize
from kiln.cuda import toolkit

from foreign_array import Foreign

pytestmark = pytest.mark.cuda


def matvec_py(a, x, out):
    for i in range(a.shape[0]):
        s = 0.0
        for j in range(a.shape[1]):
            s += a[i, j] * x[j]
        out[i] = s


matvec = guvectorize(["void(float32[:, :], float32[:], float32[:])",
                      "void(float64[:, :], float64[:], float64[:])"],
                     "(m,n),(n)->(m)", target="cuda")(matvec_py)


@guvectorize(["void(float32[:], float32[:])", "void(float64[:], float64[:])",
              "void(int64[:], int64[:])"], "(n)->()", target="cuda")
def rowsum(a, out):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    out[0] = s


def add_scalar_py(a, c, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + c


add_scalar = guvectorize(["void(float64[:], float64, float64[:])",
                          "void(int64[:], int64, int64[:])"],
                         "(n),()->(n)", target="cuda")(add_scalar_py)


@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),()->(n)", target="cuda")
def add_first(a, c, out):     # a "()" input declared as an array: a one-element view
    for i in range(a.shape[0]):
        out[i] = a[i] + c[0]


@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n)->(),()", target="cuda")
def lo_hi(a, lo, hi):
    lo[0] = np.inf
    hi[0] = -np.inf
    for v in a:
        lo[0] = min(lo[0], v)
        hi[0] = max(hi[0], v)


@guvectorize(["void(float64[:], float64[:])"], "(n)->(m)", target="cuda")
def ramp(a, out):            # m comes only from the output passed in
    for j in range(out.shape[0]):
        out[j] = a[0] * j


@guvectorize(["void(int64[:, :], int64[:, :], int64[:, :])"], "(m,n),(n,p)->(m,p)",
             target="cuda")
def matmul(a, b, out):        # two-dimensional output cores
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            s = 0
            for k in range(a.shape[1]):
                s += a[i, k] * b[k, j]
            out[i, j] = s


def matvec_reference(a, x):
    """The plain Python loop over NumPy's broadcast loop dimensions."""
    loop = np.broadcast_shapes(a.shape[:-2], x.shape[:-1])
    a = np.broadcast_to(a, loop + a.shape[-2:])
    x = np.broadcast_to(x, loop + x.shape[-1:])
    out = np.empty(loop + a.shape[-2:-1], np.result_type(a, x))
    for idx in np.ndindex(*loop):
        matvec_py(a[idx], x[idx], out[idx])
    return out


def same(got, want):
    return type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype and \
        np.asarray(got).shape == np.asarray(want).shape and \
        np.allclose(got, want, rtol=1e-6 if np.asarray(want).dtype == np.float32 else 1e-13,
                    atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("loop", [(), (1,), (5,), (2, 3), (0,), (3, 0)])
def test_matvec_against_numpy_and_a_python_loop(dtype, loop):
    rng = np.random.default_rng(len(loop))
    a = rng.standard_normal(loop + (3, 4)).astype(dtype)
    x = rng.standard_normal(4).astype(dtype)
    got = matvec(a, x)
    want = matvec_reference(a, x)
    assert type(got) is type(want) and got.dtype == want.dtype and got.shape == want.shape
    # within rounding of the exact products' sum: the Python loop sums float32 products in
    # float32 under NumPy 2 (0.0 + np.float32 is a float32), compiled code in float64 (the
    # literal 0.0), as Numba does; where terms cancel the two differ by more than 1e-6
    exact = np.einsum("...ij,j->...i", a.astype(np.float64), x.astype(np.float64))
    scale = np.einsum("...ij,j->...i", np.abs(a).astype(np.float64), np.abs(x))
    assert np.all(np.abs(got - exact) <= 4 * np.finfo(dtype).eps * scale)
    assert np.all(np.abs(want - exact) <= 4 * np.finfo(dtype).eps * scale)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_nan_and_inf_propagate_as_in_python():
    a = np.array([[1.0, np.nan], [np.inf, 1.0], [np.inf, -np.inf], [0.0, 2.0], [-0.0, 0.0]])
    x = np.array([1.0, 1.0])
    got = matvec(a[None], x)
    assert same(got, matvec_reference(a[None], x))
    assert np.isnan(got[0, 0]) and got[0, 1] == np.inf and np.isnan(got[0, 2])
    assert same(rowsum(a), np.sum(a, axis=1))
    x = np.array([np.inf, 0.0])
    got = matvec(a, x)
    assert same(got, matvec_reference(a, x))
    assert same(got, np.array([np.nan, np.inf, np.nan, np.nan, np.nan]))


def test_loops_are_chosen_as_numba_does():
    ints = np.array([[2**40, 3, -7], [1, -1, 5]])
    got = rowsum(ints)                               # int64: its own loop, exactly
    assert got.dtype == np.int64 and np.array_equal(got, ints.sum(axis=1))
    f32 = np.array([[0.5, 0.25]], np.float32)
    assert same(rowsum(f32), np.array([0.75], np.float32))          # float32 before float64
    assert rowsum(ints.astype(np.int32)).dtype == np.float64        # safe casts: i4 -> f8
    assert rowsum(ints.astype(np.uint8)).dtype == np.float32        # u1 -> f4 first
    assert same(rowsum([[1.5, 2.5]]), np.array([4.0]))              # a list is an array
    assert same(matvec(f32.reshape(1, 2), np.array([2, 4], np.int8)), np.array([2.0],
                                                                             np.float32))
    assert same(add_scalar(np.arange(3), 2), np.arange(3) + 2)      # Python int: int64 loop
    assert same(add_scalar(np.arange(3), 2.5), np.arange(3) + 2.5)  # Python float: float64
    with pytest.raises(TypeError, match=r"rowsum\(\): no loop for inputs \(complex128\); its "
                                        r"loops: \(float32\) -> float32; \(float64\) -> "):
        rowsum(np.ones((2, 2), complex))


def test_loop_dimensions_broadcast_on_the_host():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 1, 3, 4))
    x = rng.standard_normal((5, 4))
    got = matvec(a, x)
    assert got.shape == (2, 5, 3) and same(got, matvec_reference(a, x))
    assert same(matvec(a[0, 0], x), matvec_reference(a[0, 0], x))      # (3,4) with (5,4)
    c = np.array([10.0, -20.0, np.nan])[:, None]          # loop (3, 1) with (2,): (3, 2)
    rows = np.arange(6.0).reshape(2, 3)
    got = add_scalar(rows, c)
    assert got.shape == (3, 2, 3) and same(got, rows + c[:, :, None])


def test_matrix_products_with_two_dimensional_cores():
    rng = np.random.default_rng(5)
    a = rng.integers(-2**20, 2**20, (3, 1, 4, 5))
    b = rng.integers(-2**20, 2**20, (2, 5, 3))
    got = matmul(a, b)
    assert got.dtype == np.int64 and np.array_equal(got, a @ b)     # exact in int64
    assert np.array_equal(matmul(a[0, 0], b[0]), a[0, 0] @ b[0])
    assert np.array_equal(matmul(np.ones((2, 0), np.int64), np.ones((0, 3), np.int64)),
                          np.zeros((2, 3), np.int64))
    stream = cuda.stream()
    d = matmul(cuda.to_device(a[:, 0]), cuda.to_device(b[:1].repeat(3, axis=0)),
               stream=stream)
    stream.synchronize()
    assert np.array_equal(d.copy_to_host(), a[:, 0] @ b[0])


def test_empty_loops_and_empty_cores():
    assert same(rowsum(np.zeros((0, 3))), np.zeros(0))
    assert same(rowsum(np.zeros((2, 0))), np.zeros(2))                  # empty core: s = 0
    assert same(rowsum(np.zeros((4, 0, 5))), np.zeros((4, 0)))
    assert same(matvec(np.zeros((2, 0, 3)), np.ones(3)), np.zeros((2, 0)))    # m = 0
    assert same(matvec(np.ones((2, 3, 0)), np.ones(0)), np.zeros((2, 3)))     # n = 0
    assert same(matvec(np.ones((0, 3, 2)), np.ones((0, 2))), np.zeros((0, 3)))
    d = matvec(cuda.to_device(np.zeros((0, 3, 2))), cuda.to_device(np.zeros((0, 2))))
    assert isinstance(d, cuda.DeviceNDArray) and d.shape == (0, 3)


def test_non_contiguous_host_inputs():
    rng = np.random.default_rng(3)
    big = rng.standard_normal((6, 5, 8))
    for a in (big[::2, :3, ::2], big[:, :3, :4].transpose(0, 1, 2)[::-1],
              np.asfortranarray(big[0, :3, :4])[None]):
        x = big[0, 0, ::2]
        assert not (a.flags.c_contiguous and x.flags.c_contiguous)
        assert same(matvec(a, x), matvec_reference(a, x))
    cols = big[:, 0, :].T                                               # (8, 6) strided rows
    assert same(rowsum(cols), np.array([sum(r.tolist()) for r in cols]))


def test_device_arrays_in_and_out():
    rng = np.random.default_rng(11)
    a, x = rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 2))
    want = matvec_reference(a, x)
    d_a, d_x = cuda.to_device(a), cuda.to_device(x)
    got = matvec(d_a, d_x)                               # device in: a device result
    assert isinstance(got, cuda.DeviceNDArray) and same(got.copy_to_host(), want)
    mixed = matvec(d_a, x)                               # one device input is enough
    assert isinstance(mixed, cuda.DeviceNDArray) and same(mixed.copy_to_host(), want)
    d_out = cuda.device_array((4, 3))
    assert matvec(d_a, d_x, d_out) is d_out and same(d_out.copy_to_host(), want)
    d_out2 = cuda.device_array((4, 3))
    assert matvec(a, x, out=d_out2) is d_out2 and same(d_out2.copy_to_host(), want)
    out = np.full((4, 3), np.nan)
    assert matvec(a, x, out) is out and same(out, want)  # outputs passed positionally
    out2 = np.full((4, 3), np.nan)
    assert matvec(d_a, d_x, out=out2) is out2 and same(out2, want)   # a host out is filled
    scalar = rowsum(cuda.to_device(np.arange(4.0)))      # 0-d loop on the device: 0-d array
    assert isinstance(scalar, cuda.DeviceNDArray) and scalar.shape == () and \
        scalar.copy_to_host() == 6.0


def test_device_operands_broadcast_strided_and_foreign():
    """Device operands are used where they are: loop dimensions broadcast with zero strides
    (nothing copied), strided and transposed views in and out, "()" operands of a 0-d loop,
    other libraries' arrays; as the Python loop computes on the same values."""
    rng = np.random.default_rng(12)
    a, x = rng.standard_normal((4, 3, 2)), rng.standard_normal(2)
    a[1, 2, 0] = np.nan
    d_a, d_x = cuda.to_device(a), cuda.to_device(x)
    got = matvec(d_a, d_x)                               # x repeated along the loop
    assert same(got.copy_to_host(), matvec_reference(a, np.broadcast_to(x, (4, 2))))
    wide = cuda.to_device(rng.standard_normal((3, 8, 5)))
    view = wide[:, ::3, 1::2]                            # (3, 3, 2), strided
    d_out = cuda.device_array((3, 3)).T                  # a transposed output
    assert matvec(view, d_x, d_out) is d_out
    assert same(d_out.copy_to_host(), matvec_reference(view.copy_to_host(),
                                                       np.broadcast_to(x, (3, 2))))
    foreign_out = Foreign(cuda.device_array((4, 3)))
    assert matvec(Foreign(d_a), Foreign(d_x), out=foreign_out) is foreign_out
    assert same(foreign_out.dev.copy_to_host(), got.copy_to_host())
    column = cuda.to_device(np.arange(6.0))[::2]         # a strided core, a 0-d loop
    assert rowsum(column).copy_to_host() == 6.0
    c = cuda.to_device(np.array([10.0, 20.0]))[::-1]     # "()" inputs, reversed
    for fn in (add_scalar, add_first):
        got = fn(cuda.to_device(a[:, :, 0]), c[:, None]).copy_to_host()
        assert same(got, a[:, :, 0][None] + np.array([20.0, 10.0])[:, None, None])


@guvectorize(["void(float64[:], float64[:])"], "(n)->(n)", target="cuda")
def reverse(a, out):
    n = a.shape[0]
    for i in range(n):
        out[i] = a[n - 1 - i]


def test_an_output_overlapping_an_input_is_computed_apart():
    """Each thread reads its whole core before the function is done writing: an output
    that is an input (or overlaps one) is computed into a new array, then copied in."""
    host = np.arange(10.0).reshape(2, 5)
    d = cuda.to_device(host)
    assert reverse(d, d) is d
    assert same(d.copy_to_host(), host[:, ::-1])
    d = cuda.to_device(host)
    reverse(d[:, 1:], out=d[:, :-1])
    want = host.copy()
    want[:, :-1] = host[:, 1:][:, ::-1]
    assert same(d.copy_to_host(), want)


def test_scalar_core_dimensions():
    rows = np.arange(6.0).reshape(2, 3)
    for fn in (add_scalar, add_first):
        assert same(fn(rows, 2.0), rows + 2.0)                    # a Python scalar
        assert same(fn(rows, np.float64(-1.5)), rows - 1.5)       # a NumPy scalar
        assert same(fn(rows, np.array([1.0, np.inf])), rows + [[1.0], [np.inf]])  # per row
        assert same(fn(rows[0], 3.0), rows[0] + 3.0)              # no loop dimensions
        got = fn(cuda.to_device(rows), cuda.to_device(np.array([1.0, 2.0])))
        assert same(got.copy_to_host(), rows + [[1.0], [2.0]])
    total = rowsum(np.array([1.0, 2.0, 4.5]))                     # "()" output, no loop
    assert isinstance(total, np.float64) and total == 7.5
    assert same(rowsum(np.arange(6).reshape(2, 3)), np.array([3, 12]))


def test_several_outputs():
    a = np.array([[3.0, -1.0, 2.0], [np.nan, 0.0, 1.0], [5.0, 5.0, 5.0]])
    lo, hi = lo_hi(a)
    want_lo = np.array([min(r.tolist(), key=lambda v: v) for r in a])
    want_hi = np.array([max(r.tolist()) for r in a])
    assert same(lo, np.array([-1.0, 0.0, 5.0])) and same(hi, np.array([3.0, 1.0, 5.0]))
    assert same(lo[[0, 2]], want_lo[[0, 2]]) and same(hi[[0, 2]], want_hi[[0, 2]])
    outs = (np.empty(3), cuda.device_array(3))
    got = lo_hi(a, out=outs)
    assert got[0] is outs[0] and got[1] is outs[1] and same(outs[1].copy_to_host(), hi)
    got = lo_hi(a, *outs)
    assert got[0] is outs[0] and same(got[0], lo)


def test_an_output_core_dimension_from_the_output():
    a = np.array([[2.0], [-1.0]])
    out = np.empty((2, 4))
    assert ramp(a, out) is out and same(out, a * np.arange(4.0))
    with pytest.raises(ValueError, match=r"ramp\(\): core dimension 'm' of output 0 is in "
                                         "no input; pass the output"):
        ramp(a)


def test_call_errors_name_the_function_and_say_why():
    a = np.ones((2, 3, 4))
    with pytest.raises(TypeError, match=r"matvec_py\(\) takes 2 input\(s\), or its inputs "
                                        r"and its 1 output\(s\) \(1 given\)"):
        matvec(a)
    with pytest.raises(TypeError, match="takes 2 input"):
        matvec(a, np.ones(4), np.empty((2, 3)), np.empty((2, 3)))
    with pytest.raises(ValueError, match=r"matvec_py\(\): core dimension 'n' is 4 in one "
                                         "operand but 5 in input 1"):
        matvec(a, np.ones(5))
    with pytest.raises(ValueError, match=r"input 1 has the core dimensions \(n\) in "
                                         r"'\(m,n\),\(n\)->\(m\)', so it needs at least 1"):
        matvec(a, 1.0)
    with pytest.raises(ValueError, match="loop dimensions of the inputs could not be "
                                         r"broadcast together: \(2,\) \(3,\)"):
        matvec(a, np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"output 0 must be a float64 array of "
                                         r"shape \(2, 3\), not float64 \(3, 3\)"):
        matvec(a, np.ones(4), np.empty((3, 3)))
    with pytest.raises(ValueError, match="core dimension 'm' is 3 in one operand but 2 in "
                                         "output 0"):
        matvec(a, np.ones(4), np.empty((3, 2)))
    with pytest.raises(ValueError, match="output 0 must be a float64"):
        matvec(a, np.ones(4), np.empty((2, 3), np.float32))
    with pytest.raises(TypeError, match="outputs given both after the inputs and as out="):
        matvec(a, np.ones(4), np.empty((2, 3)), out=np.empty((2, 3)))
    with pytest.raises(TypeError, match="output 0 must be an array, not list"):
        matvec(a, np.ones(4), out=[[0.0] * 3] * 2)
    with pytest.raises(TypeError, match=r"out= needs 2 output\(s\), not 1"):
        lo_hi(a, out=(np.empty(2),))
    with pytest.raises(ValueError, match="a device array input must be of the loop's type "
                                         "float64, not float32; convert it on the host"):
        matvec(cuda.to_device(a.astype(np.float32)), np.ones(4))   # a core view: as it is


def rowsum_core(a, out):
    out[0] = a.sum()


def test_declaration_errors():
    with pytest.raises(TypeError, match=r"matvec_py\(\) takes 3 arguments but the layout "
                                        r"'\(n\)->\(\)' has 2 operands"):
        guvectorize("(n)->()", target="cuda")(matvec_py)
    with pytest.raises(TypeError, match="writes its outputs and returns nothing"):
        guvectorize(["float64(float64[:], float64[:])"], "(n)->()",
                    target="cuda")(rowsum_core)
    with pytest.raises(TypeError, match=r"matvec_py\(\) takes 3 arguments but the layout "
                                        r"'\(n\)->\(\)' has 2 operands"):
        guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")(matvec_py)
    with pytest.raises(TypeError, match="the signature .* has 2 arguments, but the layout"):
        guvectorize(["void(float64[:], float64[:])"], "(m,n),(n)->(m)",
                    target="cuda")(matvec_py)
    with pytest.raises(TypeError, match=r"operand 0 has the core dimensions \(m,n\) .* must "
                                        "be a 2-d array, not"):
        guvectorize(["void(float64[:], float64[:], float64[:])"], "(m,n),(n)->(m)",
                    target="cuda")(matvec_py)
    with pytest.raises(TypeError, match=r"operand 2 .* must be a 1-d array, not float64"):
        guvectorize(["void(float64[:], float64, float64)"], "(n),()->()",
                    target="cuda")(add_scalar_py)
    with pytest.raises(TypeError, match="writable_args is for guvectorize's CPU targets"):
        guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)", target="cuda",
                    writable_args=(0,))(add_scalar_py)
    with pytest.raises(TypeError, match="unknown option"):
        guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)", target="cuda",
                    nosuch=1)(add_scalar_py)


def test_attributes():
    assert (matvec.nin, matvec.nout, matvec.signature) == (2, 1, "(m,n),(n)->(m)")
    assert lo_hi.nout == 2 and lo_hi.signature == "(n)->(),()"
    assert repr(matvec) == "<kiln CUDA gufunc 'matvec_py' (m,n),(n)->(m) (2 loops)>"
    assert matvec.__name__ == "matvec_py"


@pytest.mark.skipif(toolkit.ptxas_path() is None,
                    reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")
def test_the_kernel_compiles_to_ptx_for_each_loop():
    """The generated kernel takes every operand as (loop size, *core) and passes views of
    them (a 2-d array's row of a 3-d one, a 1-d one of a 2-d one) or numbers."""
    cases = [(matvec, "{t}[:, :, ::1], {t}[:, ::1], {t}[:, ::1]", ("float32", "float64")),
             (rowsum, "{t}[:, ::1], {t}[:, ::1]", ("float32", "float64", "int64")),
             (add_scalar, "{t}[:, ::1], {t}[::1], {t}[:, ::1]", ("float64", "int64")),
             (add_first, "{t}[:, ::1], {t}[:, ::1], {t}[:, ::1]", ("float64",)),
             (lo_hi, "{t}[:, ::1], {t}[:, ::1], {t}[:, ::1]", ("float64",)),
             (matmul, "{t}[:, :, ::1], {t}[:, :, ::1], {t}[:, :, ::1]", ("int64",))]
    for gufunc, operands, dtypes in cases:
        # flattened, and over two loop dimensions (strided or broadcast operands)
        strided = operands.replace("::1", ":").replace("[", "[:, ")
        for loop_ndim, given in ((None, operands), (2, strided)):
            kernel = gufunc._kernels.kernel(loop_ndim).py_func
            for t in dtypes:
                ptx, _ = cuda.compile_ptx(kernel, f"void({given.format(t=t)}, int64)",
                                          cc=(7, 0))
                toolkit.check_ptx(ptx, (7, 0))
                assert "ld.global" in ptx and "st.global" in ptx


@guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cuda")
def writes_past_its_output(a, out):
    out[1] = a[0]


@pytest.mark.cudasim_only
def test_an_error_in_the_function_names_it():
    with pytest.raises(IndexError, match="in kernel 'gufunc_writes_past_its_output'"):
        writes_past_its_output(np.ones((2, 3)))


def test_without_signatures_the_operands_types_choose_the_loop_as_on_the_cpu():
    """A CUDA gufunc without signatures takes the inputs' own types and the outputs',
    which must be passed, a "()" input being a number: the same results as kiln's CPU
    gufunc without signatures, for each new combination of types."""
    gpu = guvectorize("(n),()->(n)", target="cuda")(add_scalar_py)
    cpu = guvectorize("(n),()->(n)")(add_scalar_py)
    x = np.arange(6.0).reshape(2, 3)
    x[0, 1] = np.nan
    for a, c, dtype in [(x, 2.5, np.float64), (x.astype(np.float32), np.float32(1.5),
                                                  np.float32),
                        (np.arange(6, dtype=np.int32).reshape(2, 3), np.int32(-4), np.int32)]:
        want, got = np.zeros(a.shape, dtype), np.zeros(a.shape, dtype)
        cpu(a, c, want)
        assert gpu(a, c, got) is got and same(got, want)
        d_out = cuda.device_array(a.shape, dtype)
        gpu(cuda.to_device(a), c, out=d_out)
        assert same(d_out.copy_to_host(), want)
    assert len(gpu.types) == 3
    with pytest.raises(TypeError, match=r"add_scalar_py\(\) was made by "
                                        r"guvectorize\(target='cuda'\) without signatures, so "
                                        r"it needs its 1 output\(s\) passed"):
        gpu(x, 1.0)


@pytest.mark.parametrize("seed", range(30))
def test_random_strided_and_broadcast_operands_against_a_python_loop(seed):
    """Random programs: matvec over random strided device views (or host arrays) whose loop
    dimensions broadcast by random axes of one, sometimes written into a strided device
    out; the result must be the plain Python loop's on the same values."""
    rng = np.random.default_rng(seed)
    m, n = (int(v) for v in rng.integers(1, 4, size=2))
    loop = tuple(int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 3))))
    views, values = [], []
    for core in ((m, n), (n,)):
        own_loop = tuple(1 if rng.random() < 0.3 else d for d in loop)
        own_loop = own_loop[int(rng.integers(0, len(own_loop) + 1)):]   # fewer axes too
        step = int(rng.choice([1, 2, -1]))
        full = tuple(d * abs(step) for d in own_loop + core)
        host = rng.standard_normal(full)
        key = tuple(slice(None, None, step) for _ in full)
        value = host[key]
        views.append(cuda.to_device(host)[key] if rng.random() < 0.7 else value)
        values.append(value)
    want = matvec_reference(*values)
    if rng.random() < 0.5:
        out = cuda.device_array(tuple(2 * d for d in want.shape))[
            tuple(slice(None, None, 2) for _ in want.shape)]
        assert matvec(*views, out=out) is out
        got = out.copy_to_host()
    else:
        got = matvec(*views)
        got = got.copy_to_host() if isinstance(got, cuda.DeviceNDArray) else got
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

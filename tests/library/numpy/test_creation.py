"""Arrays made in compiled code: NumPy's creation functions, checked against NumPy."""
import numpy as np
import pytest

from helpers import jit, check
from kiln.errors import TypingError
from kiln.runtime.nrt import allocation_stats


def empty_filled(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = i * 0.5
    return a


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_empty_then_fill(n):
    got = check(empty_filled, n)
    assert got.flags.c_contiguous and got.flags.writeable and got.flags.owndata is False


def zeros_shapes(n):
    return (np.zeros(n), np.zeros((n, 3)), np.zeros((2, n, 2), dtype=np.int32),
            np.zeros(n, np.bool_), np.zeros((), np.float32), np.zeros((n,), dtype="c16"))


def ones_full(n):
    return (np.ones(n), np.ones((n, 2), dtype=np.int8), np.full(n, 7), np.full((2, n), 2.5),
            np.full(n, True), np.full(n, 3, dtype=np.float32), np.ones(n, dtype=complex))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_zeros_ones_full(n):
    for got, want in zip(jit(zeros_shapes)(n), zeros_shapes(n)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    for got, want in zip(jit(ones_full)(n), ones_full(n)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def likes(a):
    return (np.empty_like(a).shape, np.zeros_like(a), np.ones_like(a), np.full_like(a, 3),
            np.zeros_like(a, dtype=np.float32), np.full_like(a, 2.5))


@pytest.mark.parametrize("a", [np.arange(6.0), np.arange(12).reshape(3, 4),
                               np.arange(12.0).reshape(3, 4)[:, ::2], np.zeros((0, 2)),
                               np.array([True, False])])
def test_like_functions(a):
    got, want = jit(likes)(a), likes(a)
    assert got[0] == want[0]
    for g, w in zip(got[1:], want[1:]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def complex_into_real(n, z):
    return (np.full(n, z, dtype=np.uint8), np.full_like(np.zeros(n), z),
            np.full((n, 2), z, np.float32), np.full(n, z))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("z", [2 - 1j, -0.5 + 3j, 7.9 + 0j])
def test_full_of_a_complex_value_into_a_real_dtype_keeps_its_real_part(z):
    check(complex_into_real, 3, z)   # (found by the NumPy fuzzer, seed 2248)


def aranges(n):
    return np.arange(n), np.arange(2, n), np.arange(n, -3, -2), np.arange(0.5, n, 0.25)


def arange_float_dtype(n):
    return np.arange(n, dtype=np.float32)


@pytest.mark.parametrize("n", [-2, 0, 1, 10])
def test_arange(n):
    for got, want in zip(jit(aranges)(n), aranges(n)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    check(arange_float_dtype, n)


def complex_aranges(x):
    return np.arange(x), np.arange(x, 10), np.arange(1 + 3j, x, 0.5)


@pytest.mark.parametrize("x", [4 + 4j, 3j, 9 + 9j, -2 + 5j], ids=repr)
def test_arange_of_complex_bounds_is_numpys(x):
    """Its length is the smaller of the real and imaginary parts' (NumPy's rule)."""
    for got, want in zip(jit(complex_aranges)(x), complex_aranges(x)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def arange_zero_step(n):
    return np.arange(0, n, 0)


def test_arange_zero_step_raises():
    check(arange_zero_step, 3)
    with pytest.raises(ZeroDivisionError):
        jit(arange_zero_step)(3)


def linspaces(a, b, n):
    return np.linspace(a, b, n), np.linspace(a, b, n, endpoint=False), np.linspace(a, b)


@pytest.mark.parametrize("a, b, n", [(0.0, 1.0, 5), (1, 10, 10), (-3.5, 2.25, 1), (0, 1, 0),
                                     (2.0, 2.0, 4), (0.0, 1e-320, 3), (1e300, -1e300, 7)])
def test_linspace_bit_for_bit(a, b, n):
    for got, want in zip(jit(linspaces)(a, b, n), linspaces(a, b, n)):
        np.testing.assert_array_equal(got, want)


def eyes(n, m, k):
    return np.eye(n), np.eye(n, m), np.eye(n, m, k), np.eye(n, k=k, dtype=np.int32), \
        np.identity(n), np.identity(n, dtype=np.bool_)


@pytest.mark.parametrize("n, m, k", [(3, 3, 0), (3, 5, 1), (4, 2, -1), (0, 0, 0), (2, 2, 5)])
def test_eye_identity(n, m, k):
    for got, want in zip(jit(eyes)(n, m, k), eyes(n, m, k)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def copies(a):
    b = a.copy()
    c = np.copy(a)
    return b, c, a.astype(np.float32), a.astype(np.int64)


@pytest.mark.parametrize("a", [np.arange(6.0), np.arange(12.0).reshape(3, 4).T,
                               np.arange(24.0).reshape(2, 3, 4)[:, ::2, 1:], np.zeros(0),
                               np.array([-1.5, np.nan, np.inf, -0.0])[:3]])
def test_copy_and_astype_are_contiguous_copies(a):
    """a.copy() is C-contiguous; np.copy and astype keep a Fortran array Fortran (NumPy's
    order='K')."""
    got = jit(copies)(a)
    want = copies(a)
    for g, w in zip(got[:3], want[:3]):
        assert (g.flags.c_contiguous, g.flags.f_contiguous, g.dtype) == \
            (w.flags.c_contiguous, w.flags.f_contiguous, w.dtype)
        np.testing.assert_array_equal(g, w)
        assert not np.shares_memory(g, a)


def fill_method(a, v):
    a.fill(v)
    return a


def test_fill_method():
    check(fill_method, np.zeros((3, 2)), 2.5)
    check(fill_method, np.zeros(4, dtype=np.int32), 7)


def returns_views_of_new(n):
    a = np.arange(n)
    return a[2:], a[::2], a


def test_views_of_a_new_array_share_its_memory():
    before = allocation_stats()
    tail, even, whole = jit(returns_views_of_new)(10)
    assert allocation_stats().allocations == before.allocations + 1
    np.testing.assert_array_equal(tail, np.arange(2, 10))
    np.testing.assert_array_equal(even, np.arange(0, 10, 2))
    assert np.shares_memory(tail, whole) and np.shares_memory(even, whole)
    whole[3] = -1
    assert tail[1] == -1
    del whole, even
    assert allocation_stats().live == before.live + 1   # `tail` keeps the block alive
    del tail
    assert allocation_stats().live == before.live


def view_of_argument(a):
    tmp = np.zeros(3)
    return a[1:]


def test_view_of_an_argument_keeps_the_argument():
    a = np.arange(5.0)
    got = jit(view_of_argument)(a)
    assert np.shares_memory(got, a)
    np.testing.assert_array_equal(got, a[1:])


def make(n):
    return np.empty(n)


@pytest.mark.parametrize("n, error, message", [
    (-1, ValueError, "negative dimensions are not allowed"),
    (2 ** 62, ValueError, "array is too big"),
    (2 ** 60, ValueError, "array is too big"),
    (2 ** 59, MemoryError, "Unable to allocate")])
def test_bad_sizes(n, error, message):
    with pytest.raises(error, match=message):
        jit(make)(n)


def bad_dtype(n):
    return np.zeros(n, dtype="O")


def bad_shape(x):
    return np.zeros(x)


def test_bad_dtype_and_shape_are_typing_errors():
    with pytest.raises(TypingError, match="dtype"):
        jit(bad_dtype)(3)
    with pytest.raises(TypingError, match="shape"):
        jit(bad_shape)(1.5)


def from_literals(x):
    return (np.array([1, 2, 3]), np.array([[1.0, 2], [3, 4]]), np.array((x, 2 * x)),
            np.asarray([True, False]), np.array([1, 2], dtype=np.float32), np.array([]),
            np.array([[1], [2]], np.int8), np.array([x, 1j]), np.array(((x, -x), [x, x])))


def from_arrays(a):
    b = np.asarray(a)
    b[0] = 7  # asarray of an array is that array
    return np.array(a), np.array(a, dtype=np.float32), b, np.asarray(a, np.int8)


def test_array_and_asarray_of_literal_lists_and_tuples():
    check(from_literals, 1.5)
    check(from_literals, -0.0)


def test_array_and_asarray_of_arrays():
    check(from_arrays, np.arange(4.0))
    check(from_arrays, np.arange(12.0).reshape(3, 4)[:, ::2])


def ragged():
    return np.array([[1, 2], [3]])


def test_ragged_nested_lists_are_refused():
    from kiln.errors import TypingError
    with pytest.raises(TypingError, match="inhomogeneous"):
        jit(ragged)()


def from_built_lists(n):
    grid = np.array([[i * j for j in range(n)] for i in range(n)])
    rows = [[1.5, -2.0]]
    for i in range(n):
        rows.append([float(i), -float(i)])
    return grid, np.array(rows), np.asarray(rows, np.float32), np.array([[[i] for i in range(n)]])


def from_lists_of_arrays(a, b):
    return (np.array([a, b]), np.array((a, b)), np.array([a, a[::-1]], dtype=np.int64),
            np.array([[a], [b]]), np.array((np.arange(2), np.ones(2))))


def ragged_at_run_time(n):
    rows = [[1, 2]]
    rows.append([3] * n)
    return np.array(rows)


@pytest.mark.parametrize("n", [1, 4])
def test_array_of_lists_built_at_run_time(n):
    check(from_built_lists, n)


def test_array_of_an_empty_list_of_lists_keeps_its_type():
    """NumPy makes np.array([]) float64 and 1-d whatever the list was to hold; compiled
    code knows the type, so the dimensions and dtype are the list's (as in Numba)."""
    grid, _, _, column = jit(from_built_lists)(0)
    assert grid.shape == (0, 0) and grid.dtype == np.int64
    assert column.shape == (1, 0, 0) and column.dtype == np.int64


@pytest.mark.parametrize("a", [np.arange(3.0), np.array([np.nan, -np.inf, -0.0]),
                               np.arange(12.0).reshape(3, 4)[::-1, ::2], np.zeros((0, 2))])
def test_array_of_lists_and_tuples_of_arrays(a):
    check(from_lists_of_arrays, a, a * 2)


def test_array_of_ragged_run_time_lists_raises_numpys_error():
    assert ragged_at_run_time(2).shape == (2, 2) and jit(ragged_at_run_time)(2).shape == (2, 2)
    check(ragged_at_run_time, 3)   # ValueError on both sides
    check(from_lists_of_arrays, np.arange(3.0), np.arange(4.0))


def from_mixed_sequences(rows):
    return np.array(rows), np.array(rows, np.int8), np.asarray(rows, np.complex64)


@pytest.mark.parametrize("rows", [((1.0, 2.0), [2, 3]), [(), ()], ([1, 2, 3], (3.5, 4))],
                         ids=str)
def test_array_of_tuples_mixing_lists_tuples_and_empty_tuples(rows):
    """A tuple of a list and a tuple (or of lists of two item types) took only the first
    item's levels below it; empty tuples had no levels (Numba's test_numberctor: np.int8
    of [(), ()] is a (2, 0) array). Ragged ones raise NumPy's ValueError."""
    check(from_mixed_sequences, rows)


def dtype_objects(n):
    a = np.zeros(n, np.dtype("f4"))
    b = np.ones(n, dtype=np.dtype(np.int16))
    return (a, b, a.dtype == np.dtype("f4"), b.dtype == np.int16, a.dtype == np.dtype(float),
            a.dtype.itemsize, np.dtype(np.complex128).itemsize, b.dtype.itemsize)


@pytest.mark.parametrize("n", [0, 3])
def test_np_dtype_objects_as_dtype_arguments_and_constants(n):
    check(dtype_objects, n)


def asarray_of(x):
    return np.asarray(x)


def array_as_float32(x):
    return np.array(x, np.float32)


def test_asarray_of_a_number_is_zero_dimensional():
    for x in (1.5, -3, True, 2j, np.float32(1.25), np.int8(-7)):
        check(asarray_of, x)
        if not isinstance(x, complex):   # (NumPy's TypeError; kiln's at compile time)
            check(array_as_float32, x)

"""Arrays passed in from Python: indexing, views, assignment, attributes, iteration."""
import re

import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint64, np.uint32,
          np.uint8, np.bool_, np.complex128, np.complex64]


def sum_items(x):
    s = 0
    for i in range(len(x)):
        s += x[i]
    return s


def sum_iter(x):
    s = 0
    for v in x:
        s += v
    return s


def last_and_negative(x):
    return x[-1], x[-len(x)]


def matrix_sum(a):
    m, n = a.shape
    s = 0.0
    for i in range(m):
        for j in range(n):
            s += a[i, j] * (i + 1) - a[i][j]
    return s


def fill(x, value):
    for i in range(x.size):
        x[i] = value + i


def attributes(a):
    return a.shape, a.size, a.ndim, len(a), a.strides, a.itemsize, a.nbytes


def sum_3d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                s += a[i, j, k] * (i - j + k)
    return s


def row_sums(a, out):
    for i in range(a.shape[0]):
        row = a[i]
        s = 0.0
        for v in row:
            s += v
        out[i] = s


def slices(x):
    y = x[1:-1]
    z = x[::2]
    w = x[::-1]
    return len(y), len(z), w[0], z[-1]


def slice_sum(x, a, b, c):
    s = 0.0
    for v in x[a:b:c]:
        s += v
    return s


def column(a, j):
    s = 0.0
    for v in a[:, j]:
        s += v
    return s


def set_slice(x):
    x[2:5] = 7.0
    x[:2] = x[-2:]


def dtype_check(x):
    if x.dtype == np.float64:
        return 1
    return 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_by_index_and_iteration_all_dtypes(dtype):
    x = (np.arange(-3, 17) % 7).astype(dtype)
    check(sum_items, x)
    check(sum_iter, x)


def test_empty_array():
    check(sum_items, np.zeros(0, dtype=np.int64))
    check(sum_iter, np.zeros(0, dtype=np.int32))
    check(slice_sum, np.zeros(0), 0, 5, 1)


def test_nan_and_inf_values():
    check(sum_iter, np.array([1.0, np.inf, -np.inf]))
    check(sum_iter, np.array([1.0, np.nan]))


def test_negative_indices():
    check(last_and_negative, np.arange(5.0))


@pytest.mark.parametrize("order", ["C", "F"])
def test_2d_indexing_c_and_f(order):
    a = np.asarray(np.arange(12.0).reshape(3, 4), order=order)
    check(matrix_sum, a)


def test_non_contiguous_views():
    a = np.arange(60.0).reshape(6, 10)
    check(matrix_sum, a[::2, 1::3])
    check(sum_items, a[:, 3])
    check(sum_3d, np.arange(60.0).reshape(3, 4, 5)[:, ::2, ::-1])


def test_item_assignment_mutates_the_caller_array():
    check(fill, np.zeros(5), 2.5)
    check(fill, np.zeros(5, dtype=np.int32), 3)


def test_attributes():
    check(attributes, np.zeros((3, 4)))
    check(attributes, np.zeros((3, 4), dtype=np.int8)[:, ::2])


def test_row_views_and_iteration_over_rows():
    check(row_sums, np.arange(12.0).reshape(3, 4), np.zeros(3))


def test_slicing():
    x = np.arange(10.0)
    for args in [(1, 8, 1), (-3, 10, 2), (8, 1, -2), (0, 0, 1), (5, -20, -1)]:
        check(slice_sum, x, *args)


def test_column_view():
    check(column, np.arange(12.0).reshape(3, 4), 2)


def test_slice_assignment():
    check(set_slice, np.arange(10.0))


def test_dtype_comparison():
    check(dtype_check, np.zeros(2))
    check(dtype_check, np.zeros(2, dtype=np.int32))


def test_zero_step_slice_raises():
    check(slice_sum, np.arange(4.0), 0, 4, 0)


def test_read_only_array_refuses_writes():
    x = np.zeros(3)
    x.flags.writeable = False
    with pytest.raises(TypingError, match="read-only"):
        njit(fill)(x, 1.0)
    assert njit(sum_items)(x) == 0.0


def test_boundscheck_raises_index_error():
    def get(x, i):
        return x[i]
    with pytest.raises(IndexError):
        njit(boundscheck=True)(get)(np.zeros(3), 3)
    with pytest.raises(IndexError):
        njit(boundscheck=True)(get)(np.zeros(3), -4)
    assert njit(boundscheck=True)(get)(np.arange(3.0), -1) == 2.0


def test_return_input_array_and_views():
    def ident(x):
        return x

    def inner(x):
        return x[1:-1]
    x = np.arange(6.0)
    assert njit(ident)(x) is x
    v = njit(inner)(x)
    assert np.array_equal(v, x[1:-1])
    v[0] = 100.0
    assert x[1] == 100.0


GLOBAL_ARRAY = np.arange(12.0).reshape(3, 4)


def global_array_and_views():
    return GLOBAL_ARRAY, GLOBAL_ARRAY[1:], GLOBAL_ARRAY.T


def test_a_global_array_returned_is_that_array():
    whole, rows, transposed = njit(global_array_and_views)()
    assert whole is GLOBAL_ARRAY   # as in Python (was a TypeError: "return a copy")
    assert np.array_equal(rows, GLOBAL_ARRAY[1:]) and np.array_equal(transposed, GLOBAL_ARRAY.T)
    assert np.shares_memory(rows, GLOBAL_ARRAY)


def test_byteswapped_array_is_refused_clearly():
    x = np.arange(3.0).astype(">f8")
    with pytest.raises(TypeError, match="sum_items"):
        njit(sum_items)(x)


def zero_d(x):
    v = x[()]
    x[()] = v * 2
    return v, x.shape, x.size


def test_zero_dimensional_array():
    check(zero_d, np.array(5.0))
    check(zero_d, np.array(3, dtype=np.int8))


def test_zero_dimensional_array_does_not_iterate():
    with pytest.raises(TypeError, match="iteration over a 0-d array") as numpy_says:
        sum_iter(np.array(5.0))
    with pytest.raises(TypingError, match=numpy_says.value.args[0]):   # NumPy's words
        njit(sum_iter)(np.array(5.0))


def five_d(a):
    return a[1, 1, 1, 1, 1] + a[-1, 0, 0, 0, 0] + a[0, 1][1, 0, 1]


def test_five_dimensional_array():
    check(five_d, np.arange(32.0).reshape(2, 2, 2, 2, 2))
    check(five_d, np.arange(64.0).reshape(2, 2, 4, 2, 2)[:, :, ::2])


def nested_empty(a):
    s = 0.0
    for row in a:
        for v in row:
            s += v
    return s


def test_empty_along_either_axis():
    check(nested_empty, np.zeros((0, 3)))
    check(nested_empty, np.zeros((3, 0)))


def fill_4d(x, v):
    x[1:, :, ::2, :] = v


def copy_3d(x, y):
    x[:, 1:, :] = y


def test_slice_assignment_any_dimensions():
    check(fill_4d, np.zeros((3, 2, 4, 2)), 1.5)
    check(copy_3d, np.zeros((2, 3, 2)), np.arange(8.0).reshape(2, 2, 2))
    check(copy_3d, np.zeros((2, 3, 2)), np.arange(12.0).reshape(2, 3, 2))  # wrong shape


def copy_1d(x, y):
    x[1:3] = y


@pytest.mark.parametrize("fn, x, y, shapes", [
    (copy_3d, np.zeros((2, 3, 2)), np.arange(12.0).reshape(2, 3, 2), ("(2, 2, 2)", "(2, 3, 2)")),
    (copy_3d, np.zeros((2, 3, 2)), (1, 2, 3), ("(2, 2, 2)", "(3,)")),
    (copy_1d, np.zeros(5), np.ones(3), ("(2,)", "(3,)"))], ids=["3d", "tuple", "1d"])
def test_a_value_of_the_wrong_shape_names_both_shapes(fn, x, y, shapes):
    # NumPy's ValueError; kiln's words are Numba's, with the shapes NumPy's words give
    with pytest.raises(ValueError):
        fn(x.copy(), y)
    with pytest.raises(ValueError, match=re.escape(
            "cannot assign slice of shape {} from input of shape {}".format(*shapes))):
        njit(fn)(x, y)


def tuple_into_slices(a, m, n):
    a[0, 1:3] = (m, n)
    a[1:, :2] = ((n, 2.5), (m, True))
    a[2, :] = (m,)            # one item broadcasts, as NumPy's (1,)-shaped array
    return a


def test_tuple_assigned_to_a_slice_is_the_array_it_spells():
    check(tuple_into_slices, np.zeros((3, 3)), 4, 7)
    check(tuple_into_slices, np.zeros((3, 3), np.int32), -1, 2)   # 2.5 truncates
    check(copy_3d, np.zeros((2, 3, 2)), (1, 2, 3))                # the wrong shape: ValueError
    with pytest.raises(TypingError, match="does not cast complex to real"):
        njit(copy_3d)(np.zeros((2, 3, 2)), (1j, 2))
    with pytest.raises(TypingError, match="drops their imaginary parts"):   # NumPy warns
        njit(copy_3d)(np.zeros((2, 3, 2)), np.ones(2, np.complex64))


def ellipses(a, z):
    z[...] = 5.0
    b = a[..., 1]
    c = a[0, ...]
    a[..., 0] = -1.0
    a[1, ...] = a[0, ...] * 2
    return z[()], b, c, a[1, 2, ...], a[...].shape, a[None, ..., 0], a.copy()


def test_ellipsis_indexing_reads_and_writes_as_numpy():
    a = np.arange(12.0).reshape(3, 4)
    want = ellipses(a.copy(), np.array(3.0))
    got = njit(ellipses)(a.copy(), np.array(3.0))
    for w, g in zip(want, got):
        assert np.array_equal(w, g) and np.ndim(w) == np.ndim(g)   # a[1, 2, ...] is 0-d
    with pytest.raises(Exception, match="single ellipsis"):
        njit(lambda a: a[..., ...])(a)


def zero_d_indices(a, i, j):
    a[i, ...] = a[j, i] * 10
    a[j] += 1
    return a[i], a[i, j], a[j, 1:], a[i, None, ::-1]


def test_a_0d_integer_array_indexes_as_its_integer():
    """NumPy (and Numba) read a 0-d integer array in an index as the integer it holds."""
    a = np.arange(12).reshape(3, 4)
    for i, j in [(np.array(1), np.array(-1)), (np.array(2, np.uint16), np.array(0, np.int8))]:
        check(zero_d_indices, a, i, j)


def assign_slice(dst, src):
    dst[:] = src
    dst[0, ...] = src * 2   # an expression with more dimensions than the row
    return dst


def test_an_array_with_extra_leading_axes_of_length_1_assigns_as_numpy():
    """NumPy drops them (a (1, 3) array fills a row); another length is a ValueError."""
    for dst, src in [(np.zeros((2, 3)), np.arange(3.0).reshape(1, 3)),
                     (np.zeros((1, 4)), np.arange(4.0).reshape(1, 1, 4)),
                     (np.zeros((2, 3)), np.arange(6.0).reshape(2, 1, 3))]:
        check(assign_slice, dst, src)


def test_array_types_keep_their_hash_but_do_not_pickle_it():
    """An array type caches its hash (it keys every CUDA launch); the hash depends on
    identities in this process, so a pickled type (a typed list's, in cached code) must
    compute its own again."""
    import pickle

    from kiln import types
    a = types.Array(types.float64, 2, "C")
    assert hash(a) == hash(types.Array(types.float64, 2, "C"))
    state = pickle.loads(pickle.dumps(a))
    assert state == a and "_hash" not in state.__dict__ and hash(state) == hash(a)


def slice_objects(a, i, j):
    return (a[slice(i, j)], a[slice(j)], a[slice(None, None, -1)], a[slice(i, None, 2)],
            a[slice(-j, None)])


def slice_objects_2d(b, k):
    return b[slice(1, -1), slice(None, None, k)]


def test_slice_objects_made_in_compiled_code():
    """slice(...) in compiled code (issue 32), as the `a:b:c` syntax."""
    a = np.arange(10.0)
    for i, j in [(2, 7), (0, 0), (-3, 20), (5, 2)]:
        check(slice_objects, a, i, j)
    b = np.arange(20.0).reshape(4, 5)
    for k in (1, 2, -2):
        check(slice_objects_2d, b, k)
    check(slice_objects_2d, b, 0)     # ValueError: slice step cannot be zero


def index_by(a, s):
    return a[s], s


@pytest.mark.parametrize("s", [slice(1, 8, 2), slice(None, None, -1), slice(3, None),
                               slice(None), slice(-3, None), slice(2, 6), slice(8, 1, -3),
                               slice(0, 0), slice(-100, 100, 7)])
def test_a_slice_argument_indexes_and_comes_back(s):
    check(index_by, np.arange(10.0), s)


def test_a_stepless_specialization_is_not_given_a_step():
    """slice(2, 6) compiles for a step of 1; slice(2, 6, 2) must not run that code."""
    f = njit(index_by)
    assert np.array_equal(f(np.arange(10), slice(2, 6))[0], [2, 3, 4, 5])
    assert np.array_equal(f(np.arange(10), slice(2, 6, 2))[0], [2, 4])
    assert np.array_equal(f(np.arange(10), slice(2, 6))[0], [2, 3, 4, 5])
    # a step of 1 is step-less too (Numba's slice2_type), and comes back as given
    from kiln import typeof, types
    assert typeof(slice(2, 6, 1)) is typeof(slice(2, 6)) is types.slice2_type
    assert typeof(slice(2, 6, -1)) is types.slice3_type
    got, s = f(np.arange(10), slice(2, 6, 1))
    assert np.array_equal(got, [2, 3, 4, 5]) and s == slice(2, 6, 1) and len(f.signatures) == 2


def test_a_slice_of_floats_is_refused_clearly():
    with pytest.raises(TypeError, match="cannot pass a value of type 'slice'"):
        njit(index_by)(np.arange(3), slice(0.5, 2))


def slice_indices_of(s, n):
    return s.indices(n)


@pytest.mark.parametrize("s", [slice(1, 8, 2), slice(None, None, -1), slice(3, None),
                               slice(None), slice(-3, None), slice(8, 1, -3), slice(0, 0),
                               slice(-100, 100, 7), slice(None, 5, -2), slice(1, 2, 0)])
@pytest.mark.parametrize("n", [0, 7, 10])
def test_slice_indices_are_pythons(s, n):
    check(slice_indices_of, s, n)
    check(slice_indices_of, s, -1)      # ValueError, as Python's


def slice_bounds(s):
    return s.start, s.stop, s.step


def test_bounds_left_out_read_as_numbas():
    """Python reads a left-out bound as None; compiled code, as Numba, as the int that
    means it (docs/differences.md)."""
    big = 2 ** 63 - 1
    f = njit(slice_bounds)
    assert f(slice(None, None, None)) == (0, big, 1)
    assert f(slice(None, None, -2)) == (big, -big - 1, -2)
    assert f(slice(-1, 9, 12)) == (-1, 9, 12)


def zero_d_into_items(a, b, m):
    a[0] = b                 # a 0-d array into one item: its one value
    a[-1] = np.sum(a[:2])    # (a 0-d result of the array's dtype)
    m[1, 0] = b
    m[0, ...] = b            # into a row: broadcast
    m[..., 1] = m[..., 0]    # a 1-d view from a 1-d view
    return a, m


def ellipsis_item(arr):
    arr[..., 0] = arr[..., 1]   # both sides 0-d views of a 1-d array (Numba's issue 3225)
    return arr


def test_zero_d_arrays_assign_as_their_value():
    """`a[i] = b` of a 0-d array b, and `a[..., i] = ...` of a 1-d array (a 0-d view), were
    refused or failed inside kiln (Numba's test_fancy_indexing: test_setitem_0d,
    test_ellipsis_getsetitem); NumPy stores the one value, cast to the array's dtype."""
    check(zero_d_into_items, np.arange(3.0), np.array(7.5), np.zeros((2, 2)))
    check(zero_d_into_items, np.arange(3), np.array(2.5), np.zeros((2, 2), np.int8))
    check(ellipsis_item, np.arange(2))

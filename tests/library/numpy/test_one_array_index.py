"""Indexing with one integer array (of any dimensions) or 1-d boolean array among slices,
integers, `...` and None (`A[:, cols]`, `A[rows, 1]`, `R[R[:, 0] != R[:, 1]]`,
`A[..., 1, idx]`), in reads and writes, as Numba supports it; checked against NumPy on C,
non-contiguous and empty arrays (issue 32)."""
import numpy as np
import pytest

from helpers import check

A = np.arange(60.0).reshape(3, 4, 5)
LAYOUTS = {"C": A, "strided": np.arange(240.0).reshape(6, 8, 5)[::2, ::2, ::-1]}
ROWS, COLS = np.array([2, 0, -1, 0]), np.array([True, False, True, True])


def first_axis(a, i):
    return a[i]


def second_axis(a, i):
    return a[:, i]


def third_axis(a, i):
    return a[:, 1:, i]


def with_integer_after(a, i):
    return a[i, 1]


def with_integer_before(a, i):
    return a[1, i]


def integers_apart(a, i):      # NumPy puts the selected axis first
    return a[1, :, i]


def rows_where_columns_differ(r):
    return r[r[:, 0] != r[:, 1]]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("reader", [second_axis, third_axis, with_integer_after,
                                    with_integer_before, integers_apart, first_axis])
def test_reads(layout, reader):
    a = LAYOUTS[layout]
    sizes = {first_axis: 3, second_axis: 4, third_axis: 5, with_integer_after: 3,
             with_integer_before: 4, integers_apart: 5}
    size = sizes[reader]
    for index in [np.array([size - 1, 0, -1, 0]), np.array([], np.int64),
                  np.arange(size) % 2 == 0, np.zeros(size, bool)]:
        check(reader, a, index)
    check(reader, a, np.array([size]))                   # IndexError, as NumPy
    check(reader, a, np.ones(size + 1, bool))            # IndexError: wrong mask length


def test_rows_selected_by_a_mask_of_rows():
    check(rows_where_columns_differ, np.array([[1, 1], [2, 3], [4, 4], [5, 6]]))
    check(rows_where_columns_differ, np.zeros((0, 2)))


def set_second_axis(a, i, v):
    a[:, i] = v
    return a


def set_with_integer(a, i, v):
    a[i, 1] = v
    return a


def set_integers_apart(a, i, v):
    a[1, :, i] = v
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_writes(layout):
    a = LAYOUTS[layout]
    cols = np.array([3, 0, -1])
    check(set_second_axis, a.copy(), cols, 7.5)
    check(set_second_axis, a.copy(), cols, np.arange(15.0).reshape(3, 1, 5) * np.ones((1, 3, 1)))
    check(set_second_axis, a.copy(), cols, np.arange(5.0))            # broadcast
    check(set_second_axis, a.copy(), COLS, -1.0)
    check(set_second_axis, a.copy(), np.array([1, 1]), np.arange(30.0).reshape(3, 2, 5))
    check(set_with_integer, a.copy(), np.array([0, 2]), np.arange(10.0).reshape(2, 5))
    check(set_integers_apart, a.copy(), np.array([4, 0]), np.arange(8.0).reshape(2, 4))
    check(set_second_axis, a.copy(), cols, np.ones((3, 2, 5)))        # ValueError? NumPy's


def set_row_from_list(a, p, q):
    for i in range(a.shape[0]):
        a[i] = [p, q * i]
    return a


def test_a_row_set_from_a_list():
    check(set_row_from_list, np.zeros((3, 2)), 1.5, 2.5)
    check(set_row_from_list, np.zeros((2, 2), np.int32), 1, 2)


def get_item(a, index):
    return a[index]


def set_item(a, index, value):
    a[index] = value
    return a


GRID = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
PAIRS = np.array([[0, 1], [-1, 1], [1, 0]])


def _slow(*index):
    return pytest.param(index, marks=pytest.mark.slow)


@pytest.mark.parametrize("index", [
    _slow(Ellipsis, 1, np.array([0, 3, 2])), (PAIRS, 1, Ellipsis), (slice(None), None, PAIRS),
    _slow(None, np.array([1, 0]), slice(None), 2), _slow(1, Ellipsis, None, np.array([4, 0])),
    _slow(slice(1), PAIRS, Ellipsis, slice(None, None, -2)), _slow(0, slice(None), 1, PAIRS)])
def test_ellipsis_newaxis_and_index_arrays_of_several_dimensions(index):
    """The index tuple passed in (`...` and None as values); reads, then writes of the
    selection itself and of a row NumPy broadcasts (a number: test_writes)."""
    check(get_item, GRID, index)
    selected = GRID[index]
    check(set_item, np.zeros_like(GRID), index, selected * 2)
    check(set_item, np.zeros_like(GRID), index, selected[(0,) * (selected.ndim - 1)].copy())


def test_an_index_array_of_several_dimensions_alone():
    check(get_item, np.arange(10.0), PAIRS + 3)
    check(get_item, GRID[0], PAIRS[:, :1] % 3)
    check(get_item, GRID[0], np.array([[9]]))        # IndexError, as NumPy

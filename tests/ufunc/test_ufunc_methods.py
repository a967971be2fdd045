"""A @vectorize ufunc's methods called from compiled code (reduce, accumulate, reduceat,
outer, at), and NumPy's own ufuncs', checked against the same ufunc's methods in NumPy on
the same inputs. Each
specialization costs about half a second to compile, so the default run calls few and
the slow ones the rest of the grid (layouts, dtypes, axis forms)."""
import numpy as np
import pytest

from kiln import njit, vectorize
from kiln.errors import TypingError

add = vectorize(identity=0)(lambda a, b: a + b)            # lazy (a DUFunc), with identity
sub = vectorize(["int64(int64, int64)", "float64(float64, float64)"])(
    lambda a, b: a - b)                                    # eager, not reorderable
low = vectorize(identity="reorderable")(lambda a, b: a if a < b else b)
mixed = vectorize(["float64(float64, int64)"], identity=0)(lambda a, b: a + b)
neg = vectorize()(lambda a: -a)


@njit
def add_reduce(a, axis, initial):
    return add.reduce(a, axis=axis, initial=initial)


@njit
def sub_reduce(a, axis):
    return sub.reduce(a, axis=axis)


@njit
def add_at(a, indices, b):
    add.at(a, indices, b)


@njit
def add_reduceat(a, indices, axis, out):
    return add.reduceat(a, indices, axis=axis, out=out)


def _same(got, expected):
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def _check_at(method, ufunc, a, *args):
    expected, got = a.copy(), a.copy()
    ufunc.at(expected, *args)
    method(got, *args)
    _same(got, expected)


def test_reduce_over_axes_as_numpy():
    a = np.arange(24).reshape(2, 3, 4)
    for axes in ((0, 2), (-1, 1), (2, 0)):     # several axes, in any order and sign
        _same(add_reduce(a, axes, None), add.reduce(a, axis=axes))
    empty = np.zeros((0, 3, 4), np.int64)      # nothing to reduce: the identity
    _same(add_reduce(empty, (0, 2), None), add.reduce(empty, axis=(0, 2)))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        add_reduce(a, (1, -2), None)
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds"):
        add_reduce(a, (0, 3), None)


def test_reduce_without_identity_as_numpy():
    a = np.arange(24).reshape(2, 3, 4)[:, ::-1]
    for axis in (0, 1, -1):                     # in order along the axis
        _same(sub_reduce(a, axis), sub.reduce(a, axis=axis))
    assert sub_reduce(np.zeros((0, 2, 2), np.int64), 1).shape == (0, 2)
    with pytest.raises(ValueError, match="zero-size array to reduction operation"):
        sub_reduce(np.zeros((2, 0, 2), np.int64), 1)
    with pytest.raises(TypingError, match="not reorderable, so at most one axis"):
        sub_reduce(a, (0, 1))
    with pytest.raises(TypingError, match="must be array-like"):
        sub_reduce("ab", 0)
    with pytest.raises(TypingError, match="take numbers, not timedelta64"):   # (its unit)
        njit(lambda a: np.add.reduce(a, 0))(np.arange(3).astype("m8[s]"))


def test_at_applies_each_repeated_index():
    a = np.arange(10)
    _check_at(add_at, add, a, np.array([2, 5, 2, -1, -1]), np.array(3))
    _check_at(add_at, add, a, np.array([1, 1, 4]), np.array([10, 20, 30]))
    with pytest.raises(ValueError, match="could not be broadcast"):
        add_at(a, np.array([0, 1]), np.array([1, 2, 3]))
    with pytest.raises(IndexError, match="index -11 is out of bounds for axis 0 with size 10"):
        add_at(a, np.array([0, -11]), np.array(1))
    with pytest.raises(TypingError, match="second operand needed"):
        njit(lambda a, i: add.at(a, i))(a, np.array([0]))


def test_reduceat_as_numpy():
    x = np.arange(8)
    for idx in (np.array([0, 4, 1, 5, 2, 6, 3, 7]), np.array([5]), np.array([], np.int64)):
        _same(add_reduceat(x, idx, 0, None), np.add.reduceat(x, idx))
    with pytest.raises(IndexError, match="index 8 out-of-bounds in"):
        add_reduceat(x, np.array([0, 8]), 0, None)
    with pytest.raises(TypingError, match="only supported for binary functions"):
        njit(lambda a: neg.reduceat(a, [0]))(x)


def test_numpy_s_own_ufuncs_methods():
    @njit
    def methods(a, x, i, b):
        np.add.at(x, (i,), b)         # (a tuple: the positions by NumPy's indexing)
        return (np.add.reduce(a, 0), np.maximum.reduce(a, None), np.subtract.reduce(a, 1),
                np.maximum.accumulate(a, 1), np.multiply.outer(a[0], a[1]),
                np.add.reduce(i, 0), np.subtract.reduceat(i, np.array([0, 2])))

    rng = np.random.default_rng(0)
    a, i = rng.random((40, 3)), np.array([3, 1, 3, 0], np.int8)
    a[5, 1] = -0.0
    x, expected_x = np.zeros(4, np.float32), np.zeros(4, np.float32)
    got = methods(a, x, i, np.array([1e-9, 1.0, 2.0, 3.0]))
    np.add.at(expected_x, (i,), np.array([1e-9, 1.0, 2.0, 3.0]))
    _same(x, expected_x)
    expected = (np.add.reduce(a, 0), np.maximum.reduce(a, None), np.subtract.reduce(a, 1),
                np.maximum.accumulate(a, 1), np.multiply.outer(a[0], a[1]),
                np.add.reduce(i, 0), np.subtract.reduceat(i, [0, 2]))
    for g, e in zip(got, expected):     # pairwise float sums bit for bit, int8 sums in int64
        _same(g, e)
    with pytest.raises(TypingError, match="reduces floats only as np.sum does"):
        njit(lambda a: np.add.reduce(a, (0, 1)))(a)


# ---- the rest of the grid ------------------------------------------------------------------

@pytest.mark.slow
def test_reduce_axis_forms_and_layouts():
    a = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    for x in (a, a[:, ::2, ::-1], np.asfortranarray(a)):
        for axis in (0, -1, (0, 2), None, ()):
            _same(add_reduce(x, axis, None), add.reduce(x, axis=axis))
    _same(add_reduce(a, (2, 0), 7), add.reduce(a, axis=(2, 0), initial=7))
    _same(sub_reduce(np.arange(5.0), 0), sub.reduce(np.arange(5.0), axis=0))


@pytest.mark.slow
def test_reduce_starts_from_the_identity_or_the_first_item():
    x = np.array([-0.0, -0.0])
    _same(add_reduce(x, 0, None), add.reduce(x))        # 0.0 + -0.0: NumPy's identity
    _same(add_reduce(np.zeros((0, 3)), 0, None), add.reduce(np.zeros((0, 3)), axis=0))
    _same(add_reduce(np.zeros((3, 0)), 1, 2.5), add.reduce(np.zeros((3, 0)), axis=1,
                                                           initial=2.5))


@pytest.mark.slow
def test_reduce_of_a_0d_array_reduces_its_item():
    for axis in (0, -1, None, ()):
        _same(add_reduce(np.array(-0.0), axis, None), add.reduce(np.array(-0.0), axis=axis))
    _same(add_reduce(np.array(-0.0), 0, 2.0), add.reduce(np.array(-0.0), axis=0, initial=2.0))
    with pytest.raises(TypingError, match="out of bounds for array of dimension 0"):
        add_reduce(np.array(1.0), (0,), None)


@pytest.mark.slow
def test_reduce_dtype_and_mixed_loops():
    @njit
    def mixed_reduce(a):
        return mixed.reduce(a, axis=0, dtype=np.float64)

    @njit
    def low_reduce(a, axis):
        return low.reduce(a, axis=axis)

    a = np.arange(12).reshape(3, 4)
    _same(mixed_reduce(a), mixed.reduce(a, axis=0, dtype=np.float64))
    b = np.ones((2, 3, 4))
    b[1, 0, 2] = -5
    _same(low_reduce(b, (0, 2)), low.reduce(b, axis=(0, 2)))   # reorderable, no identity
    with pytest.raises(ValueError, match="zero-size array"):
        low_reduce(np.zeros((2, 0, 1)), (1, 2))


@pytest.mark.slow
def test_reduceat_along_axes_and_into_out():
    m = np.linspace(0, 15, 16).reshape(4, 4)
    for axis in (0, 1, -1):
        _same(add_reduceat(m, [0, 3, 1, 2, 0], axis, None),
              np.add.reduceat(m, [0, 3, 1, 2, 0], axis=axis))
    got, expected = np.arange(4), np.arange(4)   # out overlapping the array: as if not
    add_reduceat(got, np.array([0, 3, 1, 2]), 0, got)
    np.add.reduceat(expected, [0, 3, 1, 2], out=expected)
    _same(got, expected)
    with pytest.raises(ValueError):
        add_reduceat(np.arange(5), np.array([0, 3]), 0, np.zeros(3, np.int64))
    got, expected = np.zeros(2), np.zeros(2)     # summed in out's dtype, as NumPy does
    add_reduceat(np.arange(5), np.array([0, 3]), 0, got)
    add.reduceat(np.arange(5), [0, 3], out=expected)
    _same(got, expected)


@pytest.mark.slow
def test_at_index_forms_casts_and_views():
    @njit
    def neg_at(a, indices):
        neg.at(a, indices)

    a = np.arange(10)
    _check_at(add_at, add, a, [2, 5, 2], 1)
    _check_at(add_at, add, a, np.array([1, 2, 3]), 2.7)   # float sums cast back to int
    _check_at(add_at, add, np.zeros(1), np.zeros(5, np.uint8), np.arange(5.0))
    _check_at(add_at, add, a, a % 2 == 0, 5)
    m = np.arange(9).reshape(3, 3)
    _check_at(add_at, add, m, (0, np.array([1, 2, 1])), np.array([7, 8, 9]))
    base = np.arange(12).reshape(3, 4)
    add_at(base[:, ::2], (np.array([0, 2, 0]), 1), 10)
    expected = np.arange(12).reshape(3, 4)
    np.add.at(expected[:, ::2], (np.array([0, 2, 0]), 1), 10)
    _same(base, expected)
    _check_at(neg_at, neg, np.arange(5, dtype=np.int32), np.array([0, 3, 3]))


@pytest.mark.slow
def test_at_with_slices_in_the_index():
    m = np.arange(9).reshape(3, 3)
    _check_at(add_at, add, m, (slice(None), np.array([1, 2, 1])), np.array([100, 200, 300]))
    _check_at(add_at, add, m, (slice(None), np.array([-1, 0])), np.array([[1], [2], [3]]))


@pytest.mark.slow
def test_accumulate_and_outer():
    @njit
    def accumulate_outer(a, axis, b):
        return sub.accumulate(a, axis=axis), sub.outer(a, b)

    a, b = np.arange(12).reshape(3, 4)[:, ::-1], np.arange(3)
    for axis in (0, -1):
        got_acc, got_outer = accumulate_outer(a, axis, b)
        _same(got_acc, sub.accumulate(a, axis=axis))
        _same(got_outer, sub.outer(a, b))
    _same(accumulate_outer(a[:, :0], 1, b)[0], sub.accumulate(a[:, :0], axis=1))


@pytest.mark.slow
def test_reduce_into_out_reduces_in_its_dtype():
    @njit
    def into(a, axis, out):
        return add.reduce(a, axis=axis, out=out)

    a = np.array([[2**62, 2], [2**62, 3]])
    got_out, expected_out = np.zeros(2, np.int64), np.zeros(2, np.int64)
    assert into(a, 0, got_out) is got_out
    add.reduce(a, axis=0, out=expected_out)
    _same(got_out, expected_out)
    with pytest.raises(ValueError, match="wrong shape"):
        into(a, 1, np.zeros(3, np.int64))
    np_into = njit(lambda a, out: np.multiply.reduce(a, 0, out=out))   # in float64
    _same(np_into(a[:, 0], np.zeros(())), np.multiply.reduce(a[:, 0], 0, out=np.zeros(())))

"""Property-based tests of array indexing and views against NumPy: random shapes, dtypes,
layouts and slices (negative, reversed, out of range, empty)."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import jit

bounds = st.one_of(st.none(), st.integers(-8, 8))
steps = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
slices = st.builds(slice, bounds, bounds, steps)
SETTINGS = settings(max_examples=150, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def total_1d(x, a, b, c):
    s = 0.0
    for v in x[a:b:c]:
        s += v
    return s


def total_2d(x, a, b, c, d, e, f):
    view = x[a:b:c, d:e:f]
    s = 0.0
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            s += view[i, j] * (i + 1) + j
    return s, view.shape


def element(x, i, j):
    return x[i, j], x[i][j], x[-1 - i, -1 - j]


def assign_slice(x, a, b, c, value):
    x[a:b:c] = value


def _args(s):
    return s.start, s.stop, s.step


@SETTINGS
@given(st.integers(0, 9), slices, st.sampled_from([np.float64, np.int32, np.uint8]))
def test_1d_slices(n, s, dtype):
    x = (np.arange(n) * 3 - 7).astype(dtype)
    got = jit(total_1d)(x, *_args(s))
    assert got == float(x[s].astype(np.float64).sum())


@settings(SETTINGS, max_examples=60)   # each example is likely a new specialization (None or int
# bounds and steps, three layouts): 60 of them compile most of what 150 did, at 40% of the cost
@given(st.integers(1, 6), st.integers(1, 6), slices, slices, st.booleans(), st.booleans())
def test_2d_slices_of_any_layout(m, n, s0, s1, fortran, reverse):
    x = np.arange(m * n, dtype=np.float64).reshape(m, n)
    if fortran:
        x = np.asfortranarray(x)
    if reverse:
        x = x[::-1, ::-1]
    got, shape = jit(total_2d)(x, *_args(s0), *_args(s1))
    view = x[s0, s1]
    expected = sum(view[i, j] * (i + 1) + j for i in range(view.shape[0])
                   for j in range(view.shape[1]))
    assert shape == view.shape
    assert got == expected


@SETTINGS
@given(st.integers(1, 5), st.integers(1, 5), st.data())
def test_element_access_with_negative_indices(m, n, data):
    x = np.random.default_rng(0).random((m, n))[:, ::-1]
    i, j = data.draw(st.integers(0, m - 1)), data.draw(st.integers(0, n - 1))
    assert jit(element)(x, i, j) == (x[i, j], x[i][j], x[-1 - i, -1 - j])


@SETTINGS
@given(st.integers(0, 9), slices, st.floats(-5, 5, allow_nan=False))
def test_slice_assignment(n, s, value):
    x, y = np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64)
    jit(assign_slice)(x, *_args(s), value)
    y[s] = value
    assert np.array_equal(x, y)

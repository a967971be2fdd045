"""Reductions along an axis and new axes (`None`), against NumPy: every axis of 1- to 3-d
arrays, negative axes, empty axes, non-contiguous inputs, several dtypes."""
import numpy as np
import pytest

from helpers import check, slow_except

RNG = np.random.default_rng(3)


def sum_along(a, k):
    return np.sum(a, axis=k)


def mean_along(a, k):
    return a.mean(axis=k)


def prod_along(a, k):
    return np.prod(a, k)


def max_along(a, k):
    return a.max(axis=k)


def min_along(a, k):
    return np.min(a, axis=k)


def argmax_along(a, k):
    return np.argmax(a, k)


def argmin_along(a, k):
    return a.argmin(axis=k)


def any_along(a, k):
    return np.any(a, axis=k), (a > 5).any(k)


def all_along(a, k):
    return a.all(axis=k), np.all(a > 1, k)


def var_along(a, k):
    return np.var(a, axis=k), a.var(k, ddof=1)


def std_along(a, k):
    return a.std(axis=k), np.std(a, k, ddof=2)


def sum_axis_none(a):
    return a.sum(axis=None)


SHAPES = [(5,), (3, 4), (2, 3, 4), (0, 3), (3, 0), (2, 1, 300)]
CASES = [(sum_along, np.float64), (sum_along, np.float32), (sum_along, np.int8),
         (mean_along, np.float64), (mean_along, np.int32), (prod_along, np.int32),
         (max_along, np.float64), (min_along, np.bool_),
         (argmax_along, np.float64), (argmax_along, np.int16), (argmin_along, np.float32),
         (argmin_along, np.bool_), (any_along, np.float64), (any_along, np.int8),
         (all_along, np.float32), (all_along, np.bool_), (var_along, np.float64),
         (var_along, np.float32), (var_along, np.int64), (std_along, np.float64),
         (std_along, np.int8)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's var of too few items
@pytest.mark.parametrize("pyfunc, dtype", slow_except(   # one dtype of each by default
    CASES, *{case[0]: case for case in reversed(CASES)
             if case[0] not in (var_along, std_along)}.values(),
    (var_along, np.float32), (std_along, np.int8), rows=True))
def test_every_axis(pyfunc, dtype):
    for shape in SHAPES:
        a = (RNG.random(shape) * 10).astype(dtype)
        for k in range(-len(shape), len(shape)):
            with np.errstate(all="ignore"):
                check(pyfunc, a, k)
    a = (RNG.random((4, 6)) * 10).astype(dtype)[:, ::-2]  # non-contiguous
    check(pyfunc, a, 0)
    check(pyfunc, a, 1)


@pytest.mark.parametrize("pyfunc", [sum_along, max_along])
def test_axis_out_of_bounds_is_numpys_axis_error(pyfunc):
    a = RNG.random((2, 3))
    check(pyfunc, a, 2)
    check(pyfunc, a, -3)
    with pytest.raises(np.exceptions.AxisError):
        from kiln import njit
        njit(pyfunc)(a, 5)


def test_nan_and_signed_zero_along_an_axis():
    a = np.array([[np.nan, 1.0, -0.0], [2.0, np.nan, -0.0], [np.inf, -np.inf, 0.0]])
    for k in (0, 1):
        check(sum_along, a, k)
        check(max_along, a, k)
        check(min_along, a, k)
        check(argmax_along, a, k)
        check(argmin_along, a, k)
        check(any_along, a, k)
        check(var_along, a, k)
    check(sum_axis_none, a)
    zeros = np.full((3, 20), -0.0)   # rows of 8 or more: NumPy's pairwise sum plus +0.0
    for k in (0, 1):
        check(sum_along, zeros, k)
    check(fused_row_sums, zeros)


def fused_row_sums(a):
    return (a * 2.0).sum(-1), np.sum(a * 2.0)


def new_axes(a):
    return a[None], a[:, None], a[None, 1:], a[None, :, None].shape


def outer_difference(a, b):
    return a[:, None] - b[None, :]


def pairwise_distances(X):
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def test_new_axes():
    check(new_axes, np.arange(5.0))
    check(outer_difference, RNG.random(4), RNG.random(3))
    check(pairwise_distances, RNG.random((20, 3)))

"""Array expressions computed in one loop (fusion), against NumPy's unfused results: the
same dtypes and bits, the same errors, overlapping writes read first, nothing leaked."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from helpers import check
from kiln import njit

RNG = np.random.default_rng(7)
# NumPy's SIMD np.exp may differ from the C library's exp (which kiln calls) in the last
# bit (NumPy 2.4 does, in about one value in twenty; README, differences on purpose)
EXP_RTOL = 1e-14
SPECIALS = np.array([1.5, -2.0, np.nan, np.inf, -0.0, 0.0, 5e-324, -np.inf, 3.0, 1e308])


def hypot_tree(a, b):
    return np.sqrt(a * a + b * b)


def mixed_dtypes(a, i, s):
    return (a + i) * s - i // 3


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def broadcast_tree(col, row):
    return (col - row) ** 2 + col * 0.5


def comparison_tree(a, b):
    return (a < b) | (a != a)


def stable_logistic(x):
    return np.where(x >= 0, 1.0 / (1.0 + np.exp(-x)), np.exp(x) / (1.0 + np.exp(x)))


def choices(c, x, y):
    return np.where(c, x, y), np.where(x > 0.5, x, 0), np.where(c, 1, 2.5), np.where(x, y, x)


def stencil(u):
    v = u.copy()
    v[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    return v


def shift_in_place(a):
    a[1:] = a[:-1] * 2.0 + a[1:]
    return a


def shift_back(a):
    a[:-1] = a[1:] - a[:-1] * 0.5
    return a


def accumulate(a, b):
    a += b * 2.0 - 1.0
    return a


def accumulate_overlapping(a):
    a[1:] += a[:-1] * 3.0
    return a


def into_int_slice(out, a):
    out[::2] = a * 3 + 1
    return out


@pytest.mark.parametrize("a, b", [
    (RNG.random(1000), RNG.random(1000)),
    (SPECIALS, SPECIALS[::-1].copy()),
    (RNG.random(11)[::2], RNG.random(12)[1::2]),        # non-contiguous
    (np.zeros(0), np.zeros(0)),
    (RNG.random((3, 4)).astype(np.float32), np.float32(2.5)),
])
def test_elementwise_trees(a, b):
    check(hypot_tree, a, b)
    check(comparison_tree, a, b)


def test_where_chooses_with_numpys_result_dtype():
    check(stable_logistic, RNG.normal(size=200) * 30, rtol=EXP_RTOL)
    check(stable_logistic, SPECIALS, rtol=EXP_RTOL)
    c = RNG.random(10) > 0.5
    check(choices, c, RNG.random(10), np.arange(10, dtype=np.int32))
    check(choices, c[:, None], SPECIALS[:10].astype(np.float32), np.float32(2))


def test_each_operation_keeps_its_dtype():
    a = RNG.random(50).astype(np.float32)
    i = np.arange(50, dtype=np.int8)
    check(mixed_dtypes, a, i, 3)
    check(mixed_dtypes, a, i, 2.5)
    check(mixed_dtypes, i, i, np.int16(7))


def test_logistic_and_specials():
    check(logistic, SPECIALS, rtol=EXP_RTOL)
    check(logistic, RNG.normal(size=(20, 30)) * 50, rtol=EXP_RTOL)


def test_broadcasting_trees():
    check(broadcast_tree, RNG.random((6, 1)), RNG.random(5))
    check(broadcast_tree, RNG.random((6, 1)), RNG.random((1, 5)).T.copy().T)


def test_broadcast_error_inside_a_tree_names_numpy_words():
    with pytest.raises(ValueError, match="could not be broadcast"):
        njit(broadcast_tree)(RNG.random((6, 2)), RNG.random(5))


def test_stencil_written_into_a_slice():
    check(stencil, RNG.random((40, 50)))
    check(stencil, RNG.random((3, 3)))
    check(stencil, RNG.random((60, 50))[::2, ::-1])


@pytest.mark.parametrize("pyfunc", [shift_in_place, shift_back, accumulate_overlapping])
def test_overlapping_targets_are_read_first(pyfunc):
    check(pyfunc, np.arange(20.0))
    check(pyfunc, RNG.random(101))


def test_in_place_with_an_expression():
    check(accumulate, RNG.random(30), RNG.random(30))
    check(accumulate, RNG.random((4, 5)), RNG.random(5))


def test_expression_into_a_slice_of_another_dtype():
    check(into_int_slice, np.zeros(10, np.int64), np.arange(5, dtype=np.int32))


def test_inspect_fusion_says_what_was_fused():
    f = njit(stencil)
    f(RNG.random((5, 5)))
    (lines,) = f.inspect_fusion().values()
    assert len(lines) == 1 and lines[0].startswith("stencil, line ")
    assert "5 elementwise operation(s) on 5 array operand(s) fused into its loop" in lines[0]


def test_kiln_dump_fusion_prints_it(tmp_path):
    code = textwrap.dedent("""
        import numpy as np
        from kiln import njit

        @njit
        def f(a, b):
            return np.sqrt(a * a + b * b)

        print(f(np.ones(3), np.ones(3)).sum())
    """)
    script = tmp_path / "fused.py"
    script.write_text(code)
    env = dict(os.environ, KILN_DUMP="fusion")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "---- kiln fusion ----" in done.stderr
    assert "np.sqrt(a * a + b * b): 3 elementwise operation(s) on 4 array operand(s)" \
        in done.stderr


def dot_by_sum(a, b):
    return np.sum(a * b)


def mean_of_difference(a, b):
    return (a - b).mean()


def sum_of_broadcast(col, row):
    return ((col[:, None] - row) ** 2).sum()


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 1000, 100_003])
def test_sum_of_an_expression_is_numpys_pairwise_sum(n):
    a, b = RNG.normal(size=n), RNG.normal(size=n)
    check(dot_by_sum, a, b)
    check(dot_by_sum, a.astype(np.float32), b.astype(np.float32))
    check(mean_of_difference, a, b)


def test_sum_of_an_expression_with_specials_and_strides():
    check(dot_by_sum, SPECIALS, SPECIALS[::-1].copy())
    check(dot_by_sum, RNG.random(301)[::3], RNG.random(101))
    check(sum_of_broadcast, RNG.random(30), RNG.random(20))


def test_fused_sum_is_reported():
    f = njit(dot_by_sum)
    f(np.ones(3), np.ones(3))
    (lines,) = f.inspect_fusion().values()
    assert "np.sum(a * b): 1 elementwise operation(s) on 2 array operand(s)" in lines[0]


def distances(X):
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))


def norms_by_row(X, k):
    return np.sqrt(np.sum(X ** 2, axis=k)), (X * 2.0).sum(axis=k)


@pytest.mark.parametrize("shape", [(20, 3), (5, 8), (4, 130), (0, 3), (3, 0)])
def test_sum_along_the_last_axis_of_an_expression(shape):
    X = RNG.normal(size=shape)
    check(distances, X)
    for k in (-1, 0, 1, 2):  # every axis (2 is an AxisError)
        check(norms_by_row, X, k)
    check(norms_by_row, X[:, ::-1], -1)


def test_sum_along_an_axis_is_reported_as_fused():
    f = njit(distances)
    f(np.ones((2, 3)))
    (lines,) = f.inspect_fusion().values()
    assert ".sum(-1): 2 elementwise operation(s) on 2 array operand(s)" in lines[0]


def folds(a, b):
    return (np.max(np.abs(a - b)), (a * 2).min(), np.any(a > 0.5), (a < 2).all(),
            np.amax(a + b), np.min(a - 1))


@pytest.mark.parametrize("a, b", [
    (RNG.random(1000), RNG.random(1000)), (SPECIALS, SPECIALS[::-1].copy()),
    (RNG.random(1000)[::2], RNG.random(500)), (np.arange(10), np.arange(10)[::-1].copy()),
    (RNG.random((10, 100)), RNG.random(100)), (np.zeros(0), np.zeros(0)),  # ValueError
    (np.array([3, -7, 1], np.int8), np.array([1, 2, 3], np.uint8)),
    (np.where(np.arange(1000) == 700, np.nan, RNG.random(1000)), RNG.random(1000)),
    (np.where(np.arange(1001) % 500 == 7, -np.inf, 1.0), np.full(1001, 0.5)),
    (np.linspace(-1, 1, 1001), np.linspace(-1, 1, 1001)),   # a zero extreme: its sign
])
def test_min_max_any_all_of_an_expression(a, b):
    # float min/max fold with SIMD minnum/maxnum and find the first NaN in a second pass
    check(folds, a, b)

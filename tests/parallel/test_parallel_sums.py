"""Float sums and means in parallel=True functions are split across the threads along
NumPy's own pairwise recursion, so they equal NumPy's results bit for bit."""
import re

import numpy as np
import pytest

import kiln
from kiln import njit
from kiln.library.pairwise import SPLIT_ITEMS


@njit(parallel=True)
def total(a):
    return a.sum()


@njit(parallel=True)
def average(a):
    return np.mean(a)


@njit(parallel=True)
def total_of_view(a):
    return np.sum(a[::3])


LENGTHS = [0, 1, 7, 129, SPLIT_ITEMS - 1, SPLIT_ITEMS, SPLIT_ITEMS + 1, 100_003, 1 << 20,
           3_000_001]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_equal_to_numpy_bit_for_bit(n, dtype):
    a = (np.random.default_rng(n).standard_normal(n) * 1e3).astype(dtype)
    assert total(a) == np.sum(a)
    assert np.array_equal(np.asarray(average(a)), np.asarray(np.mean(a)), equal_nan=True)
    assert total_of_view(a) == np.sum(a[::3])


def test_split_only_in_parallel_functions():
    serial = njit(lambda a: a.sum())
    a = np.ones(10)
    assert total(a) == serial(a) == 10.0
    # the chunk function of the split (LLVM's own block names may contain ".split." too)
    chunk = re.compile(r'@"[^"]*\.split\.\d+\.chunk"')
    assert any(chunk.search(text) for text in total.inspect_llvm().values())
    assert not any(chunk.search(text) for text in serial.inspect_llvm().values())


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_same_for_every_thread_count(threads):
    a = np.random.default_rng(5).standard_normal(500_000)
    before = kiln.get_num_threads()
    kiln.set_num_threads(min(threads, before))
    try:
        assert total(a) == np.sum(a)
    finally:
        kiln.set_num_threads(before)


def test_special_values_and_shapes():
    a = np.random.default_rng(1).standard_normal((700, 300))
    a[17, 3] = np.inf
    assert total(a) == np.sum(a) == np.inf
    a[400, 2] = -np.inf
    assert np.isnan(total(a)) and np.isnan(np.sum(a))
    b = np.random.default_rng(2).standard_normal((300, 700))
    assert total(b.T) == np.sum(b.T) and total(b[:, 1:]) == np.sum(b[:, 1:])
    c = np.arange(SPLIT_ITEMS * 2, dtype=np.complex128) * (1 + 2j)
    assert total(c) == np.sum(c)   # complex sums stay on one thread, still NumPy's


@njit(parallel=True)
def total_of_expression(a, b):
    return np.sum(a * b + 1.0)


@njit(parallel=True)
def mean_of_expression(a, b):
    return (np.sqrt(np.abs(a)) - b).mean()


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_expression_sums_split_and_equal_numpy(n, dtype):
    # the expression is summed where it is computed, its pairwise recursion cut into the
    # same subtrees, so the result is NumPy's sum of the temporary, bit for bit
    rng = np.random.default_rng(n)
    a, b = (rng.standard_normal((2, n)) * 1e3).astype(dtype)
    if n > 5:
        a[3], b[4] = np.inf, np.nan if n % 2 else -np.inf
    assert same_float(total_of_expression(a, b), np.sum(a * b + 1.0))
    if n:
        assert same_float(mean_of_expression(a, b), (np.sqrt(np.abs(a)) - b).mean())


def same_float(got, want):
    return got == want or (np.isnan(got) and np.isnan(want))


def test_fused_expression_sum_is_split():
    a = np.ones(SPLIT_ITEMS)
    assert total_of_expression(a, a) == 2.0 * SPLIT_ITEMS
    chunk = re.compile(r'@"[^"]*\.split\.\d+\.chunk"')
    assert any(chunk.search(text) for text in total_of_expression.inspect_llvm().values())


@njit(parallel=True)
def folds_of_expressions(a, b):
    return np.max(np.abs(a - b)), (a * b).min(), np.any(a > b), np.all(a + b)


@pytest.mark.parametrize("n", LENGTHS[1:])
@pytest.mark.parametrize("planted", [None, "nan", "inf", "equal"])
def test_fused_expression_folds_split_and_equal_numpy(n, planted):
    # min/max/any/all of an expression are folded over equal ranges on the threads and
    # joined in order (the first NaN, or the first of equal values, wins), as serially
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal((2, n))
    if planted == "nan":
        a[n * 2 // 3] = np.nan
    elif planted == "inf":
        a[-1], b[0] = np.inf, -np.inf
    elif planted == "equal":
        a[:] = 2.0
        b[:] = 1.0
    want = (np.max(np.abs(a - b)), (a * b).min(), np.any(a > b), np.all(a + b))
    got = folds_of_expressions(a, b)
    assert all(same_float(g, w) for g, w in zip(got[:2], want[:2])), (got, want)
    assert got[2:] == want[2:]


def test_fused_fold_of_nothing_raises_as_numpy():
    with pytest.raises(ValueError, match="zero-size array"):
        folds_of_expressions(np.zeros(0), np.zeros(0))

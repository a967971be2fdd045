"""Whole-array reductions other than the float sum, split across the threads in
parallel=True functions (library/split.py): each against NumPy bit for bit on short and
long arrays, NaN, infinities, signed zeros, ties, empty arrays, integer wrap-around, and
several thread counts."""
import re
import warnings

import numpy as np
import pytest

import kiln
from helpers import same, slow_except
from kiln import njit
from kiln.library.split import PIECES, SPLIT_ITEMS
from kiln.runtime.threads import MAX_THREADS


def r_min(a):
    return a.min()


def r_amin(a):
    return np.amin(a)


def r_max(a):
    return np.max(a)


def r_amax(a):
    return a.max()


def r_nanmin(a):
    return np.nanmin(a)


def r_nanmax(a):
    return np.nanmax(a)


def r_argmin(a):
    return np.argmin(a)


def r_argmax(a):
    return a.argmax()


def r_sum(a):
    return np.sum(a)


def r_prod(a):
    return a.prod()


def r_any(a):
    return np.any(a)


def r_all(a):
    return a.all()


def r_count(a):
    return np.count_nonzero(a)


EXTREMES = [r_min, r_amin, r_max, r_amax, r_nanmin, r_nanmax, r_argmin, r_argmax]
EXACT = [r_sum, r_prod, r_any, r_all, r_count]
ALL = EXTREMES + EXACT
NUMPY = {r_min: np.min, r_amin: np.amin, r_max: np.max, r_amax: np.max, r_nanmin: np.nanmin,
         r_nanmax: np.nanmax, r_argmin: np.argmin, r_argmax: np.argmax, r_sum: np.sum,
         r_prod: np.prod, r_any: np.any, r_all: np.all, r_count: np.count_nonzero}
PARALLEL = {f: njit(parallel=True)(f) for f in ALL}
SERIAL = {f: njit(f) for f in ALL}

LENGTHS = [1, 7, 1000, SPLIT_ITEMS - 1, SPLIT_ITEMS, SPLIT_ITEMS + 1, 200_003]
DTYPES = slow_except([np.float64, np.int64, np.bool_, np.int8, np.uint64, np.float32, np.int32,
                      np.uint8], np.float64, np.int64, np.bool_)   # the rest: the long run
rng = np.random.default_rng(15)


def numpy_result(f, a):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmin of all NaN
        return NUMPY[f](a)


def check(f, a):
    want = numpy_result(f, a)
    got = PARALLEL[f](a)
    assert same(want, got), (f.__name__, a.dtype, a.size, got, want)


def sample(n, dtype):
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), n, dtype=dtype,
                        endpoint=True)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_equal_to_numpy(n, dtype):
    a = sample(n, dtype)
    for f in ALL:
        if f is r_prod and np.dtype(dtype).kind == "f":
            continue    # below: float products stay serial
        check(f, a)
    ones = np.ones(n, dtype)   # all true: any/all/count over every piece
    for f in (r_any, r_all, r_count, r_prod):
        check(f, ones)
    zeros = np.zeros(n, dtype)
    for f in (r_any, r_all, r_count):
        check(f, zeros)


@pytest.mark.parametrize("n", [5, SPLIT_ITEMS + 1, 200_003])
@pytest.mark.parametrize("dtype", slow_except([np.float64, np.float32], np.float64))
@pytest.mark.parametrize("where", ["start", "middle", "end", "two"])
def test_nan_anywhere(n, dtype, where):
    a = sample(n, dtype)
    places = {"start": [0], "middle": [n // 2], "end": [n - 1], "two": [n // 3, n - 2]}
    a[places[where]] = np.nan
    for f in ALL:
        check(f, a)
    a[:] = np.nan     # all NaN: nanmin/nanmax give NaN
    for f in ALL:
        check(f, a)


@pytest.mark.parametrize("n", [3, SPLIT_ITEMS + 5, 200_003])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_infinities(n, dtype):
    a = sample(n, dtype)
    a[n // 3], a[n - 1] = np.inf, -np.inf
    for f in ALL:
        check(f, a)
    a[:] = np.inf
    for f in ALL:
        check(f, a)
    a[n // 2] = -np.inf
    for f in ALL:
        check(f, a)


@pytest.mark.parametrize("n", [4, SPLIT_ITEMS + 3, 200_003])
def test_signed_zeros(n):
    for zero in (0.0, -0.0):
        a = np.full(n, zero)
        for f in EXTREMES:
            check(f, a)     # np.signbit compared by `same`
        a[n // 2] = 1.0 if zero else -1.0   # a strict extreme among the zeros
        for f in EXTREMES:
            check(f, a)
    # Both zeros, equal: NumPy returns either, by where its SIMD lanes put them (it differs
    # with the CPU and the length); kiln returns the first, in serial and split code alike.
    a = np.zeros(n)
    a[[1, n // 2, n - 1]] = -0.0
    for f in EXTREMES:
        got, serial = PARALLEL[f](a), SERIAL[f](a)
        assert same(serial, got) and got == numpy_result(f, a)
        assert np.signbit(got) == np.signbit(a[0]) or f in (r_argmin, r_argmax)


@pytest.mark.parametrize("n", [1, 9, SPLIT_ITEMS, 200_003])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8, np.bool_])
def test_ties_give_the_first_index(n, dtype):
    a = np.ones(n, dtype)
    for f in (r_argmin, r_argmax, r_min, r_max):
        check(f, a)
    if n > 8:
        low = np.full(n, 5, dtype) if dtype != np.bool_ else np.ones(n, dtype)
        places = [n - 1, n // 2, n // PIECES + 1, 3]   # in different pieces when split
        low[places] = 0
        assert PARALLEL[r_argmin](low) == np.argmin(low) == min(places)
        high = np.zeros(n, dtype)
        high[places] = 1
        assert PARALLEL[r_argmax](high) == np.argmax(high) == min(places)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_empty_arrays(dtype):
    a = np.zeros(0, dtype)
    for f in ALL:
        try:
            want = numpy_result(f, a)
        except ValueError as e:
            with pytest.raises(ValueError) as raised:
                PARALLEL[f](a)
            assert str(raised.value) == str(e)
        else:
            assert same(want, PARALLEL[f](a))


def test_integer_overflow_wraps_like_numpy():
    n = 200_003
    big = np.full(n, 2**62, np.int64)
    check(r_sum, big)                          # wraps in int64
    check(r_sum, np.full(n, 2**63, np.uint64))  # wraps in uint64
    check(r_sum, np.full(n, 2**31 - 1, np.int32))   # int64 result: no wrap
    check(r_sum, np.full(n, -128, np.int8))
    check(r_sum, np.full(n, 255, np.uint8))     # uint64 result
    for dtype in (np.int64, np.int32, np.int8, np.uint64, np.uint8):
        a = np.full(n, 3, dtype)
        a[::7] = -1 if np.dtype(dtype).kind == "i" else 5
        check(r_prod, a)                       # products wrap in the result dtype
    check(r_prod, np.full(n, True))
    ints = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64, endpoint=True)
    for f in (r_sum, r_prod, r_min, r_max, r_argmin, r_argmax):
        check(f, ints)


def test_float_products_stay_serial_and_equal_numpy():
    a = (rng.random(200_003) + 0.5).astype(np.float64)
    check(r_prod, a)
    check(r_prod, a.astype(np.float32))


def views_of(a):
    return {"C": a, "T": a.T, "strided columns": a[:, ::2], "reversed rows": a[::-1],
            "F": np.asfortranarray(a), "flat strided": a.reshape(-1)[::3], "bool": a > 0.3,
            "bool F": np.asfortranarray(a > 0.3),
            "int16 strided": (a * 100).astype(np.int16)[::2]}


# each view is a dozen parallel functions to compile: by default one view and one of each
# kind of function (a fold, an extreme, an index, a NaN-skipping one, a test), the rest in
# the long run (bool arrays' reductions: test_equal_to_numpy)
SOME = [r_sum, r_min, r_argmax, r_nanmax, r_any]


@pytest.mark.parametrize("view, functions", slow_except(
    [(view, part) for view in views_of(np.zeros((2, 2))) for part in ("some", "the others")],
    ("strided columns", "some"), rows=True))
def test_shapes_views_and_layouts(view, functions):
    a = rng.standard_normal((700, 300))
    a[123, 45] = np.nan
    b = views_of(a)[view]
    for f in SOME if functions == "some" else [f for f in ALL if f not in SOME]:
        if not (f is r_prod and b.dtype.kind == "f"):
            check(f, b)


@pytest.mark.parametrize("threads", [1, 2, 3, 4])
def test_the_same_for_every_thread_count(threads):
    if threads > MAX_THREADS:
        pytest.skip(f"this process may use {MAX_THREADS} threads (KILN_NUM_THREADS)")
    before = kiln.get_num_threads()
    kiln.set_num_threads(threads)
    try:
        a = rng.standard_normal(300_007)
        a[[5, 200_000]] = np.nan
        b = rng.integers(-10**6, 10**6, 300_007)
        c = np.full(300_007, 7.0)
        c[[100, 250_000]] = -1.0
        for f in ALL:
            for x in (a, b, c, b > 0):
                if not (f is r_prod and x.dtype.kind == "f"):
                    check(f, x)
    finally:
        kiln.set_num_threads(before)


@pytest.mark.parametrize("dtype", slow_except([np.float64, np.int64], np.float64))
def test_split_only_in_parallel_functions(dtype):
    chunk = re.compile(r'@"[^"]*\.split\.\d+\.chunk"')

    def splits(dispatcher):
        return any(chunk.search(text) for text in dispatcher.inspect_llvm().values())
    a = np.ones(10, dtype)
    for f in ALL:
        parallel, serial = njit(parallel=True)(f), njit(f)   # one signature each
        assert same(parallel(a), serial(a))
        float_prod = f is r_prod and dtype == np.float64
        assert splits(parallel) == (not float_prod), (f.__name__, dtype)
        assert not splits(serial), f.__name__


def several(a, b):
    return np.argmin(a) + np.max(a) + np.sum(b) + a.sum() + np.prod(a) + \
        np.min(a.reshape(5, -1), 0)[0]   # along an axis: serial, not listed


def test_parallel_diagnostics_lists_the_split_reductions():
    import io
    a, b = rng.standard_normal(SPLIT_ITEMS + 9), np.arange(SPLIT_ITEMS + 9)
    parallel = njit(parallel=True)(several)
    with np.errstate(all="ignore"):
        assert same(several(a, b), parallel(a, b))
    text = io.StringIO()
    parallel.parallel_diagnostics(file=text)
    listed = re.findall(r"whole-array (.+), split across the threads from (\d+) items",
                        text.getvalue())
    assert sorted(listed) == sorted((name, str(SPLIT_ITEMS)) for name in
                                    ["argmin", "max", "integer sum", "float sum (pairwise)"])
    serial = njit(several)
    serial(a, b)
    text = io.StringIO()
    serial.parallel_diagnostics(file=text)
    assert "whole-array" not in text.getvalue()

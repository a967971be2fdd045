"""sort, argsort, unique and searchsorted against NumPy: NaNs last, ties, empty arrays,
rows of 2-d arrays, Fortran order. argsort is compared through the order it produces
(NumPy's quicksort may order the indices of equal keys differently), and with NumPy's
stable argsort, which kiln's is."""
import numpy as np
import pytest

from helpers import check, slow_except
from kiln import njit

RNG = np.random.default_rng(4)
WITH_NAN = RNG.random(50)
WITH_NAN[[3, 10]] = np.nan
ARRAYS = [WITH_NAN, RNG.integers(0, 5, 30), RNG.random((3, 7)), np.zeros(0), np.array([2.0]),
          np.asfortranarray(RNG.random((4, 3))), RNG.random(1000), np.array([0.0, -0.0, 1.0]),
          np.array([True, False, True])]


def sorted_and_unique(a):
    return np.sort(a), np.unique(a)


def sort_in_place(a):
    a.sort()
    return a


def order(a):
    return np.argsort(a), a.argsort()


@pytest.mark.parametrize("a", [   # bool: test_every_dtype by default
    pytest.param(a, marks=pytest.mark.slow) if a.dtype == np.bool_ else a for a in ARRAYS],
    ids=lambda a: f"{a.dtype}{a.shape}")
def test_sort_unique_argsort(a):
    check(sorted_and_unique, a)
    check(sort_in_place, a)
    got, by_method = njit(order)(a)
    want = np.sort(a)
    assert got.dtype == np.int64 and np.array_equal(got, by_method)
    assert np.array_equal(np.take_along_axis(a, got, -1), want, equal_nan=True)
    if a.ndim == 1:  # stable: equal keys keep their order
        assert np.array_equal(got, np.argsort(a, kind="stable"))


# ---- every dtype, across the algorithms' thresholds ---------------------------------------
# Rows of up to 16 items are insertion-sorted; rows in order or in reverse order are found
# in one pass; longer rows are radix-sorted (integers, booleans, float32/64) or introsorted
# (short rows, float16); a short argsort is a (key, index) quicksort.

def three_sorts(a):
    b = a.copy()
    b.sort()
    return np.sort(a), b, np.argsort(a)


SIZES = [0, 1, 2, 16, 17, 40, 100, 255, 300, 700, 5000]
KINDS = ["random", "sorted", "reversed", "few values", "one value", "specials"]
DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
          np.uint64, np.uint32, np.uint16, np.uint8, np.bool_, np.complex128, np.complex64]


def sample(dtype, kind, n, rng):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        a = rng.integers(0, 2, n).astype(dt)
    elif dt.kind == "c":   # real parts with ties, to be ordered by the imaginary parts
        a = (rng.integers(-3, 4, n) / 2 + 1j * rng.standard_normal(n)).astype(dt)
    elif dt.kind == "f":
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dt)
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if kind == "few values":
        a = rng.integers(0, 4, n).astype(dt)
    elif kind == "one value":
        a = np.full(n, 3, dt)
    elif kind == "specials" and n:
        picks = rng.integers(0, n, (5, n // 4 + 1))
        if dt.kind == "f":
            a[picks[0]], a[picks[1]], a[picks[2]] = np.nan, np.inf, -np.inf
            a[picks[3]], a[picks[4]] = 0.0, -0.0
        elif dt.kind == "c":   # NaN in either part or both, an infinite part
            a[picks[0]] = a[picks[0]].imag * 1j + np.nan
            a[picks[1]] = a[picks[1]].real + np.nan * 1j
            a[picks[2]], a[picks[3]] = complex(np.nan, np.nan), complex(np.inf, -1)
            a[picks[4]] = a[picks[4]].real - np.inf * 1j
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            a[picks[0]], a[picks[1]], a[picks[2]] = info.min, info.max, 0
    if kind == "sorted":
        a = np.sort(a)
    elif kind == "reversed":
        a = np.sort(a)[::-1].copy()
    return a


def check_rows(a, got):
    """`got` is (np.sort(a), a.sort() on a copy, np.argsort(a)) as kiln computed them."""
    want = np.sort(a)
    for values in got[:2]:
        assert values.dtype == a.dtype and values.shape == a.shape
        assert np.array_equal(values, want, equal_nan=True)
        if a.dtype.kind == "f" and not (np.any(a == 0) and np.any(np.signbit(a[a == 0]))):
            assert np.array_equal(values.view(f"u{a.itemsize}"), want.view(f"u{a.itemsize}")
                                  ) or np.isnan(a).any()
    assert got[2].dtype == np.int64
    assert np.array_equal(got[2], np.argsort(a, kind="stable"))


# one of each kind by default, every width in the long run
@pytest.mark.parametrize("dtype", slow_except(DTYPES, np.float64, np.float16, np.uint64,
                                              np.bool_, np.complex128),
                         ids=lambda d: np.dtype(d).name)
def test_every_dtype(dtype):
    compiled = njit(three_sorts)
    rng = np.random.default_rng(7)
    for kind in KINDS:
        for n in SIZES:
            a = sample(dtype, kind, n, rng)
            check_rows(a, compiled(a))


@pytest.mark.parametrize("dtype", slow_except(   # the others in the long run
    [np.float64, np.int64, np.float32, np.int32, np.uint8], np.float64))
def test_layouts(dtype):
    """Strided 1-d views, 2-d rows (C and Fortran order, strided), 3-d: sorted along the
    last axis; a view sorted in place writes through to its base."""
    compiled = njit(three_sorts)
    rng = np.random.default_rng(8)
    base = sample(dtype, "specials", 3000, rng)
    square = base[:2400].reshape(40, 60)
    for a in [base[::3], base[::-2], base[:2400].reshape(8, 300),
              np.asfortranarray(base[:2400].reshape(300, 8)), square[::2, ::3],
              base[:1800].reshape(3, 2, 300), base[:2400].reshape(2, 1200).T,
              base[:0].reshape(0, 5), base[:6].reshape(6, 1)]:
        got = compiled(a)
        check_rows(a, got)
        if a.ndim > 1:
            stable = np.argsort(a, axis=-1, kind="stable")
            assert np.array_equal(got[2], stable)

    def sort_view(a):
        a[::2].sort()
        a[1::2, ::-1].sort() if a.ndim == 2 else a[1::2].sort()
        return a

    plain = sample(dtype, "random", 2400, rng)    # no zeros of both signs: NumPy's place
    if plain.dtype.kind == "f":                   # for them is its algorithm's
        plain[::7] = np.nan
    for a in [plain, plain.reshape(60, 40)]:
        check(sort_view, a)


def argsort_of_view(a):
    return np.argsort(a[::2]), np.sort(a[::-1])


def test_argsort_stable_with_ties():
    """Equal keys keep their order: 0.0 and -0.0, NaNs (last, in their order), repeats."""
    rng = np.random.default_rng(9)
    a = rng.integers(-3, 3, 4000).astype(np.float64)
    a[rng.integers(0, 4000, 500)] = np.nan
    a[rng.integers(0, 4000, 500)] = -0.0
    compiled = njit(argsort_of_view)
    for n in [20, 300, 4000]:
        got = compiled(a[:n])
        assert np.array_equal(got[0], np.argsort(a[:n][::2], kind="stable"))
        assert np.array_equal(got[1], np.sort(a[:n][::-1]), equal_nan=True)
    falling = np.repeat(np.arange(50.0, 0, -1), 7)     # reverse order with ties
    assert np.array_equal(njit(order)(falling)[0], np.argsort(falling, kind="stable"))


def search(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


@pytest.mark.parametrize("v", [3, 0, 10, -1, np.array([1, 5, 11]), np.array([[2, 3]])])
def test_searchsorted(v):
    check(search, np.sort(RNG.integers(0, 10, 40)), v)
    check(search, np.sort(WITH_NAN), v)


def unique_and_search(a, v):
    return np.unique(a), np.searchsorted(np.sort(a), v), np.searchsorted(np.sort(a), v, "right")


def test_complex_unique_and_searchsorted_in_numpys_order():
    """Complex numbers order by real part, then imaginary part, those with a NaN part after
    the rest in NumPy's classes (R + Rj, R + nanj, nan + Rj, nan + nanj); np.unique keeps
    the first of them in the array, as NumPy's hash table does."""
    nan = np.nan
    a = np.array([2 + 1j, complex(1, nan), complex(nan, 2), 1 - 1j, complex(nan, nan),
                  complex(nan, 1), 2 + 1j, -np.inf + 0j, complex(3, nan), 1 - 1j])
    v = np.array([1 - 1j, 1 + 0j, complex(1, nan), complex(nan, 0), complex(nan, nan), -5j])
    check(unique_and_search, a, v)
    check(unique_and_search, a[::-1].copy(), v)
    check(unique_and_search, a[:0], v)
    check(unique_and_search, np.array([1.5, -2.0, nan]), v)    # float items, complex keys

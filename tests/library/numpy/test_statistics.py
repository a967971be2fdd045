"""cumsum, cumprod, ptp, var, std and clip in compiled code, against NumPy on the same
inputs: dtypes, empty arrays, NaN, -0.0, Fortran order, axes, ddof."""
import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError

RNG = np.random.default_rng(11)
ARRAYS = [np.array([-0.0]), RNG.random(300), (RNG.random(50) * 10).astype(np.int8),
          RNG.random((3, 4)).astype(np.float32), np.zeros(0), np.array([1.0, np.nan, 2.0]),
          np.asfortranarray(RNG.random((3, 4))), np.array([True, False, True]),
          RNG.random(300)[::-1], np.arange(1, 21, dtype=np.int16)[::-3]]   # read in place


def accumulations(a):
    return np.cumsum(a), a.cumprod()


def spread(a):
    return np.var(a), a.std(), np.var(a, ddof=1), a.std(ddof=2), a.mean()


def peak_to_peak(a):
    return np.ptp(a)


def along(a, k):
    return np.cumsum(a, axis=k), np.cumprod(a, k), np.ptp(a, axis=k)


def clips(a, low, high):
    return np.clip(a, low, high), a.clip(low, high), np.clip(a * 2, 0, high)


@pytest.mark.parametrize("a", [   # float32, bool and int16 compile again: the long run
    pytest.param(a, marks=pytest.mark.slow) if a.dtype in (np.float32, np.bool_, np.int16) else a
    for a in ARRAYS], ids=lambda a: f"{a.dtype}{a.shape}")
def test_whole_array(a):
    with np.errstate(all="ignore"):
        check(accumulations, a)
        check(spread, a)
        if a.dtype != np.bool_:
            check(peak_to_peak, a)


def test_ptp_of_booleans_is_refused_at_compile_time():
    # NumPy raises TypeError when it gets there (booleans do not subtract)
    with pytest.raises(TypingError, match="np.ptp"):
        njit(peak_to_peak)(np.array([True]))


@pytest.mark.parametrize("a", [RNG.random((3, 4)), (RNG.random((2, 3, 4)) * 9).astype(np.int32),
                               np.zeros((0, 3)), np.asfortranarray(RNG.random((4, 2)))])
def test_along_an_axis(a):
    for k in range(-a.ndim, a.ndim):
        check(along, a, k)
    check(along, a, a.ndim)  # AxisError, as NumPy


@pytest.mark.parametrize("a, low, high", [
    (np.array([1, 5, 9], np.int8), 2, 7.5), (np.array([np.nan, 1.0, -3, 0.2]), 0, 0.5),
    (np.arange(10), 3, 6), (RNG.random((3, 4)), np.float32(0.2), np.nan),
    (RNG.random((3, 4)), np.zeros(4), np.ones((3, 1)) * 0.5),
    # signed zeros: scalar bounds keep an equal element, array bounds give the bound
    (np.array([0.0, -0.0, np.nan, 1.0, -2.0]), 0.0, -0.0),
    (np.array([0.0, -0.0, np.nan, 1.0, -2.0]), -0.0, 0.0),
    (np.array([0.0, -0.0, 1.0, -2.0]), np.full(4, 0.0), np.full(4, -0.0)),
    (np.array([0.0, -0.0, 1.0]), np.nan, 1.0), (np.arange(4.0), 2.0, 1.0)])
def test_clip(a, low, high):
    check(clips, a, low, high)

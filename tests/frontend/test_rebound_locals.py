"""A name rebound at the top level of a function to a value of another type (an array of
another rank, an int made a float) is a new local, as Numba's SSA form makes it."""
import numpy as np
import pytest

from helpers import check
from kiln import njit


def lower_rank(a):
    a = a[0, :, ::-1]
    total = 0.0
    for v in a.ravel():
        total += v
    a = a.ravel()
    return total, a, sum([x * 2 for x in a], 0.0)


@pytest.mark.parametrize("a", [np.arange(24.0).reshape(2, 3, 4),
                               np.arange(24.0).reshape(2, 4, 3)[:, ::2, ::-1],
                               np.full((1, 2, 2), np.nan), np.zeros((1, 0, 3))])
def test_an_argument_rebound_to_arrays_of_lower_rank(a):
    check(lower_rank, a)


def int_then_float(n):
    n = float(n)
    half = n / 2
    n = n > 1
    return half, n


@pytest.mark.parametrize("n", [-3, 0, 7])
def test_an_int_rebound_to_a_float_then_a_bool(n):
    check(int_then_float, n)


def rebound_around_a_loop(a, k):
    b = a
    for i in range(k):      # the loop sees the version bound above it, and updates it
        b = b * 2
    b = b.reshape(-1, 1)    # a new version: 2-d
    if k > 1:
        b = b + 1           # inside a branch: the 2-d version
    b += 1                  # in place: still the 2-d version
    return b, a


@pytest.mark.parametrize("k", [0, 1, 3])
def test_rebinding_around_loops_and_branches(k):
    check(rebound_around_a_loop, np.arange(4.0), k)


def unpacked(x):
    x, y = x.shape
    x = (x, y)
    return x


def test_rebinding_by_unpacking():
    check(unpacked, np.zeros((2, 5)))


def read_by_a_closure(n):
    a = np.arange(n)
    total = lambda: a.sum()   # noqa: E731  (a closure reads `a`: it is not versioned)
    a = a + 1
    return total()


def test_a_name_a_closure_reads_keeps_one_local():
    check(read_by_a_closure, 4)


def rebound_then_bad(a):
    a = a.ravel()
    a = a.upper()
    return a


def test_an_error_still_names_the_line():
    from kiln.errors import TypingError
    with pytest.raises(TypingError, match=r"line \d+, in rebound_then_bad\n    a = a.upper\(\)"):
        njit(rebound_then_bad)(np.zeros((2, 2)))


def raise_mixed_widths(a):
    if a == 0:
        value = np.int64(-7)
        raise ValueError(value)
    elif a == 1:
        value = "one"
        raise ValueError(value)
    value = np.uint64(2 ** 63)
    raise ValueError(value)


def test_a_branch_that_raises_binds_its_own_version():
    """Numba's test_dynamic_raise_mixed_int_width: one local for `value` made both
    float64, and the messages '-7.0' and '9.223372036854776e+18'."""
    compiled = njit(raise_mixed_widths)
    for a in range(3):
        with pytest.raises(ValueError) as expected:
            raise_mixed_widths(a)
        with pytest.raises(ValueError) as got:
            compiled(a)
        assert str(got.value) == str(expected.value)


def returns_early(a, k):
    if k > 0:
        a = a.ravel()           # its own version: 1-d, as the `return` leaves
        if k > 1:
            a = a.sum()         # and a float in here
            return a * np.ones(2)
        return a[::-1]
    a = a * 2                   # still the 2-d argument here
    return a[0]


@pytest.mark.parametrize("k", [0, 1, 2])
def test_a_branch_that_returns_binds_its_own_versions(k):
    check(returns_early, np.arange(6.0).reshape(2, 3), k)

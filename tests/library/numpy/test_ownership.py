"""Memory made in compiled code is freed on every path: early returns, loops, break and
continue, exceptions raised while arrays are alive, reassignment, tuples of arrays, calls
between compiled functions. The leak check in conftest.py runs after each of these tests;
here each also checks its own count."""
import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.runtime.nrt import allocation_stats


def live():
    return allocation_stats().live


def early_return(n):
    a = np.zeros(n)
    b = np.ones(n)
    if n > 3:
        return a.sum()
    c = a + b
    return c.sum()


def loop_with_break(n):
    total = 0.0
    for i in range(n):
        row = np.full(3, i * 1.0)
        if i == 5:
            break
        if i % 2:
            continue
        total += row.sum()
    return total


def raise_while_alive(n):
    a = np.arange(n)
    b = a * 2
    for i in range(n):
        if b[i] > 6:
            raise ValueError("too big")
    return b.sum()


def reassign(n):
    a = np.zeros(n)
    for i in range(4):
        a = a + 1
    b = a
    a = np.ones(2)
    return b.sum() + a.sum()


@njit
def make_pair(n):
    return np.arange(n), np.ones(n)


def call_compiled(n):
    x, y = make_pair(n)
    pair = make_pair(n + 1)
    return x.sum() + y.sum() + pair[0].sum()


def divide_error_mid_expression(a, k):
    return (a + 1) * (a / (k // k))


@pytest.mark.parametrize("f, args", [
    (early_return, (2,)), (early_return, (9,)), (loop_with_break, (10,)),
    (raise_while_alive, (3,)), (raise_while_alive, (10,)), (reassign, (5,)),
    (call_compiled, (4,)), (divide_error_mid_expression, (np.arange(3.0), 0)),
    (divide_error_mid_expression, (np.arange(3.0), 2))])
def test_no_leak_on_any_path(f, args):
    jitted = njit(f)
    check(f, *args, jitted=jitted)   # compile and compare first
    before = live()
    for _ in range(3):
        try:
            jitted(*args)
        except (ValueError, ZeroDivisionError):
            pass
    assert live() == before


def returned_tuple(n):
    a = np.arange(n)
    return a, a[1:], (a * 2, 7)


def test_returned_arrays_are_freed_when_python_drops_them():
    before = live()
    result = njit(returned_tuple)(5)
    assert live() == before + 2
    np.testing.assert_array_equal(result[1], np.arange(1, 5))
    del result
    assert live() == before


def test_allocation_stats_is_public_as_documented():
    import kiln
    from kiln.runtime import allocation_stats as public
    before = kiln.runtime.allocation_stats()
    result = njit(returned_tuple)(3)
    assert public().allocations == before.allocations + 2
    assert public().bytes_live == before.bytes_live + result[0].nbytes + result[2][0].nbytes
    del result
    assert public().live == before.live


def grow(a):
    out = np.empty(a.shape[0] * 2)
    out[:a.shape[0]] = a
    out[a.shape[0]:] = a[::-1]
    return out


def test_threads_share_the_runtime():
    import threading
    jitted = njit(grow, nogil=True)
    a = np.arange(100.0)
    expected = grow(a)
    errors = []

    def work():
        for _ in range(200):
            if not np.array_equal(jitted(a), expected):
                errors.append("wrong")
    before = live()
    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors and live() == before


def negative_integer_power(a, b):
    return a ** b


def max_of_an_empty_expression(a):
    return np.max(a[::2] * 2.0)


def test_an_exception_inside_an_array_operation_leaks_nothing():
    before = allocation_stats()
    with pytest.raises(ValueError, match="negative integer powers"):
        njit(negative_integer_power)(np.arange(3), np.array([1, -1, 2]))
    with pytest.raises(ValueError, match="zero-size array"):
        njit(max_of_an_empty_expression)(np.zeros(0))
    after = allocation_stats()
    assert after.allocations - before.allocations == after.frees - before.frees

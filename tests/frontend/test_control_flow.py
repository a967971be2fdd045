"""Statements and expressions: each compiled function agrees with CPython."""
import pytest

from helpers import check


def branches(x):
    if x > 10:
        return 1
    elif x > 0:
        return 2
    else:
        return 3


def while_loop(n):
    i = 0
    total = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i > 50:
            break
        total += i
    return total


def for_range_forms(a, b, c):
    total = 0
    for i in range(a):
        total += i
    for i in range(a, b):
        total += 2 * i
    for i in range(b, a, c):
        total += 3 * i
    return total


def for_else(n):
    for i in range(n):
        if i == 5:
            break
    else:
        return -1
    return i


def while_else(n):
    i = 0
    while i < n:
        i += 1
    else:
        i += 100
    return i


def tuple_unpack(a, b):
    x, y = a, b
    x, y = y, x
    (p, q), r = (x, y), 3
    return p * 100 + q * 10 + r


def chained(a, b, c):
    return a < b < c, a < b > c, a == b == c, 0 <= a < 10


def boolean_ops(a, b):
    return (a and b), (a or b), (not a), (a > 0 and b > 0), (a > 0 or b / a > 1)


def ternary(x):
    return x if x > 0 else -x


def widening(n):
    s = 0
    for i in range(n):
        s += 0.5
    return s


def loop_over_tuple():
    total = 0
    for v in (1, 2, 3, 4):
        total += v
    return total


def nested_returns(x):
    for i in range(10):
        if i == x:
            return i * 2.5
    return -1


def augmented(x):
    y = x
    y += 3
    y -= 1
    y *= 2
    y //= 3
    y %= 7
    y **= 2
    y <<= 2
    y >>= 1
    y |= 8
    y &= 0xFF
    y ^= 3
    return y


def pass_and_docstring(x):
    """A docstring is fine."""
    pass
    return x


@pytest.mark.parametrize("x", [-5, 0, 5, 11])
def test_if_elif_else(x):
    check(branches, x)


@pytest.mark.parametrize("n", [0, 10, 100])
def test_while_with_break_and_continue(n):
    check(while_loop, n)


@pytest.mark.parametrize("args", [(5, 9, -1), (0, 0, 1), (3, -4, -2), (7, 20, -3)])
def test_range_forms(args):
    check(for_range_forms, *args)


@pytest.mark.parametrize("n", [3, 10])
def test_for_else(n):
    check(for_else, n)


def test_while_else():
    check(while_else, 3)


def test_tuple_unpacking():
    check(tuple_unpack, 1, 2)


@pytest.mark.parametrize("args", [(1, 2, 3), (3, 2, 1), (2, 2, 2), (1.5, 1.5, 0.5)])
def test_chained_comparisons(args):
    check(chained, *args)


@pytest.mark.parametrize("args", [(0, 3), (2, 0), (2, 5), (-1, 4)])
def test_boolean_operators(args):
    check(boolean_ops, *args)


def test_boolean_short_circuit_avoids_division_by_zero():
    check(boolean_ops, 0, 5)


@pytest.mark.parametrize("x", [-3, 3, -2.5])
def test_conditional_expression(x):
    check(ternary, x)


def test_local_widens_int_to_float():
    check(widening, 5)


def test_loop_over_homogeneous_tuple():
    check(loop_over_tuple)


def test_return_types_are_unified():
    from kiln import njit
    f = njit(nested_returns)
    assert f(3) == 7.5
    result = f(20)  # CPython returns the int -1; kiln unifies both returns to float64
    assert result == -1.0 and isinstance(result, float)


@pytest.mark.parametrize("x", [0, 7, -13, 1000])
def test_augmented_assignment(x):
    check(augmented, x)


def test_pass_and_docstring():
    check(pass_and_docstring, 4)


def enumerate_and_zip(x, y):
    total = 0.0
    for i, v in enumerate(x):
        total += i * v
    for i, v in enumerate(y, 10):
        total -= i * v
    for a, b in zip(x, y):
        total += a * b
    for k, (a, b) in enumerate(zip(range(3, 100, 7), x)):
        total += k + a * b
    return total


def test_enumerate_and_zip():
    import numpy as np
    check(enumerate_and_zip, np.arange(6.0), np.arange(4.0) * 2)
    check(enumerate_and_zip, np.zeros(0), np.arange(3.0))


def constant_operands(x):
    a = 5 or x
    b = 0 or x
    c = x and 7
    d = 2.5 if 3 else x
    while 0:
        x += 1
    return a, b, c, d, not 4, not 0


def test_constant_operands_keep_their_values():
    check(constant_operands, 3)
    check(constant_operands, 0)

"""`kiln.literally(x)`: the function is compiled per value of x, and `@overload`s see the
value (`types.IntegerLiteral`, `BooleanLiteral`) to dispatch on it. Results are checked
against the same code run by CPython (where `literally` returns its argument)."""
import numpy as np
import pytest

import kiln
from helpers import check
from kiln import literally, njit, types
from kiln.errors import TypingError
from kiln.extending import overload


def repeat(n, x):
    """Python's meaning, which the overload below implements per value of n."""
    return x * n if n > 0 else -x


@overload(repeat)
def _repeat(n, x):
    if not isinstance(n, (types.IntegerLiteral, types.BooleanLiteral)):
        raise TypingError("repeat() needs n as a literal: call it with kiln.literally(n)")
    if n.literal_value > 0:
        count = int(n.literal_value)
        if count == 1:
            return lambda n, x: x
        return lambda n, x: x * count
    return lambda n, x: -x


def uses_repeat(n, x):
    return repeat(literally(n), x)


def test_an_overload_dispatches_on_the_value():
    f = njit(uses_repeat)
    for n in (1, 3, 0, -2, 3, 1, True, False):
        for x in (2.5, -1.0, np.nan):
            check(uses_repeat, n, x, jitted=f)
    assert len(f.signatures) == 6   # one per value (True is 1 but a bool: its own)


def literal_in_arithmetic(n, y):
    z = literally(n) + y
    z += n
    return z, n * 2, literally(n)


def test_the_literal_is_an_ordinary_value_too():
    f = njit(literal_in_arithmetic)
    for n in (0, 7, -5, 2 ** 40):   # (int64 wraps at the ends, unlike Python)
        check(literal_in_arithmetic, n, 1, jitted=f)
    check(literal_in_arithmetic, 7, 2.5, jitted=f)


def test_without_literally_the_overload_says_why():
    with pytest.raises(TypingError, match="needs n as a literal"):
        njit(lambda n, x: repeat(n, x))(2, 1.0)


def test_only_integers_bools_and_strings():
    # Numba's LiteralTypingError (a TypingError), naming the value's class
    with pytest.raises(TypingError, match="float cannot be used as a literal"):
        njit(uses_repeat)(2.5, 1.0)
    with pytest.raises(TypingError, match="numpy.ndarray cannot be used as a literal"):
        njit(uses_repeat)(np.arange(3), 1.0)


def assigns_its_literal(n):
    n = n + 1
    return literally(n)


def test_a_literal_argument_cannot_be_assigned():
    with pytest.raises(TypingError, match="cannot assign"):
        njit(assigns_its_literal)(1)


def restates_its_literal(tup, i):
    i = literally(i)         # Numba's spelling: i keeps its value, still the constant
    return tup[i]


def indexes_by_literally(tup, i):
    return tup[literally(i)]


def test_literally_gives_a_constant_index_into_a_mixed_tuple():
    for i in range(3):
        check(restates_its_literal, (4, 3.5, "s"), i)
        check(indexes_by_literally, (4, 3.5, "s"), i)


def test_literally_is_exported_and_plain_in_python():
    assert kiln.literally(5) == 5 and uses_repeat(3, 2.0) == 6.0

"""Enum and IntEnum members in compiled code, against CPython: constants, comparisons,
.value, members as arguments and results."""
import enum

import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError


class Color(enum.Enum):
    red = 1
    green = 2
    blue = 3


class Shape(enum.Enum):
    circle = 1        # the same values as Color's: still never equal to a Color
    square = 2


class Scale(enum.Enum):
    small = 0.5
    large = 2.0


class Mode(enum.IntEnum):
    FAST = 1
    SLOW = 2
    OFF = -1


def compare(c):
    return (c == Color.red, c != Color.green, c is Color.blue, c is not Color.red,
            c == Shape.circle, c.value)


@pytest.mark.parametrize("c", list(Color))
def test_members_compare_and_give_their_value(c):
    check(compare, c)


def pick(c, k):
    if c == Color.red:
        return Color.green
    if k > 0:
        return c
    return Color.blue


@pytest.mark.parametrize("c", list(Color))
@pytest.mark.parametrize("k", [0, 1])
def test_members_return_to_python_as_themselves(c, k):
    check(pick, c, k)


def scaled(s, x):
    return s.value * x, s == Scale.large


@pytest.mark.parametrize("s", list(Scale))
def test_members_with_float_values(s):
    check(scaled, s, 3.0)


def int_enum(m, a):
    total = m + 1
    if m == Mode.FAST:
        total += Mode.SLOW * 10
    return total, m > Mode.OFF, a[Mode.FAST], m.value, m


@pytest.mark.parametrize("m", list(Mode))
def test_int_enum_members_are_integers(m):
    check(int_enum, m, np.arange(3.0))


def test_an_enum_of_mixed_values_is_refused():
    class Mixed(enum.Enum):
        a = 1
        b = "b"

    with pytest.raises(TypingError, match="numbers of one type; Mixed.s values are int, str"):
        njit(lambda: Mixed.a)()

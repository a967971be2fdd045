"""Enum and IntEnum members in compiled code, against CPython: constants, comparisons,
.value, members as arguments and results."""
import enum

import numpy as np
import pytest

from helpers import check
from kiln import njit, typeof, types
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


class Size(enum.IntEnum):
    small = 1
    large = 100


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

    message = "Cannot type heterogeneous enum: got value types int64, unicode_type"
    with pytest.raises(TypingError, match=message):
        njit(lambda: Mixed.a)()
    with pytest.raises(ValueError, match=message):   # Numba's error, from typeof
        typeof(Mixed)
    with pytest.raises(TypeError, match="argument 1: " + message):
        njit(lambda c: c)(Mixed)


def members_of(cls):
    return cls["small"], cls.large, cls


@pytest.mark.parametrize("cls", [Scale, Size])
def test_an_enum_class_is_an_argument(cls):
    """Passed as an argument, the class is a compile-time constant (Numba's typeof gives
    EnumClass, IntEnumClass), compiled once per class and returned as itself."""
    got, expected = njit(members_of)(cls), members_of(cls)
    assert got == expected and got[2] is cls
    assert typeof(cls) == (types.IntEnumClass if cls is Size else types.EnumClass)(
        cls, types.int64 if cls is Size else types.float64)
    if cls is Size:
        assert typeof(Size.small) == types.IntEnumMember(Size, types.intp)


class Planet(enum.Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)


def identities(c, m):
    return (c is Color.red, m is Mode.FAST, m is not Mode.SLOW, c is Mode.FAST,
            Color["green"] == c, Mode["OFF"] == m)


@pytest.mark.parametrize("c", [Color.red, Color.green])
@pytest.mark.parametrize("m", [Mode.FAST, Mode.OFF])
def test_identity_and_members_by_name(c, m):
    check(identities, c, m)


def planet(p):
    mass, radius = p.value
    return p == Planet.EARTH, mass / radius ** 2, p


@pytest.mark.parametrize("p", list(Planet))
def test_members_with_tuple_values(p):
    check(planet, p)


def test_a_missing_member_name_is_a_typing_error():
    with pytest.raises(TypingError, match="Color has no member 'pink'"):
        njit(lambda: Color["pink"])()

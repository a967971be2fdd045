"""Named tuples (collections.namedtuple, typing.NamedTuple) passed in, made, read and
returned by compiled code (issue 32: 'kiln cannot pass a value of type Rect'), checked
against CPython; instances come back as instances of their class."""
import collections
import typing

import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError

Point = collections.namedtuple("Point", ["x", "y"])


class Rect(typing.NamedTuple):
    w: float
    h: float
    label: str = "r"


def length(p):
    return (p.x ** 2 + p.y ** 2) ** 0.5


def make_point(a, b):
    return Point(a, b)


def area_and_more(r):
    w, h, label = r
    return r.w * r.h, r.label + "!", r[1], len(r), w - h, label


def make_rect(w):
    return Rect(w, w * 2), Rect(w, 1.0, "named")


def holding_an_array(a):
    p = Point(a, a.sum())
    return p.x[-1] + p.y, p


def moved(p, dx):
    return Point(p.x + dx, p.y)


def test_in_out_fields_and_tuple_behaviour():
    for p in (Point(3.0, 4.0), Point(3, -4), Point(True, 2.5)):
        check(length, p)
        check(moved, p, 1)
    for a, b in ((1.5, 2), (1, 2), (np.float32(0.5), -3)):
        got, want = njit(make_point)(a, b), make_point(a, b)
        assert type(got) is Point and got == want
    for r in (Rect(2.0, 3.0), Rect(2.5, -1.0, "big")):
        check(area_and_more, r)
    got = njit(make_rect)(1.5)
    assert got == make_rect(1.5) and all(type(r) is Rect for r in got)
    got = njit(holding_an_array)(np.arange(3.0))
    assert got[0] == 5.0 and type(got[1]) is Point and np.array_equal(got[1].x, np.arange(3.0))


def test_a_plain_tuple_is_not_the_named_one_and_bad_calls_are_clear():
    compiled = njit(length)
    assert compiled(Point(3.0, 4.0)) == 5.0
    with pytest.raises(TypingError, match="has no attribute 'x'"):
        compiled((3.0, 4.0))
    with pytest.raises(TypingError, match=r"Point\(\) takes the fields x, y.*y missing"):
        njit(lambda a: Point(a))(1.0)


Point3 = collections.namedtuple("Point3", "x y z", defaults=(9,))


def by_name(a):
    p = Point3(z=3, y=a, x=1)
    q = Point3(1, y=a * 0.5)
    return p, q, type(p)(4, 5, 6), type(q) is Point3, type(p) == Point


@pytest.mark.parametrize("a", [2, -7])
def test_fields_by_keyword_and_the_class_as_type(a):
    check(by_name, a)


def test_a_keyword_that_is_no_field_is_a_typing_error():
    with pytest.raises(TypingError, match="unexpected or repeated field 'w'"):
        njit(lambda: Point3(1, w=2))()
    with pytest.raises(TypingError, match="give field 'y' too"):
        njit(lambda: Point3(1, z=2))()

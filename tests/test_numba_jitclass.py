"""jitclass as Numba's tests use it (issue 32): each checked against the same class run as
plain Python."""
import inspect

import pytest

from kiln import njit, types
from kiln.experimental import jitclass


class Point:
    """A point."""

    def __init__(self, x, y=0.0):
        "make a point"
        self.x = x
        self.y = y

    def __eq__(self, other):
        return self.x == other.x and self.y == other.y


JitPoint = jitclass([("x", types.float64), ("y", types.float64)])(Point)


def test_init_keeps_its_name_docstring_and_signature():
    assert JitPoint.__doc__ == Point.__doc__ == "A point."
    assert JitPoint.__init__.__doc__ == Point.__init__.__doc__ == "make a point"
    assert str(inspect.signature(JitPoint)) == str(inspect.signature(Point)) == "(x, y=0.0)"
    p = JitPoint(1.0, y=2.0)
    assert (p.x, p.y) == (1.0, 2.0)


def compare(a, b):
    return a == b, a != b


def test_ne_is_the_negation_of_eq_as_in_python():
    for args in [((1.0, 2.0), (1.0, 2.0)), ((1.0, 2.0), (1.0, 3.0))]:
        expected = compare(Point(*args[0]), Point(*args[1]))
        assert njit(compare)(JitPoint(*args[0]), JitPoint(*args[1])) == expected
        assert compare(JitPoint(*args[0]), JitPoint(*args[1])) == expected


def test_a_jitclass_cannot_be_subclassed():
    with pytest.raises(TypeError, match="cannot subclass from a jitclass"):
        class Sub(JitPoint):
            pass

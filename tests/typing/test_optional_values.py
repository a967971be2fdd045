"""Optional values and `is` in Numba's terms: `is` between numbers is their equality
(compiled code has no number objects), an attribute of an Optional value is the value's
(AttributeError when it is None, as in Python), and an Optional tuple unpacks after a
run-time check. Checked against CPython."""
import numpy as np
import pytest

from helpers import check
from kiln import njit, types


def is_(a, b):
    return a is b, a is not b


def test_is_between_numbers_is_equality():
    f = njit(is_)
    for a, b in ((1, 1), (1, 2), (True, True), (True, False)):
        check(is_, a, b, jitted=f)
    assert f(1, 1.0) == (False, True)   # an int is never a float
    g = njit((types.intp, types.intp))(lambda a, b: a is b)
    assert g(5, 5) and not g(5, 6)


def first_length(arr, do_it):
    opt = None
    if do_it:
        opt = arr
    return opt.shape[0]


def test_an_attribute_of_an_optional():
    f = njit(first_length)
    check(first_length, np.arange(5), True, jitted=f)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'shape'"):
        f(np.arange(5), False)


def unpack(x):
    if x is None:
        return None
    a, b = x
    return a, b


def test_an_optional_tuple_unpacks():
    f = njit((types.Optional(types.Tuple([types.intp] * 2)),))(unpack)
    assert f(None) is None and f((1, 2)) == (1, 2)


def bool_or_none(x, y):
    z = False if y else None
    if x == 2:
        return True
    elif x == 1:
        return z
    return None


def test_an_optional_bool():
    f = njit((types.int32, types.int32))(bool_or_none)
    for x in (0, 1, 2):
        for y in (0, 1):
            assert f(x, y) == bool_or_none(x, y)


def compare_maybe_none(p1, p2, value):
    a = value if p1 > 0 else None
    b = value if p2 < 0 else None
    return a == b, a != b, a == value, value != b


@pytest.mark.parametrize("value", ["concrete", 1.5, 3], ids=repr)
def test_two_values_that_may_be_none_compare_as_in_python(value):
    for p1 in (-1, 1):
        for p2 in (-1, 1):
            check(compare_maybe_none, p1, p2, value)

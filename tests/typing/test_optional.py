"""Values that may be None (Numba's Optional): returned, tested with `is None`, unwrapped."""
import numpy as np
import pytest

from helpers import check
from kiln import njit


def find(x, v):
    for i in range(len(x)):
        if x[i] == v:
            return i
    return None


def sometimes(flag):
    if flag:
        return 1.5


def last_positive(x):
    found = None
    for v in x:
        if v > 0:
            found = v
    return found


def test_optional_results():
    x = np.arange(5.0)
    check(find, x, 3.0)
    check(find, x, 7.0)
    check(sometimes, True)
    check(sometimes, False)
    check(last_positive, np.array([-1.0, 2.0, -3.0]))
    check(last_positive, np.array([-1.0]))
    check(last_positive, np.zeros(0))


jit_find = njit(find)


def index_or_default(x, v):
    r = jit_find(x, v)
    if r is None:
        return -1
    return r * 10


def is_not_none(x, v):
    r = jit_find(x, v)
    return r is not None


def truthiness(x, v):
    r = jit_find(x, v)
    if r:
        return 1
    return 0


def unwrap(x, v):
    return jit_find(x, v) + 1


def test_is_none_truth_and_unwrapping():
    x = np.arange(5.0)
    assert njit(index_or_default)(x, 3.0) == 30 and njit(index_or_default)(x, 9.0) == -1
    assert njit(is_not_none)(x, 3.0) is True and njit(is_not_none)(x, 9.0) is False
    assert njit(truthiness)(x, 0.0) == 0 and njit(truthiness)(x, 2.0) == 1
    assert njit(truthiness)(x, 9.0) == 0
    assert njit(unwrap)(x, 2.0) == 3
    with pytest.raises(TypeError, match="expected int64, got None"):
        njit(unwrap)(x, 9.0)


def first_or(x, a):
    return x if a is None else x + a[0]


def doubled_or_minus_one(v):
    return -1.0 if v is None else v * 2


def test_optional_arguments_in_explicit_signatures():
    """`optional(f4[:])` in a signature (issue 32: 'unknown type name optional'): None or a
    value of the type, passed from Python."""
    f = njit("f4(f4, optional(f4[:]))")(first_or)
    for a in (None, np.full(2, 2.5, np.float32), np.arange(4, dtype=np.float32)[::-2]):
        assert f(1.0, a) == first_or(np.float32(1.0), a)
    g = njit("f8(optional(f8))")(doubled_or_minus_one)
    assert [g(v) for v in (None, 3.0, -0.5)] == [doubled_or_minus_one(v) for v in (None, 3.0, -0.5)]
    with pytest.raises(TypeError, match="no compiled signature"):
        g("x")

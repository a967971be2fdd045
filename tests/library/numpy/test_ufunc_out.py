"""A ufunc's `out` argument in compiled code (library/ufunc_out.py) and np.clip's bounds of
None, checked against NumPy on the same operands: the array returned, what `out` holds
after, and NumPy's refusals."""
import numpy as np
import pytest

from helpers import jit
from kiln.errors import TypingError


def add_into(a, b, out):
    return np.add(a, b, out)


def add_into_keyword(a, b, out):
    return np.add(a, b, out=out)


def sin_into(a, out):
    return np.sin(a, out)


def clip_into(a, low, high, out):
    return np.clip(a, low, high, out=out)


def clip(a, low, high):
    return np.clip(a, low, high)


def method_clip_into(a, low, high, out):
    return a.clip(low, high, out)


A = np.linspace(-10, 10, 12).reshape(3, 4)
LOW = np.arange(-4.0, 0.0)


def agree(pyfunc, *args):
    """The result and every array argument afterwards agree with NumPy's."""
    ours = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    expected = pyfunc(*args)
    got = jit(pyfunc)(*ours)
    assert np.array_equal(got, expected, equal_nan=True) and got.dtype == expected.dtype
    for mine, theirs in zip(ours, args):
        if isinstance(theirs, np.ndarray):
            assert np.array_equal(mine, theirs, equal_nan=True)
    return got, ours


@pytest.mark.parametrize("pyfunc", [add_into, add_into_keyword])
def test_a_binary_ufunc_writes_into_out_and_returns_it(pyfunc):
    got, ours = agree(pyfunc, A, LOW, np.zeros((3, 4)))
    assert got is ours[2]                     # out itself, as in NumPy
    agree(pyfunc, 1.5, 2, np.zeros(3))        # scalars broadcast to out's shape
    agree(pyfunc, A, 1, np.zeros((3, 4), np.float32))   # cast by 'same_kind'
    agree(pyfunc, A, A[::-1], A.copy())       # out overlapping an operand
    agree(pyfunc, A, 1, None)                 # out=None: a new array


def test_a_unary_ufunc_writes_into_out():
    agree(sin_into, A, np.empty((3, 4)))
    agree(sin_into, A.T, np.empty((4, 3), order="F"))


@pytest.mark.parametrize("pyfunc", [clip_into, method_clip_into])
@pytest.mark.parametrize("low, high", [(-5, 5), (None, 0), (LOW, None), (None, None)],
                         ids=repr)
def test_clip_into_out_and_with_bounds_of_none(pyfunc, low, high):
    agree(pyfunc, A, low, high, np.empty((3, 4)))
    agree(pyfunc, A, low, high, None)


def test_clip_with_a_bound_of_none_is_numpys_maximum_or_minimum():
    for low, high in ((None, 2.5), (-1, None), (None, None)):
        agree(clip, A, low, high)
        agree(clip, np.array([np.nan, -np.inf, 3.0]), low, high)


def test_what_numpy_refuses_is_refused():
    with pytest.raises(TypingError, match="cannot cast the result from float64 to int64"):
        jit(add_into)(np.arange(3), 1.5, np.zeros(3, np.int64))
    with pytest.raises(TypingError, match="read-only"):
        jit(add_into)(np.arange(3.0), 1.0, _read_only(3))
    with pytest.raises(TypingError, match="non-broadcastable output operand"):
        jit(add_into)(A, 1.0, np.zeros(4))
    with pytest.raises(ValueError):           # NumPy never broadcasts out itself
        jit(add_into)(np.arange(4.0), 1.0, np.zeros(3))


def _read_only(n):
    a = np.zeros(n)
    a.setflags(write=False)
    return a

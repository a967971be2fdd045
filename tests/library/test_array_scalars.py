"""An array where a scalar is expected (library/array_scalars.py): its truth and a scalar
type called on it, checked against NumPy on the same arrays."""
import re

import numpy as np
import pytest

from kiln import njit
from kiln.errors import TypingError


@njit
def branch(x):
    if x:
        return 10
    return 20


@njit
def truth(x):
    return bool(x)


@njit
def own_type(x):
    return x.dtype.type(x)


ONE_ITEM = [np.array(1), np.array(0), np.array([[[1]]]), np.array([[[0]]]), np.array(-0.0),
            np.array(np.nan), np.array(0j), np.array([1j]), np.array(True),
            np.arange(6.0)[::5][1:]]


@pytest.mark.parametrize("a", ONE_ITEM, ids=repr)
def test_the_truth_of_an_array_of_one_item_is_that_items(a):
    assert (branch(a), truth(a)) == (10 if a else 20, bool(a))


@pytest.mark.parametrize("a", [np.empty(0), np.zeros((2, 0)), np.array([1, 2]),
                               np.zeros((2, 2))[:, :1]], ids=repr)
def test_the_truth_of_other_arrays_raises_numpys_error(a):
    with pytest.raises(ValueError) as numpy_error:
        bool(a)
    with pytest.raises(ValueError, match=f"^{re.escape(str(numpy_error.value))}$"):
        branch(a)


@pytest.mark.parametrize("a", [np.array(True), np.array(12.3, np.float32), np.array(-7),
                               np.array(3 + 2j, np.complex64), np.array(200, np.uint8)],
                         ids=repr)
def test_a_scalar_type_converts_a_zero_dimensional_arrays_item(a):
    got = own_type(a)
    assert (got, type(got)) == (a[()].item(), type(a[()].item()))


def test_a_scalar_type_refuses_an_array_of_dimensions():
    with pytest.raises(TypingError, match=r"Casting array\(float64, 1d, C\) to int32 "
                                          "directly is unsupported"):
        njit(lambda a: np.int32(a))(np.zeros(3))

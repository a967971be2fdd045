"""np.nditer in compiled code: the elements NumPy's nditer visits, in the order it visits
them (order='K'), as 0-d views that read and write through, checked against NumPy's own
nditer on the same operands."""
import numpy as np
import pytest

from helpers import jit
from kiln.errors import TypingError


def visit_one(a):
    seen = np.empty(a.size)
    k = 0
    for x in np.nditer(a):
        seen[k] = x[()]
        k += 1
    return seen


def visit_two(a, b):
    seen = np.empty((max(a.size, b.size) * 4, 2))
    k = 0
    for x, y in np.nditer((a, b)):
        seen[k, 0] = x.item()
        seen[k, 1] = y[()]
        k += 1
    return seen[:k]


def visit_three(a, b, out):
    for x, y, z in np.nditer((a, b, out)):
        z[...] = x * 10 + y
    return out


def items_of_one(a):
    return [x.item() for x in np.nditer(a)]


def items_of_two(a, b):
    out = []
    for x, y in np.nditer((a, b)):
        out.append((x.item(), y.item()))
    return out


def numpy_order(*operands):
    return [tuple(v[()] for v in item) if isinstance(item, tuple) else item[()]
            for item in np.nditer(operands if len(operands) > 1 else operands[0])]


BASE = np.arange(24.0).reshape(2, 3, 4)
LAYOUTS = {"C": BASE, "F": np.asfortranarray(BASE), "transposed": BASE.transpose(2, 0, 1),
           "reversed": BASE[::-1, :, ::-1], "strided": BASE[:, ::2, 1::2],
           "1-d": np.arange(5.0), "0-d": np.array(3.5), "column": BASE[0, :, :1]}


@pytest.mark.parametrize("name", LAYOUTS)
def test_one_operand_in_numpys_order(name):
    a = LAYOUTS[name]
    assert jit(visit_one)(a).tolist() == numpy_order(a)


@pytest.mark.parametrize("name", ["C", "F", "transposed", "reversed", "strided"])
def test_two_operands_broadcast_in_numpys_order(name):
    a = LAYOUTS[name]
    for b in (np.arange(a.shape[-1]) * 100.0, np.arange(a.shape[-1])[::-1].copy(), a.copy(),
              np.array(7.0)):
        got = jit(visit_two)(a, b)
        assert [tuple(row) for row in got.tolist()] == numpy_order(a, b)


def test_writing_through_the_views():
    a = np.arange(6.0).reshape(2, 3)
    out = np.zeros((2, 3))
    assert np.array_equal(jit(visit_three)(a, np.arange(3.0), out), a * 10 + np.arange(3.0))
    f = np.asfortranarray(np.zeros((2, 3)))
    jit(visit_three)(a, np.arange(3.0), f)
    assert np.array_equal(f, a * 10 + np.arange(3.0))


def test_numpys_errors():
    with pytest.raises(ValueError, match="zero-sized"):
        jit(visit_one)(np.zeros((2, 0)))
    with pytest.raises(ValueError, match="could not be broadcast"):
        jit(visit_two)(np.ones((2, 3)), np.ones(4))
    with pytest.raises(TypingError, match="takes an array, a scalar or a tuple of them"):
        jit(visit_three)(np.ones(2), "x", np.zeros(2))


@pytest.mark.parametrize("a, b", [(np.float32(2.5), BASE[0]), (3, np.arange(4)[::2]),
                                  (True, 1.5)], ids=repr)
def test_a_scalar_operand_is_a_zero_dimensional_array_as_in_numpy(a, b):
    for x, y in ((a, b), (b, a)):
        assert jit(items_of_two)(x, y) == numpy_order(x, y)
    assert jit(items_of_one)(a) == numpy_order(a)

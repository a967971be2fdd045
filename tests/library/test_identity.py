"""`is` of lists, dicts and sets in compiled code (Numba's test_lists test_identity;
structs: test_structref.py): two names bound to one object are the same, a copy or an
equal new object is not. Each function runs in CPython and compiled, and the answers must agree."""
import pytest

from kiln import njit


def lists(n):
    a = list(range(n))
    b = a
    c = a[:]
    nested = [a, c]
    return a is b, a is not b, a is c, a is not c, nested[0] is a, nested[1] is a


def dicts_and_sets(n):
    d = {n: 1.5}
    e = d
    s = {n}
    u = s
    return d is e, d is {n: 1.5}, d is not e, s is u, s is {n}, s is not u, d.copy() is d


def same_argument(p, q):
    p.append(q.pop())
    return p is q, p is not q


@pytest.mark.parametrize("fn, args", [(lists, (3,)), (lists, (0,)), (dicts_and_sets, (2,))])
def test_identity_of_containers_as_python(fn, args):
    assert njit(fn)(*args) == fn(*args)


def test_a_list_passed_twice_is_one_object():
    p, q = [1, 2, 3], [1, 2, 3]
    assert njit(same_argument)(p, p) == same_argument(q, q) and p == q
    p, q = [1, 2, 3], [1, 2, 3]
    assert njit(same_argument)(p, [4]) == same_argument(q, [4]) and p == q


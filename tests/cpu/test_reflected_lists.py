"""Python lists passed to compiled functions, as Numba's reflected lists (issue 32, the
widest cause in the conformance run): the function sees the items, and its changes reach
the caller's list. Each function runs on a copy in CPython and compiled, and the lists
and results must agree."""
import copy
import inspect

import numpy as np
import pytest

from helpers import run_script
from kiln import njit


def total(xs):
    s = 0.0
    for x in xs:
        s += x
    return s


def grow_and_edit(xs, v):
    xs.append(v)
    xs[0] = -xs[0]
    xs.insert(1, v * 2)
    return len(xs)


def shrink(xs):
    xs.pop()
    xs.reverse()
    return xs


def sort_in_place(xs):
    xs.sort()


def both(xs, ys):
    xs.extend(ys)
    return ys[-1]


@pytest.mark.parametrize("fn, args", [
    (total, ([1.0, 2.5, 3.0],)), (total, ([1, 2, 3],)),
    (grow_and_edit, ([1, 2, 3], 9)), (grow_and_edit, ([1.5], 2.0)),
    (shrink, ([3, 1, 2],)), (sort_in_place, ([3.0, -1.0, 2.0, np.nan],)),
    (both, ([1, 2], [7, 8]))], ids=lambda v: getattr(v, "__name__", ""))
def test_changes_reach_the_list_as_in_python(fn, args):
    py_args, jit_args = copy.deepcopy(args), copy.deepcopy(args)
    expected, got = fn(*py_args), njit(fn)(*jit_args)
    assert got == expected or (got is not None and list(got) == list(expected))
    for got_list, want_list in zip(jit_args, py_args):
        if not isinstance(want_list, list):
            continue
        assert [(type(x), x) for x in got_list] == [(type(x), x) for x in want_list] or \
            np.array_equal(got_list, want_list, equal_nan=True)


def test_a_returned_list_is_the_callers_and_bad_lists_are_clear():
    xs = [1.5, 2.5, 3.5]
    assert njit(shrink)(xs) is xs and xs == [2.5, 1.5]
    with pytest.raises(TypeError, match="empty list"):
        njit(total)([])
    with pytest.raises(TypeError, match="first item's type"):
        njit(total)([1, 2.5])


def read_only(xs):
    return len(xs)


def negate_first(xs):
    xs[0] = -xs[0]


@pytest.mark.parametrize("items", [[12.5j, -0.0j], [-0.0, float("nan"), 1e300],
                                   [10**18, 3], ["s", "t"], [True, False]])
def test_a_list_the_function_leaves_alone_keeps_its_objects(items):
    """Numba reflects only a changed list; kiln's copy gives the caller's list its items
    back only when one differs (in value, type, sign of zero or a NaN's bits)."""
    ids = [id(x) for x in items]
    njit(read_only)(items)
    assert [id(x) for x in items] == ids


@pytest.mark.parametrize("items", [[0.0, 2.5], [0j, 1j], [-2, 5]])
def test_a_change_to_the_sign_of_zero_reaches_the_list(items):
    want = list(items)
    negate_first(want)
    njit(negate_first)(items)
    assert [repr(x) for x in items] == [repr(x) for x in want]


def append_to_first(xs):
    xs[0].append(7)
    return len(xs[0])


def test_a_list_of_lists_is_refused_as_numba_does_and_typed_lists_do_it():
    """Changes to the inner lists of a copy could not reach the caller's (Numba: 'cannot
    reflect element of reflected container'); typed lists of typed lists are shared."""
    for nested in ([[1, 2], [3]], [{1}, {2}]):
        before = copy.deepcopy(nested)
        with pytest.raises(TypeError, match="append_to_first.*cannot reflect element of "
                                            "reflected container"):
            njit(append_to_first)(nested)
        assert nested == before
    from kiln.typed import List
    want = [[1, 2], [3]]
    got = List([List(x) for x in want])
    assert njit(append_to_first)(got) == append_to_first(want)
    assert [list(x) for x in got] == want



def rows(pair):
    return np.array(pair)


def append_sum(pair):
    pair[0].append(pair[1][0] + pair[1][1])
    return pair


def add_to_set(pair):
    pair[1].add(pair[0] * 2.0)


def test_lists_and_sets_inside_a_tuple_argument_are_reflected():
    """Numba's test_numberctor passes ([1.0, 2.5], [3.5, 4.0]) to np.array: the lists and
    sets in a tuple argument are reflected as those passed alone are, and a returned one
    is the caller's own."""
    pair = ([1.0, 2.5], [3.5, 4.0])
    assert np.array_equal(njit(rows)(pair), rows(pair))
    py_pair, jit_pair = copy.deepcopy(pair), copy.deepcopy(pair)
    expected, got = append_sum(py_pair), njit(append_sum)(jit_pair)
    assert got == expected and jit_pair == py_pair and got[0] is jit_pair[0]
    py_pair, jit_pair = (1.5, {2.0}), (1.5, {2.0})
    add_to_set(py_pair), njit(add_to_set)(jit_pair)
    assert jit_pair == py_pair
    with pytest.raises(TypeError, match="empty list"):
        njit(rows)(([], [1.0]))


def append_to_one_read_the_other(a, b):
    a.append(b[0] * 10)
    b[0] = len(a)
    return len(b), b[-1]


def add_to_one_read_the_other(s, pair):
    s.add(99)
    return len(pair[1]), 99 in pair[1]


def test_a_list_or_set_passed_twice_is_one_object():
    """`f(p, p)`: a change through one name is seen through the other, and the caller's
    list gets every change (kiln made two copies: the second read the old items, and its
    items, reflected last, undid the first's)."""
    for make in (lambda: [1, 2], lambda: [2.5]):
        p, q = make(), make()
        assert njit(append_to_one_read_the_other)(q, q) == append_to_one_read_the_other(p, p)
        assert q == p
    s, u = {1, 2}, {1, 2}
    assert njit(add_to_one_read_the_other)(u, (0, u)) == add_to_one_read_the_other(s, (0, s))
    assert u == s


def grow_both(xs, s):
    xs.append(len(s))
    s.add(xs[0])
    return xs


def test_a_list_and_a_set_in_the_first_call_of_a_process(tmp_path):
    """kiln.typed makes the typed copies (registered with cpu/reflection.py), and nothing
    need have loaded it when a process's first call meets a list (nor in a process whose
    functions all come from the cache, which compiles nothing)."""
    script = ("from kiln import njit\n\n@njit\n" + inspect.getsource(grow_both) +
              "xs, s = [1, 2], {7}\nprint(grow_both(xs, s) is xs, xs, sorted(s))\n")
    xs, s = [1, 2], {7}
    expected = f"{grow_both(xs, s) is xs} {xs} {sorted(s)}"
    out = run_script(tmp_path / "first_call.py", script, tmp_path / "cache")
    assert out.stdout.strip() == expected

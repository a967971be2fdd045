"""List displays of items of mixed types (`[1, 'a']`), Numba's literal lists: read as
Python reads them (each function runs in CPython and compiled, and the answers must
agree), and every use that needs one item type or a change is a clear error naming the
line. The leak check (conftest.py) sees every item's reference released."""
import numpy as np
import pytest

from kiln import literal_unroll, njit
from kiln.errors import KilnError, TypingError


def reads(k):
    l = ['a', 1, 'a', 2.5, 'b', k]
    counts = []
    for x in literal_unroll(('a', 'd', 2.5, 6)):
        counts.append((x in l, l.count(x)))
    return (l[0], l[-3], len(l), counts, l.index('b'), l.index(k), l.copy()[1], bool(l),
            1 if l else 0)


def holds_containers(k):
    l = ['a', np.arange(3), [7, 8], (1, 'b')]
    return int(l[1].sum()) + k, l[2][1], l[3][1], l


def by_branch(x):
    if x > 3:
        l = ['a', 1, 'x']
    else:
        l = ['b', 2, 'y']
    total = 0
    for item in literal_unroll(l):
        total += len(item) if isinstance(item, str) else item
    return l[0], total, l


@njit
def first_doubled(l):
    return l[0] * 2, len(l)


def passed_on(s):
    return first_doubled([s, np.zeros(2)])


def missing_index():
    return ['a', 1].index(3)


@pytest.mark.parametrize("fn, args", [(reads, (1,)), (reads, (6,)), (holds_containers, (2,)),
                                      (by_branch, (0,)), (by_branch, (9,))])
def test_literal_lists_read_as_python(fn, args):
    got, want = njit(fn)(*args), fn(*args)
    assert repr(got) == repr(want)


def test_a_literal_list_passed_to_a_compiled_function():
    assert njit(passed_on)("ab") == first_doubled.py_func(["ab", np.zeros(2)])


def test_index_of_a_missing_item_is_python_s_value_error():
    with pytest.raises(ValueError, match="not in list"):
        njit(missing_index)()


def index_by_variable(i):
    l = ['a', 1]
    return l[i]


def sliced():
    l = ['a', 'b', 1]
    return l[:2]


def assigned(i):
    l = ['a', 1]
    l[i] = 'b'


def appended():
    l = ['a', 1]
    l.append(2j)


def deleted():
    l = ['a', 1]
    del l[0]


def sorted_in_place():
    l = ['a', 1]
    l.sort()


def looped():
    l = ['a', 1]
    n = 0
    for x in l:
        n += 1
    return n


def out_of_range():
    return ['a', 1][2]


@pytest.mark.parametrize("fn, args, message", [
    (index_by_variable, (0,), "Cannot __getitem__ on a literal list.*constants only"),
    (sliced, (), "Cannot __getitem__ on a literal list"),
    (assigned, (0,), "Cannot mutate a literal list"),
    (appended, (), "Cannot mutate a literal list"),
    (deleted, (), "Cannot mutate a literal list"),
    (sorted_in_place, (), "Cannot mutate a literal list"),
    (looped, (), "loop over a list of mixed types.*literal_unroll"),
    (out_of_range, (), "list index 2 is out of range"),
])
def test_uses_needing_one_item_type_or_a_change_are_clear_errors(fn, args, message):
    with pytest.raises(KilnError, match=message) as info:
        njit(fn)(*args)
    assert fn.__name__ in str(info.value)


def different_lengths(x):
    l = ['a', 1, 2j] if x > 3 else ['b', 2]
    return l[0]


def test_literal_lists_of_different_lengths_have_no_common_type():
    with pytest.raises(TypingError, match="no common type; Cannot unify LiteralList"):
        njit(different_lengths)(1)

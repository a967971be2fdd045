"""`nonlocal` in functions nested in a compiled one (frontend/cells.py): the variable is a
cell the functions share, checked against CPython; what kiln does not rewrite is refused
naming the line."""
import pytest

from kiln import njit
from kiln.errors import TypingError, UnsupportedError

from helpers import check


def accumulated(x):
    y = x + 1
    z = 0

    def inner(x):
        nonlocal z
        z += x * x
        return z + y

    return inner(x) + inner(x) + z   # z read after both calls


def parameter_and_readers(n):
    def bump(k):
        nonlocal n
        n = n + k
        n = n * 1   # assigned twice: the last one counts

    def doubled():
        def twice():   # reads the cell two functions down
            return n * 2
        return twice()

    bump(2)
    first = doubled()
    bump(3)
    return first, n, [n for _ in range(2)]


def in_a_loop_and_after_an_exception(m):
    count = 0.0

    def tick(v):
        nonlocal count
        count += v
        if count > 4:
            raise ValueError("stop")

    try:
        for i in range(m):
            tick(1)   # an int stored where a float is held becomes a float, as in a list
    except ValueError:
        pass
    return count


@pytest.mark.parametrize("fn, arg", [(accumulated, 10), (parameter_and_readers, 1),
                                     (in_a_loop_and_after_an_exception, 3),
                                     (in_a_loop_and_after_an_exception, 9)])
def test_nonlocal_assignments_reach_the_function_that_owns_the_variable(fn, arg):
    check(fn, arg)


def another_type():
    z = 0

    def f():
        nonlocal z
        z = 0.5   # bad

    f()
    return z


def of_a_nested_function():
    def g():
        w = 1

        def h():
            nonlocal w   # bad
            w = 2
        h()
        return w
    return g()


def as_a_loop_target():
    z = 0

    def f():
        nonlocal z
        for z in range(3):   # bad
            pass

    f()
    return z


def bound_after_the_def():
    def f():   # bad
        nonlocal z
        z = 3

    z = 0
    f()
    return z


@pytest.mark.parametrize("fn, error", [(another_type, TypingError),
                                       (of_a_nested_function, UnsupportedError),
                                       (as_a_loop_target, UnsupportedError),
                                       (bound_after_the_def, UnsupportedError)])
def test_what_is_not_rewritten_is_refused_at_its_line(fn, error):
    with pytest.raises(error) as info:
        njit(fn)()
    assert "# bad" in str(info.value)

"""`yield` inside a `try` in a compiled generator: the coroutine keeps the try's state
across the suspension. Refused only where closing the generator at that yield would run
code in CPython (a `finally`, an `except` that catches GeneratorExit). Checked against
CPython."""
import numpy as np
import pytest

from kiln import njit
from kiln.errors import UnsupportedError
from kiln.runtime.nrt import allocation_stats


def stops_at(n, x):
    for i in range(n):
        try:
            if i == x:
                raise ValueError
            yield i
        except Exception:
            return


def recovers(n):
    for i in range(n):
        try:
            yield i
            if i == 2:
                raise KeyError(i)
        except KeyError:
            yield -1


def test_yield_in_a_try_body_and_handler():
    assert list(njit(stops_at)(10, 5)) == list(stops_at(10, 5))
    assert list(njit(stops_at)(10, 10)) == list(stops_at(10, 10))
    assert list(njit(recovers)(5)) == list(recovers(5))


def arrays(n):
    for i in range(n):
        try:
            yield np.ones(3) * i
            if i == 2:
                raise KeyError(i)
        except KeyError:
            yield np.zeros(2)


def test_dropping_a_generator_inside_a_try_releases_what_it_holds():
    gen = njit(arrays)

    @njit
    def first(n):
        return next(gen(n))

    before = allocation_stats()
    for _ in range(3):
        assert len(list(gen(5))) == 6
        assert first(5).sum() == 0.0
    after = allocation_stats()
    assert after.allocations - before.allocations == after.frees - before.frees


def with_finally(n):
    try:
        yield n
    finally:
        pass


def bare_except(n):
    try:
        yield n
    except:  # noqa: E722
        pass


@pytest.mark.parametrize("fn, words", [(with_finally, "finally"),
                                       (bare_except, "GeneratorExit")])
def test_where_closing_would_run_code_it_is_refused(fn, words):
    with pytest.raises(UnsupportedError, match=words):
        list(njit(fn)(1))

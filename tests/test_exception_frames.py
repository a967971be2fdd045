"""Exceptions raised in compiled code as Python sees them: the traceback ends at the
user's `raise` (or failed `assert`) line, as the same function run by CPython ends, not in
kiln's dispatcher; a bare `raise` outside any `except` re-raises what the calling Python
code handles; and what the compiler refuses says so in the words Numba users search for.

PYTEST_DONT_REWRITE: `raiser` below must keep Python's own `assert` message."""
import sys
import traceback

import pytest

from kiln import njit
from kiln.errors import UnsupportedError


class MyError(Exception):
    pass


class TwoArgs(Exception):
    def __init__(self, arg, value):
        super().__init__(arg)
        self.value = value


def raiser(i):
    if i == 1:
        raise MyError
    elif i == 2:
        raise ValueError("message", i)
    elif i == 3:
        raise TwoArgs("msg", 1)
    assert i != 4, "four"
    return i


def last_frames(fn, *args):
    try:
        fn(*args)
    except Exception:
        return traceback.format_exception(*sys.exc_info())[-2:]
    raise AssertionError("did not raise")


@pytest.mark.parametrize("i", [1, 2, 3, 4])
def test_the_last_frame_is_the_users_line(i):
    compiled = njit(raiser)
    for _ in range(2):   # the first call (compiling) and a call through the trampoline
        got = last_frames(compiled, i)
        expected = last_frames(raiser, i)
        assert got[1] == expected[1]
        assert expected[0].startswith(got[0]), (got, expected)


def test_a_callee_raising_shows_the_callee_line():
    inner = njit(raiser)

    @njit
    def outer(i):
        return inner(i) + 1

    frame = last_frames(outer, 2)[0]
    assert "in raiser" in frame and 'raise ValueError("message", i)' in frame


def test_code_from_exec_keeps_its_file_name():
    scope = {}
    exec("def f(a):\n  assert a != 1", {}, scope)
    frame = last_frames(njit(scope["f"]), 1)[0]
    assert frame.startswith('  File "<string>", line 2, in f')


def reraise():
    raise


def test_a_bare_raise_re_raises_what_python_handles():
    compiled = njit(reraise)
    for error in (ZeroDivisionError, TwoArgs("msg", 1)):
        with pytest.raises(type(error) if isinstance(error, Exception) else error) as info:
            try:
                raise error
            except Exception:
                compiled()
        if isinstance(error, Exception):
            assert info.value is error
    with pytest.raises(RuntimeError, match="No active exception to reraise"):
        compiled()


def test_raising_what_is_not_an_exception_is_refused_in_numbas_words():
    @njit
    def string():
        raise "illegal"

    with pytest.raises(UnsupportedError,
                       match="Directly raising a string constant as an exception"):
        string()

    @njit
    def number():
        raise 1

    with pytest.raises(UnsupportedError,
                       match="Encountered unsupported constant type used for exception"):
        number()

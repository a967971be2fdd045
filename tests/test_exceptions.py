"""try/except/else/finally and raise in compiled code, each checked against CPython: the
result, or the exception's class and arguments, must be the same (and nothing leaks: the
conftest fixture)."""
import math
import sys

import numpy as np
import pytest

from kiln import guvectorize, njit, prange, vectorize
from kiln.errors import TypingError, UnsupportedError

from helpers import same


def outcome(f, *args):
    try:
        return ("returned", f(*args))
    except Exception as e:  # noqa: BLE001 - the class and arguments are compared
        return ("raised", type(e), e.args, str(e))


def agree(pyfunc, *cases, **options):
    """`pyfunc` compiled gives CPython's outcome on every argument tuple in `cases`."""
    compiled = njit(**options)(pyfunc)
    for args in cases:
        expected, got = outcome(pyfunc, *args), outcome(compiled, *args)
        if expected[0] == "returned":
            assert got[0] == "returned" and same(expected[1], got[1]), (args, expected, got)
        else:
            assert got[0] == "raised" and got[1] is expected[1], (args, expected, got)
            assert same(expected[2], got[2]) and expected[3] == got[3], (args, expected, got)
    return compiled


INTS = [(-3,), (0,), (1,), (2,), (7,)]


class AppError(Exception):
    pass


class RangeProblem(AppError):
    pass


class TwoArgs(Exception):
    def __init__(self, code, where):
        super().__init__(code, where)
        self.code = code


# -- catching by class ----------------------------------------------------------------------
def by_class(n):
    try:
        r = 10 // n
    except ZeroDivisionError:
        r = -1
    return r


def by_base_class(n):
    try:
        return 1.0 / n
    except ArithmeticError:
        return math.inf


def by_tuple(n):
    try:
        if n < 0:
            raise KeyError(n)
        return 100 % n
    except (KeyError, ZeroDivisionError):
        return -5


def bare_except(n):
    try:
        if n == 1:
            raise RuntimeError("one")
        return 7 // n
    except:  # noqa: E722 - what is tested
        return 0


def first_match_wins(n):
    try:
        if n > 1:
            raise RangeProblem("too big", n)
        if n < 0:
            raise AppError("negative")
        return n // (n - 1)
    except RangeProblem:
        return 1
    except AppError:
        return 2
    except Exception:
        return 3


def unmatched_goes_on(n):
    try:
        if n > 1:
            raise ValueError("value", n)
        return n
    except TypeError:
        return -1


@pytest.mark.parametrize("f", [by_class, by_base_class, by_tuple, bare_except,
                               first_match_wins, unmatched_goes_on])
def test_except_matches_the_class_hierarchy(f):
    agree(f, *INTS)


def index_error_from_bounds_check(a, i):
    try:
        return a[i]
    except IndexError:
        return -1.0


def exception_catches_runtime_errors(a, i):
    try:
        return float(a[i]) / (i - 1)
    except Exception:
        return -2.0


def test_kiln_runtime_errors_are_caught_by_class():
    a = np.arange(4.0)
    cases = [(a, 0), (a, 3), (a, 4), (a, -5), (a, 1)]
    agree(index_error_from_bounds_check, *cases, boundscheck=True)
    agree(exception_catches_runtime_errors, *cases, boundscheck=True)


def unbound_in_handler(n):
    try:
        if n > 0:
            raise ValueError
        x = 1
    except ValueError:
        pass
    return x


def test_local_assigned_in_try_may_be_unbound_after_it():
    agree(unbound_in_handler, (1,), (0,), (-1,))


# -- else and finally -------------------------------------------------------------------------
def with_else(n):
    s = 0
    try:
        s += 10 // n
    except ZeroDivisionError:
        s -= 1
    else:
        s += 100
    finally:
        s *= 2
    return s


def else_not_covered(n):
    try:
        s = n
    except ValueError:
        return -1
    else:
        if n > 3:
            raise ValueError("from else", n)
    return s


def finally_on_every_path(a, n):
    try:
        if n == 0:
            return 1
        if n == 1:
            raise ValueError("one")
        a[0] = 5.0
    finally:
        a[1] += 1.0
    return 3


def return_in_finally_wins(n):
    try:
        if n > 0:
            raise ValueError("dropped")
        return 1
    finally:
        if n != 2:
            return 2  # noqa: B012 - what is tested


def nested(n):
    s = 0
    try:
        try:
            if n == 0:
                raise KeyError(n)
            if n == 1:
                raise ValueError(n)
            s = 10 // (n - 2)
        except KeyError:
            s = 1
        finally:
            s += 1000
    except ValueError:
        s += 5
    except ZeroDivisionError:
        s -= 5
    return s


@pytest.mark.parametrize("f", [with_else, else_not_covered, return_in_finally_wins, nested])
def test_else_finally_and_nesting(f):
    agree(f, *INTS)


def test_finally_runs_before_return_and_raise():
    compiled = njit(finally_on_every_path)
    for n in (0, 1, 2):
        a, b = np.zeros(2), np.zeros(2)
        assert outcome(finally_on_every_path, a, n)[:3] == outcome(compiled, b, n)[:3]
        assert same(a, b)


# -- loops ------------------------------------------------------------------------------------
def loop_control(n):
    total = 0
    for i in range(n):
        try:
            if i % 5 == 4:
                break
            if i % 2:
                continue
            if i == 6:
                return -total
            total += i
        except ValueError:
            total = 0
        finally:
            total += 100
    return total


def raise_in_loop(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        try:
            if i % 3 == 0:
                raise ValueError("third", i)
            total += i
        except ValueError:
            total -= 1
            continue
        finally:
            total *= 2
        total += 1
    return total


def break_in_finally_drops_exception(n):
    for i in range(3):
        try:
            raise ValueError(n)
        finally:
            break  # noqa: B012 - what is tested
    return n


def handler_with_jumps(n):
    out = 0
    for i in range(n):
        try:
            out += 10 // (i % 3)
        except ZeroDivisionError:
            if i > 4:
                return out
            if i > 2:
                break
            continue
    return out


@pytest.mark.parametrize("f", [loop_control, raise_in_loop, break_in_finally_drops_exception,
                               handler_with_jumps])
def test_try_in_loops(f):
    agree(f, *INTS, (12,))


# -- raise with run-time arguments and re-raise --------------------------------------------------
def raise_values(n, x):
    if n == 0:
        raise ValueError("bad", n, x)
    if n == 1:
        raise TypeError(x > 0, None, (n, x))
    if n == 2:
        raise RangeProblem(n * 2, "and", x / 2)
    if n == 3:
        raise TwoArgs(n, x)
    if n == 4:
        raise KeyError
    if n == 5:
        raise OverflowError(1 + 2j * x)
    if n == 6:
        raise AppError("constant", "strings", 3)
    return x


def test_raise_with_run_time_arguments_reaches_python():
    agree(raise_values, *[(n, x) for n in range(7) for x in (2.5, -1.0, math.nan)])
    try:
        njit(raise_values)(3, 1.5)
    except TwoArgs as e:
        assert e.code == 3 and e.args == (3, 1.5)


def reraise(n):
    try:
        if n > 0:
            raise ValueError("positive", n)
        return 10 // n
    except ValueError:
        raise
    except ZeroDivisionError as e:
        raise e


def reraise_caught_outside(n):
    try:
        try:
            raise RangeProblem(n)
        except AppError:
            if n > 1:
                raise
            raise ValueError("replaced", n)
    except RangeProblem:
        return 1
    except ValueError:
        return 2


def reraise_twice_nested(n):
    try:
        raise KeyError(n, 2 * n)
    except KeyError:
        try:
            raise
        except KeyError:
            if n > 2:
                raise
        return -1


@pytest.mark.parametrize("f", [reraise, reraise_caught_outside, reraise_twice_nested])
def test_reraise(f):
    agree(f, *INTS)


@njit
def helper_raises(n):
    if n % 2:
        raise RangeProblem("odd", n, n * 0.5)
    return np.ones(n)


def across_calls(n):
    try:
        return helper_raises(n).sum()
    except AppError:
        return -1.0


def across_calls_uncaught(n):
    a = np.zeros(3)
    b = helper_raises(n)
    return a.sum() + b.sum()


@pytest.mark.parametrize("f", [across_calls, across_calls_uncaught])
def test_exceptions_cross_compiled_calls(f):
    agree(f, *INTS)


# -- memory on exceptional paths ------------------------------------------------------------------
def arrays_in_try(n):
    total = 0.0
    for i in range(n):
        try:
            a = np.ones(i + 1)
            b = a + np.arange(i + 1) / (np.ones(2)[i % 3])  # IndexError part way through
            total += b.sum()
        except IndexError:
            c = np.zeros(4)
            total += c.size
        finally:
            d = np.ones(2)
            total += d[0]
    return total


def array_returned_through_finally(n):
    a = np.zeros(n)
    try:
        if n > 3:
            raise ValueError("long", n)
        return a + 1.0
    finally:
        a[0:1] = 7.0


def finally_reassigns_returned_local(n):
    a = np.zeros(n)
    try:
        return a
    finally:
        a = np.ones(n)


def test_no_leaks_on_exceptional_paths():
    agree(arrays_in_try, (0,), (3,), (8,), boundscheck=True)
    agree(array_returned_through_finally, (2,), (5,))
    agree(finally_reassigns_returned_local, (3,))


def test_parallel_ufunc_chunks_release_their_exceptions():
    @vectorize(["float64(float64)"], target="parallel")
    def checked(x):
        if x > 10.0:
            raise ValueError("too big", x)
        return x * 2
    x = np.arange(1 << 16, dtype=np.float64)
    with pytest.raises(ValueError, match="too big"):
        checked(x)
    assert same(checked(x[:8]), x[:8] * 2)
    with pytest.raises(ValueError) as info:
        checked(np.array([1.0, 20.0, 30.0]))
    assert info.value.args == ("too big", 20.0)


def test_gufunc_kernel_raises_with_arguments():
    @guvectorize(["void(float64[:], float64[:])"], "(n)->()")
    def first_positive(x, out):
        for v in x:
            if v > 0:
                out[0] = v
                return
        raise LookupError("none positive in", x.shape[0])
    assert same(first_positive(np.array([[-1.0, 2.0], [3.0, 1.0]])), np.array([2.0, 3.0]))
    with pytest.raises(LookupError) as info:
        first_positive(np.array([[-1.0, 2.0], [-3.0, 0.0]]))
    assert info.value.args == ("none positive in", 2)


def test_nogil_entry_raises_with_arguments():
    agree(raise_values, (0, 1.5), (4, 1.5), nogil=True)


def assert_without_message(n):
    assert n > 0
    return n


def test_assert_without_message_has_no_arguments():
    # (pytest rewrites the asserts of this file, so CPython's AssertionError() is spelled out)
    assert njit(assert_without_message)(1) == 1
    with pytest.raises(AssertionError) as info:
        njit(assert_without_message)(0)
    assert info.value.args == ()


# -- inside other constructs -------------------------------------------------------------
def try_in_prange(a):
    s = 0.0
    for i in prange(a.shape[0]):
        try:
            if a[i] < 0:
                raise ValueError("negative", i)
            s += a[i]
        except ValueError:
            s += 100.0
    return s


def raises_from_many_chunks(n):
    s = 0
    for i in prange(n):
        if i % 1000 == 999:
            raise ValueError("at", i)
        s += i
    return s


def break_in_handler(n):
    s = 0
    for i in prange(n):
        try:
            if i == 5:
                raise ValueError
            s += i
        except ValueError:
            break  # leaves the loop: it must run serially
    return s


def test_try_and_raise_in_prange_loops():
    a = np.arange(-20.0, 5000.0)
    agree(try_in_prange, (a,), (a[30:],), parallel=True)
    agree(raises_from_many_chunks, (100_000,), (999,), parallel=True)
    agree(break_in_handler, (100_000,), (3,), parallel=True)


def try_in_nested_function(n):
    def safe_div(a, b):
        try:
            return a // b
        except ZeroDivisionError:
            return 0
    return safe_div(n, n - 1) + safe_div(n, 2)


def try_over_array_items(a):
    total = 0.0
    for v in a:
        try:
            if v < 0:
                raise ValueError("negative")
            total += 1.0 / float(v)
        except ZeroDivisionError:
            total += 1000.0
        except ValueError:
            return -total
    return total


def test_try_in_nested_functions_and_array_loops():
    agree(try_in_nested_function, *INTS)
    agree(try_over_array_items, (np.array([1.0, 0.0, 2.0]),), (np.array([4.0, -1.0, 0.0]),),
          (np.zeros(0),))


def handler_names_exception_group(n):
    try:
        return 10 // n
    except (ExceptionGroup, ZeroDivisionError):
        return -1


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is new in 3.11")
def test_builtin_class_that_has_no_c_symbol():
    agree(handler_names_exception_group, (0,), (3,))


# -- what kiln refuses ---------------------------------------------------------------------------
def uses_caught_value(n):
    try:
        return 1 // n
    except ZeroDivisionError as e:
        print(e)
        return 0


def raises_array(n):
    raise ValueError(np.zeros(n))


def raises_tuple_with_string(n):
    raise ValueError(("a", n))


def catches_non_class(n):
    try:
        return n
    except 3:
        return 0


def bare_raise_in_finally(n):
    try:
        return 1 // n
    except ZeroDivisionError:
        try:
            return 2 // (n - 1)
        finally:
            raise


def raise_from_value(n):
    try:
        return 1 // n
    except ZeroDivisionError:
        raise ValueError("x") from KeyError


@pytest.mark.parametrize("f,error,message", [
    (uses_caught_value, UnsupportedError, "caught exception 'e'.*re-raise"),
    (raises_array, UnsupportedError, "cannot pass a value of type array"),
    (raises_tuple_with_string, UnsupportedError, r"cannot pass a value of type Tuple\(str"),
    (catches_non_class, TypingError, "catching 3 is not allowed"),
    (raise_from_value, UnsupportedError, "from None"),
    (bare_raise_in_finally, UnsupportedError, "bare 'raise' in a 'finally'"),
])
def test_refused_with_a_clear_error(f, error, message):
    with pytest.raises(error, match=message) as info:
        njit(f)(1)
    assert f"in {f.__name__}" in str(info.value)


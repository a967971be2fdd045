"""Functions defined inside compiled functions (`def` and `lambda`), reading outer locals
as closures do."""
import numpy as np
import pytest

from helpers import check
from kiln import njit
from kiln.errors import TypingError, UnsupportedError


def with_inner_def(x, a):
    def scale(v):
        return v * a + 1
    total = 0.0
    for v in x:
        total += scale(v)
    return total


def with_lambdas(a):
    square = lambda z: z * z  # noqa: E731
    add = lambda p, q: p + q  # noqa: E731
    return square(a), square(2.5), add(a, 1)


def sees_current_values(n):
    k = 1

    def add_k(v):
        return v + k
    out = 0
    for i in range(n):
        k = i
        out += add_k(10)
    return out


def nested_twice(x):
    def middle(y):
        def deepest(z):
            return z + x
        return deepest(y) * 2
    return middle(3)


def recursive_inner(n):
    def fact(m):
        return 1 if m <= 1 else m * fact(m - 1)
    return fact(n)


def inner_with_defaults(x):
    z = x + 1

    def f(a, kw=7, s=-2.5, pair=(1, "ab"), n=None):   # and the outer's z, after them
        return a + kw + s + z + pair[0] + len(pair[1]) + (0 if n is None else 100)
    return f(x), f(x, 1), f(x, 1, 0.5), f(x, 2, 3, (4, "c")), f(x, 2, 3, (4, "c"), 1)


@njit
def returns_inner_with_default():
    def add(x, y=1.1):
        return x + y
    return add


def calls_returned_inner(x):
    return returns_inner_with_default()(x)


def inner_with_computed_default(x):
    def f(y=x):
        return y
    return f()


def inner_given_too_few(x):
    def f(a, b, c=1):
        return a + b + c
    return f(x)


def test_nested_def_reads_outer_locals():
    check(with_inner_def, np.arange(4.0), 2)
    check(with_inner_def, np.zeros(0), 3)


def test_lambdas_compile_per_argument_types():
    check(with_lambdas, 3)
    check(with_lambdas, 1.5)


def test_nested_function_sees_the_outer_value_at_call_time():
    check(sees_current_values, 5)


def test_functions_nested_twice():
    check(nested_twice, 4)


def test_recursive_nested_function_is_a_clear_error():
    with pytest.raises(TypingError, match="nested function 'fact' calls itself"):
        njit(recursive_inner)(5)


def test_nested_function_defaults_fill_the_parameters_a_call_leaves_out():
    check(inner_with_defaults, 3)
    check(inner_with_defaults, 0.5)
    # a returned nested function keeps its default (Numba's issue 9222 computed 15, not 5.1)
    assert njit(calls_returned_inner)(4) == returns_inner_with_default.py_func()(4)


def called_through_a_sibling(x):
    k = 2

    def inner(y):
        return y * k

    def caller(y):     # receives k (for inner) itself
        return inner(y) + 1
    return caller(x)


def passed_to_a_sibling(x, shadow):
    z1 = x + 1

    def inner(y):
        return y + z1

    def apply(f, y):
        if shadow:
            z1 = 1000   # this function's own z1: inner must not read it
        return f(y)
    return apply(inner, x)


def passed_to_a_sibling_reading_its_own(x):
    z1, z2 = x + 1, x * 2

    def inner(y):
        return y + z1

    def scale(y):
        return y * z2

    def apply(f, g, y):   # f and g read z1 and z2, which apply receives for them
        return f(g(y)) + z2
    first = apply(inner, scale, x)
    z1 = 100              # a later call passes the current value, as a closure reads it
    return first, apply(scale, inner, x)


def called_before_its_caller_binds_the_name(x):
    z1 = x + 1

    def inner(y):
        return y + z1

    def caller(y):
        a = inner(y)      # the outer's z1, though caller binds a z1 of its own below
        z1 = 5
        return a + z1
    return caller(x)


def lambdas_reading_outer_locals(n, k):
    scale = lambda z: z * k  # noqa: E731
    total = 0.0
    for a in range(n):
        total += (lambda: a + scale(a))()   # called where it is written
    return total


def test_a_nested_function_reads_the_locals_of_the_function_defining_it():
    check(lambdas_reading_outer_locals, 4, 1.5)
    check(called_through_a_sibling, 3)
    check(passed_to_a_sibling_reading_its_own, 3)
    check(called_before_its_caller_binds_the_name, 3)
    with pytest.raises(UnsupportedError, match="reads z1 of the function defining it"):
        njit(passed_to_a_sibling)(1, True)   # was 1001 or a NameError, not Python's 3


def test_nested_defaults_that_are_not_constants_are_refused_clearly():
    with pytest.raises(UnsupportedError, match="must be a constant"):
        njit(inner_with_computed_default)(1)
    with pytest.raises(TypingError, match=r"takes from 2 to 3 positional arguments but 1"):
        njit(inner_given_too_few)(1)

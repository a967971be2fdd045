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


def inner_with_default(x):
    def f(y=2):
        return y
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


def test_nested_defaults_are_refused_clearly():
    with pytest.raises(UnsupportedError, match="default arguments"):
        njit(inner_with_default)(1)

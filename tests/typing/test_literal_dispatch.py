"""Literal dispatch (typing/literals.py): a function compiled per value of an argument
that `literally` (or an `@overload`'s SentryLiteralArgs) needs as a compile-time constant,
and how that need travels from a callee to the calls of it, as Numba's ForceLiteralArg
does. Results are checked against CPython (where `literally` returns its argument)."""
import operator

import numpy as np
import pytest

import kiln
from helpers import check
from kiln import literally, njit, types
from kiln.errors import CompilerError, TypingError
from kiln.extending import SentryLiteralArgs, overload


def test_signatures_hold_numbas_literal_types():
    f = njit(lambda x: literally(x))
    for value in (123, 321, "abc", True):
        assert f(value) == value
    assert f.signatures == [(types.literal(123),), (types.literal(321),),
                            (types.literal("abc"),), (types.literal(True),)]
    assert all(isinstance(sig[0], types.Literal) for sig in f.signatures)
    assert f.signatures[2][0].literal_value == "abc"


def test_a_string_literal_argument_is_checked_by_value():
    @njit
    def pick(s):
        return literally(s) + "!"
    assert pick("a") == "a!" and pick("b") == "b!" and pick("a") == "a!"
    assert len(pick.signatures) == 2


def callee(x):
    return literally(x) * 2


def test_a_callee_asks_its_callers_parameter():
    inner = njit(callee)

    @njit
    def outer(y, x):
        return inner(y) + x

    assert outer(3, 7) == 13
    assert outer.signatures == [(types.literal(3), types.int64)]
    assert inner.signatures == [(types.literal(3),)]   # compiled into outer, as Numba lists


def test_only_the_parameters_passed_on_become_literals():
    @njit
    def inner(x, y):
        return x + literally(y)

    @njit
    def outer(a, b, c):
        return inner(a, b) + inner(b, c)

    check(lambda a, b, c: a + b + b + c, 1, 2, 3, jitted=outer)
    [(ta, tb, tc)] = outer.signatures
    assert not isinstance(ta, types.Literal)
    assert (tb.literal_value, tc.literal_value) == (2, 3)


def test_constants_and_locals_assigned_once_are_literal():
    @njit
    def foo(a, b):
        v = 1000
        return a + literally(v) + literally(b)

    @njit
    def bar():
        a = 100
        b = 9
        return foo(a=b, b=a)

    assert foo(1, 2) == 1003 and bar() == 1109


def test_nested_functions_pass_requests_on():
    @njit
    def inner(x, y):
        return x + literally(y)

    @njit
    def foo(a, b, c):
        def closure(d):
            return literally(d) + 10 * inner(a, b)
        return closure(c)

    assert foo(1, 2, 3) == 33
    assert foo.signatures == [(types.int64, types.literal(2), types.literal(3))]


def test_mutual_recursion():
    @njit
    def outer_fac(n, value):
        if n < 1:
            return value
        return n * inner_fac(n - 1, value)

    @njit
    def inner_fac(n, value):
        if n < 1:
            return literally(value)
        return n * outer_fac(n - 1, value)

    assert outer_fac(10, 12) == 3628800 * 12
    assert outer_fac.signatures[0][1].literal_value == 12
    assert inner_fac.signatures[0][1].literal_value == 12


def test_a_computed_argument_cannot_be_literal():
    @njit
    def inner(x):
        return literally(x)

    @njit
    def outer(a):
        return inner(a + 1)

    with pytest.raises(TypingError, match="Cannot request literal type"):
        outer(1)
    with pytest.raises(TypingError, match="Invalid use of non-Literal type"):
        njit(lambda a: literally(a + 1))(1)


def test_star_args_and_arrays_are_not_literals():
    @njit
    def foo(a, *args):
        return literally(args)

    with pytest.raises(TypingError, match="tuple cannot be used as a literal"):
        foo(1, 2, 3)

    @njit
    def bar(a, b):
        return foo(a, b)

    with pytest.raises(TypingError, match="Cannot request literal type"):
        bar(1, 2)
    with pytest.raises(TypingError, match="numpy.ndarray cannot be used as a literal"):
        njit(lambda x: literally(x))(np.arange(3))


def plus(x, y):
    return x + y


@overload(plus)
def _plus(x, y):
    SentryLiteralArgs(["x"]).for_function(_plus).bind(x, y)
    return lambda x, y: x + y


def hidden_plus(x, y):
    return x + y


_hidden = njit(lambda x, y: literally(x) + y)


@overload(hidden_plus)
def _hidden_plus(x, y):
    if isinstance(x, types.Integer):
        return lambda x, y: _hidden(x, y)


def test_an_overload_asks_for_literal_arguments():
    for target in (plus, hidden_plus):
        f = njit(lambda a, b: target(a, b))
        assert f(123, 321) == 444
        [(ta, tb)] = f.signatures
        assert ta == types.literal(123) and not isinstance(tb, types.Literal)


def loops(x, y):
    return x + y


@overload(loops)
def _loops(x, y):
    if isinstance(y, types.IntegerLiteral):
        raise TypingError("no literal y")
    return lambda x, y: _hidden(x, y)


def test_a_request_that_comes_back_is_a_compiler_error():
    f = njit(lambda a, b: loops(a, literally(b)))
    with pytest.raises(CompilerError, match="Repeated literal typing request"):
        f(123, 321)


def test_numbas_names():
    assert kiln.errors.CompilerError is CompilerError
    assert issubclass(kiln.errors.LoweringError, CompilerError)
    assert types.literal(3) == types.IntegerLiteral(3)
    assert types.literal(3).literal_type == types.int64


def prefer_lit(x):
    pass


def non_lit(x):
    pass


def _by_value(x):
    if isinstance(x, types.IntegerLiteral):
        if x.literal_value == 1:
            return lambda x: 0xcafe
        raise TypingError("only the literal 1")
    return lambda x: x * 100


overload(prefer_lit, prefer_literal=True)(_by_value)
overload(non_lit, prefer_literal=False)(_by_value)


def test_prefer_literal():
    """Numba's prefer_literal: True sees a constant's literal type first (then the plain
    type, when the overload refuses it); False, the plain type first."""
    assert njit(lambda x: (prefer_lit(1), prefer_lit(2), prefer_lit(x)))(3) == \
        (0xcafe, 200, 300)
    assert njit(lambda x: (non_lit(1), non_lit(2), non_lit(x)))(3) == (100, 200, 300)


def seen_literal(x):
    pass


@overload(seen_literal, prefer_literal=True)
def _seen_literal(x):
    known = isinstance(x, types.BooleanLiteral)
    return lambda x: known


def compared_with_none(x, y):
    r = x == y
    if y is None:
        r = x != y   # the variable holds a run-time bool
    return seen_literal(x == y), seen_literal(operator.ne(x, y)), r, x == None, \
        (x != None) + 1  # noqa: E711


@pytest.mark.parametrize("x, y", [(None, None), (None, 1), (2.5, None)])
def test_a_comparison_with_none_is_a_literal(x, y):
    # its answer is known when compiling, a BooleanLiteral to an overload, as in Numba
    r = x != y if y is None else x == y   # CPython's answers
    assert njit(compared_with_none)(x, y) == (True, True, r, x is None, (x is not None) + 1)


def sees_items(lst):
    pass


@overload(sees_items)
def _sees_items(lst):
    if lst.initial_value is None:
        return lambda lst: literally(lst)
    first = lst.initial_value[0]
    return lambda lst: len(lst) * 100 + first


def initial_items():
    x = [7, 2, 3]
    x.append(4)   # the display's items, not the list's now
    return sees_items(x), sees_items([5])


def computed_items(n):
    return sees_items([n, 2])


def test_a_list_display_of_constants_is_its_initial_value():
    # Numba's List.initial_value: what literally() of a list gives an overload
    assert njit(initial_items)() == (407, 105)
    with pytest.raises(TypingError, match="Cannot request literal type"):
        njit(computed_items)(1)

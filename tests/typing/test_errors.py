"""Bad input gets a clear error naming the function, the file and line, with a caret."""
import numpy as np
import pytest

from kiln import njit
from kiln.errors import SourceUnavailableError, TypingError, UnsupportedError


def adds_string(x):
    y = x + 1
    return y + "a"


def test_typing_error_quotes_line_with_caret_and_types():
    with pytest.raises(TypingError) as info:
        njit(adds_string)(1)
    text = str(info.value)
    assert "unsupported operand types for +: int64 and str" in text
    assert __file__ in text and "in adds_string" in text
    assert '    return y + "a"\n' in text
    assert "           ^^^^^^^" in text
    assert "while compiling adds_string(int64)" in text


def generator(x):
    y = yield x
    yield y


def test_unsupported_construct():
    with pytest.raises(UnsupportedError, match="do not receive values"):
        njit(generator)(np.zeros(3))


def plain_helper(x):
    return x


def calls_plain(x):
    return plain_helper(x)


def test_calling_a_plain_python_function():
    with pytest.raises(UnsupportedError, match="'plain_helper'.*@njit"):
        njit(calls_plain)(1)


def makes_an_object(x):
    object()
    return x


def test_an_unsupported_builtin_is_an_untyped_global_name():
    for kind in (TypingError, UnsupportedError):   # Numba's TypingError, and kiln's kind
        with pytest.raises(kind, match="Untyped global name 'object': kiln does not support "
                                       r"object\(\) in compiled code yet"):
            njit(makes_an_object)(1)


def unknown_numpy(x):
    return np.definitely_not_there(x)


def test_unknown_module_attribute():
    with pytest.raises(TypingError, match="no attribute 'definitely_not_there'"):
        njit(unknown_numpy)(1)


def number_or_tuple(x):
    if x > 0:
        return 1
    return (1, 2)


def test_returns_without_common_type():
    with pytest.raises(TypingError, match="returns int64 on some paths and "
                                          r"UniTuple\(int64 x 2\) on others"):
        njit(number_or_tuple)(1)


def test_function_without_source():
    import ast
    namespace = {}
    exec(compile(ast.parse("def f(x):\n    return x\n"), "<tree>", "exec"), namespace)
    with pytest.raises(SourceUnavailableError, match="source of 'f' is not available"):
        njit(namespace["f"])(1)


def conflicting(flag):
    if flag:
        v = 1
    else:
        v = (1, 2)
    return v


def test_variable_with_conflicting_types():
    with pytest.raises(TypingError, match="variable 'v' is assigned"):
        njit(conflicting)(True)


def undefined_name(x):
    return x + nowhere  # noqa: F821


def test_undefined_name():
    with pytest.raises(TypingError, match="name 'nowhere' is not defined"):
        njit(undefined_name)(1)


def used_before_assignment(n):
    for i in range(n):
        if i > 0:
            total = total + i  # noqa: F821, F841
    return 0


def test_local_no_path_assigns_raises_when_read():
    """`total` is assigned only by the statement that reads it: CPython compiles this and
    raises UnboundLocalError when (and only when) that read runs; so does kiln."""
    f = njit(used_before_assignment)
    assert f(1) == used_before_assignment(1) == 0
    with pytest.raises(UnboundLocalError, match="'total'"):
        f(3)


def raises_with_message(x):
    if x < 0:
        raise ValueError("x must be non-negative")
    assert x != 3, "three is not allowed"
    return x


def test_raise_and_assert_in_compiled_code():
    f = njit(raises_with_message)
    assert f(2) == 2
    with pytest.raises(ValueError, match="x must be non-negative"):
        f(-1)
    with pytest.raises(AssertionError, match="three is not allowed"):
        f(3)


class CustomError(Exception):
    pass


def raises_custom(x):
    if x:
        raise CustomError("custom")
    return 0


def test_raise_user_exception_class():
    with pytest.raises(CustomError, match="custom"):
        njit(raises_custom)(True)


def test_division_by_zero():
    def div(a, b):
        return a // b
    with pytest.raises(ZeroDivisionError):
        njit(div)(1, 0)


def wrong_arity(a, b):
    return a


def test_wrong_number_of_arguments():
    with pytest.raises(TypeError, match="wrong_arity"):
        njit(wrong_arity)(1)


def test_no_internal_traceback_in_message():
    with pytest.raises(TypingError) as info:
        njit(adds_string)(2)
    assert "Traceback" not in str(info.value)
    assert "kiln/" not in str(info.value)


def uses_class(x):
    class Inner:
        pass
    return x


def uses_with(x):
    with open(__file__):
        pass
    return x


def uses_del(x):
    del x
    return 1


def uses_array_method(x):
    return x.tofile("a.bin")


def uses_generator(x):
    y = yield x


@pytest.mark.parametrize("func,arg,message", [
    (uses_class, 1, "class definitions"),
    (uses_with, 1, "'with' blocks"),
    (uses_del, 1, "'del'"),
    (uses_array_method, np.zeros(2), "array attribute or method 'tofile' yet"),
    (uses_generator, 1, "send"),
])
def test_unsupported_python_names_the_construct_and_line(func, arg, message):
    with pytest.raises(UnsupportedError, match=message) as info:
        njit(func)(arg)
    assert f"in {func.__name__}" in str(info.value)


def falls_off_the_end(x):
    if x > 0:
        return x


def test_declared_return_type_must_hold_the_implicit_none():
    with pytest.raises(TypingError, match="cannot return none from a function declared to "
                                          "return int64"):
        njit("i8(i8)")(falls_off_the_end)
    assert njit("void(f8[:])")(lambda a: None)(np.zeros(1)) is None


def make_bad_lambda():
    return njit(lambda y: y + "b")


def test_caret_under_the_expression_in_a_returned_lambda():
    with pytest.raises(TypingError) as info:
        make_bad_lambda()(1)
    lines = str(info.value).splitlines()
    source = next(i for i, line in enumerate(lines) if 'return njit(lambda y: y + "b")' in line)
    assert lines[source + 1].index("^") == lines[source].index('y + "b"')

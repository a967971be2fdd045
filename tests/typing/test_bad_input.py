"""A corpus of malformed programs: each gives a clear error naming the function and the
offending line (or compiles and agrees with CPython), never a crash, a hang or a silently
wrong answer. Cases that could crash or hang run in a subprocess with a timeout."""
import linecache
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kiln import njit
from kiln.errors import KilnError, SourceUnavailableError, TypingError, UnsupportedError


def define(name, source, namespace=None):
    """Define the function `name` from `source` as a cell would (text in linecache), so kiln
    reads the text and errors quote its lines."""
    filename = f"<bad-input-{name}>"
    text = textwrap.dedent(source)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"np": np, "njit": njit, **(namespace or {})}
    exec(compile(text, filename, "exec"), scope)
    return scope[name], text


def bad_line(text):
    """(line number, text) of the line marked `# bad`."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.rstrip().endswith("# bad"):
            return number, line.split("# bad")[0].strip()
    raise AssertionError("no line marked '# bad'")


def f64(n=4):
    return np.arange(float(n))


def readonly():
    a = np.arange(4.0)
    a.flags.writeable = False
    return a


# (id, source defining f, arguments, error class, words the message contains)
CASES = [
    # -- statements kiln does not compile -------------------------------------------------
    ("try_except", """
        def f(x):
            try:  # bad
                return 1 / x
            except ZeroDivisionError:
                return 0.0
     """, (1.0,), UnsupportedError, ["try"]),
    ("try_finally", """
        def f(x):
            try:  # bad
                y = x
            finally:
                y = 2
            return y
     """, (1,), UnsupportedError, ["try"]),
    ("with_statement", """
        def f(x):
            with open("x") as h:  # bad
                return x
     """, (1,), UnsupportedError, ["with"]),
    ("class_definition", """
        def f(x):
            class C:  # bad
                pass
            return x
     """, (1,), UnsupportedError, ["class"]),
    ("global_statement", """
        def f(x):
            global g  # bad
            return x
     """, (1,), UnsupportedError, ["global"]),
    ("nonlocal_statement", """
        def f(x):
            def g():
                nonlocal x  # bad
                x = 2
            g()
            return x
     """, (1,), UnsupportedError, ["nonlocal"]),
    ("delete_statement", """
        def f(x):
            y = x
            del y  # bad
            return x
     """, (1,), UnsupportedError, ["del"]),
    ("import_statement", """
        def f(x):
            import math  # bad
            return x
     """, (1,), UnsupportedError, ["import"]),
    ("import_from", """
        def f(x):
            from math import sin  # bad
            return x
     """, (1,), UnsupportedError, ["import"]),
    ("generator_function", """
        def f(x):
            yield x  # bad
     """, (1,), UnsupportedError, ["yield"]),
    ("yield_from", """
        def f(x):
            yield from range(x)  # bad
     """, (1,), UnsupportedError, ["yield"]),
    ("match_statement", """
        def f(x):
            match x:  # bad
                case 1:
                    return 1
            return 0
     """, (1,), UnsupportedError, ["match"]),
    ("starred_assignment", """
        def f(t):
            a, *b = t  # bad
            return a
     """, ((1, 2, 3),), UnsupportedError, ["starred"]),
    ("starred_for_target", """
        def f(t):
            s = 0
            for a, *b in ((1, 2, 3),):  # bad
                s += a
            return s
     """, ((1, 2, 3),), UnsupportedError, ["starred"]),
    ("raise_non_constant_message", """
        def f(x):
            raise ValueError("bad value " + str(x))  # bad
     """, (1,), KilnError, []),
    # -- expressions kiln does not compile ------------------------------------------------
    ("list_comprehension", """
        def f(x):
            return [v for v in x]  # bad
     """, (f64(),), UnsupportedError, ["comprehension"]),
    ("dict_comprehension", """
        def f(x):
            return {v: v for v in x}  # bad
     """, (f64(),), UnsupportedError, ["comprehension"]),
    ("set_comprehension", """
        def f(x):
            return {v for v in x}  # bad
     """, (f64(),), UnsupportedError, ["comprehension"]),
    ("generator_expression", """
        def f(x):
            return sum(v for v in x)  # bad
     """, (f64(),), UnsupportedError, ["generator"]),
    ("list_display", """
        def f(x):
            return [x, x]  # bad
     """, (1,), UnsupportedError, ["list"]),
    ("dict_display", """
        def f(x):
            return {1: x}  # bad
     """, (1,), UnsupportedError, ["dict"]),
    ("set_display", """
        def f(x):
            return {x}  # bad
     """, (1,), UnsupportedError, ["set"]),
    ("f_string", """
        def f(x):
            return f"{x}"  # bad
     """, (1,), UnsupportedError, []),
    ("string_concatenation", """
        def f(x):
            return "a" + x  # bad
     """, (1,), TypingError, ["+"]),
    ("bytes_constant", """
        def f(x):
            return b"abc"  # bad
     """, (1,), UnsupportedError, ["constant"]),
    ("ellipsis_constant", """
        def f(x):
            return ...  # bad
     """, (1,), UnsupportedError, ["constant"]),
    ("await_outside_async", """
        def f(x):
            return x.__await__()  # bad
     """, (1,), TypingError, ["__await__"]),
    ("starred_call", """
        def g(a, b):
            return a + b

        def f(t):
            return g(*t)  # bad
     """, ((1, 2),), KilnError, []),
    ("double_starred_call", """
        def g(a, b):
            return a + b

        def f(x):
            return g(**x)  # bad
     """, (1,), KilnError, []),
    ("starred_in_tuple", """
        def f(t):
            return (0, *t)  # bad
     """, ((1, 2),), KilnError, []),
    ("walrus_in_comprehension", """
        def f(x):
            return [y := v for v in x]  # bad
     """, (f64(),), UnsupportedError, ["comprehension"]),
    ("in_operator_on_array", """
        def f(x):
            return 1.0 in x  # bad
     """, (f64(),), KilnError, []),
    ("is_between_numbers", """
        def f(x):
            return x is 1.5  # bad
     """, (1.5,), KilnError, []),
    ("integer_literal_too_wide", """
        def f(x):
            return x + 123456789012345678901234567890  # bad
     """, (1,), TypingError, ["integer literal", "64 bits"]),
    ("negative_integer_literal_too_wide", """
        def f(x):
            return x - 2 ** 200 + 99999999999999999999999  # bad
     """, (1,), TypingError, ["integer literal", "64 bits"]),
    # -- signatures kiln refuses ----------------------------------------------------------
    ("star_args_parameter", """
        def f(*args):  # bad
            return 1
     """, (1,), UnsupportedError, ["*args"]),
    ("kwargs_parameter", """
        def f(x, **kw):  # bad
            return x
     """, (1,), UnsupportedError, ["**kwargs"]),
    ("keyword_only_parameter", """
        def f(x, *, y=2):  # bad
            return x + y
     """, (1,), UnsupportedError, ["keyword-only"]),
    ("async_function", """
        async def f(x):  # bad
            return x
     """, (1,), UnsupportedError, ["async"]),
    # -- names and attributes -------------------------------------------------------------
    ("unknown_global", """
        def f(x):
            return x + undefined_name  # bad
     """, (1,), KilnError, ["undefined_name"]),
    ("unknown_numpy_function", """
        def f(x):
            return np.not_a_function(x)  # bad
     """, (1.0,), TypingError, ["not_a_function"]),
    ("unknown_array_method", """
        def f(x):
            return x.not_a_method()  # bad
     """, (f64(),), KilnError, ["not_a_method"]),
    ("unknown_scalar_attribute", """
        def f(x):
            return x.imaginary_part  # bad
     """, (1.0,), TypingError, ["imaginary_part"]),
    ("calling_plain_python_function", """
        def helper(x):
            return x

        def f(x):
            return helper(x)  # bad
     """, (1,), UnsupportedError, ["helper", "@njit"]),
    ("calling_a_module", """
        def f(x):
            return np(x)  # bad
     """, (1,), KilnError, []),
    ("calling_a_number", """
        def f(x):
            return x(1)  # bad
     """, (1,), TypingError, []),
    ("assigning_an_attribute", """
        def f(x):
            x.shape = (2, 2)  # bad
            return x
     """, (f64(),), KilnError, ["shape"]),
    # -- types that do not fit ------------------------------------------------------------
    ("adding_none", """
        def f(x):
            return x + None  # bad
     """, (1,), TypingError, ["+", "none"]),
    ("variable_changes_to_tuple", """
        def f(x):
            y = 1
            if x > 0:
                y = (1, 2)  # bad
            return y
     """, (1,), TypingError, []),
    ("return_types_conflict", """
        def f(x):
            if x > 0:
                return 1
            return (1, 2)  # bad
     """, (1,), TypingError, ["returns"]),
    ("unpacking_wrong_count", """
        def f(t):
            a, b = t  # bad
            return a
     """, ((1, 2, 3),), TypingError, ["unpack", "2"]),
    ("unpacking_a_number", """
        def f(x):
            a, b = x  # bad
            return a
     """, (1,), TypingError, ["unpack"]),
    ("tuple_index_out_of_range", """
        def f(t):
            return t[5]  # bad
     """, ((1, 2),), KilnError, []),
    ("tuple_item_assignment", """
        def f(t):
            t[0] = 1  # bad
            return t
     """, ((1, 2),), TypingError, []),
    ("float_array_index", """
        def f(x):
            return x[1.5]  # bad
     """, (f64(),), TypingError, []),
    ("too_many_indices", """
        def f(x):
            return x[1, 2]  # bad
     """, (f64(),), TypingError, []),
    ("array_as_condition", """
        def f(x):
            if x:  # bad
                return 1
            return 0
     """, (f64(),), KilnError, []),
    ("complex_into_float_array", """
        def f(x):
            x[0] = 1j  # bad
            return x
     """, (f64(),), TypingError, ["complex128", "float64"]),
    ("complex_into_int_array", """
        def f(x):
            x[1] = x[0] * 1j  # bad
            return x
     """, (np.arange(3),), TypingError, ["complex128", "int64"]),
    ("complex_into_float_slice", """
        def f(x):
            x[1:] = 2j  # bad
            return x
     """, (f64(),), TypingError, ["complex128", "float64"]),
    ("complex_array_into_float_inplace", """
        def f(x, y):
            x += y  # bad
            return x
     """, (f64(), f64() * 1j), TypingError, []),
    ("comparing_complex_numbers", """
        def f(x):
            return x < 1j  # bad
     """, (1j,), TypingError, ["<"]),
    ("bitwise_on_float", """
        def f(x):
            return x & 1  # bad
     """, (1.5,), TypingError, ["&"]),
    ("shift_of_float", """
        def f(x):
            return x << 2  # bad
     """, (1.5,), TypingError, ["<<"]),
    ("len_of_a_number", """
        def f(x):
            return len(x)  # bad
     """, (3,), TypingError, ["len"]),
    ("range_of_float", """
        def f(x):
            s = 0
            for i in range(x):  # bad
                s += i
            return s
     """, (2.5,), TypingError, ["range"]),
    ("iterating_a_number", """
        def f(x):
            s = 0
            for v in x:  # bad
                s += v
            return s
     """, (3,), TypingError, []),
    ("math_of_array", """
        import math

        def f(x):
            return math.sin(x)  # bad
     """, (f64(),), TypingError, ["sin"]),
    ("wrong_arity_of_compiled_callee", """
        @njit
        def g(a, b):
            return a + b

        def f(x):
            return g(x)  # bad
     """, (1,), TypingError, ["g"]),
    ("recursion_without_signature", """
        @njit
        def f(n):
            if n <= 1:
                return 1
            return n * f(n - 1)  # bad
     """, (5,), TypingError, ["calls itself", "signature"]),
    ("writing_a_read_only_array", """
        def f(x):
            x[0] = 1.0  # bad
            return x
     """, (readonly(),), TypingError, ["read-only"]),
    ("writing_a_read_only_slice", """
        def f(x):
            x[1:] = 1.0  # bad
            return x
     """, (readonly(),), TypingError, ["read-only"]),
    ("inplace_on_a_read_only_array", """
        def f(x):
            x += 1.0  # bad
            return x
     """, (readonly(),), KilnError, ["read-only"]),
    ("prange_without_parallel", """
        def f(x):
            return x.nonexistent_attribute.other  # bad
     """, (f64(),), KilnError, ["nonexistent_attribute"]),
]

IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("name, source, args, error, words", CASES, ids=IDS)
def test_bad_program_gets_a_clear_error(name, source, args, error, words):
    f, text = define("f", source)
    number, line = bad_line(text)
    compiled = f if hasattr(f, "py_func") else njit(f)
    with pytest.raises(error) as info:
        compiled(*args)
    message = str(info.value)
    assert "in f" in message and f"line {number}" in message, message
    assert line in message, message
    for word in words:
        assert word.lower() in message.lower(), (word, message)

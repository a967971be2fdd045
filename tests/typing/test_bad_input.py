"""A corpus of malformed programs: each gives a clear error naming the function and the
offending line (or compiles and agrees with CPython), never a crash, a hang or a silently
wrong answer. Cases that could crash or hang run in a subprocess with a timeout."""
import linecache
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from kiln import njit
from kiln.errors import KilnError, TypingError, UnsupportedError


def define(name, source):
    """Define the function `name` from `source` as a cell would (text in linecache), so kiln
    reads the text and errors quote its lines."""
    filename = f"<bad-input-{name}>"
    text = textwrap.dedent(source)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"np": np, "njit": njit}
    with warnings.catch_warnings():   # `x is 1.5` is one of the bad programs
        warnings.simplefilter("ignore", SyntaxWarning)
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
    ("caught_exception_used", """
        def f(x):
            try:
                return 1 / x
            except ZeroDivisionError as e:
                return e  # bad
     """, (1.0,), UnsupportedError, ["caught exception 'e'"]),
    ("bare_raise_outside_except", """
        def f(x):
            try:
                y = x
            finally:
                raise  # bad
            return y
     """, (1,), UnsupportedError, ["bare 'raise'"]),
    ("except_not_a_class", """
        def f(x):
            try:
                y = x
            except 3:  # bad
                y = 2
            return y
     """, (1,), TypingError, ["catching 3"]),
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
    ("nonlocal_of_a_nested_function_s_variable", """
        def f(x):
            def g():
                w = x
                def h():
                    nonlocal w  # bad
                    w = 2
                h()
                return w
            return g()
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
    ("value_of_yield", """
        def f(x):
            y = yield x  # bad
     """, (1,), UnsupportedError, ["yield", "send"]),
    ("value_of_yield_from", """
        def f(x):
            y = yield from range(x)  # bad
     """, (1,), UnsupportedError, ["yield from"]),
    ("yield_in_try", """
        def f(x):
            try:
                yield x  # bad
            finally:
                pass
     """, (1,), UnsupportedError, ["yield", "try"]),
    ("generator_returns_a_value", """
        def f(x):
            yield x
            return x  # bad
     """, (1,), TypingError, ["returns a value"]),
    ("match_statement", """
        def f(x):
            match x:  # bad
                case 1:
                    return 1
            return 0
     """, (1,), UnsupportedError, ["match"]),
    ("starred_assignment_of_an_array", """
        def f(t):
            a, *b = t  # bad
            return a
     """, (f64(),), UnsupportedError, ["starred", "only a tuple"]),
    ("starred_for_target_over_array_rows", """
        def f(x):
            s = 0.0
            for a, *b in x:  # bad
                s += a
            return s
     """, (np.ones((2, 3)),), UnsupportedError, ["starred", "only a tuple"]),
    # -- expressions kiln does not compile ------------------------------------------------
    ("list_comprehension_of_mixed_items", """
        def f(x):
            l = [v for v in x]
            l.append((1, 2))  # bad
            return l
     """, (f64(),), TypingError, ["append", "list of float64"]),
    ("dict_comprehension_with_array_keys", """
        def f(x):
            return {x: v for v in x}  # bad
     """, (f64(),), TypingError, ["unhashable"]),
    ("set_comprehension_of_unhashable_rows", """
        def f(x):
            return {v for v in x.reshape(2, 2)}  # bad
     """, (f64(),), TypingError, ["unhashable", "set item"]),
    ("generator_expression_over_a_number", """
        def f(x):
            return sum(v for v in x)  # bad
     """, (1.5,), TypingError, ["iterate", "float64"]),
    ("list_of_mixed_items_indexed_at_run_time", """
        def f(x):
            l = [x, (x, x)]
            return l[x]  # bad
     """, (1,), TypingError, ["literal list", "constants"]),
    ("dict_display_of_mixed_values", """
        def f(x):
            return {1: x, 2: (x, x)}  # bad
     """, (1,), TypingError, ["dict", "common type"]),
    ("set_display_of_mixed_items", """
        def f(x):
            return {x, (x, x)}  # bad
     """, (1,), TypingError, ["set", "common type"]),
    ("set_of_an_array", """
        def f(x):
            s = set()
            s.add(x)  # bad
            return s
     """, (f64(),), TypingError, ["unhashable"]),
    ("library_call_that_does_not_bind", """
        def f(a):
            return np.median(a, 0, 1, 2, 3, 4)  # bad
     """, (np.ones(3),), TypingError, ["Cannot bind", "too many positional arguments"]),
    ("f_string_ascii_field", """
        def f(x):
            return f"{x!a}"  # bad
     """, (1,), UnsupportedError, ["!a"]),
    ("string_concatenation", """
        def f(x):
            return "a" + x  # bad
     """, (1,), TypingError, ["+"]),
    ("ellipsis_returned", """
        def f(x):
            return ...  # bad
     """, (1,), TypingError, ["return", "ellipsis"]),
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
    ("starred_list_in_tuple", """
        def f(n):
            items = [n]
            return (0, *items)  # bad
     """, (1,), UnsupportedError, ["only a tuple", "list(int64)"]),
    ("walrus_in_comprehension", """
        def f(x):
            return [y := v for v in x]  # bad
     """, (f64(),), UnsupportedError, [":="]),
    ("in_operator_on_array", """
        def f(x):
            return 1.0 in x  # bad
     """, (f64(),), KilnError, []),
    ("integer_literal_too_wide", """
        def f(x):
            return x + 123456789012345678901234567890  # bad
     """, (1,), TypingError, ["integer literal", "64 bits"]),
    ("negative_integer_literal_too_wide", """
        def f(x):
            return x - 2 ** 200 + 99999999999999999999999  # bad
     """, (1,), TypingError, ["integer literal", "64 bits"]),
    ("walrus", """
        def f(x):
            if (y := x + 1) > 2:  # bad
                return y
            return 0
     """, (1,), UnsupportedError, [":="]),
    ("assert_with_computed_message", """
        def f(x):
            assert x > 0, "negative: " + str(x)  # bad
            return x
     """, (1,), UnsupportedError, ["str"]),
    ("print_with_keywords", """
        def f(x):
            print(x, x, sep="-")  # bad
            return x
     """, (1,), TypingError, ["print", "sep"]),
    ("returning_a_module", """
        def f(x):
            return np  # bad
     """, (1,), TypingError, ["return", "Module"]),
    ("returning_a_compiled_function", """
        @njit
        def g(a):
            return a

        def f(x):
            return g  # bad
     """, (1,), TypingError, ["return", "Dispatcher"]),
    ("object_dtype", """
        def f(x):
            return np.zeros(x, dtype="O")  # bad
     """, (3,), TypingError, ["dtype"]),
    ("misspelt_numpy_keyword", """
        def f(x):
            return np.zeros(x, dtpye=np.int32)  # bad
     """, (3,), TypingError, ["np.zeros()", "dtpye"]),
    # -- signatures kiln refuses ----------------------------------------------------------
    ("star_args_in_a_nested_function", """
        def f(x):
            def g(*args):  # bad
                return 1
            return g(x)
     """, (1,), UnsupportedError, ["*args", "nested"]),
    ("kwargs_parameter", """
        def f(x, **kw):  # bad
            return x
     """, (1,), UnsupportedError, ["**kwargs"]),
    ("keyword_only_parameter", """
        def f(x, *args, y=2):  # bad
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
    ("enumerate_from_a_float", """
        def f(x):
            for i, v in enumerate((1, 2), x):  # bad
                return i
            return 0
     """, (1.5,), TypingError, ["start value in enumerate", "float64"]),
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
    ("unknown_keyword_to_compiled_callee", """
        @njit
        def g(a, b=2):
            return a - b

        def f(x):
            return g(x, c=1)  # bad
     """, (1,), TypingError, ["g()", "unexpected keyword argument 'c'"]),
    ("keyword_repeats_a_positional_argument", """
        @njit
        def g(a, b=2):
            return a - b

        def f(x):
            return g(x, a=1)  # bad
     """, (1,), TypingError, ["g()", "multiple values for argument 'a'"]),
    ("compiled_callee_missing_argument", """
        @njit
        def g(a, b):
            return a - b

        def f(x):
            return g(b=x)  # bad
     """, (1,), TypingError, ["g()", "missing a required argument: 'a'"]),
    ("recursion_without_a_base_case", """
        @njit
        def f(n):
            m = n - 1
            return n * f(m)  # bad
     """, (5,), TypingError, ["calls itself on every path", "signature"]),
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


# -- arguments a compiled function refuses when called -----------------------------------
def two(a, b=2):
    return a - b


class Callable:
    def __call__(self, x):
        return x


def matrix():
    with warnings.catch_warnings():   # NumPy discourages np.matrix, which is the point here
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix([[1.0, 2.0]])


ARGUMENT_CASES = [
    ("np_matrix", (matrix(),), {}, ["ndarray subclass", "matrix"]),
    ("masked_array", (np.ma.MaskedArray([1.0, 2.0], mask=[0, 1]),), {},
     ["ndarray subclass", "MaskedArray"]),
    ("memoryview_of_chars", (memoryview(b"a").cast("c"),), {}, ["argument 1", "memoryview"]),
    ("list_of_mixed_items", ([1, "a"],), {}, ["argument 1", "list"]),
    ("dict", ({},), {}, ["argument 1", "dict"]),
    ("set_of_mixed_items", ({1, "a"},), {}, ["argument 1", "set"]),   # a set of ints passes
    ("int_wider_than_64_bits", (2 ** 70,), {}, ["argument 1", "int"]),
    ("object_array", (np.array([1], dtype=object),), {}, ["argument 1", "ndarray"]),
    ("byte_swapped_array", (np.arange(3, dtype=">f8"),), {}, ["argument 1", "ndarray"]),
    ("structured_array_of_object_fields", (np.zeros(2, dtype=[("a", "O")]),), {},
     ["argument 1", "ndarray"]),
    ("second_argument_of_chars", (1, memoryview(b"b").cast("c")), {},
     ["argument 2", "memoryview"]),
    ("unknown_keyword", (1,), {"c": 3}, ["unexpected keyword", "'c'"]),
    ("keyword_given_twice", (1,), {"a": 2}, ["multiple values", "'a'"]),
    ("too_many_arguments", (1, 2, 3), {}, ["3 were given"]),
    ("missing_argument", (), {}, ["missing", "'a'"]),
]


@pytest.mark.parametrize("name, args, kwargs, words", ARGUMENT_CASES,
                         ids=[case[0] for case in ARGUMENT_CASES])
def test_bad_arguments_are_refused(name, args, kwargs, words):
    with pytest.raises(TypeError) as info:
        njit(two)(*args, **kwargs)
    message = str(info.value)
    assert message.startswith("two()"), message
    for word in words:
        assert word in message, (word, message)


def test_keywords_between_compiled_functions_agree_with_python():
    f, _ = define("f", """
        @njit
        def g(a, b=2, c=10):
            return a - b * c

        def f(x):
            return g(x, 3, c=5) + g(c=x, b=2, a=1) + g(x)
    """)
    for x in (0, 4, -7):
        assert njit(f)(x) == f(x)


def test_valid_keywords_still_agree_with_python():
    assert njit(two)(5, b=3) == two(5, b=3)
    assert njit(two)(b=7, a=1) == two(b=7, a=1)
    assert njit(two)(4) == two(4)


NOT_FUNCTIONS = [Callable(), len, int, np.sin, np, 1, two.__code__, "not a signature (",
                 staticmethod(two)]


@pytest.mark.parametrize("thing", NOT_FUNCTIONS, ids=lambda thing: type(thing).__name__)
def test_njit_of_something_that_is_not_a_function(thing):
    with pytest.raises((TypeError, KilnError)) as info:
        compiled = njit(thing)
        compiled(1)
    assert "not" in str(info.value)


# -- programs that could crash or hang: each runs in its own interpreter ------------------
CHILD_TIMEOUT = 300


def run_child(program, before=None):
    """Run `program` (which defines its functions in a linecache-registered text, so kiln
    can read it) in a new interpreter (`before` called in the child before it starts); its
    exit status and output."""
    proc = subprocess.run([sys.executable, "-"], input=textwrap.dedent(program),
                          capture_output=True, text=True, timeout=CHILD_TIMEOUT,
                          preexec_fn=before)
    return proc.returncode, proc.stdout + proc.stderr


PRELUDE = """
    import linecache, sys
    import numpy as np
    from kiln import njit
    from kiln.errors import KilnError

    def define(name, text):
        filename = "<generated-" + name + ">"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        scope = {"np": np, "njit": njit}
        exec(compile(text, filename, "exec"), scope)
        return scope[name]
"""


def test_very_long_expression_gives_a_clear_error_or_compiles():
    rc, out = run_child(PRELUDE + """
    text = "def long_sum(x):\\n    return x" + " + 1" * 2000 + "\\n"
    f = define("long_sum", text)
    try:
        print("RESULT", njit(f)(3) == f(3))
    except KilnError as e:
        print("ERROR", type(e).__name__, "long_sum" in str(e), "line 1" in str(e))
    """)
    assert rc == 0, out
    assert "RESULT True" in out or "ERROR UnsupportedError True True" in out, out


def test_deeply_nested_blocks_compile():
    depth = 18   # CPython refuses more than 20 nested blocks
    lines = ["def nested(x):", "    s = 0"]
    for level in range(depth):
        indent = "    " * (level + 1)
        lines.append(f"{indent}if x > {level}:")
        lines.append(f"{indent}    s += {level + 1}")
    lines.append("    return s")
    text = "\n".join(lines) + "\n"
    rc, out = run_child(PRELUDE + f"""
    f = define("nested", {text!r})
    print("RESULT", [njit(f)(v) == f(v) for v in (-1, 0, 5, 17, 30)])
    """)
    assert rc == 0 and "RESULT [True, True, True, True, True]" in out, out


@pytest.mark.slow   # two minutes of compiling in a child process
def test_ten_thousand_line_function_compiles_or_says_why():
    body = "".join(f"    s = s + x * {i % 7} - {i % 3}\n" for i in range(10_000))
    text = "def huge(x):\n    s = 0\n" + body + "    return s\n"
    rc, out = run_child(PRELUDE + f"""
    f = define("huge", {text!r})
    try:
        print("RESULT", njit(f)(3) == f(3))
    except KilnError as e:
        print("ERROR", "huge" in str(e))
    """)
    assert rc == 0, out
    assert "RESULT True" in out or "ERROR True" in out, out


def test_huge_shapes_raise_numpy_errors():
    rc, out = run_child(PRELUDE + """
    f = define("make", "def make(n, m):\\n    return np.empty((n, m))\\n")
    for n, m in ((2 ** 40, 2 ** 40), (2 ** 62, 4), (-1, 3)):
        try:
            njit(f)(n, m)
            print("NO ERROR")
        except ValueError as e:
            try:
                f(n, m)
            except ValueError as numpy_error:
                print("SAME", str(e) == str(numpy_error))
    """)
    assert rc == 0, out
    assert out.count("SAME True") == 3, out


def test_deep_recursion_raises_recursion_error():
    """Self and mutual recursion, on the main thread and on a thread with a small stack,
    with arrays alive in every frame: RecursionError instead of SIGSEGV, nothing leaked,
    and the function still works after."""
    rc, out = run_child(PRELUDE + """
    import threading
    from kiln.runtime.nrt import allocation_stats
    text = ("@njit('i8(i8)')\\n"
            "def depth(n):\\n    if n == 0:\\n        return 0\\n"
            "    return 1 + depth(n - 1)\\n"
            "@njit\\n"
            "def ping(n, a):\\n    if n == 0:\\n        return a.sum()\\n"
            "    b = a + 1.0\\n    return pong(n - 1, b)\\n"
            "@njit('f8(i8, f8[:])')\\n"
            "def pong(n, a):\\n    return ping(n, a)\\n")
    scope = {"np": np, "njit": njit}
    linecache.cache["<rec>"] = (len(text), None, text.splitlines(True), "<rec>")
    exec(compile(text, "<rec>", "exec"), scope)
    depth, ping = scope["depth"], scope["ping"]
    def deep_calls():
        try:
            depth(10 ** 8)
        except RecursionError as e:
            print("RECURSION ERROR", "depth" in str(e))
        try:
            ping(10 ** 8, np.ones(2))
        except RecursionError:
            print("MUTUAL RECURSION ERROR")
        print("SHALLOW", depth(100) == 100, ping(3, np.ones(2)) == 8.0)
    before = allocation_stats()
    deep_calls()
    threading.stack_size(1 << 20)
    worker = threading.Thread(target=deep_calls)
    worker.start()
    worker.join()
    print("LEAKED", allocation_stats().live - before.live)
    """)
    assert rc == 0, out
    assert out.count("RECURSION ERROR True") == 2 and out.count("MUTUAL RECURSION ERROR") == 2
    assert out.count("SHALLOW True True") == 2 and "LEAKED 0" in out, out


def _unlimited_stack_and_8_gib_of_address_space():
    import resource
    resource.setrlimit(resource.RLIMIT_STACK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the stack guard is Linux's")
def test_deep_recursion_raises_with_an_unlimited_stack():
    """`ulimit -s unlimited`: the C library reports the main thread's stack as terabytes,
    down to the next mapping. The guard counts 1 GiB of it, so recursion still raises
    (before, it ran until memory ran out: here, the 8 GiB address-space limit's SIGSEGV)."""
    import resource
    if resource.getrlimit(resource.RLIMIT_STACK)[1] != resource.RLIM_INFINITY:
        pytest.skip("the hard stack limit is not unlimited here")
    rc, out = run_child(PRELUDE + """
    import resource
    print("UNLIMITED", resource.getrlimit(resource.RLIMIT_STACK)[0] == resource.RLIM_INFINITY)
    depth = define("depth", "@njit('i8(i8)')\\ndef depth(n):\\n    if n == 0:\\n"
                            "        return 0\\n    return 1 + depth(n - 1)\\n")
    try:
        depth(10 ** 9)
    except RecursionError as e:
        print("RECURSION ERROR", "depth" in str(e))
    print("SHALLOW", depth(100000) == 100000)
    """, before=_unlimited_stack_and_8_gib_of_address_space)
    assert rc == 0, out
    assert "UNLIMITED True" in out and "RECURSION ERROR True" in out and "SHALLOW True" in out

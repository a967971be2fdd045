"""`with kiln.objmode(...)`: a block of a compiled function that runs as Python. Every
function is checked against CPython running the same code (objmode does nothing there)."""
import json
import math
import statistics

import numpy as np
import pytest

import kiln
from helpers import check
from kiln import njit, objmode, prange, types
from kiln.errors import TypingError
from kiln.typed import Dict, List


def median_and_json(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    with objmode(m='float64', size='int64'):
        m = statistics.median([float(v) for v in x])
        size = len(json.dumps([float(v) for v in x]))
    return s + m, size


def test_library_calls_inside_the_block():
    for x in (np.arange(5.0), np.array([3.5, -1.0, 2.0, 8.0]), np.array([np.inf, 1.0, 2.0])):
        check(median_and_json, x, len(x))
    check(median_and_json, np.array([]), 0)   # statistics.median of nothing: StatisticsError


def print_inside(x):
    with objmode():
        print("objmode sees", x, [v for v in range(3)])
    return x + 1


def test_print_inside(capsys):
    assert njit(print_inside)(2.5) == 3.5
    assert capsys.readouterr().out == "objmode sees 2.5 [0, 1, 2]\n"


def outputs_of_several_types(x, n):
    with objmode(a='int64[:]', b=types.float32, c='bool_', d='UniTuple(int64, 2)',
                 e='complex128', f='int8', g='float64[:, ::1]', h='none'):
        a = np.arange(n, dtype=np.int64) * 2
        b = np.float32(x) / 3
        c = n > 2
        d = (n, -n)
        e = complex(x, n)
        f = -n
        g = np.ones((2, n)) * x
        h = None
    return a.sum() + d[0], b, c, d, e, f, g, a, h


def test_outputs_of_several_types():
    for x, n in ((1.5, 3), (-2.0, 0), (np.nan, 1), (np.inf, 5)):
        check(outputs_of_several_types, x, n)


def inputs_of_several_types(x, t, flag, arr, none):
    lst = [1.5, 2.5]
    d = {1: 2.0}
    s = {3, 4}
    with objmode(text_len='int64'):
        text_len = len(repr((x, t, flag, arr.tolist(), none, list(lst), dict(d),
                             sorted(s))))
    return text_len


def test_inputs_of_several_types():
    check(inputs_of_several_types, 3, (1, 2.5), True, np.arange(3.0), None)
    check(inputs_of_several_types, -7, (0, np.nan), False, np.zeros((0,)), None)


def mutates_its_input(a):
    with objmode():
        a[0] = 99.0
        a.sort()
    return a[-1]


def test_the_block_sees_arrays_and_writes_through():
    check(mutates_its_input, np.array([5.0, -1.0, 2.0]))


def in_a_loop(n):
    acc = 0
    out = np.zeros(n)
    for i in range(n):
        with objmode(acc='int64', root='float64'):
            acc = acc + i * i
            root = math.sqrt(i)
        out[i] = root + acc
    return acc, out


def test_objmode_in_a_loop():
    for n in (0, 1, 10):
        check(in_a_loop, n)


def in_prange(n):
    out = np.zeros(n)
    for i in prange(n):
        with objmode(v='float64'):
            v = math.sqrt(i) + statistics.mean([i, 2 * i])
        out[i] = v
    return out


def test_objmode_in_prange_threads():
    compiled = njit(parallel=True)(in_prange)
    for n in (0, 3, 1000):
        np.testing.assert_array_equal(compiled(n), in_prange(n))


def raises_in_block(x):
    with objmode(y='float64'):
        y = x
        if x < 0:
            raise ValueError("negative", x)
    return y


def test_an_exception_reaches_python_as_the_same_object():
    check(raises_in_block, 2.0)
    check(raises_in_block, -1.0)
    with pytest.raises(ValueError) as info:
        njit(raises_in_block)(-3.0)
    assert info.value.args == ("negative", -3.0)
    assert "raise ValueError" in "".join(
        str(entry.statement) for entry in info.traceback)   # the block's own line


def caught_in_compiled_code(x):
    try:
        with objmode(y='float64'):
            y = 1.0 / x if x != 0 else float({}["missing"])
    except ZeroDivisionError:
        return -1.0
    except KeyError:
        return -2.0
    return y


def test_an_exception_is_caught_by_compiled_code():
    for x in (4.0, 0.0, -0.5):
        check(caught_in_compiled_code, x)
    check(caught_in_compiled_code, 1e-320)


def raises_from_compiled_code_inside(x):
    with objmode(y='float64'):
        y = raises_in_block_compiled(x)
    return y


raises_in_block_compiled = njit(raises_in_block)


def test_compiled_code_called_from_the_block():
    check(raises_from_compiled_code_inside, 5.0)
    check(raises_from_compiled_code_inside, -5.0)


def wrong_output(kind):
    with objmode(y='int64'):
        y = {0: "text", 1: 2.5, 2: 2 ** 70, 3: 7}[kind]
    return y


def test_outputs_that_do_not_fit_name_the_variable():
    f = njit(wrong_output)
    assert f(3) == 7
    for kind, error in ((0, TypeError), (1, TypeError), (2, ValueError)):
        with pytest.raises(error, match="objmode output 'y' is declared int64"):
            f(kind)


def wrong_array(kind):
    with objmode(a='float64[::1]'):
        a = [np.zeros(3, dtype=np.int32), np.zeros((2, 2)), np.zeros(6)[::2],
             np.zeros(3)][kind]
    return a.sum()


def test_array_outputs_are_checked():
    f = njit(wrong_array)
    assert f(3) == 0.0
    for kind, what in ((0, "dtype int32"), (1, "2 dimensions"), (2, "not contiguous")):
        with pytest.raises(TypeError, match=what):
            f(kind)


def list_and_dict_outputs(n):
    with objmode(lst='ListType(int64)', d='DictType(int64, float64)'):
        lst = list(range(n))
        d = {i: i / 2 for i in range(n)}
    total = 0.0
    for v in lst:
        total += v + d[v]
    return total, len(lst), len(d)


def test_list_and_dict_outputs():
    for n in (0, 1, 5):
        check(list_and_dict_outputs, n)


def test_return_break_continue_yield_are_refused():
    def with_return(x):
        with objmode(y='int64'):
            y = 1
            return y
        return 0

    def with_break(x):
        for i in range(3):
            with objmode(y='int64'):
                y = i
                break
        return 0

    def with_loop_break_inside(x):    # a loop inside the block may break
        with objmode(y='int64'):
            y = 0
            for i in range(10):
                if i == 3:
                    break
                y += i
        return y
    for f, what in ((with_return, "'return' cannot be used"),
                    (with_break, "'break' cannot leave")):
        with pytest.raises(TypingError, match=what):
            njit(f)(1)
    assert njit(with_loop_break_inside)(1) == 3


def test_declarations_are_checked():
    def never_assigned(x):
        with objmode(y='int64'):
            pass
        return y   # noqa: F821

    def bad_type(x):
        with objmode(y='no_such_type'):
            y = 1
        return y

    def positional(x):
        with objmode('int64'):
            pass
        return x
    for f, what in ((never_assigned, "never assigned"), (bad_type, "not a kiln type"),
                    (positional, "keyword arguments")):
        with pytest.raises(TypingError, match=what):
            njit(f)(1)


def test_objmode_is_a_no_op_in_python_and_numba_spelling():
    assert kiln.objmode is objmode
    assert median_and_json(np.arange(3.0), 3) == (4.0, 15)
    typed = List([1, 2])
    assert njit(lambda lst: len(lst))(typed) == 2 and isinstance(Dict(), Dict)


def sum_and_fsum(x):
    s = 0.0
    for v in x:
        s += v
    with objmode(r='float64'):
        r = math.fsum(x.tolist())
    return s, r


def test_objmode_in_a_nogil_function_on_several_threads():
    import threading
    compiled = njit(nogil=True)(sum_and_fsum)
    x = np.linspace(-1.0, 1.0, 101)
    results = []
    threads = [threading.Thread(target=lambda: results.append(compiled(x))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [sum_and_fsum(x)] * 4


def in_a_nested_function(x, k):
    def inner(v):
        with objmode(r='float64'):
            r = math.fsum([v, k, 0.5])
        return r
    return inner(x) + 1


def test_objmode_in_a_nested_function_reads_captured_locals():
    for x, k in ((1.0, 2.0), (-0.0, 0.0), (np.inf, 1.0), (1e16, 1.0)):
        check(in_a_nested_function, x, k)


def raises_in_prange(n, bad):
    out = np.zeros(n)
    for i in prange(n):
        with objmode(v='float64'):
            if i == bad:
                raise ValueError("bad item", i)
            v = float(i)
        out[i] = v
    return out


def test_an_exception_in_a_prange_block_reaches_python():
    compiled = njit(parallel=True)(raises_in_prange)
    with pytest.raises(ValueError) as info:
        compiled(100, 7)
    assert info.value.args == ("bad item", 7)
    np.testing.assert_array_equal(compiled(5, -1), raises_in_prange(5, -1))


def describe(name, x):
    label = name + "!"
    with objmode(text="unicode_type", size="int64"):
        text = f"{label.upper()} {x:.2f}"
        size = len(name)
    return text + "?", size


def wrong_kind(name):
    with objmode(text="unicode_type"):
        text = len(name)
    return text


def test_strings_read_and_written_by_a_block():
    """Issue 32: a block reading a str was refused; strings go both ways now (the leak
    check of conftest sees the copies released)."""
    for name, x in [("kiln", 1.5), ("", -2.0), ("ρ∑ unicode", 3.0)]:
        assert njit(describe)(name, x) == describe(name, x)
    with pytest.raises(TypeError, match="declared unicode_type.*not a str"):
        njit(wrong_kind)("abc")

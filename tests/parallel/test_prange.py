"""prange loops in parallel=True functions, each checked against the same function run by
CPython (where prange is range) on the same inputs."""
import os
import re
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import kiln
from kiln import njit, prange
from kiln.errors import TypingError
from helpers import same


_DISPATCHERS = {}


def check(pyfunc, *args, rtol=0.0, parallel=True):
    """Compile with parallel=True, compare with CPython on copies of the inputs; return the
    dispatcher for its diagnostics. One dispatcher per function for the session, so the
    cases of a parametrized test compile each specialization once."""
    key = (pyfunc, parallel)
    compiled = _DISPATCHERS.get(key) or _DISPATCHERS.setdefault(key, njit(parallel=parallel)(pyfunc))
    expected = pyfunc(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = compiled(*copies)
    assert same(expected, got, rtol), (expected, got)
    return compiled


def loop_reports(dispatcher):
    """The prange loops' reports, the same for every specialization the session compiled."""
    (reports, *others) = [spec.typed.prange_loops for _, spec in dispatcher._select(None)]
    assert all(repr(other) == repr(reports) for other in others), (reports, others)
    return reports


def dot_and_extremes(a, b):
    s = 0.0
    lo = np.inf
    hi = -np.inf
    for i in prange(a.shape[0]):
        s += a[i] * b[i]
        lo = min(lo, a[i])
        hi = max(a[i], hi)
    return s, lo, hi


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 1000, 100_003])
def test_scalar_reductions_against_python(n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    compiled = check(dot_and_extremes, a, b, rtol=1e-12)
    (report,) = loop_reports(compiled)
    assert report.parallel and report.reductions == {"s": "+", "lo": "min", "hi": "max"}


def sum_of_squares(x):
    s = 0.0
    p = 1.0
    for i in prange(x.shape[0]):
        s += x[i] * x[i]
        p = p * (1.0 + x[i] * 1e-9)
    return s, p


@pytest.mark.parametrize("values", [[], [1.5], [np.inf, 1.0], [np.nan, 2.0], [-np.inf, np.inf],
                                    list(range(-500, 1001))])
def test_float_reductions_may_reassociate_but_keep_special_values(values):
    x = np.array(values, dtype=np.float64)
    compiled = check(sum_of_squares, x, rtol=1e-14)
    # each chunk's `+=` and `*` may be regrouped, so LLVM can keep one sum per SIMD lane
    # (without it the loop is bound by the latency of one chain of additions)
    ir_text = compiled.inspect_llvm(compiled.signatures[0])
    assert re.search(r"fadd reassoc", ir_text) and re.search(r"fmul reassoc", ir_text)
    # and the chunk reads x contiguously (a chunk's i is known non-negative: no wraparound
    # select in the address, which had turned the vector loads into gathers)
    assert re.search(r"load <\d+ x double>", ir_text) and "gather" not in ir_text


def integer_reductions(x):
    total = 0
    product = 1
    ored = 0
    anded = -1
    xored = 0
    diff = 100
    for i in prange(len(x)):
        total += x[i]
        product = product * (x[i] % 3 + 1)
        ored |= x[i]
        anded &= x[i] | 1
        xored ^= x[i]
        diff -= x[i]
    return total, product, ored, anded, xored, diff


@pytest.mark.parametrize("n", [0, 5, 40])
def test_integer_reductions_are_exact(n):
    x = np.arange(-n // 2, n - n // 2, dtype=np.int64) * 7
    check(integer_reductions, x)


def widening(x):
    s = 0          # an int before the loop, a float after it, as in Python
    for i in prange(x.shape[0]):
        s += x[i] / 2
    return s


def test_reduction_widens_as_python_does():
    check(widening, np.arange(11.0), rtol=1e-15)
    # With no iterations Python keeps the int; compiled code has one type per local (a
    # float here), as without parallel=True.
    assert njit(parallel=True)(widening)(np.arange(0.0)) == njit(widening)(np.arange(0.0))


def column_sums_by_rows(A):
    out = np.zeros(A.shape[1])
    for i in prange(A.shape[0]):
        out += A[i]
    return out


def into_an_argument(A, acc, flags):
    for i in prange(A.shape[0]):
        acc += A[i] * 2.0
        flags |= A[i] > 1.0
    return acc.sum()


def rebinding_an_argument(A, acc):
    for i in prange(A.shape[0]):
        acc = acc + A[i]
    return acc


def integer_array_reductions(A):
    total = np.zeros(A.shape[1], np.int64)
    product = np.ones(A.shape[1], np.int64)
    for i in prange(A.shape[0]):
        total -= A[i]
        product *= 1 + (A[i] % 2)
    return total, product


@pytest.mark.parametrize("rows", [0, 1, 3, 1000])
def test_array_reductions_get_a_private_array_per_chunk(rows):
    A = np.random.default_rng(rows).standard_normal((rows, 7))
    (report,) = loop_reports(check(column_sums_by_rows, A, rtol=1e-12))
    assert report.parallel and report.reductions == {"out": "+"}
    # `acc += ...` writes into the caller's array, as the serial loop does; `acc = acc + ...`
    # leaves it alone (check compares the arguments after the call too)
    check(into_an_argument, A, np.ones(7), np.zeros(7, np.bool_), rtol=1e-12)
    check(rebinding_an_argument, A, np.ones(7), rtol=1e-12)
    check(integer_array_reductions, np.random.default_rng(1).integers(-5, 5, (rows, 5)))


def mixed_forms(A, acc):
    for i in prange(A.shape[0]):
        acc += A[i]
        acc = acc + A[i]
    return acc


def test_in_place_and_rebinding_updates_of_one_name_stay_serial():
    (report,) = loop_reports(check(mixed_forms, np.ones((5, 3)), np.zeros(3)))
    assert not report.parallel and "`acc`" in report.reason


def strided(a, start, stop, step):
    out = np.zeros(a.shape[0])
    s = 0.0
    for i in prange(start, stop, step):
        out[i] = a[i] * 2.0
        s += a[i]
    return out, s


@pytest.mark.parametrize("bounds", [(0, 50, 1), (3, 50, 4), (49, -1, -1), (49, 2, -5),
                                    (10, 10, 1), (10, 3, 1), (-50, -3, 7)])
def test_start_stop_step_and_empty_ranges(bounds):
    a = np.linspace(-3, 5, 50)
    check(strided, a, *bounds, rtol=1e-13)


def test_zero_step_raises_as_range_does():
    with pytest.raises(ValueError, match="must not be zero"):
        njit(parallel=True)(strided)(np.ones(3), 0, 3, 0)


def rows_dot(A, x):
    out = np.empty(A.shape[0])
    for i in prange(A.shape[0]):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * x[j]
        out[i] = acc
    return out


def test_ordinary_loop_inside_prange_non_contiguous():
    A = np.random.default_rng(1).standard_normal((37, 24))
    check(rows_dot, A, A[0], rtol=1e-12)
    check(rows_dot, A[::2, ::3], A[1, ::3], rtol=1e-12)
    check(rows_dot, A.T, A[:, 0], rtol=1e-12)


def relax(u, steps):
    for step in range(steps):           # a region per step
        new = u.copy()
        for i in prange(1, u.shape[0] - 1):
            new[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0
        u = new
    total = 0.0
    for i in prange(u.shape[0]):         # a second prange loop reusing the name i
        total += u[i]
    return u, total


def test_prange_inside_a_loop_and_two_loops_in_one_function():
    u = np.sin(np.linspace(0, 3, 64))
    compiled = check(relax, u, 5, rtol=1e-13)
    assert [r.parallel for r in loop_reports(compiled)] == [True, True]


@njit
def _helper(v):
    return v * v + 1.0


def calls_and_allocates(a):
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        window = np.arange(3.0) + a[i]       # allocated in every iteration, on every thread
        out[i] = _helper(window.sum())
    return out


def test_calls_and_allocation_in_the_body_do_not_leak():
    check(calls_and_allocates, np.linspace(-1, 1, 1001), rtol=1e-14)


def lists_in_the_body(n):
    out = np.zeros(n)
    count = 0
    for i in prange(n):
        items = [j * 0.5 for j in range(i % 7)]   # a list made, grown and freed per iteration
        items.append(float(i))
        items.insert(0, -1.0)
        total = 0.0
        for v in items:
            total += v
        out[i] = total + len(items)
        count += len(list(range(i % 5)))
    return out, count


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [0, 1, 1001])
def test_lists_in_the_body(threads, n):
    previous = kiln.get_num_threads()
    kiln.set_num_threads(min(threads, previous))
    try:
        check(lists_in_the_body, n)
    finally:
        kiln.set_num_threads(previous)


def nested_prange(A):
    s = 0.0
    for i in prange(A.shape[0]):
        for j in prange(A.shape[1]):       # the inner one runs serially in each chunk
            s += A[i, j]
    return s


def test_nested_prange():
    check(nested_prange, np.arange(12.0).reshape(3, 4))


def raises_in_body(a):
    for i in prange(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative input")
        a[i] = 1.0 / a[i]
    return a


def test_exception_in_the_body_reaches_the_caller_once():
    f = njit(parallel=True)(raises_in_body)
    a = np.ones(1000)
    a[[10, 600, 999]] = -1.0
    with pytest.raises(ValueError, match="negative input"):
        f(a)
    assert same(raises_in_body(np.full(8, 4.0)), f(np.full(8, 4.0)))


def int_division(a, d):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i] // d[i]
    return s


def test_zero_division_in_a_chunk():
    f = njit(parallel=True)(int_division)
    d = np.ones(100, dtype=np.int64)
    assert f(np.arange(100), d) == int_division(np.arange(100), d)
    d[77] = 0
    with pytest.raises(ZeroDivisionError):
        f(np.arange(100), d)


def column_sums(A):
    out = np.zeros(A.shape[1])
    for i in prange(A.shape[0]):
        for j in range(A.shape[1]):
            out[j] += A[i, j]
    return out


def test_race_on_a_shared_array_is_refused_with_the_line():
    with pytest.raises(TypingError) as info:
        njit(parallel=True)(column_sums)(np.ones((4, 3)))
    text = str(info.value)
    assert "`out`" in text and "race" in text and "column_sums" in text
    lineno = column_sums.__code__.co_firstlineno + 4
    assert f"line {lineno}" in text


def early_exit(a):
    found = -1
    for i in prange(a.shape[0]):
        if a[i] > 2:
            found = i
            break
    return found


def carried(a):
    prev = 0.0
    out = np.empty(a.shape[0])
    for i in prange(a.shape[0]):
        out[i] = prev
        prev = a[i]
    return out


def last_value(a):
    x = 0.0
    for i in prange(a.shape[0]):
        x = a[i] * 2
    return x


def maybe_unassigned(a):
    # fuzz seed 986: `k` is unassigned when a[0] <= 0, and the loop reads it only when it
    # runs; handing the chunks `k` when the loop starts would raise UnboundLocalError
    if a[0] > 0:
        k = 2
    out = np.zeros(a.shape[0] - 9)
    for i in prange(a.shape[0] - 9):
        out[i] = a[k]
    return out


@pytest.mark.parametrize("fn, why", [(early_exit, "`break`"), (carried, "`prev` may be read"),
                                     (last_value, "`x` is assigned in the loop and read "
                                                  "after it"),
                                     (maybe_unassigned, "`k` may be unassigned when the loop "
                                                        "starts")])
def test_loops_that_cannot_be_split_run_serially_and_say_why(fn, why, capsys):
    compiled = check(fn, np.linspace(0, 4, 9))
    (report,) = loop_reports(compiled)
    assert not report.parallel and why in report.reason
    compiled.parallel_diagnostics()
    assert why in capsys.readouterr().out


def test_without_parallel_prange_is_range(capsys):
    compiled = check(dot_and_extremes, np.arange(5.0), np.ones(5), parallel=False)
    compiled.parallel_diagnostics()
    assert "without parallel=True" in capsys.readouterr().out


def test_diagnostics_list_reductions_private_and_shared(capsys):
    f = njit(parallel=True)(dot_and_extremes)
    f(np.ones(3), np.ones(3))
    f.parallel_diagnostics(level=2)
    out = capsys.readouterr().out
    assert "split across the threads" in out and "s (+)" in out and "private: i" in out
    assert "shared: a, b" in out


def test_thread_count_api():
    n = kiln.get_num_threads()
    assert 1 <= n
    assert kiln.threading_layer() in ("omp", "posix")
    try:
        kiln.set_num_threads(1)
        assert kiln.get_num_threads() == 1
        check(dot_and_extremes, np.arange(10.0), np.ones(10))
    finally:
        kiln.set_num_threads(n)
    with pytest.raises(ValueError, match="between 1 and"):
        kiln.set_num_threads(0)
    with pytest.raises(TypeError):
        kiln.set_num_threads(1.5)
    assert kiln.get_thread_id() == 0


def thread_ids(n):
    seen = np.full(n, -1)
    for i in prange(n):
        seen[i] = kiln.get_thread_id()
    return seen, kiln.get_num_threads()


def test_thread_ids_in_compiled_code():
    f = njit(parallel=True)(thread_ids)
    seen, count = f(1000)
    assert count == kiln.get_num_threads()
    # chunks are contiguous and in thread order: ids never decrease, and each id < count
    assert seen[0] == 0 and np.all(np.diff(seen) >= 0) and seen.max() < count
    assert seen.max() == min(count, 1000) - 1
    assert njit(thread_ids)(3)[0].tolist() == [0, 0, 0]


def test_python_threads_open_regions_at_once():
    f = njit(parallel=True)(dot_and_extremes)
    a = np.random.default_rng(3).standard_normal(200_001)
    expected = dot_and_extremes(a, a)
    results = []

    def work():
        for _ in range(20):
            results.append(f(a, a))
    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(results) == 80 and all(same(expected, r, 1e-12) for r in results)


_SCRIPT = textwrap.dedent("""
    import os, sys
    import numpy as np
    import kiln
    from kiln import njit, prange

    @njit(parallel=True)
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    a = np.ones(100_000)
    assert total(a) == 100_000
    pid = os.fork()
    if pid == 0:   # the child opens a region after the parent's threads existed
        ok = total(a) == 100_000
        print("child layer", kiln.threading_layer(), flush=True)
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    print("parent layer", kiln.threading_layer(), "child status", status)
    sys.exit(0 if status == 0 else 1)
""")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")
@pytest.mark.parametrize("layer", ["omp", "posix"])
def test_parallel_code_in_a_forked_child(layer, tmp_path):
    script = tmp_path / "fork_child.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, KILN_THREADING_LAYER=layer, KILN_NUM_THREADS="2",
               OMP_NUM_THREADS="2")   # a team of 2 exists before the fork
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"parent layer {layer}" in done.stdout
    assert "child layer posix" in done.stdout


def whole_array(a, b, c):
    return np.sqrt(a * a + b * b) + c * 2.0, np.where(a > b, a, -b) * 3


@pytest.mark.parametrize("n", [0, 5, 16_384, 100_001])
def test_array_expressions_split_across_threads(n):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    check(whole_array, a, b, 1.5)
    check(whole_array, a, b, b[::-1].copy())
    check(whole_array, a[::2], b[::2], 0.5)         # strided: the general loop nest
    check(whole_array, a.astype(np.float32), b.astype(np.float32), np.float32(2.0))


def test_diagnostics_name_the_fused_array_expressions(capsys):
    f = njit(parallel=True)(whole_array)
    f(np.ones(3), np.ones(3), 1.0)
    f.parallel_diagnostics()
    out = capsys.readouterr().out
    assert "no prange loops" in out and "split across the threads when long" in out
    assert "np.sqrt(a * a + b * b) + c * 2.0" in out


def test_an_exception_in_a_split_array_expression_is_raised_once():
    from kiln import vectorize

    @vectorize(["float64(float64)"])
    def checked(v):
        if v < 0:
            raise ValueError("negative element")
        return v + 1.0

    f = njit(parallel=True)(lambda x: checked(x) * 2.0)
    x = np.linspace(0, 1, 50_000)
    assert np.array_equal(f(x), (x + 1.0) * 2.0)
    x[40_000] = -1.0
    with pytest.raises(ValueError, match="negative element"):
        f(x)


def test_a_prange_loop_followed_by_break_in_an_enclosing_loop():
    # fuzz seed 1259: the statements after the loop, read to find private names used
    # there, include the enclosing loop's `break`; and `total += ...` there (total is not
    # assigned in the loop) once kept the loop serial
    def fn(a, n):
        out = np.zeros(a.shape[0])
        total = 0.0
        while True:
            for i in prange(a.shape[0]):
                out[i] = a[i] * 2
            total += out.sum()
            n -= 1
            if n <= 0:
                break
            continue
        return total
    (report,) = loop_reports(check(fn, np.linspace(-3, 4, 50), 3))
    assert report.parallel


def comprehensions_in_the_body(a, arr):
    out = np.zeros(len(arr))
    for i in prange(len(arr)):
        out[i] = sum([a * arr[i] for _ in range(3)], 0.0) + sum((arr[0] - a for _ in range(2)), 0.0)
    return out


@pytest.mark.parametrize("n", [0, 1, 7])
def test_comprehensions_in_the_body_read_the_outer_arguments(n):
    # fuzz seeds 123047, 123073: the comprehension's function is defined at the top of the
    # function, so the chunk did not receive the arguments it reads (NameError)
    check(comprehensions_in_the_body, 1.5, np.arange(float(n)) - 2.0)

"""Functions without a file: `python -c`, `exec` of text registered in linecache, the REPL.

Each compiled result is compared with what CPython computes in the same process."""
import linecache
import os
import select
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from kiln import njit
from kiln.errors import SourceUnavailableError

TIMEOUT = 240


def run_python(*args, stdin=None):
    proc = subprocess.run([sys.executable, *args], input=stdin, capture_output=True,
                          text=True, timeout=TIMEOUT)
    return proc.stdout + proc.stderr


def results(output):
    """The (compiled, CPython) pairs a child printed as 'RESULT compiled cpython'."""
    return [line.split()[1:] for line in output.splitlines() if line.startswith("RESULT")]


def test_python_dash_c():
    program = textwrap.dedent("""
        import numpy as np
        from kiln import njit

        def total(x, k):
            s = 0.0
            for i in range(x.shape[0]):
                s += x[i] * k
            return s

        def make(offset):
            def shifted(v):
                return v + offset
            return shifted

        x = np.arange(7.0)
        print("RESULT", njit(total)(x, 3.0), total(x, 3.0))
        triple = lambda a: a * 3 - 1
        print("RESULT", njit(triple)(14), triple(14))
        print("RESULT", njit(make(5))(2), make(5)(2))
    """)
    out = run_python("-c", program)
    found = results(out)
    assert len(found) == 3, out
    for compiled, expected in found:
        assert compiled == expected


def test_exec_of_text_compiles_and_text_never_seen_is_refused():
    """kiln sees the text that exec and compile receive (the `compile` audit event), once
    imported; a function from text it never saw is refused clearly, never guessed."""
    program = textwrap.dedent("""
        ns = {}
        exec("def before(x):\\n    return x + 1\\n", ns)
        from kiln import njit
        from kiln.errors import SourceUnavailableError
        exec("def f(x):\\n    return x * 3 + 1\\n", ns)
        exec("g = lambda x: x - 2; h = lambda x: x * 2", ns)
        exec(compile("def k(x):\\n    return -x\\n", "<generated>", "exec"), ns)
        for name, arg in (("f", 4), ("g", 9), ("h", 7), ("k", 5)):
            print("RESULT", njit(ns[name])(arg), ns[name](arg))
        try:
            njit(ns["before"])(1)
        except SourceUnavailableError as e:
            print("REFUSED", "source of 'before' is not available" in str(e))
    """)
    out = run_python("-c", program)
    found = results(out)
    assert len(found) == 4 and all(c == e for c, e in found), out
    assert "REFUSED True" in out


def test_an_exec_function_is_compiled_after_many_other_texts():
    """The interpreter compiles many small texts of its own (every dataclass and namedtuple
    is exec'd): kiln kept only the newest 256 texts, so a function exec'd at import time
    was 'source unavailable' by the time a test compiled it (CI, cmath tests)."""
    import collections
    ns = {}
    exec("def tripled(x):\n    return 3 * x\n", ns)
    for i in range(600):
        collections.namedtuple(f"Filler{i}", f"a{i} b{i}")
    assert njit(ns["tripled"])(7) == 21

def test_exec_with_linecache_registration():
    text = "def poly(x):\n    y = x * x\n    return 3 * y - x + 0.5\n"
    filename = "<kiln-test-cell-1>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    try:
        namespace = {}
        exec(compile(text, filename, "exec"), namespace)
        poly = namespace["poly"]
        assert njit(poly)(2.5) == poly(2.5)
        assert njit(poly)(-7) == poly(-7)
    finally:
        del linecache.cache[filename]


def test_stale_linecache_text_is_never_compiled():
    import ast
    filename = "<kiln-test-cell-2>"
    namespace = {}
    exec(compile("def f(x):\n    return x + 1\n", filename, "exec"), namespace)
    tree = ast.parse("def g(x):\n    return x + 1\n")    # from a tree: no text to see
    exec(compile(tree, filename, "exec"), namespace)
    stale = "def f(x):\n    return x - 1\n\ndef g(x):\n    return x - 1\n"
    linecache.cache[filename] = (len(stale), None, stale.splitlines(True), filename)
    try:
        assert njit(namespace["f"])(1) == 2     # the text exec compiled, not linecache's
        with pytest.raises(SourceUnavailableError, match="source of 'g' is not available"):
            njit(namespace["g"])(1)
    finally:
        del linecache.cache[filename]


def test_compile_error_quotes_line_from_dash_c():
    program = textwrap.dedent("""
        from kiln import njit
        from kiln.errors import TypingError

        def bad(x):
            return x.no_such_attribute

        try:
            njit(bad)(1.0)
        except TypingError as e:
            print("QUOTED", "return x.no_such_attribute" in str(e))
    """)
    assert "QUOTED True" in run_python("-c", program)


REPL_LINES = ["from kiln import njit",
              "def f(x, n):",
              "    s = 0",
              "    for i in range(n):",
              "        s += x * i",
              "    return s",
              "",
              "print('RESULT', njit(f)(3, 10), f(3, 10))"]


def test_repl_with_piped_stdin():
    """Without a terminal the REPL keeps no history before 3.13: the clear error remains."""
    out = run_python("-q", "-i", stdin="\n".join(REPL_LINES) + "\n")
    found = results(out)
    if found:
        assert [c == e for c, e in found] == [True]
    else:
        assert "source of 'f' is not available" in out, out


def run_in_terminal(lines):
    """Feed `lines` to an interactive interpreter on a pseudo-terminal; its output."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="dumb")
    env.pop("PYTHONSTARTUP", None)
    proc = subprocess.Popen([sys.executable, "-q", "-i"], stdin=slave, stdout=slave,
                            stderr=slave, env=env, close_fds=True)
    os.close(slave)
    os.write(master, "".join(line + "\n" for line in lines + ["exit()"]).encode())
    out = b""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:   # the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.kill()
    proc.wait()
    os.close(master)
    return out.decode(errors="replace")


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_repl_in_a_terminal():
    pytest.importorskip("readline")
    out = run_in_terminal(REPL_LINES + ["g = lambda v: v * v + 1",
                                        "print('RESULT', njit(g)(9), g(9))"])
    found = results(out)
    assert len(found) == 2, out
    for compiled, expected in found:
        assert compiled == expected


def two_lambdas(k):
    return (lambda x: x + k), (lambda x: x * k - 1)


def test_lambdas_sharing_a_line_or_inside_a_statement():
    """Issue 32: two lambdas on one line, a lambda in an `if` header or a call's arguments
    were 'no source'. The code object's positions (or, before Python 3.11, its
    instructions) say which lambda it is."""
    first, second = (lambda x: x + 1), (lambda x: x * 2)
    pairs = [(first, 3), (second, 3), (two_lambdas(4)[0], 5), (two_lambdas(4)[1], 5)]
    nested = lambda x: (lambda y: y * 10)(x) + 1   # noqa: E731
    pairs.append((nested, 2))
    if njit(lambda v: v > 0)(5) and not njit(lambda v: v > 0)(-5):
        pairs.append((lambda x: x - 7, 1))
    same_text = [lambda x: x * x, lambda x: x * x]
    pairs += [(same_text[0], 6), (same_text[1], -6)]
    for fn, arg in pairs:
        assert njit(fn)(arg) == fn(arg)


def squares_of_positives(a):
    return sum([x * x for x in a if x > 0]) + len([lambda_result(x) for x in a])


@njit
def lambda_result(x):
    return (lambda v: v + 1)(x)


def test_a_function_is_parsed_once_and_each_compile_gets_its_own_tree(monkeypatch):
    """The tree of a definition is kept per code object (a library function is compiled
    for many types); each compile rewrites a copy (comprehensions become functions), so a
    later specialization compiles the source, not an earlier compile's rewrite."""
    import kiln.frontend as frontend
    calls = []
    found = frontend.source_lines
    monkeypatch.setattr(frontend, "source_lines", lambda f: calls.append(f) or found(f))
    frontend._PARSED.clear()
    compiled = njit(squares_of_positives)
    for a in (np.array([1, -2, 3]), np.array([1.5, -2.0, 0.5]), [2, -1], np.zeros(0)):
        assert compiled(a) == squares_of_positives(a)
    parsed = [f.__name__ for f in calls]
    assert parsed.count("squares_of_positives") == 1 and parsed.count("lambda_result") == 1

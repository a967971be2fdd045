"""KILN_DISABLE_JIT / NUMBA_DISABLE_JIT / `config.DISABLE_JIT`: the decorators give back
the Python function (and jitclass the Python class), as Numba's do, so a program runs as
plain Python under a debugger; @vectorize, @guvectorize and @cfunc still compile, as in
Numba."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln
from kiln import njit, jit, types


@pytest.fixture
def disabled(monkeypatch):
    monkeypatch.delenv("KILN_DISABLE_JIT", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    kiln.config.DISABLE_JIT = 1      # sets KILN_DISABLE_JIT, restored by monkeypatch
    yield
    kiln.config.DISABLE_JIT = 0


def only_python(d, key):
    # a dict of str keys and formatting: Python only, which kiln would refuse to compile
    return f"{key}={d[key]!r}"


def test_decorators_give_back_the_python_function(disabled):
    assert kiln.config.DISABLE_JIT == 1
    for decorate in (njit, jit, njit(cache=True, fastmath=True), jit(nopython=True),
                     njit("int64(int64)"), njit(parallel=True)):
        fn = decorate(only_python)
        assert fn is only_python and fn.py_func is only_python
        assert fn({"a": [1]}, "a") == only_python({"a": [1]}, "a") == "a=[1]"


def test_python_semantics_and_python_tracebacks(disabled):
    @njit
    def big(n):
        return 2 ** n           # Python ints: no overflow

    @njit
    def fails(a):
        return a[10]

    assert big(100) == 2 ** 100
    with pytest.raises(IndexError) as info:
        fails(np.zeros(3))
    assert info.traceback[-1].name == "fails"     # the Python frame, to step through


def test_unknown_options_are_still_refused(disabled):
    with pytest.raises(TypeError, match="unknown option"):
        njit(no_such_option=True)


def test_jitclass_gives_back_the_class(disabled):
    from kiln.experimental import jitclass

    class Counter:
        def __init__(self, start):
            self.count = start

    assert jitclass([("count", types.int64)])(Counter) is Counter
    assert jitclass(Counter, {"count": types.int64}) is Counter
    assert jitclass(spec={"count": types.int64})(Counter)(3).count == 3


def test_typed_containers_still_work(disabled):
    items = kiln.typed.List([1, 2, 3])
    items.append(4)
    assert list(items) == [1, 2, 3, 4]
    d = kiln.typed.Dict.empty(types.int64, types.float64)
    d[1] = 2.5
    assert dict(d) == {1: 2.5}


def test_vectorize_and_cfunc_still_compile_as_in_numba(disabled):
    @kiln.vectorize(["float64(float64)"])
    def half(x):
        return x / 2

    assert isinstance(half, np.ufunc) or hasattr(half, "reduce")
    np.testing.assert_array_equal(half(np.arange(4.0)), np.arange(4.0) / 2)

    @kiln.cfunc("float64(float64)")
    def twice(x):
        return 2 * x

    assert twice.ctypes(1.5) == 3.0


def test_compiling_again_once_enabled(monkeypatch):
    monkeypatch.setenv("KILN_DISABLE_JIT", "1")
    assert njit(only_python) is only_python
    monkeypatch.setenv("KILN_DISABLE_JIT", "0")

    def add(a, b):
        return a + b

    compiled = njit(add)
    assert compiled is not add and compiled.py_func is add and compiled(2, 3) == 5


def test_numba_s_environment_variable_in_a_new_process(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        from kiln import njit
        from kiln.experimental import jitclass

        @njit
        def describe(x):
            return type(x).__name__ + ":" + str(x)     # only Python runs this

        @jitclass([])
        class Empty:
            pass

        print(describe(3), describe.py_func is describe, type(Empty()).__name__)
    """))
    env = {k: v for k, v in os.environ.items() if not k.endswith("DISABLE_JIT")}
    env["NUMBA_DISABLE_JIT"] = "1"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["int:3", "True", "Empty"]

"""Dispatchers that pickle cannot find by name (closures, exec'd functions) pickle by value
with the standard library's pickle, as Numba's do: in this process and in another."""
import gc
import math
import pickle
import subprocess
import sys

from kiln import njit


def closure_calling_closure(x):
    @njit
    def other(y):
        return math.hypot(x, y)

    @njit
    def inner(y):
        return other(y) + x

    return inner


def adder(a):
    @njit
    def add(b, c):
        return a + b + c

    return add


def test_closure_round_trips_with_plain_pickle():
    f = closure_calling_closure(3.0)
    for protocol in (0, pickle.HIGHEST_PROTOCOL):
        assert pickle.loads(pickle.dumps(f, protocol))(4.0) == f(4.0) == 3.0 + math.hypot(3, 4)


def test_unpickled_in_another_process():
    data = pickle.dumps(closure_calling_closure(3.0))
    code = f"import pickle; f = pickle.loads({data!r}); print(f(4.0))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert float(out) == 8.0


def test_one_pickle_unpickles_as_one_dispatcher():
    data, other = pickle.dumps(adder(5)), pickle.dumps(adder(6))
    gc.collect()   # (the originals are gone)
    f, g, h = pickle.loads(data), pickle.loads(data), pickle.loads(other)
    assert f is g and f is not h
    assert (f(2, 3), h(2, 3)) == (10, 11)
    assert pickle.loads(pickle.dumps(f)) is f   # and pickled again, still the one


def test_exec_defined_function():
    namespace = {}
    exec("def triple_sum(n):\n    s = 0\n    for i in range(n):\n        s += 3 * i\n"
         "    return s\n", namespace)
    f = njit(namespace["triple_sum"])
    assert pickle.loads(pickle.dumps(f))(10) == sum(3 * i for i in range(10))

"""kiln and Numba in one process, in either order (issue 31): both bind symbols in LLVM's
one per-process table, and kiln once bound `PyExc_ValueError` with another meaning than
Numba's, so a function compiled after the other compiler's first one crashed (SIGSEGV)
when it raised. Users migrating will have both loaded. Each step compiles new functions,
and each order runs in a child process, so a crash fails the test."""
import subprocess
import sys

import pytest

pytest.importorskip("numba", reason="the test extra installs Numba for this test")

STEP = {"kiln": """
@kiln.njit
def raises_{n}(x):
    if x < 0:
        raise ValueError("kiln: negative " + str(x))
    return np.arange(x) * 2.0

@kiln.njit(parallel=True)
def total_{n}(a):
    s = 0.0
    for i in kiln.prange(a.shape[0]):
        s += a[i]
    return s

assert raises_{n}(3).tolist() == [0.0, 2.0, 4.0]
try:
    raises_{n}(-2)
except ValueError as e:
    assert str(e) == "kiln: negative -2", e
else:
    raise AssertionError("kiln did not raise")
assert total_{n}(np.arange(1000.0)) == 499500.0
""", "numba": """
@numba.njit
def raises_{n}(x):
    if x < 0:
        raise KeyError("numba: negative")
    return np.arange(x) * 3.0

@numba.njit(parallel=True)
def total_{n}(a):
    s = 0.0
    for i in numba.prange(a.shape[0]):
        s += a[i]
    return s

assert raises_{n}(2).tolist() == [0.0, 3.0]
try:
    raises_{n}(-1)
except KeyError as e:
    assert e.args == ("numba: negative",), e
else:
    raise AssertionError("numba did not raise")
assert total_{n}(np.arange(100.0)) == 4950.0
"""}


@pytest.mark.parametrize("order", [("kiln", "numba", "kiln"),   # the other order: the long run
                                   pytest.param(("numba", "kiln", "numba"), marks=pytest.mark.slow)],
                         ids="-then-".join)
def test_kiln_and_numba_compile_raise_and_run_in_one_process(order):
    source = "\n".join(["import numpy as np", "import kiln", "import numba"] +
                       [STEP[who].format(n=n) for n, who in enumerate(order)] +
                       ["print('done')"])
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-3000:]

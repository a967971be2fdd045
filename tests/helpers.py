"""The differential-testing helper: every compiled function is checked against CPython."""
from __future__ import annotations

import copy
import importlib.util
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from kiln import njit
from kiln.runtime import blas

# linear algebra in compiled code calls NumPy's bundled OpenBLAS, else SciPy's (runtime/blas.py)
requires_blas = pytest.mark.skipif(
    blas.provider().name == "scipy" and importlib.util.find_spec("scipy") is None,
    reason="linear algebra in compiled code needs NumPy's bundled OpenBLAS or SciPy")


def slow_except(values, *kept, rows=False):
    """`values` for `parametrize` with every one not in `kept` marked slow: the default run
    compiles a representative case, the long run (`-m slow`, which CI runs) all of them.
    With `rows`, each value is a tuple of several arguments."""
    return [value if any(value is k or value == k for k in kept)
            else pytest.param(*(value if rows else (value,)), marks=pytest.mark.slow)
            for value in values]


def slow_after_first(cases):
    """`cases` (tuples: a function, then its arguments) for `parametrize`, with the cases
    that compile their function for other argument types than its first case marked slow:
    the default run compiles each function once (and runs every case that reuses that
    code, error cases included), the long run (`-m slow`, which CI runs) all of them."""
    from kiln import typeof
    first_types = {}
    out = []
    for func, *args in cases:
        types = tuple(typeof(a) for a in args)
        kept = first_types.setdefault(func, types) == types
        out.append((func, *args) if kept else
                   pytest.param((func, *args), marks=pytest.mark.slow))
    return out


def same(expected, got, rtol=0.0):
    """Equal values (NaN equals NaN, -0.0 differs from 0.0 for floats unless rtol) of the same
    kind (an int where Python gives an int, a float where it gives a float)."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        expected, got = np.asarray(expected), np.asarray(got)
        if expected.shape != got.shape:
            return False
        if rtol:
            return np.allclose(expected, got, rtol=rtol, equal_nan=True)
        if expected.dtype.kind == "f" and got.dtype.kind == "f":
            zeros = expected == 0
            if not np.array_equal(np.signbit(expected[zeros]), np.signbit(got[zeros])):
                return False  # -0.0 where NumPy has 0.0, or the reverse
        return np.array_equal(expected, got, equal_nan=expected.dtype.kind in "fc")
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and \
            all(same(e, g, rtol) for e, g in zip(expected, got))
    if isinstance(expected, (bool, np.bool_)):
        return isinstance(got, bool) and bool(expected) == got
    if isinstance(expected, (int, np.integer)):
        return isinstance(got, int) and not isinstance(got, bool) and int(expected) == got
    if isinstance(expected, (float, np.floating)):
        if not isinstance(got, float):
            return False
        expected = float(expected)
        if math.isnan(expected):
            return math.isnan(got)
        if rtol:
            return math.isclose(expected, got, rel_tol=rtol) or expected == got
        return expected == got and math.copysign(1, expected) == math.copysign(1, got)
    if isinstance(expected, (complex, np.complexfloating)):
        return isinstance(got, complex) and same(expected.real, got.real, rtol) and \
            same(expected.imag, got.imag, rtol)
    return expected == got


def check(pyfunc, *args, rtol=0.0, jitted=None, **options):
    """Run `pyfunc` in CPython and compiled by kiln on copies of `args`; the results, any
    exception type and any mutation of array arguments must agree. Returns the result.
    Without options the session's shared dispatcher for `pyfunc` is used (`jit`), so a
    specialization compiles once however many cases check it."""
    compiled = jitted or (njit(**options)(pyfunc) if options else jit(pyfunc))
    py_args, jit_args = copy.deepcopy(args), copy.deepcopy(args)
    try:
        expected = pyfunc(*py_args)
    except Exception as e:  # the compiled function must raise the same exception type
        try:
            compiled(*jit_args)
        except type(e):
            return None
        raise AssertionError(f"{pyfunc.__name__}{args}: CPython raised {e!r}, kiln did not")
    got = compiled(*jit_args)
    assert same(expected, got, rtol), f"{pyfunc.__name__}{args}: CPython {expected!r}, kiln {got!r}"
    for a, b in zip(py_args, jit_args):
        if isinstance(a, np.ndarray):
            assert same(a, b, rtol), f"{pyfunc.__name__}: argument mutated differently"
    return got


def as_python(value):
    """A compiled result as Python would have it: kiln.typed.List -> list, recursively
    (inside tuples too)."""
    from kiln.typed import List
    if isinstance(value, List):
        return [as_python(v) for v in value]
    if isinstance(value, tuple):
        return tuple(as_python(v) for v in value)
    return value


I64_MIN, I64_MAX = -2 ** 63, 2 ** 63 - 1
_COMPILED = {}


def jit(pyfunc):
    """One dispatcher per Python function for a whole test session, so each specialization
    compiles once however many cases use it. A function without closure or defaults is
    known by its code: the lambda a test writes in a loop is one function, not one per
    iteration."""
    plain = not (pyfunc.__closure__ or pyfunc.__defaults__ or pyfunc.__kwdefaults__)
    key = (pyfunc.__code__, id(pyfunc.__globals__)) if plain else pyfunc
    if key not in _COMPILED:
        _COMPILED[key] = njit(pyfunc)
    return _COMPILED[key]


def chk(pyfunc, *args, **kwargs):
    """`check` with the session's shared dispatcher for `pyfunc`."""
    return check(pyfunc, *args, jitted=jit(pyfunc), **kwargs)


def wrap64(x):
    """Python's int reduced to int64 the way kiln's (and Numba's) 64-bit integers wrap."""
    return (x + 2 ** 63) % 2 ** 64 - 2 ** 63


def within_an_ulp(got, want):
    """Equal dtypes, shapes, specials and zeros' signs; finite values at most one unit in
    the last place apart (README: kiln's math ufuncs call the C library, NumPy's may use
    its own SIMD code, and which it uses changes between NumPy versions)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
    differ = (got != want) & ~(np.isnan(got) & np.isnan(want))
    assert np.isfinite(want[differ]).all() and np.isfinite(got[differ]).all(), (got, want)
    ulp = np.spacing(np.abs(want[differ]))
    assert (np.abs(got[differ].astype(np.float64) - want[differ]) <= ulp).all(), \
        (got[differ], want[differ])
    zeros = want == 0
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


def run_script(path, source, cache_dir, *args):
    """Write `source` to `path` and run it in a new Python process whose kiln cache is
    `cache_dir`: what a second process finds there. Returns the finished process, which
    must have succeeded."""
    path.write_text(source)
    env = dict(os.environ, KILN_CACHE_DIR=str(cache_dir))
    done = subprocess.run([sys.executable, str(path), *args], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done

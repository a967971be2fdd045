"""cmath's trigonometric and hyperbolic functions, log10 and isclose against CPython, bit
for bit: finite values near the branch cuts and overflow thresholds, signed zeros, and
every class of infinite and NaN parts (cmathlib.py follows cmathmodule.c)."""
import cmath
import math

import pytest

from helpers import jit, same

INF, NAN = math.inf, math.nan
NAMES = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh",
         "tan", "tanh", "log10"]
PARTS = [-INF, -1e308, -3.5, -1.0, -1e-310, -0.0, 0.0, 1e-310, 0.5, 1.0, 2.0, 1e200, 710.0,
         INF, NAN]
POINTS = [complex(x, y) for x in PARTS for y in PARTS] + [
    0.6 + 0.8j, 1 + 1e-170j, 1e-9 + 2e-9j, -1 - 1e-200j, 0.999999 + 0.5j, 3e153 - 2e153j]


def _function(name):
    env = {"cmath": cmath}
    exec(f"def c_{name}(z):\n    return cmath.{name}(z)\n", env)
    return env[f"c_{name}"]


FUNCTIONS = {name: _function(name) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_against_cpython(name):
    f = FUNCTIONS[name]
    compiled = jit(f)
    checked = 0
    for z in POINTS:
        try:
            expected = f(z)
        except (ValueError, OverflowError):
            # CPython raises (domain error, overflow); kiln returns the non-finite value
            assert not cmath.isfinite(compiled(z)), (name, z)
            continue
        got = compiled(z)
        assert same(expected, got), f"{name}({z!r}): CPython {expected!r}, kiln {got!r}"
        checked += 1
    assert checked > 150
    for x in (0.5, -3.0):          # real arguments are complex ones
        assert same(f(x), compiled(x)), (name, x)


def isclose(a, b, rel_tol, abs_tol):
    return cmath.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)


def isclose_default(a, b):
    return cmath.isclose(a, b)


def test_isclose():
    cases = [(1 + 1j, 1 + 1.0000000001j), (1 + 1j, 1 + 1.01j), (complex(INF, 1), complex(INF, 1)),
             (complex(INF, 1), complex(INF, 2)), (complex(NAN, 0), complex(NAN, 0)), (0j, 1e-300j),
             (1e300 + 1e300j, 1e300 + 1.0000000001e300j)]
    for a, b in cases:
        assert jit(isclose_default)(a, b) is cmath.isclose(a, b), (a, b)
        for rel, ab in ((1e-3, 0.0), (0.0, 1e-2), (0.5, 2.0)):
            assert jit(isclose)(a, b, rel, ab) is cmath.isclose(a, b, rel_tol=rel, abs_tol=ab)
    assert jit(isclose_default)(1, 1.0) is True
    with pytest.raises(ValueError):
        jit(isclose)(1j, 1j, -1.0, 0.0)

"""The BLAS/LAPACK providers of runtime/blas.py, against NumPy on the same inputs: NumPy's
bundled OpenBLAS (64-bit integers) and SciPy's (32-bit), each in a process of its own (the
provider is chosen once per process), on products, solve, det, svd and lstsq (whose pivots
and rank are LAPACK's integers) of every BLAS dtype, strided and empty operands; a cached
np.dot hit that imports no SciPy, and a changed provider that is a cache miss."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from helpers import jit, run_script
from kiln.errors import TypingError
from kiln.runtime import blas

AVAILABLE = [name for name, found in (("numpy", blas._numpy_library() is not None),
                                      ("scipy", importlib.util.find_spec("scipy") is not None))
             if found]
pytestmark = pytest.mark.skipif(not AVAILABLE, reason="neither NumPy's OpenBLAS nor SciPy")

GRID = """
import json, sys
import numpy as np
from kiln import njit
from kiln.runtime import blas

@njit
def everything(a, b, v):
    x, _, rank, _ = np.linalg.lstsq(a[:, :3], v)
    return (a @ b, np.dot(a, v), v @ a, np.vdot(v, v), np.dot(a[::2, ::2], v[::2]),
            a[:0] @ b, np.linalg.solve(a, b), np.linalg.det(a), np.linalg.svd(a)[1], x, rank)

rng = np.random.default_rng(5)
errors = {}
for dtype in sys.argv[1:]:
    a, b, v = rng.random((6, 6)) + 6 * np.eye(6), rng.random((6, 4)), rng.random(6)
    if np.dtype(dtype).kind == "c":
        a, b, v = a + 1j * rng.random((6, 6)), b - 1j, v + 2j
    a, b, v = a.astype(dtype), b.astype(dtype), v.astype(dtype)
    got, want = everything(a, b, v), everything.py_func(a, b, v)
    worst = 0.0
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and (g.dtype == w.dtype or g.ndim == 0), (dtype, g, w)
        if w.size:
            worst = max(worst, float(np.max(np.abs(g - w)) / max(1.0, np.max(np.abs(w)))))
    errors[dtype] = worst
print(json.dumps(dict(provider=blas.provider().name, bits=blas.provider().int_bits,
                      errors=errors, scipy="scipy" in sys.modules)))
"""


# the default provider is the one every other linear algebra test runs: the default test
# run checks the other one, on fewer dtypes
PROVIDERS = [pytest.param(name, ("float64",), marks=[pytest.mark.slow]
                          if name == blas.provider().name else []) for name in AVAILABLE] + \
    [pytest.param(name, ("float32", "complex64", "complex128"), marks=[pytest.mark.slow])
     for name in AVAILABLE]


@pytest.mark.parametrize("name, dtypes", PROVIDERS)
def test_each_provider_agrees_with_numpy(tmp_path, monkeypatch, name, dtypes):
    monkeypatch.setenv("KILN_BLAS", name)
    result = json.loads(run_script(tmp_path / "grid.py", GRID, tmp_path / "cache", *dtypes)
                        .stdout.splitlines()[-1])
    assert (result["provider"], result["bits"]) == (name, 64 if name == "numpy" else 32)
    assert result["scipy"] == (name == "scipy")
    for dtype, error in result["errors"].items():
        assert error < (1e-4 if dtype in ("float32", "complex64") else 1e-12), (dtype, error)


CACHED = """
import json, sys
import numpy as np
from kiln import njit

@njit(cache=True)
def product(a, b):
    return np.dot(a, b) + 1.0

a, b = np.arange(12.0).reshape(3, 4), np.arange(8.0).reshape(4, 2)
right = product(a, b).tolist() == (a @ b + 1.0).tolist()
hit = next(iter(product._specializations.values())).cache_hit
print(json.dumps(dict(right=right, hit=hit, scipy="scipy" in sys.modules)))
"""


@pytest.mark.skipif(AVAILABLE != ["numpy", "scipy"], reason="needs both providers")
def test_a_cached_hit_imports_no_scipy_and_a_changed_provider_is_a_miss(tmp_path,
                                                                        monkeypatch):
    def run(provider):
        monkeypatch.setenv("KILN_BLAS", provider)
        done = run_script(tmp_path / "cached.py", CACHED, tmp_path / "cache")
        return json.loads(done.stdout.splitlines()[-1])
    assert run("numpy") == dict(right=True, hit=None, scipy=False)
    assert run("numpy") == dict(right=True, hit="source", scipy=False)
    assert run("scipy") == dict(right=True, hit=None, scipy=True)


def test_an_unknown_provider_is_refused(monkeypatch):
    monkeypatch.setenv("KILN_BLAS", "mkl")
    blas.provider.cache_clear()
    try:
        with pytest.raises(TypingError, match="KILN_BLAS='mkl'"):
            blas.provider()
    finally:
        monkeypatch.undo()
        blas.provider.cache_clear()   # the same choice as before: it depends on files only


def dot(a, b):
    return np.dot(a, b)


def matmul(a, b):
    return a @ b


def vdot(a, b):
    return np.vdot(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("pyfunc", [dot, matmul])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128,
                                   np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("shapes", [((5, 4), (4, 3)), ((5, 4), (4,)), ((5,), (5, 2)),
                                    ((7,), (7,)), ((0, 4), (4, 3)), ((3, 0), (0, 2)),
                                    ((0,), (0,))])
def test_products_of_every_dtype(pyfunc, dtype, shapes):
    rng = np.random.default_rng(3)
    a, b = ((rng.random(s) * 4).astype(dtype) for s in shapes)
    same_result(jit(pyfunc)(a, b), pyfunc(a, b))
    if a.ndim == 2 and a.shape[0] > 1:   # strided: every other row of a taller matrix
        tall = np.repeat(a, 2, axis=0)[::2]
        same_result(jit(pyfunc)(tall, b), pyfunc(tall, b))
    if a.shape == b.shape:
        same_result(jit(vdot)(a, b), vdot(a, b))


def same_result(got, want):
    got, want = np.asarray(got), np.asarray(want)
    # a 0-d result is a Python scalar, as in Numba
    assert got.shape == want.shape and (got.dtype == want.dtype or got.ndim == 0), (got, want)
    rtol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)

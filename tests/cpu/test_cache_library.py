"""A cache hit in a new process loads its code from the shared library linked at the miss
(cpu/nativebuild.py, cpu/nativelib.py): no LLVM at all, nor kiln's code generator, nor
SciPy where NumPy bundles the BLAS (runtime/blas.py). Checked against NumPy on the same
inputs, for plain code, a BLAS call and a parallel loop; a corrupt library is a fallback
to the JIT, never a crash or a wrong answer."""
from __future__ import annotations

import json
import os

import pytest

from helpers import run_script
from kiln.cpu import nativelib
from kiln.cpu.nativebuild import find_linker
from kiln.runtime import blas

pytestmark = pytest.mark.skipif(
    find_linker() is None or not nativelib.SUPPORTED,
    reason="cached shared libraries need a linker (cc or ld) on x86-64 Linux; without "
           "them a hit loads its object code into the JIT")

SCRIPT = """
import json, sys
import numpy as np
from kiln import njit, prange
from kiln.runtime import allocation_stats
before_modules = set(sys.modules)

@njit(cache=True)
def squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return s

@njit(cache=True)
def product(a, b):
    return np.dot(a, b) + 1.0

@njit(cache=True, parallel=True)
def parallel_squares(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i] * x[i]
    return s

x = np.arange(3000.0)
a, b = np.arange(12.0).reshape(3, 4), np.arange(8.0).reshape(4, 2)
got = [squares(x), product(a, b).tolist(), parallel_squares(x)]
expected = [float(np.sum(x * x)), (a @ b + 1.0).tolist(), float(np.sum(x * x))]
llvm = "llvmlite.binding" in sys.modules
imports = [name for name in ("llvmlite.ir", "scipy") if name in sys.modules]
modules = sorted(name for name in set(sys.modules) - before_modules if name.startswith("kiln"))
hits = [next(iter(f._specializations.values())).cache_hit
        for f in (squares, product, parallel_squares)]

@njit(parallel=True)
def fresh(n):   # compiled after: the JIT binds to the runtime the libraries loaded
    a = np.ones(n)
    s = 0.0
    for i in prange(n):
        s += a[i]
    return s

before = allocation_stats()
fresh_value = fresh(10)
after = allocation_stats()
print(json.dumps(dict(right=got == expected, llvm=llvm, hits=hits, imports=imports,
                      modules=modules,
                      fresh=fresh_value == 10.0,
                      balanced=after.live == before.live and after.allocations > before.allocations)))
"""


# what the hits may import (cpu/dispatcher.py's hit path): each module is ~0.2 ms of a
# cached first call here, so one more is a choice
HIT_MODULES = {"kiln.cpu", "kiln.cpu.callable", "kiln.cpu.dispatcher", "kiln.cpu.nativelib",
               "kiln.cpu.precompiled", "kiln.cpu.sourcekey", "kiln.runtime.blas",
               "kiln.runtime.cache", "kiln.runtime.views", "kiln.typing",
               "kiln.typing.compiled"}


def run(tmp_path):
    done = run_script(tmp_path / "library_hits.py", SCRIPT, tmp_path / "cache")
    return json.loads(done.stdout.splitlines()[-1])


def libraries(tmp_path):
    return [os.path.join(folder, name) for folder, _, names in os.walk(tmp_path / "cache")
            for name in names if name.endswith(".so")]


def test_a_hit_loads_no_llvm_and_a_corrupt_library_falls_back(tmp_path):
    first = run(tmp_path)
    assert first["right"] and first["hits"] == [None, None, None]
    assert len(libraries(tmp_path)) == 5   # 3 entries, the base runtime, the thread layer
    hit = run(tmp_path)
    scipy = [] if blas.provider().name == "numpy" else ["scipy"]
    assert set(hit["modules"]) <= HIT_MODULES, set(hit["modules"]) - HIT_MODULES
    assert hit == dict(first, llvm=False, hits=["source"] * 3, imports=scipy,
                       modules=hit["modules"])
    assert hit["fresh"] and hit["balanced"]
    for path in libraries(tmp_path):   # the same size, its code changed: a digest mismatch
        with open(path, "r+b") as f:
            f.seek(os.path.getsize(path) // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 0xFF]))
    fallback = run(tmp_path)   # the JIT's loading imports the code generator
    assert dict(fallback, imports=None, modules=None) == \
        dict(hit, llvm=True, imports=None, modules=None)

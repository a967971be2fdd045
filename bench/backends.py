"""The compilers under test, behind one interface: build a `Benchmark`'s kernel with each.

kiln itself never imports Numba; only this harness does, and only when it is installed.
"""
from __future__ import annotations

import importlib
import os
import shutil
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.registry import Benchmark

# Global names a kernel may use that must be the backend's own object when compiled.
REBOUND = ("prange", "cuda")
COMPILERS = ("kiln", "numba")


def numba_cuda_on_new_numpy():
    """numba-cuda 0.30.4 calls np.row_stack, which NumPy 2.5 removed: give it the alias
    (kiln is measured beside numba-cuda, so numba-cuda must import)."""
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def first_line(exc: BaseException) -> str:
    """'TypeName: first non-empty line of the message': how failures are reported."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


@dataclass
class Backend:
    name: str
    module: Any = None
    missing: str | None = None  # why this backend cannot run at all

    @classmethod
    def load(cls, name: str) -> "Backend":
        try:
            return cls(name, importlib.import_module(name))
        except Exception as exc:  # an import that fails is a figure, not a crash
            return cls(name, None, first_line(exc))

    def build(self, bench: Benchmark):
        """Decorate the kernel with this backend; raises whatever the compiler raises."""
        mod = self.module
        if bench.kind == "njit":
            return mod.njit(**bench.options)(self.bind(bench.pyfunc, bench.rebound))
        if bench.kind == "vectorize":
            return mod.vectorize(list(bench.signatures), **bench.options)(bench.pyfunc)
        return self.resolve("cuda").jit(self.bind(bench.pyfunc))

    def resolve(self, name: str):
        """This backend's object for a rebound global name (`cuda` is a submodule)."""
        if name == "cuda":
            if self.name == "numba":
                numba_cuda_on_new_numpy()
            return importlib.import_module(f"{self.name}.cuda")
        return getattr(self.module, name)

    def bind(self, func, rebound=None):
        """The same function with its `prange`/`cuda` globals (and those in `rebound`, a
        Benchmark's name -> factory of the backend's object) bound to this backend's."""
        rebound = rebound or {}
        names = [n for n in REBOUND + tuple(rebound) if n in func.__code__.co_names]
        if not names:
            return func
        scope = dict(func.__globals__)
        for n in names:
            scope[n] = rebound[n](self.module) if n in rebound else self.resolve(n)
        clone = types.FunctionType(func.__code__, scope, func.__name__,
                                   func.__defaults__, func.__closure__)
        clone.__qualname__, clone.__doc__ = func.__qualname__, func.__doc__
        clone.__module__ = func.__module__
        return clone


def load_backends(names=COMPILERS) -> list[Backend]:
    return [Backend.load(n) for n in names]


def gpu_status() -> str | None:
    """None when CUDA kernels can run here (a GPU, or a CUDA simulator), else why not."""
    if simulated_gpu():
        return None
    if os.path.exists("/dev/nvidia0") or shutil.which("nvidia-smi"):
        return None
    return "no GPU"


def simulated_gpu() -> bool:
    return any(os.environ.get(v) == "1" for v in ("KILN_ENABLE_CUDASIM", "NUMBA_ENABLE_CUDASIM"))

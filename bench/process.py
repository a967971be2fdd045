"""Whole-process figures: import time, first-call latency in a fresh process, call overhead,
trivial compile time.

Import and first-call latency are measured in fresh interpreters (`python -m bench.process`),
so neither compiler profits from the other's or its own earlier work.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
import types
from pathlib import Path

from bench.backends import first_line

ROOT = Path(__file__).resolve().parent.parent


def add(a, b):
    return a + b


_BYTECODE = tempfile.mkdtemp(prefix="bench-pycache-")
atexit.register(shutil.rmtree, _BYTECODE, True)


def _fresh_python(code: str) -> str:
    """Run `code` in a new interpreter, with Python's bytecode cached as an installed
    package has it (in a folder of this run's: PYTHONDONTWRITEBYTECODE, set on some
    machines, would make every process compile each module's source again)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        PYTHONPYCACHEPREFIX=_BYTECODE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit status {done.returncode}")
    return done.stdout.strip().splitlines()[-1]


def import_time(module: str, repeats: int, preload: str = "") -> dict:
    """Median seconds of `import module` in fresh interpreters (after `preload`, untimed)."""
    code = (f"{preload}\nimport time\nt0 = time.perf_counter()\nimport {module}\n"
            "print(time.perf_counter() - t0)")
    try:
        times = [float(_fresh_python(code)) for _ in range(repeats + 1)][1:]  # 1st: bytecode
    except Exception as exc:
        return {"status": f"error: {exc}"}
    return {"status": "ok", "median_s": statistics.median(times), "repeats": repeats}


def first_call_latency(backend: str, repeats: int) -> dict:
    """Median seconds from decorating sum_of_squares to its first result, in fresh processes.

    `import <backend>` and NumPy are loaded before the clock starts; 1000 float64 inputs,
    so the figure is compile time plus the first call's overhead.
    """
    code = f"import bench.process as p; p._first_call_child({backend!r})"
    try:
        results = [json.loads(_fresh_python(code)) for _ in range(repeats + 1)][1:]
    except Exception as exc:
        return {"status": f"error: {exc}"}
    failed = [r["status"] for r in results if r["status"] != "ok"]
    if failed:
        return {"status": failed[0]}
    return {"status": "ok", "median_s": statistics.median(r["seconds"] for r in results),
            "repeats": repeats}


def _first_call_child(backend: str) -> None:
    import importlib

    import numpy as np

    from bench.kernels.reductions import sum_of_squares
    x = np.random.default_rng(0).standard_normal(1000)
    try:
        mod = importlib.import_module(backend)
        t0 = time.perf_counter()
        mod.njit(sum_of_squares)(x)
        result = {"status": "ok", "seconds": time.perf_counter() - t0}
    except Exception as exc:
        result = {"status": f"not supported: {first_line(exc)}"}
    print(json.dumps(result))


def compile_time(backend, repeats: int) -> dict:
    """Median seconds to decorate and first-call a trivial `add` (a new function each time).

    The first trial also pays the compiler's one-time warm-up; the median discounts it.
    """
    if backend.missing:
        return {"status": f"not available: {backend.missing}"}
    times = []
    for _ in range(repeats):
        fresh_add = types.FunctionType(add.__code__, add.__globals__, "add")
        try:
            t0 = time.perf_counter()
            backend.module.njit(fresh_add)(1, 2)
        except Exception as exc:
            return {"status": f"not supported: {first_line(exc)}"}
        times.append(time.perf_counter() - t0)
    return {"status": "ok", "median_s": statistics.median(times), "repeats": repeats}


def call_overhead(backends, loops: int) -> dict:
    """Seconds per call of add(1, 2): plain Python and each compiled version (best of 5)."""
    def per_call(func) -> float:
        timer = timeit.Timer("f(1, 2)", globals={"f": func})
        return min(timer.repeat(5, loops)) / loops

    out = {"python": {"status": "ok", "per_call_s": per_call(add)}}
    for backend in backends:
        if backend.missing:
            out[backend.name] = {"status": f"not available: {backend.missing}"}
            continue
        try:
            compiled = backend.module.njit(add)
            if compiled(1, 2) != 3:
                raise AssertionError("add(1, 2) != 3")
        except Exception as exc:
            out[backend.name] = {"status": f"not supported: {first_line(exc)}"}
            continue
        out[backend.name] = {"status": "ok", "per_call_s": per_call(compiled)}
    return out

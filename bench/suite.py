"""Runs one benchmark under every column (CPython, NumPy, kiln, Numba) and records the figures.

Each kernel runs in a forked child where the platform allows it, so a compiler that crashes
or hangs on one kernel costs that kernel's figure, not the whole report.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from bench.backends import Backend, first_line, gpu_status, simulated_gpu
from bench.registry import Benchmark, human
from bench.timing import check, fresh, output_of, steady_median


@dataclass(frozen=True)
class Config:
    mode: str = "full"         # "full" or "quick": which Sizes field to run
    budget: float = 1.0        # seconds of steady-state timing per column and kernel
    min_repeats: int = 3
    max_repeats: int = 25
    timeout: float = 300.0     # seconds per kernel before its child is killed


Report = Callable[[str, str, dict], None]  # (event, column, payload)


def run_benchmark(bench: Benchmark, backends: list[Backend], cfg: Config, report: Report) -> None:
    """Measure `bench`; every column's outcome goes to `report`, failures included."""
    if bench.kind == "cuda":
        _run_cuda(bench, backends, cfg, report)
        return
    small_n, full_n = bench.sizes.python, bench.sizes.get(cfg.mode)
    small_args, full_args = bench.make_inputs(small_n), bench.make_inputs(full_n)
    report("meta", "", _meta(bench, full_n, full_args))
    timing = dict(mutates=bench.mutates, budget=cfg.budget,
                  min_repeats=cfg.min_repeats, max_repeats=cfg.max_repeats)
    tol = (bench.rtol, bench.atol)
    numpy_tol = bench.numpy_tol or tol

    report("start", "cpython", {})
    pyfunc = _as_python(bench)
    ref_small = None
    try:
        args = fresh(small_args)
        ref_small = output_of(bench, args, pyfunc(*args))
        median, repeats = steady_median(pyfunc, small_args, **{**timing, "max_repeats": 5})
        scale = bench.work(full_n) / bench.work(small_n)
        report("result", "cpython", {"status": "ok", "size": small_n, "median_s": median,
                                     "repeats": repeats, "estimated_full_s": median * scale})
    except Exception as exc:
        report("result", "cpython", {"status": f"error: {first_line(exc)}"})

    report("start", "numpy", {})
    ref_full = None
    if bench.numpy_ref is None:
        report("result", "numpy", {"status": "n/a: no idiomatic NumPy version"})
    else:
        try:
            args = fresh(small_args)
            if ref_small is not None:
                check(bench, bench.numpy_ref(*args), ref_small, args, numpy_tol)
            ref_full = bench.numpy_ref(*fresh(full_args))
            median, repeats = steady_median(bench.numpy_ref, full_args, **timing)
            report("result", "numpy", {"status": "ok", "median_s": median, "repeats": repeats})
        except AssertionError as exc:
            report("result", "numpy", {"status": f"wrong output (vs CPython): {exc}"})
        except Exception as exc:
            report("result", "numpy", {"status": f"error: {first_line(exc)}"})

    for backend in backends:
        report("start", backend.name, {})
        report("result", backend.name, _run_compiled(
            bench, backend, small_args, full_args, ref_small, ref_full, tol, numpy_tol, timing))


def _run_compiled(bench, backend, small_args, full_args, ref_small, ref_full,
                  tol, numpy_tol, timing) -> dict:
    if backend.missing:
        return {"status": f"not available: {backend.missing}"}
    try:
        t0 = time.perf_counter()
        func = backend.build(bench)
        args = fresh(small_args)
        out = output_of(bench, args, func(*args))
        first = time.perf_counter() - t0
    except Exception as exc:  # compile errors are expected while kiln grows
        return {"status": f"not supported: {first_line(exc)}"}
    try:
        if ref_small is not None:
            check(bench, out, ref_small, args, tol)
        args = fresh(full_args)
        out = output_of(bench, args, func(*args))  # also the warm-up at full size
        if ref_full is not None:
            try:
                check(bench, out, ref_full, args, numpy_tol)
            except AssertionError as exc:
                return {"status": f"wrong output (vs NumPy): {exc}"}
    except AssertionError as exc:
        return {"status": f"wrong output (vs CPython): {exc}"}
    except Exception as exc:
        return {"status": f"error: {first_line(exc)}"}
    median, repeats = steady_median(func, full_args, **timing)
    return {"status": "ok", "first_call_s": first, "median_s": median, "repeats": repeats}


def _run_cuda(bench, backends, cfg, report) -> None:
    """CUDA kernels: launch + synchronize timed; transfers are outside the timed region."""
    n = bench.sizes.python if simulated_gpu() else bench.sizes.get(cfg.mode)
    args = bench.make_inputs(n)
    report("meta", "", _meta(bench, n, args))
    missing = gpu_status()
    for col in ("cpython", "numpy"):
        report("result", col, {"status": "n/a: GPU kernel"})
    for backend in backends:
        report("start", backend.name, {})
        if missing or backend.missing:
            report("result", backend.name, {"status": missing or f"not available: {backend.missing}"})
            continue
        try:
            t0 = time.perf_counter()
            run, fetch = bench.gpu_launch(backend.resolve("cuda"), backend.build(bench),
                                         fresh(args))
            run()
            first = time.perf_counter() - t0
            check(bench, fetch(), bench.numpy_ref(*args), args, (bench.rtol, bench.atol))
        except AssertionError as exc:
            report("result", backend.name, {"status": f"wrong output (vs NumPy): {exc}"})
            continue
        except Exception as exc:
            report("result", backend.name, {"status": f"not supported: {first_line(exc)}"})
            continue
        median, repeats = steady_median(lambda: run(), (), mutates=False, budget=cfg.budget,
                                        min_repeats=cfg.min_repeats, max_repeats=cfg.max_repeats)
        report("result", backend.name, {"status": "ok", "first_call_s": first,
                                        "median_s": median, "repeats": repeats})


def _meta(bench: Benchmark, n: int, args: tuple) -> dict:
    return {"size": n, "label": bench.label.format(n=human(n)),
            "bytes_touched": bench.bytes_touched(args) if bench.bytes_touched else None}


def _as_python(bench: Benchmark):
    if bench.kind == "vectorize":
        return np.vectorize(bench.pyfunc, otypes=[np.float64])
    return bench.pyfunc


def run_isolated(bench: Benchmark, backends: list[Backend], cfg: Config) -> dict:
    """Run `bench` in a forked child (in-process where fork is unavailable).

    Returns {"meta": {...}, "results": {column: {...}}}; a column that was running when the
    child crashed or timed out gets that as its status.
    """
    record: dict = {"meta": {}, "results": {}}

    def collect(event: str, column: str, payload: dict) -> None:
        if event == "meta":
            record["meta"] = payload
        elif event == "result":
            record["results"][column] = payload

    if "fork" not in multiprocessing.get_all_start_methods():
        run_benchmark(bench, backends, cfg, collect)
        return record
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(sender, bench, backends, cfg), daemon=True)
    child.start()
    sender.close()
    running, deadline = "setup", time.monotonic() + cfg.timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not receiver.poll(remaining):
            child.kill()
            record["results"][running or "harness"] = {
                "status": f"timed out after {cfg.timeout:g} s"}
            break
        try:
            event, column, payload = receiver.recv()
        except EOFError:  # the child died
            break
        if event == "done":
            break
        if event == "start":
            running = column
        else:
            collect(event, column, payload)
            running = None if event == "result" else running
    child.join()
    if child.exitcode not in (0, None) and (running or "harness") not in record["results"]:
        record["results"][running or "harness"] = {
            "status": f"crashed: {_describe_exit(child.exitcode)}"}
    receiver.close()
    return record


def call_isolated(func, timeout: float) -> dict:
    """func() in a forked child (in-process without fork); a crash becomes a status."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return func()
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=lambda: sender.send(func()), daemon=True)
    child.start()
    sender.close()
    try:
        if receiver.poll(timeout):
            return receiver.recv()
        child.kill()
        return {"status": f"timed out after {timeout:g} s"}
    except EOFError:
        child.join()
        return {"status": f"crashed: {_describe_exit(child.exitcode)}"}
    finally:
        child.join()
        receiver.close()


def _child(sender, bench, backends, cfg) -> None:
    try:
        run_benchmark(bench, backends, cfg, lambda *message: sender.send(message))
    except Exception as exc:  # a harness bug: report it rather than lose the kernel
        sender.send(("result", "harness", {"status": f"error: {first_line(exc)}"}))
    sender.send(("done", "", {}))
    sender.close()


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"

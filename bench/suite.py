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
from bench.timing import check, fresh, output_of, steady_median, steady_medians


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

    # Check every column first, then time the ones that passed side by side (interleaved).
    timed: dict = {}  # column -> (function, figures so far)
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
            timed["numpy"] = (bench.numpy_ref, {"status": "ok"})
        except AssertionError as exc:
            report("result", "numpy", {"status": f"wrong output (vs CPython): {exc}"})
        except Exception as exc:
            report("result", "numpy", {"status": f"error: {first_line(exc)}"})

    for backend in backends:
        report("start", backend.name, {})
        func, figures = _prepare_compiled(bench, backend, small_args, full_args, ref_small,
                                          ref_full, tol, numpy_tol)
        if func is None:
            report("result", backend.name, figures)
        else:
            timed[backend.name] = (func, figures)

    report("start", "timing", {})
    medians = steady_medians({c: f for c, (f, _) in timed.items()}, full_args, **timing)
    for column, (_, figures) in timed.items():
        median, repeats = medians[column]
        report("result", column, {**figures, "median_s": median, "repeats": repeats})


def _prepare_compiled(bench, backend, small_args, full_args, ref_small, ref_full,
                      tol, numpy_tol) -> tuple:
    """(compiled function, figures) once built and checked; (None, failure status) if not."""
    if backend.missing:
        return None, {"status": f"not available: {backend.missing}"}
    try:
        t0 = time.perf_counter()
        func = backend.build(bench)
        args = fresh(small_args)
        out = output_of(bench, args, func(*args))
        first = time.perf_counter() - t0
    except Exception as exc:  # compile errors are expected while kiln grows
        return None, {"status": f"not supported: {first_line(exc)}"}
    try:
        if ref_small is not None:
            check(bench, out, ref_small, args, tol)
        args = fresh(full_args)
        out = output_of(bench, args, func(*args))  # also the warm-up at full size
        if ref_full is not None:
            try:
                check(bench, out, ref_full, args, numpy_tol)
            except AssertionError as exc:
                return None, {"status": f"wrong output (vs NumPy): {exc}"}
    except AssertionError as exc:
        return None, {"status": f"wrong output (vs CPython): {exc}"}
    except Exception as exc:
        return None, {"status": f"error: {first_line(exc)}"}
    return func, {"status": "ok", "first_call_s": first}


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
    return {"size": n, "label": bench.label.format(n=human(n)), "on_gpu": bench.kind == "cuda",
            "bytes_touched": bench.bytes_touched(args) if bench.bytes_touched else None}


def _as_python(bench: Benchmark):
    if bench.kind == "vectorize":
        return np.vectorize(bench.pyfunc, otypes=[np.float64])
    return bench.pyfunc


def run_isolated(bench: Benchmark, backends: list[Backend], cfg: Config) -> dict:
    """Run `bench` in a forked child (in-process where fork is unavailable).

    Returns {"meta": {...}, "results": {column: {...}}}.  A compiler that crashes or hangs
    while building or checking the kernel gets that as its status, and the kernel is run
    again without it, so the other columns keep their figures.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        record: dict = {"meta": {}, "results": {}}
        run_benchmark(bench, backends, cfg, lambda *message: _collect(record, *message))
        return record
    failed: dict = {}
    while True:
        left = [b for b in backends if b.name not in failed]
        record, failure, running, started = _run_child(bench, left, cfg)
        if failure and running in {b.name for b in left}:
            failed[running] = {"status": failure}
            continue
        if failure:
            _mark_unfinished(record["results"], failure, running, started,
                             ["cpython", "numpy"] + [b.name for b in left])
        record["results"].update(failed)
        return record


def _collect(record: dict, event: str, column: str, payload: dict) -> None:
    if event == "meta":
        record["meta"] = payload
    elif event == "result":
        record["results"][column] = payload


def _run_child(bench, backends, cfg) -> tuple:
    """One forked run: (record, failure or None, column running at the end, columns started)."""
    record: dict = {"meta": {}, "results": {}}
    ctx = multiprocessing.get_context("fork")
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(sender, bench, backends, cfg), daemon=True)
    child.start()
    sender.close()
    running, started, failure = "setup", [], None
    deadline = time.monotonic() + cfg.timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not receiver.poll(remaining):
            child.kill()
            failure = f"timed out after {cfg.timeout:g} s"
            break
        try:
            event, column, payload = receiver.recv()
        except EOFError:  # the child died
            break
        if event == "done":
            break
        if event == "start":
            running = column
            started.append(column)
        else:
            _collect(record, event, column, payload)
    child.join()
    receiver.close()
    if failure is None and child.exitcode not in (0, None):
        failure = f"crashed: {_describe_exit(child.exitcode)}"
    return record, failure, running, started


def _mark_unfinished(results: dict, failure: str, running: str, started: list,
                     columns: list) -> None:
    """Columns that got no result: the failure where it struck, 'not run' after it."""
    unfinished = [c for c in columns if c not in results]
    for column in unfinished:
        if column == running or (running == "timing" and column in started):
            results[column] = {"status": failure + (" (while timing)" if column != running else "")}
        else:
            results[column] = {"status": f"not run: the kernel's process {failure} before it"}
    if not unfinished:
        results["harness"] = {"status": failure}


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

"""kiln's benchmark suite: `python bench/run.py [--quick]`.

Times every kernel in bench/kernels under kiln, Numba (when installed), NumPy and CPython,
checks each output first, and prints a Markdown report; also writes JSON, a PNG chart and,
with --docs, the generated section of docs/performance.md.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

# BLAS tuning variables set for other work on shared machines can slow NumPy's np.dot:
# drop them before NumPy loads, and record that we did.
UNSET_ENV = [v for v in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if os.environ.pop(v, None)]
# BLAS runs on one thread, as the njit kernels do: the comparison is compiler against
# library, and on a busy 2-core machine threaded BLAS swings 100x with the other load.
# KILN_BENCH_BLAS_THREADS=N gives it N threads; 0 leaves BLAS its own default.
BLAS_THREADS = os.environ.get("KILN_BENCH_BLAS_THREADS", "1")
if BLAS_THREADS != "0":
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = BLAS_THREADS

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: import the harness as the `bench` package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import time  # noqa: E402

from bench import process, report  # noqa: E402
from bench.backends import load_backends  # noqa: E402
from bench.kernels import REGISTRY  # noqa: E402
from bench.suite import Config, call_isolated, run_isolated  # noqa: E402
from bench.timing import copy_bandwidth  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small sizes: the whole run in < 1 min")
    p.add_argument("--only", default="", help="comma-separated kernel names (substrings)")
    p.add_argument("--no-numba", action="store_true", help="leave Numba out")
    p.add_argument("--no-process", action="store_true",
                   help="skip import/first-call/overhead figures (fresh-process measurements)")
    p.add_argument("--json", type=Path, help="where to write every figure "
                   "(default bench/results/<mode>.json)")
    p.add_argument("--png", type=Path, help="chart path (default bench/results/<mode>.png)")
    p.add_argument("--no-chart", action="store_true")
    p.add_argument("--docs", type=Path, nargs="?", const=ROOT / "docs" / "performance.md",
                   help="update the generated section of docs/performance.md")
    p.add_argument("--timeout", type=float, help="seconds per kernel (default 300, quick 60)")
    return p.parse_args(argv)


def process_figures(backends, quick: bool) -> dict:
    few, many = (1, 3) if quick else (3, 7)
    compilers = {b.name: b for b in backends}
    figures = {
        "import_s": {
            "kiln": process.import_time("kiln", many),
            "kiln_after_numpy": process.import_time("kiln", many, preload="import numpy"),
            "numba": process.import_time("numba", few) if "numba" in compilers
            else {"status": "not run"},
        },
        "first_call_s": {name: process.first_call_latency(name, few) for name in compilers},
        "compile_trivial_s": {
            name: call_isolated(lambda b=b: process.compile_time(b, 3), timeout=120)
            for name, b in compilers.items()},
        "call_overhead": call_isolated(
            lambda: process.call_overhead(backends, 20_000 if quick else 200_000), timeout=120),
    }
    figures["first_call_s"].setdefault("numba", {"status": "not run"})
    for name in ("kiln", "numba"):
        figures["compile_trivial_s"].setdefault(name, {"status": "not run"})
        figures["call_overhead"].setdefault(name, {"status": "not run"})
    return figures


def warm_up(backends, compile_figures: dict) -> None:
    """Pay each compiler's one-time start-up here, so no kernel's first call carries it.

    Only for compilers that just compiled `add` in a child without crashing.
    """
    for b in backends:
        if compile_figures.get(b.name, {}).get("status") == "ok":
            b.module.njit(process.add)(1, 2)


def main(argv=None) -> int:
    args = parse_args(argv)
    mode = "quick" if args.quick else "full"
    cfg = Config(mode=mode, budget=0.05 if args.quick else 2.0,
                 max_repeats=5 if args.quick else 50,
                 timeout=args.timeout or (60.0 if args.quick else 300.0))
    wanted = [w for w in args.only.split(",") if w]
    benches = [b for b in REGISTRY.values() if not wanted or any(w in b.name for w in wanted)]
    backends = load_backends(("kiln",) if args.no_numba else ("kiln", "numba"))
    started = time.perf_counter()
    data = {"mode": mode, "machine": report.machine_info(UNSET_ENV),
            "config": {"budget_s": cfg.budget, "min_repeats": cfg.min_repeats,
                       "max_repeats": cfg.max_repeats, "timeout_s": cfg.timeout}}
    if not args.no_process:
        _progress("process figures: import, first call, compile, call overhead")
        data["process"] = process_figures(backends, args.quick)
        warm_up(backends, data["process"]["compile_trivial_s"])
    else:
        warm_up(backends, {b.name: call_isolated(lambda b=b: process.compile_time(b, 1), 120)
                           for b in backends})
    _progress("memory bandwidth")
    data["bandwidth"] = copy_bandwidth(2**26 if args.quick else 2**28)
    data["kernels"] = []
    for i, bench in enumerate(benches, 1):
        _progress(f"[{i}/{len(benches)}] {bench.name}")
        record = run_isolated(bench, backends, cfg)
        kernel = {"name": bench.name, "topic": bench.topic, "kind": bench.kind,
                  "options": bench.options, **record}
        report.derive(kernel, data["bandwidth"]["bytes_per_s"])
        data["kernels"].append(kernel)
    data["elapsed_s"] = time.perf_counter() - started
    data["targets"] = report.judge_targets(data)
    markdown = report.render_markdown(data)
    print(markdown)
    report.write_json(data, args.json or ROOT / "bench" / "results" / f"{mode}.json")
    if not args.no_chart:
        why_not = report.write_chart(data, args.png or ROOT / "bench" / "results" / f"{mode}.png")
        if why_not:
            _progress(f"no chart: {why_not}")
    if args.docs:
        report.update_docs(markdown, args.docs)
    return 0


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Numba's own test suite as kiln's conformance suite.

    bash conformance/setup_env.sh                 # once: conformance/.venv with real Numba
    python conformance/run.py                     # the bounded default subset, both sides
    python conformance/run.py --all               # every public-API module (hours)
    python conformance/run.py test_tuples test_dicts --side kiln
    python conformance/run.py --cuda              # numba-cuda's modules, simulator
    python conformance/run.py cuda.cudapy.test_array   # one numba-cuda module
    python conformance/run.py --report            # rewrite docs/conformance.md only
    KILN_SRC=/tmp/snapshot/src python conformance/run.py --side kiln   # another tree's kiln

Each module runs in a fresh interpreter from conformance/.venv (driver.py), once on real
Numba and once with conformance/facade first on PYTHONPATH, where `numba` is kiln. Results
(one JSON line per test) go to conformance/results/<side>/<module>.jsonl; the report,
docs/conformance.md, is made from every result there. A module is stopped after
--timeout seconds (what it ran until then counts) and the run stops starting modules
after --budget seconds. Modules run one at a time: the machine is small and shared.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENV_PY = os.path.join(HERE, ".venv", "bin", "python")
RESULTS = os.path.join(HERE, "results")
REPORT = os.path.join(REPO, "docs", "conformance.md")
sys.path.insert(0, HERE)
import modules as selection  # noqa: E402


def module_name(short):
    """'test_tuples' -> numba.tests.test_tuples; 'cuda.cudapy.test_array' ->
    numba.cuda.tests.cudapy.test_array (numba-cuda's suite)."""
    if short.startswith("cuda."):
        return f"numba.cuda.tests.{short[len('cuda.'):]}"
    return f"numba.tests.{short}"


def run_module(short, side, timeout):
    out_dir = os.path.join(RESULTS, side)
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, short + ".jsonl")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["NUMBA_ENABLE_CUDASIM"] = env["KILN_ENABLE_CUDASIM"] = "1"
    env.setdefault("NUMBA_NUM_THREADS", "2")
    env.setdefault("KILN_NUM_THREADS", "2")
    if short.startswith("cuda."):
        env["CONFORMANCE_CUDA"] = "1"    # the facade loads numba-cuda's own harness
    if side == "kiln":   # KILN_SRC: measure another tree's kiln (a snapshot of a commit)
        env["PYTHONPATH"] = os.pathsep.join(
            [os.path.join(HERE, "facade")] + ([os.environ["KILN_SRC"]]
                                              if os.environ.get("KILN_SRC") else []))
    start = time.time()
    timed_out = False
    try:
        subprocess.run([VENV_PY, os.path.join(HERE, "driver.py"), module_name(short), out],
                       env=env, cwd=HERE, timeout=timeout, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        timed_out = True
    meta = {"seconds": round(time.time() - start, 1), "timed_out": timed_out,
            "timeout": timeout, "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with open(out[:-len(".jsonl")] + ".meta.json", "w") as f:
        json.dump(meta, f)
    return meta


def load(side, short):
    path = os.path.join(RESULTS, side, short + ".jsonl")
    if not os.path.exists(path):
        return None
    rows = [json.loads(line) for line in open(path) if line.strip()]
    meta_path = path[:-len(".jsonl")] + ".meta.json"
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    return rows, meta


PASSED = ("pass", "xfail")


_CALLEE = re.compile(r"^(TypeError: )[\w.<>]+\(\): argument \d+: ")


def _group(cause):
    """One cause for the same failure in different functions: 'f(): argument 2: kiln
    does not take a Python list' and 'g(): argument 1: ...' are one."""
    cause = _CALLEE.sub(r"\1<function>(): argument: ", cause)
    cause = re.sub(r"(of type '[^']*') \(.*\) to compiled code", r"\1 to compiled code", cause)
    return cause[:130]


def summarize(rows):
    rows = [dict(r, cause=_group(r.get("cause", ""))) for r in rows if r["outcome"] != "info"]
    passed = {r["id"] for r in rows if r["outcome"] in PASSED}
    ran = {r["id"] for r in rows if r["outcome"] not in ("skip",)}
    causes = collections.Counter(r["cause"] for r in rows
                                 if r["outcome"] in ("fail", "error", "import-error", "xpass"))
    return passed, ran, causes


def _cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def _table(names):
    """The per-module rows, the totals, and the causes of failure on kiln."""
    lines = []
    total = collections.Counter()
    causes = collections.Counter()
    cause_modules = collections.defaultdict(set)
    internals = {}
    for short in names:
        n_rows, n_meta = load("numba", short)
        k_rows, k_meta = load("kiln", short)
        n_pass, _, _ = summarize(n_rows)
        k_pass, _, k_causes = summarize(k_rows)
        both = k_pass & n_pass
        tests = len({r["id"] for r in n_rows + k_rows
                     if r["outcome"] not in ("info", "import-error")})
        total.update(tests=tests, numba=len(n_pass), kiln=len(k_pass), both=len(both))
        on_internal = {r["id"] for r in k_rows if INTERNAL in r.get("cause", "")}
        total.update(internal=len((n_pass - k_pass) & on_internal))
        lost_whole = any(r["outcome"] == "import-error" for r in k_rows)
        for cause, count in k_causes.items():
            if lost_whole:
                count = max(len(n_pass), 1)   # the whole module is lost on it
            causes[cause] += count
            cause_modules[cause].add(short)
        for r in k_rows:
            if r["outcome"] == "info":
                internals[short] = r.get("internals", [])
        if lost_whole:
            k_causes = collections.Counter({"(import) " + c: n for c, n in k_causes.items()})
        top = "; ".join(f"{count}× `{_cell(cause[:110])}`" for cause, count
                        in k_causes.most_common(3))
        flags = []
        if n_meta.get("timed_out"):
            flags.append(f"Numba stopped at {n_meta['timeout']:.0f} s")
        if k_meta.get("timed_out"):
            flags.append(f"kiln stopped at {k_meta['timeout']:.0f} s")
        note = (" (" + ", ".join(flags) + ")") if flags else ""
        lines.append(f"| {short}{note} | {tests} | {len(n_pass)} | {len(k_pass)} | "
                     f"{len(both)}/{len(n_pass)} | {top} |")
    return lines, total, causes, cause_modules, internals


def _share(total):
    return 100.0 * total["both"] / total["numba"] if total["numba"] else 0.0


INTERNAL = "a Numba internal that kiln does not provide"   # the facade's words


def _without_internals(total):
    """The share once the tests that fail only on reaching a Numba internal are left out."""
    public = total["numba"] - total["internal"]
    share = 100.0 * total["both"] / public if public else 0.0
    return (f"Leaving out the {total['internal']} of them that fail on kiln on reaching a "
            f"Numba internal the facade leaves absent: {total['both']} of {public} "
            f"({share:.1f}%).")


def write_report():
    sides = {}
    for side in ("numba", "kiln"):
        d = os.path.join(RESULTS, side)
        if os.path.isdir(d):
            sides[side] = sorted(f[:-6] for f in os.listdir(d) if f.endswith(".jsonl"))
    names = sorted(set(sides.get("numba", [])) & set(sides.get("kiln", [])),
                   key=lambda n: (n.count("."), n))
    cpu = [n for n in names if not n.startswith("cuda.")]
    gpu = [n for n in names if n.startswith("cuda.")]
    cpu_lines, total, causes, cause_modules, internals = _table(cpu)
    gpu_lines, gpu_total, gpu_causes, gpu_cause_modules, gpu_internals = _table(gpu)
    when = max((load("kiln", s)[1].get("when", "") for s in names), default="")
    header = ["| module | tests | Numba passed | kiln passed | kiln passes of Numba's | "
              "top failure causes on kiln |", "| --- | ---: | ---: | ---: | ---: | --- |"]
    text = [
        "# Conformance: Numba's own test suite on kiln",
        "",
        "Made by `python conformance/run.py` (conformance/run.py says how to run it;",
        "conformance/modules.py says which modules are selected and why). Each module of",
        "Numba 0.68.1's test suite (and of numba-cuda 0.30.4's, under the CUDA simulator)",
        "runs twice on this machine, in conformance/.venv: on real Numba, and with kiln",
        "posing as `numba` (conformance/facade: Numba's public modules are kiln's modules",
        "under Numba's names; Numba's internals are absent, so a test that uses one fails",
        "and says so). *Numba passed* counts the tests that pass (or fail as expected) on",
        "Numba; *kiln passes of Numba's* counts those of them that also pass on kiln.",
        "Skipped tests count in neither. Tests: every test either side ran or skipped.",
        "",
        f"Last measured: {when}.",
        "",
        f"## Numba's suite: {len(cpu)} modules",
        "",
        f"**kiln passes {total['both']} of the {total['numba']} tests Numba passes "
        f"({_share(total):.0f}%)**; kiln passes {total['kiln']} in all, of "
        f"{total['tests']} tests. {_without_internals(total)}",
        "",
        *header,
        *cpu_lines,
        "",
    ]
    if gpu:
        text += [
            f"## numba-cuda's suite under the simulator: {len(gpu)} modules",
            "",
            f"**kiln's simulator passes {gpu_total['both']} of the {gpu_total['numba']} tests "
            f"numba-cuda's simulator passes ({_share(gpu_total):.0f}%)**; kiln passes "
            f"{gpu_total['kiln']} in all, of {gpu_total['tests']} tests.",
            "",
            *header,
            *gpu_lines,
            "",
        ]
    for title, counted, where in (("Numba's suite", causes, cause_modules),
                                  ("numba-cuda's suite", gpu_causes, gpu_cause_modules)):
        if not counted:
            continue
        text += [
            f"## The widest causes in {title} (tests failing on kiln)",
            "",
            "A module that cannot be imported counts the tests Numba passes in it.",
            "",
            "| tests | modules | cause |",
            "| ---: | ---: | --- |",
            *(f"| {count} | {len(where[cause])} | `{_cell(cause[:160])}` |"
              for cause, count in counted.most_common(40)),
            "",
        ]
    internals.update(gpu_internals)
    text += [
        "## Numba internals the test modules import",
        "",
        "A test module's top-level import of a Numba internal binds a placeholder (see",
        "conformance/facade/numba/__init__.py): the tests that use it fail with",
        "`NotImplementedError: <name> is a Numba internal ...`, the others run.",
        "",
        "| module | internals imported at its top level |",
        "| --- | --- |",
        *(f"| {m} | {', '.join(f'`{n}`' for n in sorted(set(v)))} |"
          for m, v in sorted(internals.items()) if v),
        "",
    ]
    extra = os.path.join(HERE, "report_notes.md")
    if os.path.exists(extra):
        text += [open(extra).read()]
    with open(REPORT, "w") as f:
        f.write("\n".join(text))
    return total, _share(total)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="modules under numba.tests "
                        "(e.g. test_tuples, npyufunc.test_gufunc); default: the subset")
    parser.add_argument("--all", action="store_true", help="every public-API module")
    parser.add_argument("--cuda", action="store_true",
                        help="numba-cuda's modules (CUDA simulator on both sides); "
                             "name one as cuda.cudapy.test_array")
    parser.add_argument("--side", choices=("numba", "kiln", "both"), default="both")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per module")
    parser.add_argument("--budget", type=float, default=3600,
                        help="seconds after which no further module starts")
    parser.add_argument("--skip-done", action="store_true",
                        help="leave out modules that already have a result for the side")
    parser.add_argument("--report", action="store_true", help="only rewrite the report")
    args = parser.parse_args()
    if not args.report:
        if not os.path.exists(VENV_PY):
            sys.exit("conformance/.venv is missing: run bash conformance/setup_env.sh")
        if args.modules:
            chosen = args.modules
        elif args.cuda:
            chosen = ["cuda." + m for m in selection.CUDA_DEFAULT]
        else:
            chosen = selection.PUBLIC if args.all else selection.DEFAULT
        sides = ("numba", "kiln") if args.side == "both" else (args.side,)
        start = time.time()
        for short in chosen:
            for side in sides:
                if time.time() - start > args.budget:
                    print(f"budget of {args.budget:.0f} s spent: stopping before {short}")
                    break
                if args.skip_done and load(side, short) is not None:
                    continue
                meta = run_module(short, side, args.timeout)
                rows = load(side, short)[0]
                passed, ran, _ = summarize(rows)
                print(f"{side:5} {short:40} {len(passed):4} passed of {len(rows):4} "
                      f"{meta['seconds']:6.1f} s{' TIMEOUT' if meta['timed_out'] else ''}",
                      flush=True)
    total, share = write_report()
    print(f"kiln passes {total['both']} of the {total['numba']} tests Numba passes "
          f"({share:.0f}%); report: {os.path.relpath(REPORT, REPO)}")


if __name__ == "__main__":
    main()

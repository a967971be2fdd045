"""Long mode: `python -m tests.fuzz_numpy --seeds 0:2000 --jobs 2` runs the programs of those
seeds (printing progress and each failure as found), then a summary, the statements kiln
refused most, and every failure reduced to a few lines."""
from __future__ import annotations

import argparse
import collections
import threading
import time

from tests.fuzz_numpy.reducer import reduce
from tests.fuzz_numpy.runner import run_seeds, snapshot

KINDS = ("ok", "unsupported", "crash", "hang", "exception", "value", "judge", "leak")
CHUNK = 100


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz_numpy", description=__doc__)
    parser.add_argument("--seeds", default="0:200", help="A:B runs seeds A .. B-1")
    parser.add_argument("--jobs", type=int, default=1, help="child processes in parallel")
    parser.add_argument("--minutes", type=float, help="start no new chunk after this long")
    parser.add_argument("--no-reduce", action="store_true")
    options = parser.parse_args()
    first, last = map(int, options.seeds.split(":"))
    print(f"kiln's source copied to {snapshot()} for this run", flush=True)

    start = time.monotonic()
    counts, refused, failures = collections.Counter(), collections.Counter(), []
    lock = threading.Lock()
    done = first

    def report(program, outcome):
        with lock:
            counts[outcome.kind] += 1
            if outcome.kind == "unsupported":
                refused[f"{outcome.tag}: {outcome.detail[:100]}"] += 1
            elif outcome.kind != "ok":
                failures.append((program, outcome))
                print(f"seed {program.seed}: {outcome.kind}: {outcome.detail[:2000]}", flush=True)

    for chunk in range(first, last, CHUNK):
        if options.minutes and time.monotonic() - start > 60 * options.minutes:
            break
        run_seeds(range(chunk, min(chunk + CHUNK, last)), options.jobs, report=report)
        done = min(chunk + CHUNK, last)
        print(f"[{time.monotonic() - start:.0f} s] seeds {first}..{done - 1}: " +
              ", ".join(f"{counts[k]} {k}" for k in KINDS), flush=True)

    print(f"\nseeds {first}..{done - 1} in {time.monotonic() - start:.0f} s: " +
          ", ".join(f"{counts[k]} {k}" for k in KINDS), flush=True)
    if refused:
        print("\nrefused by kiln (the program was generated again without them):")
        for what, n in refused.most_common(25):
            print(f"  {n:5d}  {what}")
    for program, outcome in failures:
        print(f"\n--- seed {program.seed}: {outcome.kind}: {outcome.detail[:2000]}")
        print(f"inputs: {program.inputs}")
        print(program.source if options.no_reduce else reduce(program, outcome), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

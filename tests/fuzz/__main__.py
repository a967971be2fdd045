"""Long mode: `python -m tests.fuzz --count 10000 --seed 1 --jobs 2` runs programs of seeds
seed .. seed+count-1, prints a summary and every failure, reduced to a few lines."""
from __future__ import annotations

import argparse
import collections
import time

from tests.fuzz.generator import generate
from tests.fuzz.reducer import reduce
from tests.fuzz.runner import run_programs


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed")
    parser.add_argument("--jobs", type=int, default=1, help="child processes in parallel")
    parser.add_argument("--scalars", action="store_true", help="no array programs")
    parser.add_argument("--no-reduce", action="store_true")
    parser.add_argument("--plant", help="test the fuzzer: plant a bug in kiln (fsub, fmul or sdiv: "
                        "that LLVM instruction is emitted as another)")
    options = parser.parse_args()

    start = time.monotonic()
    programs = [generate(s, arrays=not options.scalars)
                for s in range(options.seed, options.seed + options.count)]
    outcomes = run_programs(programs, options.jobs, options.plant)
    counts = collections.Counter(o.kind for o in outcomes)
    print(f"{len(programs)} programs (seeds {options.seed}..{options.seed + options.count - 1}) "
          f"in {time.monotonic() - start:.0f} s: " +
          ", ".join(f"{counts[k]} {k}" for k in ("ok", "crash", "hang", "value", "exception", "leak")),
          flush=True)
    for program, outcome in zip(programs, outcomes):
        if outcome.kind == "ok":
            continue
        print(f"\n--- seed {program.seed}: {outcome.kind}: {outcome.detail}")
        if outcome.case >= 0:
            print(f"input: f{program.inputs[outcome.case]}")
        source = program.source if options.no_reduce else reduce(program, outcome, options.plant)
        print(source, flush=True)
    return 1 if len(programs) > counts["ok"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Long mode: `python -m tests.fuzz --count 10000 --seed 1 --jobs 2` runs programs of seeds
seed .. seed+count-1 in chunks (printing progress and each failure as found), then prints a
summary and every failure reduced to a few lines."""
from __future__ import annotations

import argparse
import collections
import time

from tests.fuzz.generator import generate
from tests.fuzz.reducer import reduce
from tests.fuzz.runner import run_programs

KINDS = ("ok", "crash", "hang", "value", "exception", "leak")
CHUNK = 200


def main():
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="the first program's seed")
    parser.add_argument("--jobs", type=int, default=1, help="child processes in parallel")
    parser.add_argument("--minutes", type=float, help="start no new chunk after this long")
    parser.add_argument("--scalars", action="store_true", help="no array programs")
    parser.add_argument("--no-reduce", action="store_true")
    parser.add_argument("--cuda", action="store_true", help="compile each program for the GPU "
                        "(PTX, ptxas) instead of running it: it must compile or be refused "
                        "at a line")
    parser.add_argument("--plant", help="test the fuzzer: plant a bug in kiln (fsub, fmul or sdiv: "
                        "that LLVM instruction is emitted as another)")
    options = parser.parse_args()

    start = time.monotonic()
    counts, failures, done = collections.Counter(), [], 0
    for first in range(options.seed, options.seed + options.count, CHUNK):
        if options.minutes and time.monotonic() - start > 60 * options.minutes:
            break
        last = min(first + CHUNK, options.seed + options.count)
        programs = [generate(s, arrays=not options.scalars, device=options.cuda)
                    for s in range(first, last)]
        for program, outcome in zip(programs, run_programs(programs, options.jobs, options.plant,
                                                                   cuda=options.cuda)):
            counts[outcome.kind] += 1
            if outcome.kind != "ok":
                failures.append((program, outcome))
                print(f"seed {program.seed}: {outcome.kind}: {outcome.detail}", flush=True)
        done += len(programs)
        print(f"[{time.monotonic() - start:.0f} s] {done} programs: " +
              ", ".join(f"{counts[k]} {k}" for k in KINDS), flush=True)

    print(f"\n{done} programs (seeds {options.seed}..{options.seed + done - 1}) in "
          f"{time.monotonic() - start:.0f} s: " + ", ".join(f"{counts[k]} {k}" for k in KINDS),
          flush=True)
    for program, outcome in failures:
        print(f"\n--- seed {program.seed}: {outcome.kind}: {outcome.detail}")
        if outcome.case >= 0:
            print(f"input: f{program.inputs[outcome.case]}")
        source = program.source if options.no_reduce else reduce(program, outcome, options.plant,
                                                                    cuda=options.cuda)
        print(source, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

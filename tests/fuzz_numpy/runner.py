"""Runs programs in child processes and classifies each: ok; unsupported (kiln refused at
compile time a statement NumPy runs: the program is generated again without that kind of
statement, a few times, then counted as unsupported, never as a pass); or the first failure
among crash (the child died), hang, exception (one side raised and the other did not, or
other classes), value (dtype, shape or values differ), judge (kiln unfused or parallel=True
gives other bits than kiln fused) and leak."""
from __future__ import annotations

import collections
import pickle
import struct
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tests.fuzz.runner import Child as ScalarChild
from tests.fuzz_numpy.compare import same, show
from tests.fuzz_numpy.generator import HEADER, generate

RETRIES = 4
SNAPSHOT = None     # a directory holding a copy of kiln that the children import (snapshot())


def snapshot():
    """Copy kiln's source for the children of a long run: kiln reads its library's source
    while compiling, and other people editing the checkout meanwhile would make it fail."""
    global SNAPSHOT
    import os
    import shutil
    import tempfile
    from tests.fuzz.runner import ROOT
    SNAPSHOT = tempfile.mkdtemp(prefix="kiln-fuzz-numpy-source-")
    shutil.copytree(os.path.join(ROOT, "src", "kiln"), os.path.join(SNAPSHOT, "kiln"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    return SNAPSHOT


@dataclass
class Outcome:
    kind: str        # "ok", "unsupported", "crash", "hang", "exception", "value", "judge", "leak"
    detail: str = ""
    tag: str = ""    # for "unsupported": the refused statement's tag


def _describe(outcome):
    if outcome[0] == "raise":
        return f"raises {outcome[1]}" + (" at compile time" if outcome[2] else "") + \
            f" ({outcome[3].splitlines()[0][:200] if outcome[3] else ''})"
    return "returns " + show(outcome[1])


def _statement_line(program, line):
    """The index of the statement of f at `line` of the source, or -1."""
    first = HEADER.count("\n") + 2      # the def, then the statements
    index = line - first
    return index if 0 <= index < len(program.tags) else -1


def classify(program, answer) -> Outcome:
    reference, kiln, judge = answer["reference"], answer["kiln"], answer["judge"]
    if kiln[0] == "raise" and kiln[2]:                 # kiln refused to compile
        if reference[0] == "raise":
            return Outcome("ok")                        # refused what NumPy rejects too
        index = _statement_line(program, kiln[4])
        if index < 0:          # the error is in kiln's library, not at a statement of f
            return Outcome("exception", f"kiln fails to compile inside its library: "
                                        f"{kiln[3][:600]}")
        return Outcome("unsupported", kiln[3].splitlines()[0][:200], program.tags[index])
    if (reference[0] == "raise") != (kiln[0] == "raise"):
        return Outcome("exception", f"NumPy {_describe(reference)}, kiln {_describe(kiln)}")
    if reference[0] == "raise":
        if reference[1] != kiln[1]:
            return Outcome("exception", f"NumPy {_describe(reference)}, kiln {_describe(kiln)}")
        reason = same(reference[5], kiln[5])
        if reason:
            return Outcome("value", f"arguments after the exception: {reason}")
    else:
        reason = same(reference[1], kiln[1], program.ulps)
        if reason:
            return Outcome("value", f"result {reason}; NumPy {show(reference[1])}, "
                                    f"kiln {show(kiln[1])}")
        reason = same(reference[2], kiln[2])
        if reason:
            return Outcome("value", f"arguments after the call {reason}; NumPy "
                                    f"{show(reference[2])}, kiln {show(kiln[2])}")
    if judge[0] != kiln[0] or (judge[0] == "raise" and judge[1:3] != kiln[1:3]):
        return Outcome("judge", f"kiln {_describe(kiln)}, {program.judge} {_describe(judge)}")
    reason = same(kiln[1], judge[1]) if kiln[0] == "ok" else None
    if reason:
        return Outcome("judge", f"{program.judge} differs from fused: {reason}")
    if answer["leaked"]:
        return Outcome("leak", f"{answer['leaked']} bytes not freed")
    return Outcome("ok")


class Child(ScalarChild):
    """A child running tests.fuzz_numpy.child (restart, crash and hang handling as in
    tests/fuzz)."""

    def start(self):
        import subprocess
        import tempfile
        self.stderr = tempfile.TemporaryFile()
        self.dir = tempfile.mkdtemp(prefix="kiln-fuzz-numpy-")
        command = [sys.executable, "-m", "tests.fuzz_numpy.child", self.dir] + \
            ([self.plant] if self.plant else [])
        import os
        env = dict(os.environ, PYTHONPATH=SNAPSHOT) if SNAPSHOT else None
        self.process = subprocess.Popen(command, env=env,
                                        cwd=self._root(), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr)
        self.served = 0

    @staticmethod
    def _root():
        from tests.fuzz.runner import ROOT
        return ROOT

    def run(self, program) -> Outcome:
        if self.process is None or self.served >= 150:
            self.stop()
            self.start()
        self.served += 1
        data = pickle.dumps((program.source, program.flat_source, program.inputs, program.judge))
        try:
            self.process.stdin.write(struct.pack("<I", len(data)) + data)
            self.process.stdin.flush()
            deadline = time.monotonic() + self.timeout
            size = struct.unpack("<I", self._read(4, deadline))[0]
            return classify(program, pickle.loads(self._read(size, deadline)))
        except TimeoutError:
            self.stop()
            return Outcome("hang", f"no answer in {self.timeout:.0f} s")
        except (EOFError, BrokenPipeError):
            code = self.process.wait()
            tail = self._stderr_tail()
            self.stop()
            return Outcome("crash", f"exit status {code}\n{tail}")


def run_seed(child, seed):
    """(program, outcome) of a seed: generated again without the kinds of statement kiln
    refuses, up to RETRIES times."""
    banned = []
    program = generate(seed)
    for _ in range(RETRIES):
        outcome = child.run(program)
        if outcome.kind != "unsupported":
            break
        banned.append(outcome.tag)
        program = generate(seed, banned)
    return program, outcome


def run_seeds(seeds, jobs=1, timeout=120.0, report=None, plant=None):
    """[(program, outcome)] for `seeds` in order, on `jobs` children; `report(program,
    outcome)` is called as each is done."""
    seeds = list(seeds)
    chunks = [seeds[i::jobs] for i in range(jobs)]

    def work(chunk):
        child = Child(plant, timeout=timeout)
        done = []
        try:
            for seed in chunk:
                done.append(run_seed(child, seed))
                if report:
                    report(*done[-1])
        finally:
            child.stop()
        return done

    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(work, chunks))
    ordered = [None] * len(seeds)
    for j, chunk_results in enumerate(results):
        ordered[j::jobs] = chunk_results
    return ordered


def tally(results):
    return collections.Counter(o.kind for _, o in results)

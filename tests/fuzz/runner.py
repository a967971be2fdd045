"""Runs programs in child processes and classifies each: ok, or the first failure among
crash (the child died), hang (no answer in time: loops are bounded, so CPython cannot hang),
exception (one side raised and the other did not, or other classes; a kiln compile error
counts here), value (results or arrays written differ) and leak (kiln's allocations not all
freed once the result is dropped)."""
from __future__ import annotations

import os
import pickle
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tests.fuzz.compare import describe
from tests.fuzz.generator import Program

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS_PER_CHILD = 300   # a fresh child now and then bounds the JIT's memory


@dataclass
class Outcome:
    kind: str              # "ok", "crash", "hang", "exception", "value", "leak"
    detail: str = ""
    case: int = -1         # which input failed


def classify(cases) -> Outcome:
    for i, (expected, got, py_arrays, kiln_arrays, leaked) in enumerate(cases):
        if expected != got:
            if "raise" in (expected[0], got[0]):
                return Outcome("exception", f"CPython {describe(expected)}, kiln {describe(got)}", i)
            return Outcome("value", f"CPython {describe(expected)}, kiln {describe(got)}", i)
        if py_arrays != kiln_arrays:
            return Outcome("value", f"arrays after the call: CPython {describe(py_arrays)}, "
                                    f"kiln {describe(kiln_arrays)}", i)
        if leaked:
            return Outcome("leak", f"{leaked} allocations not freed", i)
    return Outcome("ok")


class Child:
    """One child process, restarted after a crash, a hang, or PROGRAMS_PER_CHILD programs;
    `cuda`: it compiles the programs for the GPU instead of running them (child.py)."""

    def __init__(self, plant=None, timeout=60.0, cuda=False):
        self.plant, self.timeout, self.cuda = plant, timeout, cuda
        self.process = None
        self.served = 0

    def start(self):
        self.stderr = tempfile.TemporaryFile()
        self.dir = tempfile.mkdtemp(prefix="kiln-fuzz-")   # the programs' source files
        command = [sys.executable, "-m", "tests.fuzz.child", self.dir] + \
            (["--cuda"] if self.cuda else []) + ([self.plant] if self.plant else [])
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr)
        self.served = 0

    def stop(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
            shutil.rmtree(self.dir, ignore_errors=True)

    def _read(self, n, deadline):
        data = b""
        fd = self.process.stdout.fileno()
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def _stderr_tail(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-2000:]

    def run(self, program: Program) -> Outcome:
        if self.process is None or self.served >= PROGRAMS_PER_CHILD:
            self.stop()
            self.start()
        self.served += 1
        data = pickle.dumps((program.source, program.inputs))
        try:
            self.process.stdin.write(struct.pack("<I", len(data)) + data)
            self.process.stdin.flush()
            deadline = time.monotonic() + self.timeout
            size = struct.unpack("<I", self._read(4, deadline))[0]
            return classify(pickle.loads(self._read(size, deadline)))
        except TimeoutError:
            self.stop()
            return Outcome("hang", f"no answer in {self.timeout:.0f} s")
        except (EOFError, BrokenPipeError):
            code = self.process.wait()
            tail = self._stderr_tail()
            self.stop()
            return Outcome("crash", f"exit status {code}\n{tail}")


def run_programs(programs, jobs=1, plant=None, timeout=60.0, cuda=False):
    """Outcomes of `programs` (in order), on `jobs` children working in parallel."""
    programs = list(programs)
    chunks = [programs[i::jobs] for i in range(jobs)]

    def work(chunk):
        child = Child(plant, timeout, cuda)
        try:
            return [child.run(p) for p in chunk]
        finally:
            child.stop()

    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(work, chunks))
    outcomes = [None] * len(programs)
    for j, chunk_outcomes in enumerate(results):
        outcomes[j::jobs] = chunk_outcomes
    return outcomes

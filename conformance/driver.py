"""Run one test module of Numba's suite and write one JSON line per test.

    python driver.py numba.tests.test_tuples out.jsonl

Run by run.py in a fresh interpreter per module: with conformance/facade first on
PYTHONPATH (kiln posing as numba) or without it (real Numba). Each line is
{"id", "outcome", "cause", "seconds"}; outcome is one of pass, fail, error, skip, xfail,
xpass, import-error. A line is written as soon as its test ends, so a module killed by its
timeout still leaves what it ran.
"""
import importlib
import json
import re
import sys
import time
import traceback
import unittest
import warnings


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Warning|Exit): ")


def cause_of(exc_info):
    """'ExceptionType: first line of the message', shortened, for grouping."""
    kind, value, _ = exc_info
    text = str(value).strip().splitlines()
    if "captured stderr:" in str(value):
        # a test run in a subprocess (Numba's run_test_in_subprocess): the subprocess's
        # own failure is the cause
        found = [line.strip() for line in str(value).split("captured stderr:", 1)[1]
                 .splitlines() if _EXCEPTION_LINE.match(line.strip())
                 and not line.strip().startswith("AssertionError: 1 != 0")]
        if found:
            return f"subprocess: {found[0][:160]}"
    first = text[0] if text else ""
    if kind is AssertionError and len(text) > 1 and len(first) < 20:
        first = " ".join(line.strip() for line in text[:3])
    first = re.sub(r"0x[0-9a-f]+", "0x…", first)
    return f"{kind.__module__ + '.' if kind.__module__ not in ('builtins',) else ''}" \
           f"{kind.__qualname__}: {first[:160]}"


class Recorder(unittest.TestResult):
    def __init__(self, out):
        super().__init__()
        self.out = out
        self.start = None

    def startTest(self, test):
        super().startTest(test)
        self.start = time.perf_counter()

    def _write(self, test, outcome, cause=""):
        seconds = time.perf_counter() - self.start if self.start else 0.0
        self.out.write(json.dumps({"id": test.id(), "outcome": outcome, "cause": cause,
                                   "seconds": round(seconds, 3)}) + "\n")
        self.out.flush()

    def addSuccess(self, test):
        self._write(test, "pass")

    def addFailure(self, test, err):
        self._write(test, "fail", cause_of(err))

    def addError(self, test, err):
        # an error in setUpClass or a module fixture arrives with a _ErrorHolder
        self._write(test, "error", cause_of(err))

    def addSkip(self, test, reason):
        self._write(test, "skip", str(reason)[:160])

    def addExpectedFailure(self, test, err):
        self._write(test, "xfail")

    def addUnexpectedSuccess(self, test):
        self._write(test, "xpass")

    def addSubTest(self, test, subtest, err):
        # a failing subtest fails its test; it is recorded once, with the first cause
        if err is not None and not getattr(test, "_conformance_failed", False):
            test._conformance_failed = True
            kind = "fail" if issubclass(err[0], test.failureException) else "error"
            self._write(test, kind, cause_of(err))


class _SubtestAware(Recorder):
    def addSuccess(self, test):
        if not getattr(test, "_conformance_failed", False):
            super().addSuccess(test)


def main(module_name, out_path):
    warnings.simplefilter("ignore")
    with open(out_path, "w") as out:
        try:
            module = importlib.import_module(module_name)
            suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        except BaseException:
            exc = sys.exc_info()
            out.write(json.dumps({"id": module_name, "outcome": "import-error",
                                  "cause": cause_of(exc), "seconds": 0,
                                  "traceback": "".join(traceback.format_exception(*exc))[-3000:]})
                      + "\n")
            return
        facade = sys.modules.get("numba")
        bound = getattr(facade, "BOUND_INTERNALS", {}).get(module_name)
        if bound:
            out.write(json.dumps({"id": module_name, "outcome": "info",
                                  "internals": bound}) + "\n")
        result = _SubtestAware(out)
        suite.run(result)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

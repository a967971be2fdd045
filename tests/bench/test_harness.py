"""The harness reports every failure as a status instead of dropping the kernel or dying."""
import faulthandler
import os
import signal
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.backends import Backend  # noqa: E402
from bench.registry import Benchmark, Sizes  # noqa: E402
from bench.suite import Config, run_isolated  # noqa: E402

CFG = Config(mode="quick", budget=0.01, max_repeats=3, timeout=20)


def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
    return s


BENCH = Benchmark(name="total", topic="test", pyfunc=total, label="{n}",
                  make_inputs=lambda n: (np.arange(n, dtype=np.float64),),
                  sizes=Sizes(full=1000, quick=100, python=10), numpy_ref=np.sum)


def fake(name, compiled):
    """A backend whose njit returns `compiled` (or raises it, if it is an exception)."""
    def njit(**options):
        def decorate(func):
            if isinstance(compiled, Exception):
                raise compiled
            return compiled
        return decorate
    return Backend(name, SimpleNamespace(njit=njit))


def status(backend):
    return run_isolated(BENCH, [backend], CFG)["results"][backend.name]["status"]


def test_working_backend_gets_figures():
    record = run_isolated(BENCH, [fake("good", total)], CFG)
    assert record["results"]["good"]["status"] == "ok"
    assert record["results"]["numpy"]["status"] == "ok"
    assert record["results"]["cpython"]["status"] == "ok"
    assert record["meta"]["label"] == "100"


def test_compile_error_is_not_supported_with_its_first_line():
    error = TypeError("cannot type this\nat line 3")
    assert status(fake("bad", error)) == "not supported: TypeError: cannot type this"


def test_wrong_output_is_caught_before_timing():
    assert status(fake("wrong", lambda x: total(x) + 1)).startswith("wrong output (vs CPython)")


def test_missing_backend_is_reported():
    backend = Backend("absent", None, "ModuleNotFoundError: No module named 'absent'")
    assert status(backend) == "not available: ModuleNotFoundError: No module named 'absent'"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="crash isolation needs fork")
def test_crash_costs_only_that_column():
    def crash(x):
        # The forked child inherits pytest's faulthandler, which would print "Fatal Python
        # error" and a stack dump into the test output: this crash is on purpose.
        faulthandler.disable()
        os.kill(os.getpid(), signal.SIGSEGV)
    record = run_isolated(BENCH, [fake("crashy", crash), fake("good", total)], CFG)
    assert record["results"]["crashy"]["status"] == "crashed: SIGSEGV"
    assert record["results"]["good"]["status"] == "ok"
    assert record["results"]["numpy"]["status"] == "ok"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="time-outs need fork")
def test_hang_times_out():
    def hang(x):
        time.sleep(60)
    cfg = Config(mode="quick", budget=0.01, max_repeats=3, timeout=2)
    record = run_isolated(BENCH, [fake("slow", hang)], cfg)
    assert record["results"]["slow"]["status"] == "timed out after 2 s"

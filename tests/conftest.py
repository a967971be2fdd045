import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# The suite starts a few hundred Python processes (a cache hit in a new process, Dask
# workers, scripts that must crash), each importing kiln from its sources. Where bytecode is
# not written (PYTHONDONTWRITEBYTECODE, set on some machines), each compiled every module it
# imported again: a third of those tests' CPU time. The suite writes it (git ignores
# __pycache__), for pytest-xdist's workers and every process the tests start.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

import gc

import pytest

from kiln.runtime.nrt import allocation_stats


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.kiln_failed = report.failed
    return report


def pytest_sessionstart(session):
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Every test leaves the runtime's memory as it found it: whatever compiled code
    allocated is freed once Python drops the arrays it returned. (A failed test's
    traceback still holds its arrays, so only passing tests are checked.)

    The collection after each test sees only that test's objects: the survivors of the
    tests before it are frozen, so a full collection costs a test milliseconds rather than a
    scan of everything the suite has compiled so far (which grew to most of its time).
    Under pytest-xdist each worker is its own process with its own session, NRT counters
    and frozen generation, so the check holds per worker."""
    before = allocation_stats()
    yield
    gc.collect()
    after = allocation_stats()
    gc.freeze()
    if getattr(request.node, "kiln_failed", False):
        return
    assert (after.live, after.bytes_live) == (before.live, before.bytes_live), \
        f"compiled code leaked: {before} before the test, {after} after"

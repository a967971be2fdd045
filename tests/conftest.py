import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import gc

import pytest

from kiln.runtime.nrt import allocation_stats


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call":
        item.kiln_failed = report.failed
    return report


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Every test leaves the runtime's memory as it found it: whatever compiled code
    allocated is freed once Python drops the arrays it returned. (A failed test's
    traceback still holds its arrays, so only passing tests are checked.)"""
    gc.collect()
    before = allocation_stats()
    yield
    if getattr(request.node, "kiln_failed", False):
        return
    gc.collect()
    after = allocation_stats()
    assert (after.live, after.bytes_live) == (before.live, before.bytes_live), \
        f"compiled code leaked: {before} before the test, {after} after"

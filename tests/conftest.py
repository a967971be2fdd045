import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import gc

import pytest

from kiln.runtime.nrt import allocation_stats


@pytest.fixture(autouse=True)
def no_leaks():
    """Every test leaves the runtime's memory as it found it: whatever compiled code
    allocated is freed once Python drops the arrays it returned."""
    gc.collect()
    before = allocation_stats()
    yield
    gc.collect()
    after = allocation_stats()
    assert (after.live, after.bytes_live) == (before.live, before.bytes_live), \
        f"compiled code leaked: {before} before the test, {after} after"

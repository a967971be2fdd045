"""cache=True: machine code is stored on disk and reused by a new process."""
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    from kiln import njit

    class Negative(Exception):
        pass

    @njit(cache=True)
    def total(x):
        s = 0.0
        for v in x:
            if v < 0:
                raise Negative("negative value", v)
            try:
                s += 1.0 / v
            except ZeroDivisionError:
                s += 100.0
        return s

    assert total(np.arange(4.0)) == 100.0 + 1.0 + 0.5 + 1.0 / 3
    try:
        total(np.array([-1.5]))
    except Negative as e:
        assert e.args == ("negative value", -1.5), e.args
    else:
        raise SystemExit("no exception")
    spec = next(iter(total._specializations.values()))
    print("HIT" if spec.result.compiled.from_cache else "MISS")
    assert "define" in next(iter(total.inspect_llvm().values()))
""")


def run(tmp_path, cache_dir):
    script = tmp_path / "cached_module.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, KILN_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_second_process_loads_from_cache(tmp_path):
    cache_dir = tmp_path / "cache"
    assert run(tmp_path, cache_dir) == "MISS"
    assert run(tmp_path, cache_dir) == "HIT"


def test_corrupt_entry_is_a_miss_and_is_rewritten(tmp_path):
    cache_dir = tmp_path / "cache"
    assert run(tmp_path, cache_dir) == "MISS"
    for path in cache_dir.rglob("*.kilnobj"):
        path.write_bytes(path.read_bytes()[:-20] + b"garbage-garbage-garb")
    assert run(tmp_path, cache_dir) == "MISS"
    assert run(tmp_path, cache_dir) == "HIT"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root can write to a read-only directory")
def test_read_only_cache_directory_still_compiles(tmp_path):
    cache_dir = tmp_path / "cache"
    cache_dir.mkdir()
    cache_dir.chmod(0o500)
    try:
        assert run(tmp_path, cache_dir) == "MISS"
    finally:
        cache_dir.chmod(0o700)


def test_unwritable_cache_location_still_compiles(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would go")
    assert run(tmp_path, blocker) == "MISS"

"""cache=True: machine code is stored on disk and reused by a new process."""
import os
import textwrap

import pytest

from helpers import run_script, slow_except

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
    print("HIT" if spec.cache_hit else "MISS")
    assert "define" in next(iter(total.inspect_llvm().values()))
""")


def run(tmp_path, cache_dir):
    return run_script(tmp_path / "cached_module.py", SCRIPT, cache_dir).stdout.strip()


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


LIBRARY_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from kiln import njit

    if sys.argv[1] == "after-others":   # library overloads compiled before, for other types
        @njit
        def other(n):
            return np.sqrt((np.arange(n) * 1.5).sum()) + np.arange(3.0).sum()
        other(5), other(np.int32(4)), other(np.uint8(3))

    @njit(cache=True)
    def norm(n):
        x = np.arange(n) * 0.5
        return np.sqrt((x * x).sum())

    assert abs(norm(1000) - np.sqrt(((np.arange(1000) * 0.5) ** 2).sum())) < 1e-9
    spec = next(iter(norm._specializations.values()))
    print("HIT" if spec.cache_hit else "MISS")
""")


def test_hit_whatever_the_process_compiled_before(tmp_path):
    def run_after(what):
        return run_script(tmp_path / "cached_library_calls.py", LIBRARY_SCRIPT,
                          tmp_path / "cache", what).stdout.strip()

    assert run_after("nothing") == "MISS"
    assert run_after("after-others") == "HIT"


# -- the key of the source: a hit compiles nothing, and never runs stale code ----------------

VARIANT_SCRIPT = """
import sys
import numpy as np
import kiln
from kiln import njit

import kiln.version
kiln.__version__ = kiln.version.__version__ = "{version}"
SCALE = {scale}

@njit{callee_options}
def weight(v):
    return v * {callee_factor}

@njit(cache=True{options})
def total(x):
    s = 0.0
    for v in x:
        s += weight(v) * SCALE{extra}
    return s

result = total(np.arange(4.0))
spec = next(iter(total._specializations.values()))
compiler_loaded = [m for m in ("kiln.typing.infer", "kiln.codegen.lower", "kiln.library")
                   if m in sys.modules]
print(spec.cache_hit, result, ",".join(compiler_loaded) or "-")
"""
BASE = dict(version="0.1.0", scale=2.0, callee_options="", callee_factor=3.0, options="",
            extra="")


def run_variant(tmp_path, **changes):
    """(cache level hit or None, result, compiler modules loaded) of one version of the
    program, all versions sharing one file name and one cache."""
    source = VARIANT_SCRIPT.format(**{**BASE, **changes})
    out = run_script(tmp_path / "variant.py", source, tmp_path / "cache").stdout.split()
    return out[0], float(out[1]), out[2]


def test_hit_in_a_new_process_loads_no_compiler(tmp_path):
    assert run_variant(tmp_path)[0] == "None"
    hit, result, loaded = run_variant(tmp_path)
    assert (hit, result, loaded) == ("source", 36.0, "-")


CHANGES = [
    (dict(extra=" + 1.0"), 40.0),                 # the function's source
    (dict(callee_factor=5.0), 60.0),              # a compiled function it calls
    (dict(scale=3.0), 54.0),                      # a frozen global
    (dict(options=", fastmath=True"), 36.0),      # an option
    (dict(callee_options="(boundscheck=True)"), 36.0),   # a callee's option
    (dict(version="0.1.1"), 36.0),                # kiln's version
]


# a new process each: three by default, all six in the long run
@pytest.mark.parametrize("change, expected", slow_except(
    CHANGES, CHANGES[0], CHANGES[1], CHANGES[2], rows=True),
    ids=["source", "callee", "global", "option", "callee-option", "version"])
def test_a_change_is_a_miss(tmp_path, change, expected):
    run_variant(tmp_path)
    assert run_variant(tmp_path)[0] == "source"
    hit, result, _ = run_variant(tmp_path, **change)
    assert hit != "source" and result == expected
    assert run_variant(tmp_path, **change) == ("source", expected, "-")


def test_a_value_without_a_stable_description_gives_no_key(monkeypatch):
    import numpy as np
    from kiln import njit, types
    from kiln.cpu import sourcekey
    from kiln.cpu.sourcekey import source_key
    table = np.arange(3.0)
    # (tests collected in this process may have registered overloads: that alone gives
    # no key, tested below)
    monkeypatch.setattr(sourcekey, "_extended_outside_kiln", lambda: False)

    @njit(cache=True)
    def lookup(i):
        return table[i]

    @njit(cache=True)
    def plain(i):
        return i + 1

    key = lambda f: source_key(f, (types.int64,), None, True, "fingerprint")
    assert key(lookup) is None and key(plain) is not None


def test_an_overload_registered_outside_kiln_gives_no_key():
    from kiln import njit, types
    from kiln.cpu.sourcekey import source_key
    from kiln.extending import overload

    def halve(x):
        raise NotImplementedError

    @overload(halve)
    def halve_impl(x):
        return lambda x: x / 2

    @njit(cache=True)
    def plain(i):
        return i + 1

    assert source_key(plain, (types.int64,), None, True, "fingerprint") is None


def test_the_cache_command_lists_and_clears_entries(tmp_path):
    import subprocess
    import sys
    run_variant(tmp_path)
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"))

    def command(*args):
        return subprocess.run([sys.executable, "-m", "kiln", "cache", str(tmp_path), *args],
                              env=env, capture_output=True, text=True, check=True).stdout

    listed = command()
    assert f"source    total ({tmp_path / 'variant.py'})" in listed
    assert "internal  trampoline" in listed
    assert "deleted" in command("--clear")
    assert command().splitlines()[-1].startswith("0 entries")

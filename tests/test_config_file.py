"""kiln.config's Numba settings that come from a config file or describe the CPU target:
`.kiln_config.yaml` / Numba's `.numba_config.yaml` in the current directory (the
environment wins over it; `reload_config()` reads it again), `dir(config)` listing every
setting, ENABLE_AVX / CPU_NAME / CPU_FEATURES (what the machine code is made for) and
DISABLE_PERFORMANCE_WARNINGS; OPT, LLVM's optimization level."""
import os
import subprocess
import sys
import warnings

import pytest

import kiln
from kiln import config, njit

yaml = pytest.importorskip("yaml")


def settings():
    return {name: getattr(config, name) for name in dir(config) if name.isupper()}


def test_dir_lists_every_setting():
    names = [name for name in dir(config) if name.isupper() and not name.startswith("_")]
    for name in ("BOUNDSCHECK", "CACHE_DIR", "COLOR_SCHEME", "CPU_NAME", "CPU_FEATURES",
                 "DISABLE_JIT", "DISABLE_PERFORMANCE_WARNINGS", "ENABLE_AVX",
                 "THREADING_LAYER"):
        assert name in names
    settings()   # every one of them reads


@pytest.mark.parametrize("fname", [".kiln_config.yaml", ".numba_config.yaml"])
def test_a_config_file_in_the_current_directory(tmp_path, monkeypatch, fname):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KILN_COLOR_SCHEME", raising=False)
    monkeypatch.delenv("NUMBA_COLOR_SCHEME", raising=False)
    config.reload_config()
    before = settings()
    (tmp_path / fname).write_text(yaml.dump({"color_scheme": "light_bg"}))
    try:
        assert config.COLOR_SCHEME == "no_color"   # read when reloaded, as in Numba
        config.reload_config()
        after = settings()
        assert after.pop("COLOR_SCHEME") == "light_bg" and before.pop("COLOR_SCHEME") \
            == "no_color"
        assert after == before
        monkeypatch.setenv("NUMBA_COLOR_SCHEME", "dark_bg")   # the environment wins
        assert config.COLOR_SCHEME == "dark_bg"
    finally:
        os.remove(tmp_path / fname)
        config.reload_config()


def run(code, **env):
    environ = dict(os.environ, **env)
    for name in ("KILN_ENABLE_AVX", "NUMBA_ENABLE_AVX", "KILN_CPU_NAME", "NUMBA_CPU_NAME"):
        if name not in env:
            environ.pop(name, None)
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True,
                          text=True, check=True).stdout.strip()


CPU = """
from kiln import config, njit
from kiln.runtime.engine import get_engine
assert njit(lambda x: x + 1)(2) == 3
engine = get_engine()
print(config.ENABLE_AVX, engine.cpu_name, '+avx' in engine.cpu_features.split(','))
"""


def test_avx_is_off_on_the_cpus_numba_turns_it_off_on():
    assert run(CPU, NUMBA_CPU_NAME="nocona").split() == ["0", "nocona", "False"]
    assert run(CPU, KILN_CPU_NAME="skylake-avx512").split()[:2] == ["1", "skylake-avx512"]
    assert run(CPU, KILN_CPU_NAME="skylake-avx512", KILN_ENABLE_AVX="0").split() == \
        ["0", "skylake-avx512", "False"]


def test_the_cpu_cannot_change_once_code_is_compiled():
    njit(lambda: 1)()
    with pytest.raises(AttributeError, match="cannot change now"):
        config.CPU_NAME = "generic"


def test_a_parallel_function_that_splits_nothing_warns():
    @njit(parallel=True)
    def nothing(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nothing(1)
    found = [w for w in caught if issubclass(w.category, kiln.errors.NumbaPerformanceWarning)]
    assert len(found) == 1
    assert "no transformation for parallel execution was possible" in str(found[0].message)


def test_performance_warnings_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("NUMBA_DISABLE_PERFORMANCE_WARNINGS", "1")
    assert config.DISABLE_PERFORMANCE_WARNINGS == 1

    @njit(parallel=True)
    def nothing(x):
        return x + 1

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nothing(1) == 2


OPT = """
import numpy as np
from kiln import config, njit

def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * 2.0
    return s

f = njit(cache=True)(total)
a = np.arange(10.0)
assert f(a) == total(a)
llvm = f.inspect_llvm(f.signatures[0])
print(config.OPT, 'alloca' in llvm, sum(f.stats.cache_hits.values()))
"""


def test_opt_sets_llvm_s_level_for_new_compiles_and_keys_the_cache(tmp_path, monkeypatch):
    cache = str(tmp_path)   # a fresh cache directory: the first run of each level misses
    assert run(OPT, KILN_OPT="0", KILN_CACHE_DIR=cache).split() == ["0", "True", "0"]
    assert run(OPT, KILN_CACHE_DIR=cache).split() == ["3", "False", "0"]   # not level 0's
    assert run(OPT, NUMBA_OPT="max", KILN_CACHE_DIR=cache).split() == ["3", "False", "1"]
    monkeypatch.setenv("NUMBA_OPT", "9")
    with pytest.warns(RuntimeWarning, match="not an optimization level"):
        assert kiln.options.opt_level() == 3
    with pytest.raises(AttributeError, match="cannot change now"):   # compiled already
        config.OPT = 1

"""`kiln.config`: Numba's settings by Numba's names (`config.BOUNDSCHECK`,
`config.THREADING_LAYER`, `config.NUMBA_NUM_THREADS`, ...).

Each setting comes from the environment (KILN_<NAME>, else NUMBA_<NAME>, else Numba's
config file: `.kiln_config.yaml` or `.numba_config.yaml` in the current directory, read
again by `reload_config()`) when kiln reads it. Assigning one sets KILN_<NAME>, for the
settings kiln reads later (at decoration, at the first parallel region, at `import
kiln.cuda`); assigning one that kiln has already read, or that is fixed for the process,
raises rather than doing nothing. A Numba setting kiln does not have is an AttributeError
that says so.
"""
from __future__ import annotations

import os
import sys
import types

from . import options as _options
from .options import avx_enabled, env_flag, env_value, opt_level, reload_config_file

# Numba's name of its config file; kiln reads it too (after its own .kiln_config.yaml)
_config_fname = _options.CONFIG_FILES[1]


def _threads_started():
    loaded = sys.modules.get("kiln.runtime.loaded")
    return loaded is not None and loaded.THREADS.state is not None


def _engine_started():
    engine = sys.modules.get("kiln.runtime.engine")
    return "the CPU target is set up (at the first compile)" \
        if engine is not None and engine._engine is not None else None


def reload_config():
    """Numba's `config.reload_config()`: read the config file again (settings are read
    from the environment each time kiln needs one, so nothing else is cached)."""
    reload_config_file()


# name -> (read, why a write comes too late or None if it never does)
_SETTINGS = {
    "BOUNDSCHECK": (lambda: int(env_flag("BOUNDSCHECK")), lambda: None),
    "CACHE_DIR": (lambda: env_value("CACHE_DIR") or "", lambda: None),
    "THREADING_LAYER": (lambda: env_value("THREADING_LAYER") or "default",
                        lambda: "the thread layer has started" if _threads_started() else None),
    "ENABLE_CUDASIM": (lambda: int(env_flag("ENABLE_CUDASIM")),
                       lambda: "kiln.cuda is imported" if "kiln.cuda" in sys.modules else None),
    "NUMBA_NUM_THREADS": (lambda: _threads().MAX_THREADS,
                          lambda: "it is fixed when kiln starts (set KILN_NUM_THREADS in the "
                                  "environment; kiln.set_num_threads lowers it at run time)"),
    "DISABLE_JIT": (lambda: int(env_flag("DISABLE_JIT")), lambda: None),  # read at decoration
    "THREADING_LAYER_PRIORITY": (lambda: _layer_priority(),
                                 lambda: "the thread layer has started"
                                 if _threads_started() else None),
    "NUMBA_DEFAULT_NUM_THREADS": (lambda: len(os.sched_getaffinity(0))
                                  if hasattr(os, "sched_getaffinity") else os.cpu_count(),
                                  lambda: "it is the number of cores this process may use"),
    # the CPU machine code is made for (options.cpu_target), read when the CPU target is
    # set up at the first compile
    "CPU_NAME": (lambda: env_value("CPU_NAME"), _engine_started),
    "CPU_FEATURES": (lambda: env_value("CPU_FEATURES") if env_value("CPU_FEATURES") is not None
                     else "" if str(env_value("CPU_NAME")).lower() == "generic" else None,
                     _engine_started),
    "ENABLE_AVX": (lambda: int(avx_enabled()), _engine_started),
    "OPT": (lambda: sys.modules["kiln.runtime.engine"].get_engine().opt_level
            if _engine_started() else opt_level(), _engine_started),   # LLVM's level, 0-3
    # PerformanceWarning off (read at each compile and when the thread layer starts)
    "DISABLE_PERFORMANCE_WARNINGS": (lambda: int(env_flag("DISABLE_PERFORMANCE_WARNINGS")),
                                     lambda: None),
    # accepted, and changes nothing: Numba colours its error messages with it only where
    # colorama is installed; kiln's messages are plain text under every scheme
    "COLOR_SCHEME": (lambda: env_value("COLOR_SCHEME") or "no_color", lambda: None),
}
_ABSENT = {
    "DEBUG": "kiln has no debug mode; KILN_DUMP=typed,llvm,asm prints each stage",
    "CUDA_LOW_OCCUPANCY_WARNINGS": "kiln does not warn about occupancy",
}


# Facts about the machine, by Numba's names (read-only)
_FACTS = {
    "IS_WIN32": sys.platform.startswith("win32"),
    "IS_OSX": sys.platform.startswith("darwin"),
    "IS_32BITS": sys.maxsize < 2 ** 32,
    "MACHINE_BITS": 32 if sys.maxsize < 2 ** 32 else 64,
    "PYVERSION": sys.version_info[:2],
}

# Numba's layer names -> kiln's: kiln's own POSIX-thread layer is its workqueue
_LAYERS = {"omp": "omp", "workqueue": "posix", "posix": "posix", "tbb": None}


def _layer_priority():
    """THREADING_LAYER_PRIORITY, Numba's list of layers to try in order (its
    NUMBA_THREADING_LAYER_PRIORITY is space-separated). kiln's default tries OpenMP,
    then its own layer (what Numba calls workqueue)."""
    value = env_value("THREADING_LAYER_PRIORITY")
    return value.split() if value else ["omp", "workqueue"]


def _set_layer_priority(value):
    """Take Numba's priority list: the first layer in it that kiln has decides which one
    parallel code runs on (tbb, which kiln lacks, is passed over as Numba passes over a
    layer it cannot load), written as THREADING_LAYER unless that is set already."""
    names = value.split() if isinstance(value, str) else list(value)
    unknown = [n for n in names if n not in _LAYERS]
    if unknown or not names:
        raise ValueError(f"THREADING_LAYER_PRIORITY takes layer names from "
                         f"{sorted(_LAYERS)}, not {names!r}")
    kiln_layers = [_LAYERS[n] for n in names if _LAYERS[n]]
    if not kiln_layers:
        raise ValueError(f"none of {names!r} is a layer kiln has (omp, workqueue)")
    os.environ["KILN_THREADING_LAYER_PRIORITY"] = " ".join(names)
    if not env_value("THREADING_LAYER") or env_value("THREADING_LAYER") == "default":
        # kiln's default already tries omp first and falls back to its own layer
        if kiln_layers[0] == "posix":
            os.environ["KILN_THREADING_LAYER"] = "posix"


def _threads():
    from .runtime import threads
    return threads


class _Config(types.ModuleType):
    def __dir__(self):
        return sorted(set(super().__dir__()) | set(_SETTINGS) | set(_FACTS))

    def __getattr__(self, name):
        if name in _FACTS:
            return _FACTS[name]
        if name in _SETTINGS:
            return _SETTINGS[name][0]()
        if name in _ABSENT:
            raise AttributeError(f"kiln.config has no {name}: {_ABSENT[name]}")
        raise AttributeError(f"kiln.config has no setting {name!r}")

    def __setattr__(self, name, value):
        if name.startswith("__") and name.endswith("__"):
            return super().__setattr__(name, value)   # the import system's own (__spec__)
        if name in _FACTS:
            raise AttributeError(f"kiln.config.{name} is a fact about this machine")
        if name not in _SETTINGS:
            getattr(self, name)   # the AttributeError that says why
        too_late = _SETTINGS[name][1]()
        if too_late:
            if value == getattr(self, name):
                return   # its own value: nothing changes
            raise AttributeError(f"kiln.config.{name} cannot change now: {too_late}")
        if name == "THREADING_LAYER_PRIORITY":
            _set_layer_priority(value)
            return
        os.environ[f"KILN_{name}"] = str(int(value) if isinstance(value, bool) else value)


sys.modules[__name__].__class__ = _Config

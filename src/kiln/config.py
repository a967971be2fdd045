"""`kiln.config`: Numba's settings by Numba's names (`config.BOUNDSCHECK`,
`config.THREADING_LAYER`, `config.NUMBA_NUM_THREADS`, ...).

Each setting comes from the environment (KILN_<NAME>, else NUMBA_<NAME>) when kiln reads
it. Assigning one sets KILN_<NAME>, for the settings kiln reads later (at decoration, at the
first parallel region, at `import kiln.cuda`); assigning one that kiln has already read, or
that is fixed for the process, raises rather than doing nothing. A Numba setting kiln does
not have is an AttributeError that says so.
"""
from __future__ import annotations

import os
import sys
import types

from .options import env_flag, env_value


def _threads_started():
    threads = sys.modules.get("kiln.runtime.threads")
    return threads is not None and threads._runtime is not None


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
    "NUMBA_DEFAULT_NUM_THREADS": (lambda: len(os.sched_getaffinity(0))
                                  if hasattr(os, "sched_getaffinity") else os.cpu_count(),
                                  lambda: "it is the number of cores this process may use"),
}
_ABSENT = {
    "DISABLE_JIT": "kiln always compiles; call the function's .py_func to run it as Python",
    "DEBUG": "kiln has no debug mode; KILN_DUMP=typed,llvm,asm prints each stage",
    "OPT": "kiln always optimizes at LLVM's level 3",
    "CUDA_LOW_OCCUPANCY_WARNINGS": "kiln does not warn about occupancy",
}


def _threads():
    from .runtime import threads
    return threads


class _Config(types.ModuleType):
    def __getattr__(self, name):
        if name in _SETTINGS:
            return _SETTINGS[name][0]()
        if name in _ABSENT:
            raise AttributeError(f"kiln.config has no {name}: {_ABSENT[name]}")
        raise AttributeError(f"kiln.config has no setting {name!r}")

    def __setattr__(self, name, value):
        if name not in _SETTINGS:
            getattr(self, name)   # the AttributeError that says why
        too_late = _SETTINGS[name][1]()
        if too_late:
            raise AttributeError(f"kiln.config.{name} cannot change now: {too_late}")
        os.environ[f"KILN_{name}"] = str(int(value) if isinstance(value, bool) else value)


sys.modules[__name__].__class__ = _Config

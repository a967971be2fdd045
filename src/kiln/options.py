"""Compile options: a frozen dataclass, so it is hashable and part of every cache key."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

# Numba's fast-math flag names, mapped to LLVM's.
FASTMATH_FLAGS = frozenset({"nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})


def env_value(name: str):
    """KILN_<name>, else Numba's NUMBA_<name>, else the setting of a config file in the
    current directory (`config_file_settings`), else None."""
    for prefix in ("KILN_", "NUMBA_"):
        value = os.environ.get(prefix + name)
        if value is not None:
            return value
    value = config_file_settings().get(name)
    return None if value is None else str(value)


CONFIG_FILES = (".kiln_config.yaml", ".numba_config.yaml")
_file_settings = None


def config_file_settings() -> dict:
    """The settings of `.kiln_config.yaml` (else Numba's `.numba_config.yaml`) in the
    directory the process started in or was in at the last `kiln.config.reload_config()`:
    YAML `name: value` pairs, names without the KILN_/NUMBA_ prefix and in any case
    (`color_scheme: light_bg`). The environment wins over the file, as in Numba. Reading
    one needs PyYAML; without it kiln warns, as Numba does, and uses none of its settings."""
    global _file_settings
    if _file_settings is None:
        _file_settings = {}
        for fname in CONFIG_FILES:
            if os.path.isfile(fname):
                _file_settings = _read_config_file(fname)
                break
    return _file_settings


def reload_config_file():
    global _file_settings
    _file_settings = None


def _read_config_file(fname) -> dict:
    try:
        import yaml
    except ImportError:
        import warnings
        warnings.warn(f"kiln found the config file {fname} but cannot read it without "
                      "PyYAML (pip install pyyaml); its settings are not used")
        return {}
    with open(fname) as f:
        loaded = yaml.safe_load(f)
    return {str(k).upper(): v for k, v in (loaded or {}).items()}


# CPUs on which Numba leaves AVX off by default (LLVM's AVX code pessimizes on some, and
# virtual machines reporting `nocona` may claim AVX they lack): kiln does the same
AVX_OFF_CPUS = frozenset({"corei7-avx", "core-avx-i", "sandybridge", "ivybridge", "nocona"})


def cpu_target():
    """The CPU name and LLVM feature string kiln compiles for: the host's, unless
    KILN_CPU_NAME / KILN_CPU_FEATURES (or Numba's NUMBA_ names) say otherwise; with
    KILN_ENABLE_AVX=0 (the default on AVX_OFF_CPUS) every avx* feature is turned off."""
    import llvmlite.binding as llvm
    name = env_value("CPU_NAME") or llvm.get_host_cpu_name()
    features = env_value("CPU_FEATURES")
    if features is None:
        if str(env_value("CPU_NAME")).lower() == "generic":
            features = ""
        else:
            host = llvm.get_host_cpu_features()
            if not avx_enabled():
                for key in host:
                    if key.startswith("avx"):
                        host[key] = False
            features = host.flatten()
    return name, features


def avx_enabled() -> bool:
    """Numba's ENABLE_AVX: KILN_ENABLE_AVX if set, else on unless the CPU kiln compiles
    for is one of AVX_OFF_CPUS."""
    value = env_value("ENABLE_AVX")
    if value is not None:
        try:
            return bool(int(value))
        except ValueError:
            return env_flag("ENABLE_AVX")
    import llvmlite.binding as llvm
    return (env_value("CPU_NAME") or llvm.get_host_cpu_name()) not in AVX_OFF_CPUS


def opt_level() -> int:
    """Numba's OPT: LLVM's optimization level for compiled functions, 0 to 3 (`max` is
    3, at which kiln vectorizes loops already); anything else warns and is the default, 3.
    Read when the CPU target is set up (runtime/engine.py), and part of every cache key."""
    value = env_value("OPT")
    if value is None or str(value).strip().lower() == "max":
        return 3
    if str(value).strip() in ("0", "1", "2", "3"):
        return int(value)
    import warnings
    warnings.warn(f"OPT={value!r} is not an optimization level (0, 1, 2, 3 or max): kiln "
                  "optimizes at level 3", RuntimeWarning, stacklevel=2)
    return 3


def env_flag(name: str) -> bool:
    """KILN_<name>, or Numba's NUMBA_<name>, set to a true value."""
    value = env_value(name)
    return value is not None and value.strip().lower() not in ("", "0", "false", "no", "off")


def dumping(stage: str) -> bool:
    """Whether KILN_DUMP (or NUMBA_DUMP), a comma-separated list, names `stage`."""
    return stage in os.environ.get("KILN_DUMP", os.environ.get("NUMBA_DUMP", "")).split(",")


def dump(stage: str, text):
    """Print a stage's output when KILN_DUMP names it; `text` may be a callable (made only
    when wanted, like the assembly)."""
    if dumping(stage):
        print(f"---- kiln {stage} ----\n{text() if callable(text) else text}", file=sys.stderr)


@dataclass(frozen=True)
class CompileOptions:
    fastmath: frozenset = frozenset()
    boundscheck: bool = False
    nogil: bool = False
    error_model: str = "python"
    parallel: bool = False
    # jit(locals={name: type}): ((module, qualname) of the function, ((name, type), ...))
    local_types: tuple = ()

    def declared_locals(self, pyfunc) -> dict:
        """The types `locals=` declares for `pyfunc`'s variables (not its callees')."""
        if not self.local_types or self.local_types[0] != _qualified(pyfunc):
            return {}
        return dict(self.local_types[1])

    def with_locals(self, pyfunc, declared):
        """These options, declaring the types of `pyfunc`'s variables named in `declared`."""
        import dataclasses
        if not declared:
            return self
        return dataclasses.replace(self, local_types=(
            _qualified(pyfunc), tuple(sorted(declared.items()))))

    @classmethod
    def from_kwargs(cls, fastmath=False, boundscheck=None, nogil=False, error_model="python",
                    parallel=False, **ignored):
        if fastmath is True:
            flags = frozenset({"fast"})
        elif not fastmath:
            flags = frozenset()
        else:
            flags = frozenset(fastmath)
            unknown = flags - FASTMATH_FLAGS - {"fast"}
            if unknown:
                raise ValueError(f"unknown fastmath flags {sorted(unknown)}; "
                                 f"choose from {sorted(FASTMATH_FLAGS | {'fast'})}")
        if boundscheck is None:
            boundscheck = env_flag("BOUNDSCHECK")
        if error_model not in ("python", "numpy"):
            raise ValueError("error_model must be 'python' or 'numpy'")
        return cls(flags, bool(boundscheck), bool(nogil), error_model, bool(parallel))


def _qualified(pyfunc):
    return (getattr(pyfunc, "__module__", None), getattr(pyfunc, "__qualname__", None))

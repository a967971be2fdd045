"""Compile options: a frozen dataclass, so it is hashable and part of every cache key."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

# Numba's fast-math flag names, mapped to LLVM's.
FASTMATH_FLAGS = frozenset({"nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"})


def env_value(name: str):
    """KILN_<name>, else Numba's NUMBA_<name>, else None."""
    for prefix in ("KILN_", "NUMBA_"):
        value = os.environ.get(prefix + name)
        if value is not None:
            return value
    return None


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

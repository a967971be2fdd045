"""The on-disk cache of compiled machine code (`@njit(cache=True)`).

An entry is the object code of one specialization, keyed by a hash of its unoptimized LLVM
IR (which holds everything the machine code depends on: the function and every callee
compiled into it, frozen constants, object layouts) together with the target CPU, LLVM and
kiln versions. A hit skips LLVM's optimizer and code generator entirely.

Entries are written to a temporary file and renamed into place, so concurrent writers and
readers never see half a file; each carries a checksum, so a corrupt or truncated file is a
miss, never a crash. A cache directory that cannot be written is skipped (compiling in this
process), then the user's cache directory is tried."""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

MAGIC = b"KILNOBJ1"


def cache_key(llvm_ir: str, fingerprint: str) -> str:
    return hashlib.sha256(f"{fingerprint}\n{llvm_ir}".encode()).hexdigest()


def _candidate_dirs(py_func):
    override = os.environ.get("KILN_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    source = Path(py_func.__code__.co_filename).resolve()
    folder = hashlib.sha256(str(source.parent).encode()).hexdigest()[:16]
    if override:
        yield Path(override) / folder
        return
    yield source.parent / "__pycache__" / "kiln"
    yield Path.home() / ".cache" / "kiln" / folder


class ObjectCache:
    """Cache entries named `<stem>-<key>.kilnobj` in the first usable of `dirs`."""

    def __init__(self, stem: str, dirs):
        self._stem = stem
        self._dirs = list(dirs)

    def _name(self, key):
        return f"{self._stem}-{key[:24]}.kilnobj"

    def load(self, key: str):
        """The cached object code, or None (absent, unreadable or corrupt)."""
        for d in self._dirs:
            try:
                data = (d / self._name(key)).read_bytes()
            except OSError:
                continue
            if data[:8] == MAGIC and hashlib.sha256(data[40:]).digest() == data[8:40]:
                return data[40:]
        return None

    def save(self, key: str, obj: bytes) -> bool:
        """Store atomically in the first writable directory; False if none is."""
        payload = MAGIC + hashlib.sha256(obj).digest() + obj
        for d in self._dirs:
            try:
                d.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
                try:
                    with os.fdopen(fd, "wb") as f:
                        f.write(payload)
                    os.replace(tmp, d / self._name(key))
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
                return True
            except OSError:
                continue
        return False


def function_cache(py_func, kind="") -> ObjectCache:
    """The cache of one Python function: beside its source file, in __pycache__/kiln; a
    `kind` ("ptx") names entries of another target apart."""
    qualname = py_func.__qualname__.replace("<", "").replace(">", "")
    stem = f"{Path(py_func.__code__.co_filename).stem}.{qualname}" + (f".{kind}" if kind else "")
    return ObjectCache(stem, _candidate_dirs(py_func))


def internal_cache(stem: str) -> ObjectCache:
    """The cache of kiln's own code (the dispatch trampoline), shared by every program."""
    override = os.environ.get("KILN_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    base = Path(override) if override else Path.home() / ".cache" / "kiln"
    return ObjectCache(stem, [base / "internal"])

"""The on-disk cache of compiled machine code (`@njit(cache=True)`).

An entry is the object code of one specialization. Two keys find it (cpu/precompiled.py
says how): a key of the function's source, frozen values and argument types, which a
new process computes without the compiler, so a hit compiles nothing; and, when that key
cannot be made, the hash of the unoptimized LLVM IR (which holds everything the machine
code depends on), which skips only LLVM's optimizer. Both hold the target CPU, LLVM and
kiln versions.

Entries are written to a temporary file and renamed into place, so concurrent writers and
readers never see half a file; each carries a checksum, so a corrupt or truncated file is a
miss, never a crash. A cache directory that cannot be written is skipped (compiling in this
process), then the user's cache directory is tried."""
from __future__ import annotations

import functools
import marshal
import os
import time

try:   # CPython's own SHA-256 (the same digests): importing hashlib loads OpenSSL, which
    from _sha256 import sha256   # was the slowest import of a cached call
except ImportError:
    try:
        from _sha2 import sha256   # Python 3.12 and later
    except ImportError:
        from hashlib import sha256

MAGIC = b"KILNOBJ1"
SUFFIX = ".kilnobj"


def cache_key(llvm_ir: str, fingerprint: str) -> str:
    return sha256(f"{fingerprint}\n{llvm_ir}".encode()).hexdigest()


@functools.cache
def kiln_stamp() -> str:
    """The state of kiln's own source files: kiln's version alone would not tell an
    edited or reinstalled kiln apart, and its code is in every entry."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return source_stamp(root, internal_cache("stamp"))


def source_stamp(root: str, store: ObjectCache) -> str:
    """The digest of every .py file under `root` (bytecode folders left out) with its
    size, modification and change times (the change time is set by the system, so a
    file rewritten with its old size and modification time still changes it). Every
    cached hit needs it: rather than list every folder, it is remembered (a file edited
    changes its own state; a file added, removed or renamed, its folder's)."""
    def compute():
        folders, files = _listing(root)
        digest = sha256(repr([(path[len(root):], state) for path, state in
                              zip(files, _states(files))]).encode()).hexdigest()
        return digest, folders + files
    return remembered(store, sha256(f"stamp {root}".encode()).hexdigest(), compute)


def _listing(root):
    """The folders under `root` (itself first) and the .py files in them, sorted."""
    folders, files, todo = [], [], [root]
    while todo:
        folder = todo.pop()
        folders.append(folder)
        with os.scandir(folder) as found:
            for entry in found:
                if entry.name.endswith(".py"):
                    files.append(entry.path)
                elif entry.name != "__pycache__" and entry.is_dir():
                    todo.append(entry.path)
    return folders, sorted(files)


SETTLED_NS = 2_000_000_000   # a path changed this recently may still change unseen


def remembered(store: ObjectCache, key: str, compute):
    """A value that depends only on some files and folders, remembered across processes:
    `compute()` gives it (of marshal's types) and the paths it was made from, and `store`
    keeps both under `key` with each path's state (size, modification and change times;
    a folder's change with its entries', a file's with its content). While every path
    still has its state, the kept value holds; otherwise it is computed again.

    A path changed within SETTLED_NS of the computation may have changed while it was
    read, or change again within the same tick of the file system's clock, unseen by its
    state: the value is then not kept."""
    kept = store.load(key)
    if kept is not None:
        try:
            paths, states, value = marshal.loads(kept)
            if _states(paths) == states:
                return value
        except (ValueError, EOFError, TypeError):   # not a manifest of this format
            pass
    started = time.time_ns()
    value, paths = compute()
    states = _states(paths)
    if all(state is None or started - state[2] > SETTLED_NS for state in states):
        store.save(key, marshal.dumps((paths, states, value)))
    return value


def _states(paths):
    """Each path's (size, modification time, change time), None where it is absent."""
    try:   # (the common case, in one comprehension: a hit checks a few hundred paths)
        return [(s.st_size, s.st_mtime_ns, s.st_ctime_ns) for s in map(os.stat, paths)]
    except OSError:
        return [_state(path) for path in paths]


def _state(path):
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def user_cache_root() -> str:
    """KILN_CACHE_DIR (or NUMBA_CACHE_DIR), else ~/.cache/kiln."""
    override = os.environ.get("KILN_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    return override or os.path.join(os.path.expanduser("~"), ".cache", "kiln")


def _candidate_dirs(py_func):
    override = os.environ.get("KILN_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    source_dir = os.path.dirname(os.path.realpath(py_func.__code__.co_filename))
    folder = sha256(source_dir.encode()).hexdigest()[:16]
    if override:
        yield os.path.join(override, folder)
        return
    yield os.path.join(source_dir, "__pycache__", "kiln")
    yield os.path.join(user_cache_root(), folder)


class ObjectCache:
    """Cache entries named `<stem>-<key>.kilnobj` in the first usable of `dirs`."""

    def __init__(self, stem: str, dirs):
        self._stem = stem
        self._dirs = list(dirs)

    @property
    def directory(self):
        """The first directory entries are looked up in."""
        return self._dirs[0] if self._dirs else None

    def _name(self, key):
        return self.file_name(key, SUFFIX)

    def load(self, key: str):
        """The cached object code, or None (absent, unreadable or corrupt)."""
        for d in self._dirs:
            data = read_entry(os.path.join(d, self._name(key)))
            if data is not None:
                return data
        return None

    def save(self, key: str, obj: bytes) -> bool:
        """Store atomically in the first writable directory; False if none is."""
        payload = MAGIC + sha256(obj).digest() + obj
        return self.save_file(self._name(key), payload) is not None

    def file_name(self, key: str, suffix: str) -> str:
        """The name of a file that goes with the entry `key` (a shared library)."""
        return f"{self._stem}-{key[:24]}{suffix}"

    def save_file(self, name: str, data: bytes):
        """Write `data` as `name` atomically in the first writable directory: its path, or
        None if none is writable."""
        for d in self._dirs:
            tmp = os.path.join(d, f".tmp-{os.getpid()}-{os.urandom(6).hex()}")
            try:
                os.makedirs(d, exist_ok=True)
                try:
                    with open(tmp, "wb") as f:
                        f.write(data)
                    os.replace(tmp, os.path.join(d, name))
                finally:
                    if os.path.exists(tmp):
                        os.unlink(tmp)
                return os.path.join(d, name)
            except OSError:
                continue
        return None

    def find_file(self, name: str):
        """The path of the file `name` in the first directory that has it, or None."""
        for d in self._dirs:
            path = os.path.join(d, name)
            if os.path.exists(path):
                return path
        return None


def read_entry(path) -> bytes | None:
    """An entry file's contents, or None when it is absent, unreadable or corrupt."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if data[:8] == MAGIC and sha256(data[40:]).digest() == data[8:40]:
        return data[40:]
    return None


def function_cache(py_func, kind="") -> ObjectCache:
    """The cache of one Python function: beside its source file, in __pycache__/kiln; a
    `kind` ("ptx") names entries of another target apart."""
    qualname = py_func.__qualname__.replace("<", "").replace(">", "")
    file_stem = os.path.splitext(os.path.basename(py_func.__code__.co_filename))[0]
    stem = f"{file_stem}.{qualname}" + (f".{kind}" if kind else "")
    return ObjectCache(stem, _candidate_dirs(py_func))


def internal_cache(stem: str) -> ObjectCache:
    """The cache of kiln's own code (the dispatch trampoline), shared by every program."""
    return ObjectCache(stem, [os.path.join(user_cache_root(), "internal")])

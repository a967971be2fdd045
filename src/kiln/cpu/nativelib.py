"""Cached code loaded without LLVM: a cache entry's object code linked into a shared
library at the miss (cpu/nativebuild.py), opened here with dlopen in a new process. The
JIT binds its symbols by address; here the dynamic linker resolves what the process
exports (CPython's C API, libc) and the runtime's shared libraries, loaded with their
symbols global: "base" (NRT, the stack guard, the dispatch trampoline) and "threads-omp"
or "threads-posix" (the thread layer). What only Python knows (the objects the code names,
the exception classes, NumPy's C API, BLAS routines) the library reads from cells it
defines, filled here before its code runs.

Only a process whose LLVM engine has not started loads code this way: the runtime a
process uses is then the libraries' (and the JIT binds to it if it starts later), never
two copies. Every library's SHA-256 is in the (checksummed) entry, so a stale, corrupt or
missing one is a miss of this path, never a crash: the entry is then loaded by the JIT.
Without a linker (and on other platforms than x86-64 Linux) there are no libraries."""
from __future__ import annotations

import builtins
import ctypes
import functools
import os
import sys
import threading

from ..runtime.cache import internal_cache, kiln_stamp, sha256

SUFFIX = ".so"
FINGERPRINT_SUFFIX = ".fingerprint"
SUPPORTED = sys.platform.startswith("linux") and os.uname().machine == "x86_64"
CELL_PREFIX = "kiln_cell_"   # the cell of a symbol bound by address: kiln_cell_<symbol>
_open = {}      # path -> Library: each library is opened once per process
_lock = threading.RLock()


class Library:
    """An opened shared library."""

    def __init__(self, path, global_symbols):
        mode = ctypes.RTLD_GLOBAL if global_symbols else ctypes.RTLD_LOCAL
        self._dll = ctypes.CDLL(path, mode=mode)
        self.path = path

    def address(self, name: str) -> int:
        """The address of the symbol `name` (a function or a variable)."""
        return ctypes.addressof(ctypes.c_char.in_dll(self._dll, name))

    def fill(self, name: str, value: int):
        """Store `value` in the pointer-sized cell `name`."""
        ctypes.c_void_p.in_dll(self._dll, name).value = value


# ---- the host's fingerprint, without LLVM -------------------------------------------------

_HOST_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")
# the settings that override LLVM's view of the CPU, looked up by name (a scan of
# os.environ decodes every variable)
_HOST_SETTINGS = sorted(f"{prefix}_{name}" for prefix in ("KILN", "NUMBA")
                        for name in ("CPU_NAME", "CPU_FEATURES", "ENABLE_AVX"))


def _host_token():
    """What the JIT's fingerprint depends on: the CPU (/proc/cpuinfo), the settings that
    override LLVM's view of it, the Python version, llvmlite's files, kiln's version and
    sources. None where unknown."""
    try:
        first = _first_processor()
    except OSError:
        return None
    cpu = sorted(line for line in first.splitlines()
                 if line.partition(":")[0].strip() in _HOST_FIELDS)
    settings = [(name, os.environ[name]) for name in _HOST_SETTINGS if name in os.environ]
    from .. import version
    llvmlite = _llvmlite_files()
    if llvmlite is None:
        return None
    return sha256(repr((cpu, settings, sys.version, os.uname().machine, llvmlite,
                                version.__version__, kiln_stamp())).encode()).hexdigest()


def _first_processor() -> str:
    """/proc/cpuinfo's first processor, read alone: the kernel writes the whole file (a
    many-core machine's is hundreds of kilobytes) only for a reader that asks for it."""
    text = ""
    with open("/proc/cpuinfo") as f:
        while "\n\n" not in text:
            chunk = f.read(4096)
            if not chunk:
                break
            text += chunk
    return text.split("\n\n")[0]


def _llvmlite_files():
    """llvmlite's version file and LLVM library (name, size, modification time), found
    on sys.path without importing llvmlite (PathFinder: importing importlib.util cost a
    millisecond of every hit); None where they are not found."""
    from importlib.machinery import PathFinder
    spec = PathFinder.find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = spec.submodule_search_locations[0]
    found = []
    try:
        libraries = [name for name in sorted(os.listdir(os.path.join(folder, "binding")))
                     if name.startswith("libllvmlite")]
        for path in [os.path.join(folder, "_version.py")] + \
                [os.path.join(folder, "binding", name) for name in libraries]:
            stat = os.stat(path)
            found.append((os.path.basename(path), stat.st_size, stat.st_mtime_ns))
    except OSError:
        return None
    return found if len(found) > 1 else None


def fingerprint() -> str:
    """The JIT's fingerprint (engine.py: the target, CPU and versions) and its optimization
    level (OPT): the engine's own once it has started, before that from a file that a
    process which started LLVM wrote for this host (LLVM is started only without one)."""
    if engine_started():
        engine = sys.modules["kiln.runtime.engine"].get_engine()
        return f"{engine.fingerprint} O{engine.opt_level}"
    from ..options import opt_level
    return f"{_host_fingerprint()} O{opt_level()}"


@functools.cache
def _host_fingerprint() -> str:
    token = _host_token()
    store = internal_cache("host")
    name = store.file_name(token, FINGERPRINT_SUFFIX) if token else None
    path = store.find_file(name) if name else None
    if path is not None:
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError:
            pass
    from ..runtime.engine import get_engine
    found = get_engine().fingerprint
    if name:
        store.save_file(name, found.encode())
    return found


def runtime_key() -> str:
    """The key of the runtime's libraries: this kiln, for this host."""
    return sha256(f"{fingerprint()} {kiln_stamp()} {sys.version}".encode()).hexdigest()


def runtime_name(part: str) -> str:
    return internal_cache(part).file_name(runtime_key(), SUFFIX)


def engine_started() -> bool:
    engine = sys.modules.get("kiln.runtime.engine")
    return engine is not None and engine._engine is not None


# ---- loading ---------------------------------------------------------------------------

def _checked(path, digest):
    """`path` if its content has the SHA-256 `digest`, else None."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    return path if sha256(data).hexdigest() == digest else None


def _library(path, digest, global_symbols):
    with _lock:
        if path in _open:
            return _open[path]
        if path is None or _checked(path, digest) is None:
            return None
        try:
            library = Library(path, global_symbols)
        except OSError:   # not loadable here (an undefined symbol, a foreign file)
            return None
        _open[path] = library
        return library


def _runtime_part(part, digests):
    """The runtime library `part`, opened: None when the entry was not linked with this
    process's copy of it."""
    if part not in digests:
        return None
    return _library(internal_cache(part).find_file(runtime_name(part)), digests[part], True)


def load(cache, info, needs, objects):
    """Open the library `info` (an entry's "library" header, cpu/precompiled.py) of code
    that calls the runtime parts `needs` and names `objects` ({symbol: object}); bind
    what it needs and return it, or None when it cannot be used here."""
    if not SUPPORTED or engine_started():
        return None
    from ..runtime import loaded
    digests = info["runtime"]
    with _lock:
        base = _runtime_part("base", digests)
        layer = _runtime_part(f"threads-{loaded.chosen_layer()}", digests) \
            if "threads" in needs else None
        if base is None or ("threads" in needs and layer is None):
            return None
        library = _library(cache.find_file(info["file"]), info["digest"], False)
        if library is None:
            return None
        from .callable import trampoline_address
        trampoline_address(base)
        if "nrt" in needs:
            loaded.NRT.load(base)
        if "stack" in needs:
            loaded.STACK.load(base)
        if layer is not None:
            loaded.THREADS.load(layer)
        for cell, source in info["cells"]:
            library.fill(cell, _cell_value(source, objects))
        _keep.extend(objects.values())
        return library


_keep = []   # the objects the opened libraries' cells point at


def _cell_value(source, objects):
    """The value of a cell: `source` is how nativebuild.py described it."""
    kind, _, name = source.partition(":")
    if kind == "object":
        return id(objects[name])
    if kind == "exception":
        return id(getattr(builtins, name))
    if kind == "numpy":
        from ..runtime.loaded import numpy_api
        return numpy_api()[name]
    if kind == "blas":
        from ..runtime.blas import routine_address
        return routine_address(name)
    if kind == "process":   # a helper of a library the process has loaded
        return ctypes.cast(getattr(ctypes.CDLL(name.partition("@")[2]),
                                   name.partition("@")[0]), ctypes.c_void_p).value
    raise ValueError(f"kiln: unknown cell {source!r} in a cached library")

"""Cache entries that a new process loads without the compiler, found by the key of
cpu/sourcekey.py. An entry holds one specialization's object code and what loading it
takes: the runtime parts its code calls (library/linking.py), the importable names of the
Python objects its `kiln.obj.*` symbols stand for, the symbols of its entry point and
native function, its return type, and the shared library its code was linked into, if
any (cpu/nativebuild.py). A hit binds those and loads the code: no library, no typing, no
IR; in a process that has not started LLVM, from the shared library (cpu/nativelib.py),
so LLVM is not loaded at all."""
from __future__ import annotations

import importlib
import marshal
import pickle
import struct
import threading

MAGIC = b"KILNSRC1"
OBJECT_PREFIX = "kiln.obj."
_loaded = {}   # key -> Loaded: an entry is loaded once per process
_lock = threading.Lock()


class Loaded:
    """A specialization loaded from an entry (a plain class: making a dataclass costs a
    cached hit more than the rest of this module)."""
    __slots__ = ("entry_address", "native_address", "return_type")

    def __init__(self, entry_address: int, native_address: int, return_type):
        self.entry_address, self.native_address = entry_address, native_address
        self.return_type = return_type


def save(cache, key: str, result, py_func) -> bool:
    """Store `result` (a CompileResult) under `key`; False when its code embeds a process
    address or the store is not writable."""
    compiled = result.compiled
    if not result.cacheable or compiled.object_code is None:
        return False
    from .nativebuild import build
    header = marshal.dumps({
        "function": py_func.__qualname__, "file": py_func.__code__.co_filename,
        "entry": result.entry_symbol, "native": result.native_symbol,
        "needs": list(compiled.runtime_needs), "objects": list(compiled.object_symbols),
        "library": build(cache, key, compiled),
    })
    return_type = pickle.dumps(result.typed.return_type)
    return cache.save(key, MAGIC + struct.pack("<II", len(header), len(return_type)) +
                      header + return_type + compiled.object_code)


def describe(data: bytes):
    """An entry's header (a dict), or None when `data` is not such an entry."""
    if not data.startswith(MAGIC):
        return None
    size, _ = struct.unpack_from("<II", data, len(MAGIC))
    start = len(MAGIC) + 8
    try:
        return marshal.loads(data[start:start + size])
    except (ValueError, EOFError, TypeError):   # written by another Python's marshal
        return None


def load(cache, key: str):
    """The specialization stored under `key`, loaded; None on a miss (absent, corrupt, or
    naming an object this process cannot import)."""
    with _lock:
        if key in _loaded:
            return _loaded[key]
        data = cache.load(key)
        header = describe(data) if data is not None else None
        if header is None:
            return None
        size, type_size = struct.unpack_from("<II", data, len(MAGIC))
        start = len(MAGIC) + 8 + size
        try:
            return_type = pickle.loads(data[start:start + type_size])
            objects = {symbol: _named_object(symbol[len(OBJECT_PREFIX):])
                       for symbol in header["objects"]}
        except Exception:   # a class renamed or gone since: compile instead
            return None
        library = header.get("library")
        if library is not None:
            from .nativelib import load as load_library
            library = load_library(cache, library, header["needs"], objects)
        if library is not None:   # no LLVM in this process
            address = library.address
        else:
            from ..runtime.engine import get_engine
            from ..library.linking import bind_runtime
            engine = get_engine()
            bind_runtime(header["needs"])
            engine.load_object(data[start + type_size:], objects)
            address = engine.function_address
        loaded = Loaded(address(header["entry"]), address(header["native"]), return_type)
        _loaded[key] = loaded
        return loaded


def _named_object(name: str):
    """The object `codegen.context.importable_name` named "module:qualname"."""
    module, _, qualname = name.partition(":")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found

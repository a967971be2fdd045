"""Linking a cache entry's object code into a shared library at the miss, for a new
process to open without LLVM (cpu/nativelib.py says how it is loaded). The entry's own
object code is linked, unchanged, with a small glue object: a cell for each symbol the JIT
binds by address (the Python objects, exception classes, NumPy's C API functions, BLAS
routines) and, for a function, a stub that jumps through its cell. The runtime it calls
(NRT, the stack guard, the trampoline; the thread layer) is built once per kiln and host
into libraries of its own in the internal cache. The linker is found as kiln.aot finds it
(`$CC`, `cc`, `gcc`, `clang` or `ld`); without one, entries have no library."""
from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from functools import cache

from . import nativelib
from ..runtime.cache import internal_cache
from ..runtime.loaded import ARRAY_NEW, ARRAY_SET_BASE, chosen_layer
from ..runtime.symbols import BUILTIN_CLASS_SYMBOL, HALF_HELPERS


class LinkError(Exception):
    """The linker failed."""


def find_linker():
    """The command that links a shared object here (the C compiler driver, or `ld`)."""
    for candidate in (os.environ.get("CC"), "cc", "gcc", "clang", "ld"):
        if candidate and shutil.which(candidate.split()[0]):
            return candidate.split()
    return None


def link(linker, objects, out_path, symbolic=False):
    """Link the object files `objects` into the shared object `out_path` (-lm; with
    `symbolic`, the library's references to its own symbols bound to them)."""
    plain_ld = os.path.basename(linker[0]) == "ld"
    command = linker + ["-shared", "-o", out_path, *objects]
    if not plain_ld:
        command.append("-lm")
    if sys.platform == "darwin":
        command += ["-undefined", "dynamic_lookup"]
    elif symbolic:   # (the JIT's object code is not position-independent: text relocations)
        command += ["-Bsymbolic", "-z", "notext"] if plain_ld else \
            ["-Wl,-Bsymbolic", "-Wl,-z,notext"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise LinkError(f"linking failed ({' '.join(command)}):\n{done.stderr}")


def elf_symbols(obj: bytes):
    """(defined, undefined): the global symbols an ELF64 little-endian object file or
    shared library defines and those it refers to."""
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize)
                for i in range(shnum)]
    defined, undefined = set(), set()
    for _, kind, _, _, offset, size, link_index, _, _, entsize in sections:
        if kind not in (2, 11):   # SHT_SYMTAB, SHT_DYNSYM
            continue
        strings = sections[link_index][4]
        for at in range(offset + entsize, offset + size, entsize):   # (0: the null symbol)
            name_at, info, _, shndx = struct.unpack_from("<IBBH", obj, at)
            if info >> 4 == 0:   # STB_LOCAL
                continue
            end = obj.index(b"\0", strings + name_at)
            name = obj[strings + name_at:end].decode()
            (undefined if shndx == 0 else defined).add(name)
    return defined, undefined


@cache
def _process():
    """The process's global symbols (CPython's C API, libc, libm)."""
    import ctypes
    return ctypes.CDLL(None)


# ---- the runtime's libraries ---------------------------------------------------------------

def _runtime_ir(part):
    from ..runtime import nrt, stack, threads
    from .callable import _trampoline_ir
    if part == "base":
        return [nrt._runtime_ir(), _trampoline_ir()] + \
            ([stack._guard_ir()] if stack.supported() else [])
    return [threads.layer_ir(part.partition("-")[2])]


@cache
def _pic_machine():
    """LLVM's target machine for the JIT's CPU, emitting position-independent code."""
    import llvmlite.binding as llvm
    from ..runtime.engine import get_engine
    engine = get_engine()
    llvm.initialize_native_asmparser()   # for the glue's stubs (module-level assembly)
    return llvm.Target.from_triple(engine.triple).create_target_machine(
        cpu=engine.cpu_name, features=engine.cpu_features, opt=3, reloc="pic",
        codemodel="default")


def _emit(texts, level):
    """One object file (position-independent) of the IR modules `texts`."""
    from ..runtime.engine import get_engine
    modules = [get_engine().optimized_module(text, level) for text in texts]
    for other in modules[1:]:
        modules[0].link_in(other)
    return _pic_machine().emit_object(modules[0])


def _linked(linker, objects, symbolic=False) -> bytes:
    with tempfile.TemporaryDirectory(prefix="kiln-so-") as work:
        paths = []
        for i, obj in enumerate(objects):
            paths.append(os.path.join(work, f"{i}.o"))
            with open(paths[-1], "wb") as f:
                f.write(obj)
        out = os.path.join(work, "out.so")
        link(linker, paths, out, symbolic)
        with open(out, "rb") as f:
            return f.read()


def _runtime_part(linker, part):
    """(digest, symbols it defines) of the runtime library `part`, built if absent (None
    when it cannot be stored)."""
    store, name = internal_cache(part), nativelib.runtime_name(part)
    path, data = store.find_file(name), None
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            data = None
    if data is None:
        data = _linked(linker, [_emit(_runtime_ir(part), 2)])
        if store.save_file(name, data) is None:
            return None
    return hashlib.sha256(data).hexdigest(), elf_symbols(data)[0]


# ---- an entry's library ----------------------------------------------------------------------

def _cell_source(symbol):
    """How the loader fills the cell of `symbol`, or None when the JIT does not bind it
    by address."""
    from ..runtime.blas import SYMBOL_PREFIX
    if symbol.startswith("kiln.obj."):
        return f"object:{symbol}"
    exception = BUILTIN_CLASS_SYMBOL.format("")
    if symbol.startswith(exception):
        return f"exception:{symbol[len(exception):]}"
    if symbol in (ARRAY_NEW, ARRAY_SET_BASE, "PyArray_Type"):
        return f"numpy:{symbol}"
    if symbol.startswith(SYMBOL_PREFIX):
        return f"blas:{symbol}"
    if symbol in HALF_HELPERS:
        return f"process:{symbol}@libgcc_s.so.1"
    return None


def _stub(symbol, set_first_argument=None):
    """x86-64 assembly of a function `symbol` that jumps through its cell (after loading
    the value of the cell `set_first_argument` into the first argument)."""
    lines = [".text", f".globl {symbol}", f".type {symbol},@function", f"{symbol}:"]
    if set_first_argument:
        lines += [f"movq {set_first_argument}@GOTPCREL(%rip), %rdi", "movq (%rdi), %rdi"]
    lines += [f"movq {nativelib.CELL_PREFIX}{symbol}@GOTPCREL(%rip), %r11", "jmpq *(%r11)"]
    return lines


def _glue(undefined, triple):
    """(IR of the glue object, its cells as (symbol, source)) for the object code's
    `undefined` symbols, or None when PyArray_Type and PyArray_New do not come together
    (the stub of PyArray_New passes NumPy's ndarray type instead of the dummy)."""
    cells, asm, defined = [], [], []
    for symbol in sorted(undefined):
        source = _cell_source(symbol)
        if source is None:
            continue
        if symbol.startswith(("kiln.obj.", BUILTIN_CLASS_SYMBOL.format(""))):
            cells.append((symbol, source))    # the code reads the object from the cell
        elif symbol == "PyArray_Type":   # only ever the subtype argument of PyArray_New
            if ARRAY_NEW not in undefined:
                return None
            defined.append(f'@"{symbol}" = global i8 0')
            cells.append((nativelib.CELL_PREFIX + symbol, source))
        else:
            cells.append((nativelib.CELL_PREFIX + symbol, source))
            first = nativelib.CELL_PREFIX + "PyArray_Type" \
                if symbol == ARRAY_NEW else None
            asm += _stub(symbol, first)
    if ARRAY_NEW in undefined and "PyArray_Type" not in undefined:
        return None
    lines = [f'target triple = "{triple}"']
    lines += [f'module asm "{line}"' for line in asm]
    lines += [f'@"{cell}" = global ptr null, align 8' for cell, _ in cells] + defined
    return "\n".join(lines) + "\n", cells


def build(cache, key, compiled):
    """Link `compiled`'s object code (a CompiledModule) into a library beside the entry
    `key` of `cache`: the entry's "library" header (file, digest, the runtime libraries'
    digests, cells), or None when it cannot have one here."""
    needs = set(compiled.runtime_needs)
    linker = find_linker()
    if not nativelib.SUPPORTED or linker is None or "random" in needs \
            or compiled.object_code is None:
        return None
    parts = ("base",) + ((f"threads-{chosen_layer()}",) if "threads" in needs else ())
    try:
        runtime = {part: _runtime_part(linker, part) for part in parts}
        if None in runtime.values():
            return None
        provided = set().union(*(symbols for _, symbols in runtime.values()))
        _, undefined = elf_symbols(compiled.object_code)
        from ..runtime.engine import get_engine
        glue = _glue(undefined, get_engine().triple)
        if glue is None:
            return None
        text, cells = glue
        process = _process()
        for symbol in undefined:
            if _cell_source(symbol) is None and symbol not in provided and \
                    not hasattr(process, symbol):
                return None   # bound by something this module does not know
        data = _linked(linker, [compiled.object_code, _emit([text], 0)], symbolic=True)
    except Exception:
        # a LinkError, an OSError or LLVM's own: the JIT loads the entry then, as where no
        # linker exists (tests/cpu/test_cache_library.py checks that libraries are made)
        return None
    digest = hashlib.sha256(data).hexdigest()
    name = cache.file_name(key, f".{digest[:16]}{nativelib.SUFFIX}")
    if cache.save_file(name, data) is None:
        return None
    return {"file": name, "digest": digest, "cells": cells,
            "runtime": {part: digest for part, (digest, _) in runtime.items()}}


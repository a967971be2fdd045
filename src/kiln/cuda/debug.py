"""`cuda.jit(debug=True)`: an exception raised in a compiled kernel reaches the host, as in
Numba (without it, the exception ends the thread silently).

Device code has no Python objects: a raise stores a constant descriptor whose class cell
holds a code, the 1-based index of (class, message) in the module's table
(`ModuleState.device_exception_code`). The entry of a debug kernel records the first
thread that fails: it swaps its code into `kiln_exception` (`{i64 code, i32 tid[3], i32
ctaid[3]}` in global memory, zero when the module loads) and, when it was the first, writes
where it ran. The table travels in the PTX as a comment of file-scope inline assembly, so
PTX from the disk cache keeps it. After launching a debug kernel the driver back-end waits
for it, reads the record, zeroes it and raises the exception, its message naming the kernel,
block and thread as the simulator's does: `message [in kernel 'k' at blockIdx=(x, y, z),
threadIdx=(x, y, z)]`."""
from __future__ import annotations

import base64
import builtins
import importlib
import json
import re
import struct

from llvmlite import ir

from ..codegen import datamodel as dm

RECORD = "kiln_exception"
RECORD_TYPE = ir.LiteralStructType([dm.i64, ir.ArrayType(dm.i32, 6)])
RECORD_FORMAT = "<q6i"   # its bytes, as the host reads them
_TABLE = "// kiln.exceptions "
_classes = {}   # (module, qualname) -> the class, for classes compiled in this process


def table_asm(state) -> str:
    """The module-level inline assembly (LLVM IR text) carrying the module's table."""
    for cls, _ in state.device_exceptions:
        _classes[(cls.__module__, cls.__qualname__)] = cls
    table = [[cls.__module__, cls.__qualname__, message]
             for cls, message in state.device_exceptions]
    encoded = base64.b64encode(json.dumps(table).encode()).decode()
    return f'module asm "{_TABLE}{encoded}"\n'


def table_of(ptx) -> list:
    """[(class, message)] from the PTX of a debug kernel, in code order."""
    found = re.search(re.escape(_TABLE) + r"(\S+)", ptx)
    table = json.loads(base64.b64decode(found.group(1))) if found else []
    return [(_class(module, qualname), message) for module, qualname, message in table]


def _class(module, qualname):
    cls = _classes.get((module, qualname))
    if cls is None:
        try:
            cls = builtins if module == "builtins" else importlib.import_module(module)
            for part in qualname.split("."):
                cls = getattr(cls, part)
        except (ImportError, AttributeError):
            return RuntimeError   # (PTX cached by a process that had the class)
    return cls


def emit_record(builder, excinfo):
    """In a debug kernel's entry, after its body returned an error: record the first."""
    from .nvvm import _sreg
    module = builder.module
    record = module.globals.get(RECORD)
    if record is None:
        record = ir.GlobalVariable(module, RECORD_TYPE, name=RECORD, addrspace=1)
        record.initializer = ir.Constant(RECORD_TYPE, None)
        record.align = 8
    zero = ir.Constant(dm.i32, 0)
    descriptor = builder.load(excinfo, typ=dm.ptr)
    code = builder.ptrtoint(builder.load(descriptor, typ=dm.ptr), dm.i64)   # class cell
    swapped = builder.cmpxchg(builder.gep(record, [zero, zero], inbounds=True),
                              ir.Constant(dm.i64, 0), code, "monotonic", "monotonic")
    with builder.if_then(builder.extract_value(swapped, 1)):
        for i, (register, axis) in enumerate((r, a) for r in ("tid", "ctaid") for a in "xyz"):
            builder.store(_sreg(builder, register, axis), builder.gep(
                record, [zero, ir.Constant(dm.i32, 1), ir.Constant(dm.i32, i)], inbounds=True))


def recorded_exception(kernel_name, table, record: bytes):
    """The exception a kernel recorded, or None when none was."""
    code, *where = struct.unpack(RECORD_FORMAT, record)
    if not code:
        return None
    place = (f"[in kernel '{kernel_name}' at blockIdx={tuple(where[3:])}, "
             f"threadIdx={tuple(where[:3])}]")
    if not 0 < code <= len(table):
        return RuntimeError(f"an exception kiln does not know (code {code}) {place}")
    cls, message = table[code - 1]
    try:
        return cls(f"{message} {place}" if message else place)
    except Exception:   # a class whose constructor takes other arguments
        return RuntimeError(f"{cls.__name__}: {message or ''} {place}")

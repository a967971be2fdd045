"""Ahead-of-time compilation: functions with explicit signatures compiled into a CPython
extension module (a .so) that imports and runs where only NumPy is installed: no kiln, no
llvmlite. kiln's replacement for Numba's pycc.

Mark the functions of a module with `export`, then build it:

    # shapes.py
    from kiln.aot import export

    @export("f8(f8[:])")
    def total(a): ...

    @export("scaled", "f8[:](f8[:], f8)")   # exported under another name
    def scale(a, k): ...

    $ python -m kiln.aot shapes.py --name fastshapes     # -> fastshapes.cpython-311-....so

`export` gives back its function unchanged (a plain function stays Python; over a
`@njit(...)` function it uses that function's options), so the module still runs as it is.
A name exported with several signatures is dispatched among them, in order, by the exact
types of the arguments, as kiln's entry points check them (an array's dtype, dimension
count, layout and writability, and for a number its class); when none matches, in order
again with numbers converted as Numba converts them for explicit signatures (an int to a
float64 parameter, a NumPy integer to an int64 one). Arguments are positional.

How the extension is made (aot/build.py): each specialization goes through kiln's normal
pipeline (typing, codegen, the CPython entry point) into one LLVM module together with the
runtime it calls (NRT, the stack guard), a method table, and a `PyInit_<name>` that binds,
at import, what the JIT binds by address: NumPy's C API (its `_ARRAY_API` table), the
Python objects the code names (`kiln.obj.module:qualname` cells: imported by name), and
kiln's own Python helpers the code calls (their source is embedded). CPython's C API and
exception classes resolve by dynamic linking, the extension being loaded into Python. LLVM
emits the object file; the system's C compiler driver (`cc`) or linker (`ld`) links it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

_EXPORTS = {}   # module name -> {exported name: Export}


@dataclass
class Export:
    name: str
    function: object           # the Python function, or a kiln Dispatcher
    signatures: list = field(default_factory=list)


def export(name_or_signature, signature=None):
    """Mark a function for ahead-of-time compilation: `@export("f8(f8[:])")` exports it
    under its own name, `@export("name", "f8(f8[:])")` under `name` (Numba's pycc
    spelling). Exporting one name several times adds signatures to it."""
    name, sig = (None, name_or_signature) if signature is None else \
        (name_or_signature, signature)

    from ..types.signature import parse_signature
    parse_signature(sig)   # a misspelt signature fails here, at the line that wrote it

    def mark(fn):
        py_func = getattr(fn, "py_func", fn)
        exported = name or py_func.__name__
        if not exported.isidentifier():
            raise ValueError(f"kiln.aot.export: {exported!r} is not a valid Python name")
        table = _EXPORTS.setdefault(py_func.__module__, {})
        entry = table.setdefault(exported, Export(exported, fn))
        if getattr(entry.function, "py_func", entry.function) is not py_func:
            raise ValueError(f"kiln.aot.export: {exported!r} is already exported for "
                             f"another function ({entry.function.__qualname__})")
        entry.signatures.append(sig)
        return fn
    return mark


def exports_of(module_name: str) -> list:
    """The functions `export` marked in the module `module_name`, in the order marked."""
    return list(_EXPORTS.get(module_name, {}).values())


def compile_module(source, name=None, output_dir=None, cpu="generic", verbose=False):
    """Build the extension module of the functions `export` marked in `source` (a path to
    a .py file, or an imported module). `name`: the extension's module name (by default the
    source's); `output_dir`: where the .so goes (by default the source's folder); `cpu`:
    "generic" (runs on any CPU of this architecture, for a wheel) or "host" (this CPU's
    features, the JIT's code). Returns the path of the .so."""
    from .build import build
    return build(source, name=name, output_dir=output_dir, cpu=cpu, verbose=verbose)


def find_linker():
    """The command that links a shared object here (`cc` or `ld`), or None."""
    from .build import find_linker as find
    return find()

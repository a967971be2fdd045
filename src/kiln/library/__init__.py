"""Everything compiled code can call. Modules register their templates when imported;
`load()` imports them all on the first compile, so `import kiln` stays fast."""
from __future__ import annotations

import importlib

MODULES = ("numbers", "builtins", "mathlib", "cmathlib", "arrays", "tuples", "iteration", "nditer",
           "printing", "optional", "allocation", "creation",
           "ufuncs", "reductions", "shapes", "linalg", "decompositions", "stacked",
           "selection", "sorting", "random", "joining", "routines", "statistics", "foreign",
           "lists", "strings", "string_methods", "string_case",
           "string_conversions", "hashing", "dicts", "sets",
           "objmode", "literally", "generators", "records", "type_objects", "diagonals", "slicing",
           "named_tuples", "arrangement", "matrices", "picking", "numerics", "setops", "heaps",
           "reinterpret")
_loaded = False


def load():
    global _loaded
    if not _loaded:
        for name in MODULES:
            importlib.import_module(f"{__name__}.{name}")
        importlib.import_module("kiln.parallel.launch")  # parallel_run, thread ids
        _loaded = True

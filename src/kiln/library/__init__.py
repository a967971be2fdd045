"""Everything compiled code can call. Modules register their templates when imported;
`load()` imports them all on the first compile, so `import kiln` stays fast."""
from __future__ import annotations

import importlib

MODULES = ("numbers", "builtins", "mathlib", "cmathlib", "arrays", "array_boxing", "tuples",
           "iteration", "nditer", "printing", "optional", "allocation", "creation",
           "ufuncs", "reductions", "fused_reductions", "shapes", "linalg", "decompositions",
           "stacked", "selection", "sorting", "random", "py_random", "joining", "routines",
           "statistics", "foreign", "lists", "literal_lists", "strings", "string_methods",
           "string_case", "string_conversions", "hashing", "dicts", "sets", "buffers",
           "objmode", "literally", "generators", "records", "type_objects", "diagonals", "slicing",
           "named_tuples", "arrangement", "matrices", "picking", "numerics", "setops", "heaps",
           "reinterpret", "enums", "slice_boxing", "structs", "identity", "instance_checks",
           "getattr_calls", "string_repr", "datetimes", "array_scalars", "ufunc_out", "ufunc_methods", "bytes_values",
           "charseq")
# Modules outside the library that register with it (parallel_run, thread ids), with
# typing/families.py (the parallel stage) or with codegen/boxing.py (kiln.typed's
# containers and generators, cfunc's functions).
REGISTRANTS = ("kiln.parallel.launch", "kiln.parallel.outline", "kiln.typed",
               "kiln.typed.generator", "kiln.ccallback")
_loaded = False


def load():
    global _loaded
    if not _loaded:
        for name in MODULES:
            importlib.import_module(f"{__name__}.{name}")
        for name in REGISTRANTS:
            importlib.import_module(name)
        _loaded = True

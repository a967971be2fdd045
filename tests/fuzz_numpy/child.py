"""The child process: runs each program under CPython/NumPy (the reference), compiled by
kiln (fused, as written) and by the program's judge (kiln again: the unfused form, or
parallel=True), and answers with the outcomes. A crash kills only this process; the runner
sees it. Protocol: length-prefixed pickles on stdin/stdout (tests/fuzz/child.py's).
Arguments: a directory for the programs' files, then optionally a bug to plant
(tests/fuzz/child.py's plant_bug).

For the parallel judge the thresholds below which kiln keeps a loop or a reduction on one
thread are lowered (SPLIT_ITEMS stays above 64 pieces of 128 items, so every piece of a
split pairwise sum is still one that NumPy's recursion makes), so arrays of a few thousand
items take the split paths."""
from __future__ import annotations

import gc
import importlib.util
import os
import sys
import warnings

import numpy as np

from tests.fuzz.child import plant_bug, read_frame, write_frame
from tests.fuzz_numpy.compare import exception_name
from tests.fuzz_numpy.inputs import build_all

PARALLEL_ITEMS = 64
SPLIT_ITEMS = 8192


def lower_thresholds():
    import kiln.library.split as split
    import kiln.runtime.threads as threads
    threads.MIN_PARALLEL_ITEMS = PARALLEL_ITEMS
    split.SPLIT_ITEMS = SPLIT_ITEMS


def snapshot(value):
    """The result as plain data that outlives the arrays (a view of an argument is copied)."""
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(snapshot(v) for v in value)
    if isinstance(value, (np.generic, bool, int, float, complex, type(None))):
        return value
    return ("other", type(value).__name__, repr(value)[:200])


def line_of(exc, path):
    """The line of the program's file that kiln's compile error names, or 0."""
    text = str(exc)
    marker = f'File "{path}", line '
    at = text.find(marker)
    if at < 0:
        return 0
    digits = text[at + len(marker):].split(",")[0].split("\n")[0]
    return int(digits) if digits.isdigit() else 0


def call(function, specs, path):
    """("ok", result, the array arguments after the call) or ("raise", class, compile
    time, message, line)."""
    from kiln.errors import KilnError
    args = build_all(specs)
    try:
        result = snapshot(function(*args))
    except KilnError as e:
        return ("raise", type(e).__name__, True, str(e)[:600], line_of(e, path), None)
    except Exception as e:
        return ("raise", exception_name(e), False, f"{type(e).__name__}: {str(e)[:300]}", 0,
                snapshot(args[:3]))
    return ("ok", result, snapshot(args[:3]))


class Loader:
    def __init__(self, directory):
        self.dir, self.count = directory, 0

    def load(self, source):
        self.count += 1
        name = f"fuzz_numpy_{os.getpid()}_{self.count}"
        path = os.path.join(self.dir, name + ".py")
        with open(path, "w") as f:
            f.write(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module, path


def run_program(loader, source, flat_source, specs, judge):
    from kiln import njit
    from kiln.runtime.nrt import allocation_stats
    module, path = loader.load(source)
    answer = {"reference": call(module.f, specs, path)}
    # An index out of range raises only with boundscheck=True, as in Numba (unchecked by
    # default, for speed): a program NumPy stops with IndexError is compiled with it.
    options = {"boundscheck": True} if answer["reference"][:2] == ("raise", "IndexError") \
        else {}
    before = allocation_stats().bytes_live
    answer["kiln"] = call(njit(module.f, **options), specs, path)
    after = allocation_stats().bytes_live
    if after != before:
        gc.collect()
        after = allocation_stats().bytes_live
    answer["leaked"] = after - before
    if judge == "parallel":
        answer["judge"] = call(njit(parallel=True, **options)(module.f), specs, path)
    else:
        flat, flat_path = loader.load(flat_source)
        answer["judge"] = call(njit(flat.f, **options), specs, flat_path)
        os.remove(flat_path)
    os.remove(path)
    return answer


def main():
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                   # anything the program prints goes to stderr
    np.seterr(all="ignore")
    warnings.simplefilter("ignore")
    lower_thresholds()
    if len(sys.argv) > 2:           # test the fuzzer: a bug planted in kiln's code generator
        plant_bug(sys.argv[2])
    loader = Loader(sys.argv[1])
    stdin = sys.stdin.buffer
    while (request := read_frame(stdin)) is not None:
        write_frame(protocol_out, run_program(loader, *request))


if __name__ == "__main__":
    main()

"""The child process: runs programs sent by the runner under CPython (the reference) and
under kiln, and answers with their outcomes. A crash kills only this process; the runner
sees it and starts another. Arguments: a directory for the programs' files, then optionally
`--cuda` and a bug to plant. Protocol: length-prefixed pickles on stdin/stdout.

With `--cuda` a program is not run: its functions become device functions, called by a
kernel taking the program's arguments, compiled to PTX for sm_90 or sm_70, with or without
debug=True (by the program's length), and assembled by ptxas (when installed). kiln must compile it, or refuse it with an error that names the line
(what the GPU cannot do: allocating, try/except...); anything else is a failure."""
from __future__ import annotations

import ast
import gc
import importlib.util
import os
import pickle
import struct
import sys
import warnings

import numpy as np

from tests.fuzz.cfuncs import IMPORT as C_IMPORT
from tests.fuzz.compare import encode, raised

REFERENCE_HEADER = """import math
import numpy as np
from tests.fuzz.reference import math, power as _power
prange = range
def jit(f=None, **options):
    return f if f is not None else (lambda g: g)
""" + C_IMPORT
KILN_HEADER = """import math
import numpy as np
from kiln import njit as jit, prange
""" + C_IMPORT
CUDA_HEADER = """import math
import numpy as np
from kiln import cuda, prange
def jit(f=None, **options):
    device = cuda.jit(device=True)
    return device(f) if f is not None else device
""" + C_IMPORT
COMPILED = ("compiled",)   # the outcome a program compiled for the GPU must have


class _Powers(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.copy_location(ast.Call(ast.Name("_power", ast.Load()),
                                              [node.left, node.right], []), node)
        return node


def powers_as_kiln(source):
    """The reference's `a ** b` as kiln computes it (tests.fuzz.reference.power)."""
    if "**" not in source:
        return source
    return ast.unparse(ast.fix_missing_locations(_Powers().visit(ast.parse(source))))


def read_frame(stream):
    header = stream.read(4)
    if len(header) < 4:
        return None
    return pickle.loads(stream.read(struct.unpack("<I", header)[0]))


def write_frame(stream, obj):
    data = pickle.dumps(obj)
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def plant_bug(name):
    """Make kiln wrong on purpose, to test the fuzzer: its code generator emits the LLVM
    instruction `name` as another one (fsub as fadd: every float subtraction adds)."""
    from llvmlite import ir
    setattr(ir.IRBuilder, name, getattr(ir.IRBuilder, PLANTED[name]))


PLANTED = {"fsub": "fadd", "fmul": "fdiv", "sdiv": "udiv"}


class Programs:
    """Loads each program's source as two modules, one per mode (kiln compiles from files),
    from files in `directory`."""

    def __init__(self, directory):
        self.dir = directory
        self.count = 0
        self.paths = []

    def load(self, header, source):
        if header is REFERENCE_HEADER:
            source = powers_as_kiln(source)
        self.count += 1
        path = os.path.join(self.dir, f"fuzz_{self.count}.py")
        with open(path, "w") as f:
            f.write(header + source)
        self.paths.append(path)
        spec = importlib.util.spec_from_file_location(f"fuzz_{self.count}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def remove_files(self):
        while self.paths:
            os.remove(self.paths.pop())


def build(inputs):
    return tuple(np.array(v[1], dtype=v[0]) if isinstance(v, tuple) else v for v in inputs)


def call(function, args):
    try:
        return encode(function(*args))
    except Exception as e:
        return raised(e)


def run_program(programs, source, inputs):
    """[(CPython's outcome, kiln's, arrays after CPython's call, after kiln's, leaked)]."""
    from kiln.runtime.nrt import allocation_stats
    reference = programs.load(REFERENCE_HEADER, source)
    compiled = programs.load(KILN_HEADER, source)
    cases = []
    for values in inputs:
        py_args, kiln_args = build(values), build(values)
        expected = call(reference.f, py_args)
        before = allocation_stats()
        got = call(compiled.f, kiln_args)
        after = allocation_stats()
        if after.live != before.live:
            gc.collect()
            after = allocation_stats()
        leaked = after.live - before.live
        cases.append((expected, got, encode(py_args[4:]), encode(kiln_args[4:]), leaked))
    programs.remove_files()
    return cases


def compile_for_cuda(programs, source, inputs):
    """[(COMPILED, what kiln did, (), (), 0)]: COMPILED again when the program's kernel
    compiled to PTX that ptxas takes, or kiln refused it naming the line."""
    from kiln import cuda, types
    from kiln.cuda import toolkit
    from kiln.errors import TypingError, UnsupportedError
    params = source.split("\ndef f(", 1)[1].split(")", 1)[0]
    module = programs.load(CUDA_HEADER, source + f"\n@cuda.jit\ndef kernel_(out, {params}):\n"
                                                 f"    r = f({params})\n")
    try:
        signature = types.void(types.float64[::1], *map(types.typeof, build(inputs[0])))
        cc = ((9, 0), (7, 0))[len(source) % 2]
        ptx, _ = cuda.compile_ptx(module.kernel_, signature, cc=cc,
                                  debug=len(source) // 2 % 2 == 1)
        if toolkit.ptxas_path() is not None:
            toolkit.check_ptx(ptx, cc)
        got = COMPILED
    except (TypingError, UnsupportedError) as e:
        located = ', line ' in str(e)
        got = COMPILED if located else ("raise", type(e).__name__, ("other", "", ": " + str(e)[:300]))
    except Exception as e:
        got = ("raise", type(e).__name__, ("other", "", ": " + str(e)[:300]))
    programs.remove_files()
    return [(COMPILED, got, (), (), 0)]


def main():
    protocol_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)                   # anything the program prints goes to stderr
    arguments = sys.argv[2:]
    cuda = "--cuda" in arguments
    if cuda:
        arguments.remove("--cuda")
    if arguments:
        plant_bug(arguments[0])
    np.seterr(all="ignore")
    warnings.simplefilter("ignore")
    programs = Programs(sys.argv[1])
    stdin = sys.stdin.buffer
    while (request := read_frame(stdin)) is not None:
        source, inputs = request
        write_frame(protocol_out, (compile_for_cuda if cuda else run_program)(
            programs, source, inputs))


if __name__ == "__main__":
    main()

"""Kernels and device functions to PTX, the compiled CUDA back-end's compiler:

    Python function ─frontend+typing (target "cuda")─▶ TypedFunction ─codegen─▶ LLVM IR
      ─kernel entry, libdevice, O3─▶ nvptx64-nvidia-cuda module ─LLVM NVPTX─▶ PTX

Typing and codegen are the CPU target's, with the "cuda" typing context (the templates of
nvvm.py give the in-kernel API its meaning). What the GPU lacks is refused, or given a
device meaning, here:
- Device code owns no memory: arrays are views of device, shared or local memory, so
  reference counting compiles to nothing, and whatever allocates (np.empty, array
  arithmetic) is an UnsupportedError at its line (`check_device_code`).
- An exception ends the thread (as in Numba without debug=True): the kernel entry ignores
  the status its body returns, and descriptors carry a code, not a Python class; with
  debug=True the entry records the first for the host (cuda/debug.py).
- Math the C library does on the CPU comes from libdevice (`__nv_sin` for `sin`).
Any other call out of the module (the Python C API, the CPU runtime) is refused naming the
kernel and the symbol.

The kernel's parameters follow abi.py (docs/cuda.md, "The kernel ABI")."""
from __future__ import annotations

import ast
import functools
import re

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..codegen.ownership import has_refs
from ..errors import UnsupportedError
from ..options import CompileOptions, dump
from ..typing.infer import ascii_name
from . import abi, toolkit
from .debug import emit_record, table_asm
from .external import DECLARED

TRIPLE = "nvptx64-nvidia-cuda"

# The PTX ISA version (×10) for each sm_XY: the first that knows it, and at least 6.3
# (CUDA 10.0, for `activemask`). kiln emits the oldest ISA the device accepts, so the
# oldest driver that can run the code loads it.
PTX_ISA = {(5, 0): 63, (5, 2): 63, (5, 3): 63, (6, 0): 63, (6, 1): 63, (6, 2): 63,
           (7, 0): 63, (7, 2): 63, (7, 5): 63, (8, 0): 70, (8, 6): 71, (8, 7): 74,
           (8, 9): 78, (9, 0): 78, (10, 0): 86, (12, 0): 87}

# LLVM math intrinsics NVPTX cannot select exactly: they become libdevice calls.
_LIBDEVICE_INTRINSICS = {"exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan",
                         "pow", "asin", "acos", "atan", "sinh", "cosh", "tanh", "atan2"}


def ptx_target(cc):
    """(sm name, PTX ISA feature) for compute capability `cc`."""
    cc = tuple(cc)
    if cc not in PTX_ISA:
        raise ValueError(f"compute capability {cc} is not supported; choose from "
                         f"{sorted(PTX_ISA)}")
    return f"sm_{cc[0]}{cc[1]}", f"+ptx{PTX_ISA[cc]}"


def target_cc(cc) -> tuple:
    """The compute capability to compile for: the device's own when kiln knows it, else the
    newest kiln knows below it of the same major version (PTX for sm_XY is JIT-compiled
    for any later GPU), else the newest kiln knows below it at all."""
    cc = tuple(cc)
    if cc in PTX_ISA:
        return cc
    older = [known for known in PTX_ISA if known <= cc]
    if not older:
        raise ValueError(f"compute capability {cc[0]}.{cc[1]} is older than any kiln "
                         f"compiles for (oldest: {min(PTX_ISA)})")
    same_major = [known for known in older if known[0] == cc[0]]
    return max(same_major or older)


def compile_ptx(pyfunc, sig, device=False, fastmath=False, cc=(9, 0), lineinfo=False,
                debug=False, opt=True):
    """Compile `pyfunc` (a Python function or a `@cuda.jit` object) for `sig` to PTX for
    compute capability `cc`; returns (ptx, return type). A kernel becomes a `.entry` named
    after the function; with `device=True` the function becomes an external `.func` in
    kiln's internal convention `i32 f(ret*, excinfo**, args...)`. `debug`: the kernel
    records an exception for the host (cuda/debug.py), and lines are described as with
    `lineinfo` (no debug information on variables)."""
    llvm_ir, return_type = compile_llvm(pyfunc, sig, device, fastmath, lineinfo, debug)
    return emit_ptx(llvm_ir, _name(pyfunc), cc, fastmath, opt), return_type


def compile_ptx_for_current_device(pyfunc, sig, device=False, fastmath=False,
                                   lineinfo=False, debug=False, opt=True):
    """compile_ptx for the current device (for the newest target kiln knows it runs)."""
    from .devices import get_current_device
    return compile_ptx(pyfunc, sig, device, fastmath,
                       target_cc(get_current_device().compute_capability), lineinfo, debug, opt)


def _name(pyfunc):
    return getattr(pyfunc, "py_func", pyfunc).__name__


def compile_llvm(pyfunc, sig, device=False, fastmath=False, lineinfo=False, debug=False):
    """The LLVM IR (text, before linking and optimization) of the kernel or device function,
    and its return type; with `lineinfo` (or `debug`), instructions carry their source lines
    (PTX `.loc`); with `debug`, a kernel records an exception for the host."""
    lineinfo = lineinfo or debug
    py_func = getattr(pyfunc, "py_func", pyfunc)
    typed = type_for_device(py_func, sig, device, fastmath, debug)
    from ..codegen.context import CodegenContext, ModuleState
    options = device_options(fastmath, debug)
    state = ModuleState(typed.symbol, typed_context(), "cuda")
    if lineinfo:
        from ..codegen.linetable import LineTable
        state.line_table = LineTable(state.module)
    context = CodegenContext(state, options)
    native = context.lower_function(typed)
    name = ascii_name(py_func.__name__)
    entry = _device_entry(state.module, native, name) if device else \
        _kernel_entry(state.module, native, typed, name, debug)
    if lineinfo:   # the entry is located at the def too, so what it inlines keeps its lines
        state.line_table.locate_calls(entry, typed.ir.qualname, typed.ir.filename,
                                      typed.ir.node.lineno)
    _without_reference_counts(state.module)
    _convergent(state.module)
    state.module.add_named_metadata("llvm.module.flags", [
        ir.Constant(dm.i32, 4), "nvvm-reflect-ftz", ir.Constant(dm.i32, int(bool(fastmath)))])
    llvm_ir = str(state.module)
    if debug and not device:
        llvm_ir += table_asm(state)
    dump("llvm", llvm_ir)
    return llvm_ir, typed.return_type


def _convergent(module):
    """Mark every function of the device module `convergent`, as clang does for CUDA: a
    call of a device function that syncs (a grid or block barrier inside) must not be
    duplicated into divergent paths. LLVM's attribute inference drops it again from
    functions that reach no barrier. Without it, jump threading copied a call of a grid-
    syncing device function into both arms of an `if`, and the kernel hung on the GPU."""
    for fn in module.functions:
        if not fn.is_declaration:
            fn.attributes.add("convergent")


def typed_context():
    from ..compiler import typing_context
    from . import (checks, fp16_lowering, gridsync, libdevice_lowering,  # noqa: F401
                   nvvm, signatures, vector_lowering)   # (they register templates)
    return typing_context("cuda")


def device_options(fastmath=False, debug=False):
    """Device code's options. Its error model is NumPy's, as Numba's CUDA target has it: a
    zero divisor gives inf or nan (0 for integers), a float converts to int as C does. Only
    a debug=True kernel can report an exception, so only it takes Python's (a thread
    that raises without debug=True would end and leave its results unwritten)."""
    return CompileOptions.from_kwargs(fastmath=fastmath,
                                      error_model="python" if debug else "numpy")


def type_for_device(py_func, sig, device=False, fastmath=False, debug=False):
    """The kernel or device function typed for `sig` with the cuda typing context, checked
    as device code."""
    from . import checks, signatures
    kind = "device function" if device else "kernel"
    checks.check_source(py_func, kind)
    (parsed,) = signatures.parse(py_func.__name__, kind, sig, len(_params(py_func)))
    declared = None if parsed.return_type in (None, t.void) else parsed.return_type
    typed = typed_context().type_function(py_func, tuple(parsed.args), declared,
                                          device_options(fastmath, debug))
    check_device_code(typed)   # (checks.py refused a kernel that returns a value)
    return typed


def _params(py_func):
    import inspect
    return inspect.signature(py_func).parameters


def check_device_code(typed):
    """Refuse, at its line, an operation that allocates memory: the GPU has no NRT."""
    for node, res in typed.calls.items():
        if not (res.new_reference and has_refs(res.signature.return_type)):
            continue
        node = node if isinstance(node, ast.AST) else node[0]
        if isinstance(node, ast.Call) and isinstance(typed.typemap.get(node.func), t.Dispatcher):
            continue   # an @njit callee: what it allocates, _check_symbols refuses
        raise UnsupportedError(
            f"device code cannot allocate memory ({ast.unparse(node)[:60]} makes a new "
            f"{res.signature.return_type}): use cuda.local.array or cuda.shared.array, or "
            "pass an output array").with_location(typed.ir.loc(node))


# -- the kernel entry -----------------------------------------------------------------------
def _kernel_entry(module, native, typed, name, debug=False):
    """`void name(params...)`, marked a kernel: rebuilds the arguments and calls the
    function; an exception it raised ends the thread (`debug`: recorded first)."""
    fnty = ir.FunctionType(ir.VoidType(),
                           [p for ty in typed.argtypes for p in abi.parameter_types(ty)])
    if name in module.globals:
        name = f"{name}.kernel"
    kernel = ir.Function(module, fnty, name=name)
    builder = ir.IRBuilder(kernel.append_basic_block("entry"))
    result = builder.alloca(dm.value_type(typed.return_type))
    excinfo = builder.alloca(dm.ptr)
    params = iter(kernel.args)
    status = builder.call(native, [result, excinfo] + [abi.unpack(builder, ty, params)
                                                       for ty in typed.argtypes])
    if debug:
        with builder.if_then(builder.icmp_signed("!=", status, ir.Constant(dm.i32, 0)),
                             likely=False):
            emit_record(builder, excinfo)
    builder.ret_void()
    module.add_named_metadata("nvvm.annotations", [kernel, "kernel", ir.Constant(dm.i32, 1)])
    return kernel


def _device_entry(module, native, name):
    """An external `.func` named after the Python function, in kiln's convention, for PTX
    that links with other device code."""
    entry = ir.Function(module, native.function_type, name=name)
    builder = ir.IRBuilder(entry.append_basic_block("entry"))
    builder.ret(builder.call(native, entry.args))
    return entry


def _without_reference_counts(module):
    """Device code owns no memory: the reference-count helpers codegen called do nothing
    (LLVM removes the calls)."""
    for name in ("kiln.nrt.incref", "kiln.nrt.decref"):
        fn = module.globals.get(name)
        if fn is not None:
            fn.blocks.clear()
            ir.IRBuilder(fn.append_basic_block()).ret_void()


# -- LLVM IR to PTX -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def _llvm():
    import llvmlite.binding as llvm
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return llvm


_DECLARED = re.compile(r'^declare [^@]*@"?([^"(]+)"?\(', re.MULTILINE)


def _to_libdevice(llvm_ir):
    """Redirect math to libdevice: the C library's `sin`/`sinf` and LLVM's `llvm.sin.f64`
    become `__nv_sin`/`__nv_sinf`. Returns the IR and whether libdevice is needed."""
    renames = {}
    declared = _DECLARED.findall(llvm_ir)
    for name in declared:
        parts = name.split(".")
        if name.startswith("llvm.") and len(parts) == 3 and parts[1] in _LIBDEVICE_INTRINSICS:
            renames[name] = f"__nv_{parts[1]}{'f' if parts[2] == 'f32' else ''}"
        elif not name.startswith(("llvm.", "kiln", "__nv_")) and name not in DECLARED:
            renames[name] = f"__nv_{name}"   # (not cuda.libdevice's, nor declare_device's)
    for old, new in renames.items():
        llvm_ir = re.sub(rf'@"?{re.escape(old)}"?(?=\()', f"@{new}", llvm_ir)
    return llvm_ir, bool(renames) or any(name.startswith("__nv_") for name in declared)


def _without_target(llvm_ir):
    return re.sub(r'^target (datalayout|triple) = "[^"]*"\n', "", llvm_ir, flags=re.M)


def emit_ptx(llvm_ir, kernel_name, cc=(9, 0), fastmath=False, opt=True):
    """Link libdevice where the code needs it, optimize for the device and emit PTX."""
    llvm = _llvm()
    sm, isa = ptx_target(cc)
    tm = llvm.Target.from_triple(TRIPLE).create_target_machine(
        cpu=sm, features=isa, opt=3 if opt else 0)
    llvm_ir, math = _to_libdevice(llvm_ir)
    # The layout goes in before parsing: a load or store without an explicit alignment
    # takes its type's ABI alignment from the layout the text is parsed with, and LLVM's
    # default gives i64 only 4 bytes (every int64 access would become two 32-bit ones).
    module = llvm.parse_assembly(f'target datalayout = "{tm.target_data}"\n'
                                 f'target triple = "{TRIPLE}"\n{_without_target(llvm_ir)}')
    if math and toolkit.libdevice_path() is not None:
        module.link_in(llvm.parse_bitcode(toolkit.libdevice_path().read_bytes()))
        for fn in module.functions:   # only what the kernel calls stays
            if fn.name.startswith("__nv_") and not fn.is_declaration:
                fn.linkage = "internal"
    module.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3 if opt else 0)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
    if not opt:   # unoptimized, the CPU runtime's helpers nothing calls are still there
        cleanup = llvm.create_new_module_pass_manager()
        cleanup.add_global_dead_code_eliminate_pass()
        cleanup.run(module, pb)
    _check_symbols(module, kernel_name)
    return tm.emit_assembly(module)


def _check_symbols(module, kernel_name):
    """Every function the optimized device code calls must be defined in the module (or be
    an LLVM intrinsic): anything else is the CPU's."""
    for fn in module.functions:
        name = fn.name
        if not fn.is_declaration or name.startswith("llvm.") or name in DECLARED:
            continue   # (declare_device's functions are linked at load)
        if name.startswith("__nv_") and toolkit.libdevice_path() is None:
            raise UnsupportedError(f"kernel '{kernel_name}' calls {name[5:]}, which needs "
                                   f"libdevice: {toolkit.INSTALL_HINT}")
        if name.startswith("__nv_"):
            raise UnsupportedError(f"kernel '{kernel_name}' calls the C library's "
                                   f"{name[5:]}, which the GPU does not have")
        raise UnsupportedError(f"kernel '{kernel_name}' needs {name!r} from the CPU runtime "
                               "(the Python C API or kiln's memory manager), which device "
                               "code cannot call")
    for gv in module.global_variables:
        if gv.is_declaration and gv.name != "kiln_dynamic_shared":
            raise UnsupportedError(f"kernel '{kernel_name}' uses {gv.name!r}, a CPU global "
                                   "that device code cannot reach")

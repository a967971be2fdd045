"""Building an ahead-of-time extension module (see kiln/aot/__init__.py): the exported
specializations' IR, the runtime they call, the glue that makes them a CPython module, one
LLVM module optimized and emitted as an object file, linked into a shared object."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import inspect
import os
import re
import shutil
import sys
import tempfile
import types as pytypes

from llvmlite import ir

from . import _EXPORTS, exports_of
from ..cpu.nativebuild import LinkError, find_linker, link  # noqa: F401  (kiln.aot's too)
from ..runtime import irtypes as ll

OBJECT_PREFIX = "kiln.obj."
METH_FASTCALL = 0x80
PYTHON_API_VERSION = 1013
_SUPPORTED_NEEDS = {"nrt", "stack"}
# kiln's own Python helpers that compiled code may call, as (module, the definitions to
# embed, the imports they need[, functions of the module giving more source]): an
# extension carries their source and runs it at import.
_SUPPORT = {
    "kiln.runtime.views:make_view":
        ("kiln.runtime.views", ("_ViewOf", "make_view"), "import numpy as np"),
    # the Unicode tables of str methods, as data (the source the module's function gives)
    "kiln.runtime.unicode_tables:TABLE":
        ("kiln.runtime.unicode_tables", (), "import numpy as np", "embedded_source"),
}


class BuildError(Exception):
    """An exported function that cannot be compiled ahead of time, or no way to link."""


# ---- the pieces ------------------------------------------------------------------------------

class Specialization:
    """One exported signature, generated: its IR and what that IR refers to."""

    def __init__(self, name, signature, llvm_ir, entry, object_refs, needs):
        self.name, self.signature, self.llvm_ir = name, signature, llvm_ir
        self.entry, self.object_refs, self.needs = entry, object_refs, needs


def _generate(export, signature_text, source_module):
    """Type and generate one exported signature with kiln's normal pipeline (as an explicit
    signature of @njit: an array argument of any layout its type allows)."""
    from ..codegen.boxing import build_entry_point
    from ..codegen.context import CodegenContext, ModuleState
    from ..compiler import typing_context
    from ..library.linking import runtime_needs
    from ..errors import KilnError
    from ..options import CompileOptions
    from ..types.signature import parse_signature

    sig = parse_signature(signature_text)
    fn = export.function
    typed_func, options = (fn.typed_func, fn.options) if hasattr(fn, "typed_func") else \
        (fn, CompileOptions())
    shown = f"{export.name}{signature_text!r}"
    try:
        tctx = typing_context("cpu")
        typed = tctx.type_function(typed_func, tuple(sig.args), sig.return_type, options)
        state = ModuleState(typed.symbol, tctx, "cpu")
        context = CodegenContext(state, options)
        native = context.lower_function(typed)
        native.linkage = "external"
        entry = f"{typed.symbol}.entry"
        build_entry_point(context, typed, native, entry, exact_layout=False)
    except KilnError as e:
        e.add_context(f"(while compiling {shown} ahead of time)")
        raise e.with_traceback(None) from None
    if not state.cacheable:
        raise BuildError(f"{shown}: the code embeds an address of this process (a global "
                         "array or a function object frozen into it), which no other "
                         "process has; pass it as an argument instead")
    llvm_ir = str(state.module)
    needs = set(runtime_needs(llvm_ir))
    if needs - _SUPPORTED_NEEDS:
        described = {"threads": "the thread layer of parallel=True",
                     "random": "the state of np.random"}
        missing = sorted({described.get(n, "BLAS/LAPACK (np.dot, np.linalg)")
                          for n in needs - _SUPPORTED_NEEDS})
        raise BuildError(f"{shown} calls what ahead-of-time modules do not include yet: "
                         + ", ".join(missing))
    for symbol, obj in state.object_refs.items():
        _check_object(shown, symbol[len(OBJECT_PREFIX):], source_module)
    # kiln's cells for CPython's exception classes are CPython's own variables here
    llvm_ir = re.sub(r'@"kiln\.PyExc_(\w+)"', r'@"PyExc_\1"', llvm_ir)
    return Specialization(export.name, sig, llvm_ir, entry, dict(state.object_refs), needs)


def _check_object(shown, name, source_module):
    module = name.partition(":")[0]
    if name in _SUPPORT:
        return
    if module == "kiln" or module.startswith("kiln."):
        raise BuildError(f"{shown}: the compiled code calls {name}, a part of kiln that "
                         "ahead-of-time modules do not carry yet")
    if module in ("__main__", source_module):
        raise BuildError(f"{shown}: the compiled code refers to {name}, defined in the module "
                         "being compiled; define it in a module the extension can import")


# ---- the glue: methods, module definition, PyInit ------------------------------------------

class _Glue:
    def __init__(self, name, triple, data_layout):
        self.module = ir.Module(name=f"kiln.aot.{name}")
        self.module.triple = triple
        self.module.data_layout = data_layout
        self._strings = {}

    def fn(self, name, restype, argtypes, var_arg=False):
        found = self.module.globals.get(name)
        return found or ir.Function(self.module, ir.FunctionType(restype, argtypes, var_arg),
                                    name=name)

    def data(self, name, lltype=ll.ptr, initializer=None):
        """A global: external (bound by the dynamic linker) or defined here."""
        found = self.module.globals.get(name)
        if found is None:
            found = ir.GlobalVariable(self.module, lltype, name=name)
            if initializer is not None:
                found.initializer = initializer
        return found

    def string(self, text):
        if text not in self._strings:
            data = bytearray(text.encode("utf-8") + b"\0")
            gv = ir.GlobalVariable(self.module, ir.ArrayType(ll.i8, len(data)),
                                   name=f".aot.str.{len(self._strings)}")
            gv.global_constant = True
            gv.linkage = "private"
            gv.initializer = ir.Constant(gv.value_type, data)
            self._strings[text] = gv
        return self._strings[text]


def _null():
    return ir.Constant(ll.ptr, None)


def _method(glue, name, specializations, text_signature):
    """`PyObject *name(self, args, nargs)` (METH_FASTCALL): each specialization's entry
    point in turn until one accepts the arguments; then each again with the arguments
    converted as Numba converts them for an explicit signature (what converts safely: an
    int or a NumPy number to a float64 parameter, a NumPy integer or a bool to an int64
    one); a TypeError when none accepts them."""
    g = glue
    fn = ir.Function(g.module, ir.FunctionType(ll.ptr, [ll.ptr, ll.ptr, ll.i64]),
                     name=f"kiln.aot.method.{name}")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    not_implemented = g.data("_Py_NotImplementedStruct", ll.i8)
    decref = g.fn("Py_DecRef", ir.VoidType(), [ll.ptr])

    def attempt(entry, args):
        result = b.call(entry, [fn.args[0], args, fn.args[2]])
        with b.if_then(b.icmp_unsigned("!=", result, not_implemented)):
            yield
            b.ret(result)
        b.call(decref, [result])

    for spec in specializations:
        for _ in attempt(g.fn(spec.entry, ll.ptr, [ll.ptr, ll.ptr, ll.i64]), fn.args[1]):
            pass
    for spec in specializations:
        conversions = [_CONVERSIONS.get(str(ty)) for ty in spec.signature.args]
        if any(conversions):
            _converted_attempt(g, b, fn, spec, conversions, attempt)
    accepted = "; ".join(str(s.signature) for s in specializations)
    message = f"{name}{text_signature}: no compiled signature accepts these argument types " \
              f"(compiled for: {accepted})"
    set_string = g.fn("PyErr_SetString", ir.VoidType(), [ll.ptr, ll.ptr])
    b.call(set_string, [b.load(g.data("PyExc_TypeError"), typ=ll.ptr), g.string(message)])
    b.ret(_null())
    return fn


# parameter type -> the C API function that converts an argument to it (a number only)
_CONVERSIONS = {"float64": "PyNumber_Float", "int64": "PyNumber_Index"}


def _converted_attempt(g, b, fn, spec, conversions, attempt):
    """Call `spec`'s entry point with each argument of a float64 or int64 parameter that
    is a number converted (a new array of new references, released after the call)."""
    _, args, nargs = fn.args
    count = len(conversions)
    after = fn.append_basic_block("after_conversion")
    with b.if_then(b.icmp_unsigned(">", nargs, ir.Constant(ll.i64, count))):
        b.branch(after)
    slots = b.alloca(ll.ptr, size=count)
    slot = [b.gep(slots, [ir.Constant(ll.i64, i)], source_etype=ll.ptr) for i in range(count)]
    for i in range(count):
        b.store(_null(), slot[i])
    release = fn.append_basic_block("release_conversions")
    incref = g.fn("Py_IncRef", ir.VoidType(), [ll.ptr])
    is_number = g.fn("PyNumber_Check", ll.i32, [ll.ptr])
    for i, conversion in enumerate(conversions):
        with b.if_then(b.icmp_unsigned(">", nargs, ir.Constant(ll.i64, i))):
            arg = b.load(b.gep(args, [ir.Constant(ll.i64, i)], source_etype=ll.ptr), typ=ll.ptr)
            if conversion is None:
                b.call(incref, [arg])
                b.store(arg, slot[i])
            else:
                number = b.icmp_signed("!=", b.call(is_number, [arg]), ir.Constant(ll.i32, 0))
                with b.if_else(number) as (convert, keep):
                    with convert:
                        converted = b.call(g.fn(conversion, ll.ptr, [ll.ptr]), [arg])
                        with b.if_then(b.icmp_unsigned("==", converted, _null())):
                            b.call(g.fn("PyErr_Clear", ir.VoidType(), []), [])
                            b.branch(release)
                        b.store(converted, slot[i])
                    with keep:
                        b.call(incref, [arg])
                        b.store(arg, slot[i])
    decref = g.fn("Py_DecRef", ir.VoidType(), [ll.ptr])
    for _ in attempt(g.fn(spec.entry, ll.ptr, [ll.ptr, ll.ptr, ll.i64]), slot[0]):
        for cell in slot:   # (Py_DecRef ignores NULL)
            b.call(decref, [b.load(cell, typ=ll.ptr)])
    b.branch(release)
    b.position_at_end(release)
    for cell in slot:
        b.call(decref, [b.load(cell, typ=ll.ptr)])
    b.branch(after)
    b.position_at_end(after)


def _text_signature(function):
    """"(a, b, /)": the parameters, positional only (what inspect.signature reads back)."""
    py_func = getattr(function, "py_func", function)
    names = list(inspect.signature(py_func).parameters)
    return f"({', '.join(names + ['/'])})" if names else "()"


def _init(glue, name, doc, methods, object_names, support_source, needs, uses_numpy_api):
    """`PyInit_<name>`: bind what the code refers to, then create the module."""
    g = glue
    fn = ir.Function(g.module, ir.FunctionType(ll.ptr, []), name=f"PyInit_{name}")
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fail = fn.append_basic_block("fail")
    import_module = g.fn("PyImport_ImportModule", ll.ptr, [ll.ptr])
    get_attr = g.fn("PyObject_GetAttrString", ll.ptr, [ll.ptr, ll.ptr])
    decref = g.fn("Py_DecRef", ir.VoidType(), [ll.ptr])
    incref = g.fn("Py_IncRef", ir.VoidType(), [ll.ptr])

    def check(value):
        ok = fn.append_basic_block("ok")
        b.cbranch(b.icmp_unsigned("==", value, _null()), fail, ok)
        b.position_at_end(ok)
        return value

    def attribute_chain(obj, parts):
        for part in parts:
            found = b.call(get_attr, [obj, g.string(part)])
            b.call(decref, [obj])
            obj = check(found)
        return obj

    if "stack" in needs:   # the stack guard's per-thread windows live under a pthread key
        key_create = g.fn("pthread_key_create", ll.i32, [ll.ptr, ll.ptr])
        failed = b.call(key_create, [g.data("kiln_stack_key", ll.i32), _null()])
        with b.if_then(b.icmp_signed("!=", failed, ir.Constant(ll.i32, 0)), likely=False):
            b.call(g.fn("PyErr_NoMemory", ll.ptr, []), [])
            b.branch(fail)
    if uses_numpy_api:     # NumPy's C API table, as `import_array()` finds it
        from ..runtime import nrt
        clear = g.fn("PyErr_Clear", ir.VoidType(), [])
        found = b.alloca(ll.ptr)
        b.store(b.call(import_module, [g.string("numpy._core._multiarray_umath")]), found)
        with b.if_then(b.icmp_unsigned("==", b.load(found, typ=ll.ptr), _null())):
            b.call(clear, [])   # NumPy 1.x
            b.store(b.call(import_module, [g.string("numpy.core._multiarray_umath")]), found)
        capsule = attribute_chain(check(b.load(found, typ=ll.ptr)), ["_ARRAY_API"])
        table = check(b.call(g.fn("PyCapsule_GetPointer", ll.ptr, [ll.ptr, ll.ptr]),
                             [capsule, _null()]))
        for cell, index in (("kiln.aot.PyArray_Type", 2),
                            ("kiln.aot.PyArray_New", nrt.NUMPY_API_INDEX[nrt.ARRAY_NEW]),
                            ("kiln.aot.PyArray_SetBaseObject",
                             nrt.NUMPY_API_INDEX[nrt.ARRAY_SET_BASE])):
            slot = b.gep(table, [ir.Constant(ll.i64, index)], source_etype=ll.ptr)
            b.store(b.load(slot, typ=ll.ptr), g.data(cell, initializer=_null()))
        # (the capsule stays referenced: NumPy's module keeps the table alive anyway)
    helpers = None
    if support_source:     # kiln's Python helpers, run from their embedded source
        exec_fn = attribute_chain(check(b.call(import_module, [g.string("builtins")])),
                                  ["exec"])
        helpers = check(b.call(g.fn("PyDict_New", ll.ptr, []), []))
        source = check(b.call(g.fn("PyUnicode_FromString", ll.ptr, [ll.ptr]),
                              [g.string(support_source)]))
        call = g.fn("PyObject_CallFunctionObjArgs", ll.ptr, [ll.ptr], var_arg=True)
        done = check(b.call(call, [exec_fn, source, helpers, _null()]))
        for obj in (done, source, exec_fn):
            b.call(decref, [obj])
    for symbol, object_name in object_names.items():
        module_name, _, qualname = object_name.partition(":")
        if object_name in _SUPPORT:
            item = g.fn("PyDict_GetItemString", ll.ptr, [ll.ptr, ll.ptr])
            obj = check(b.call(item, [helpers, g.string(qualname)]))
            b.call(incref, [obj])
        else:
            obj = attribute_chain(check(b.call(import_module, [g.string(module_name)])),
                                  qualname.split("."))
        # the reference is the cell's, for the life of the process
        b.store(obj, g.data(symbol, initializer=_null()))

    method_def = ir.LiteralStructType([ll.ptr, ll.ptr, ll.i32, ll.ptr])
    rows = [ir.Constant(method_def, [g.string(n), f, ir.Constant(ll.i32, METH_FASTCALL),
                                     g.string(d)]) for n, f, d in methods]
    rows.append(ir.Constant(method_def, [_null(), _null(), ir.Constant(ll.i32, 0), _null()]))
    table_ty = ir.ArrayType(method_def, len(rows))
    method_table = g.data("kiln.aot.methods", table_ty, ir.Constant(table_ty, rows))
    # PyModuleDef: PyModuleDef_HEAD_INIT (refcount 1, type, m_init, m_index, m_copy), m_name,
    # m_doc, m_size (-1: no per-module state), m_methods, m_slots, traverse, clear, free
    fields = [ir.Constant(ll.i64, 1), _null(), _null(), ir.Constant(ll.i64, 0), _null(),
              g.string(name), g.string(doc), ir.Constant(ll.i64, -1), method_table,
              _null(), _null(), _null(), _null()]
    def_ty = ir.LiteralStructType([f.type for f in fields])
    module_def = g.data("kiln.aot.moduledef", def_ty, ir.Constant(def_ty, fields))
    create = g.fn("PyModule_Create2", ll.ptr, [ll.ptr, ll.i32])
    b.ret(b.call(create, [module_def, ir.Constant(ll.i32, PYTHON_API_VERSION)]))
    b.position_at_end(fail)
    b.ret(_null())


def _numpy_thunks(glue):
    """The JIT binds `kiln_PyArray_*` to NumPy's functions and `PyArray_Type` to the type by
    address; here they call through the cells PyInit fills. PyArray_Type is only ever the
    subtype argument of PyArray_New, which the thunk replaces by the real type."""
    g = glue
    g.data("PyArray_Type", ll.i8, ir.Constant(ll.i8, 0))
    new_args = [ll.ptr, ll.i32, ll.ptr, ll.i32, ll.ptr, ll.ptr, ll.i32, ll.i32, ll.ptr]
    from ..runtime import nrt
    for symbol, cell, restype, argtypes in (
            (nrt.ARRAY_NEW, "kiln.aot.PyArray_New", ll.ptr, new_args),
            (nrt.ARRAY_SET_BASE, "kiln.aot.PyArray_SetBaseObject", ll.i32, [ll.ptr, ll.ptr])):
        fnty = ir.FunctionType(restype, argtypes)
        fn = ir.Function(g.module, fnty, name=symbol)
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        args = list(fn.args)
        if symbol == nrt.ARRAY_NEW:
            args[0] = b.load(g.data("kiln.aot.PyArray_Type", initializer=_null()), typ=ll.ptr)
        target = b.load(g.data(cell, initializer=_null()), typ=ll.ptr)
        b.ret(_indirect_call(b, fnty, target, args))


def _indirect_call(builder, fnty, target, args):
    """Call the function of type `fnty` at the pointer `target`."""
    typed = builder.inttoptr(builder.ptrtoint(target, ll.i64), ir.PointerType(fnty))
    return builder.call(typed, args)


def _support_source(names):
    """The source of kiln's helpers named in `names` (keys of _SUPPORT), for one namespace."""
    parts, seen = [], set()
    for name in sorted(names):
        module_name, definitions, imports, *made = _SUPPORT[name]
        module = importlib.import_module(module_name)
        if imports not in seen:
            seen.add(imports)
            parts.insert(0, imports)
        parts += [inspect.getsource(getattr(module, d)) for d in definitions]
        parts += [getattr(module, m)() for m in made]
    return "\n\n".join(parts) + "\n"


# ---- linking ---------------------------------------------------------------------------------

def _link(linker, obj_path, out_path):
    try:
        link(linker, [obj_path], out_path)
    except LinkError as e:
        raise BuildError(str(e)) from None


# ---- the build ------------------------------------------------------------------------------

def _load(source):
    """The module `source` names (a module, or a path to a .py file, imported as its stem)."""
    if isinstance(source, pytypes.ModuleType):
        return source
    path = os.path.abspath(os.fspath(source))
    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == path:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise BuildError(f"{path} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    _EXPORTS.pop(name, None)   # what an earlier module of this name exported is not ours
    previous, sys.modules[name] = sys.modules.get(name), module
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except BaseException:
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
        raise
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def _target_machine(cpu):
    import llvmlite.binding as llvm
    from ..runtime.engine import get_engine
    get_engine()   # LLVM initialized for this machine
    target = llvm.Target.from_default_triple()
    if cpu == "host":
        name, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
    elif cpu == "generic":
        name, features = "", ""
    else:
        name, features = cpu, ""
    return llvm.get_process_triple(), target.create_target_machine(
        cpu=name, features=features, opt=3, reloc="pic", codemodel="default")


def build(source, name=None, output_dir=None, cpu="generic", verbose=False):
    import llvmlite.binding as llvm
    from ..runtime.engine import _prefer_vector_width
    from ..runtime import nrt, stack

    if sys.platform == "win32":
        raise BuildError("kiln.aot builds extension modules on Linux and macOS only")
    if object.__basicsize__ != 16:
        raise BuildError("kiln.aot needs a CPython whose objects have the usual 16-byte "
                         "header (not a free-threaded or debug build)")
    module = _load(source)
    exports = exports_of(module.__name__)
    if not exports:
        raise BuildError(f"{module.__name__} exports nothing: mark functions with "
                         "@kiln.aot.export(\"signature\")")
    name = name or module.__name__.rpartition(".")[2]
    if not name.isidentifier():
        raise BuildError(f"{name!r} is not a valid module name")
    output_dir = output_dir or os.path.dirname(os.path.abspath(module.__file__))
    linker = find_linker()
    if linker is None:
        raise BuildError("kiln.aot needs a linker to make a shared object: a C compiler "
                         "driver (cc, gcc, clang; or $CC) or ld on the PATH")
    triple, machine = _target_machine(cpu)
    data_layout = str(machine.target_data)

    specializations = [_generate(e, s, module.__name__) for e in exports for s in e.signatures]
    needs = set().union(*(s.needs for s in specializations))
    object_names = {}
    for spec in specializations:
        for symbol in spec.object_refs:
            object_names[symbol] = symbol[len(OBJECT_PREFIX):]
    glue = _Glue(name, triple, data_layout)
    methods = []
    for export in exports:
        mine = [s for s in specializations if s.name == export.name]
        text_signature = _text_signature(export.function)
        fn = _method(glue, export.name, mine, text_signature)
        doc = f"{export.name}{text_signature}\n--\n\nCompiled ahead of time by kiln for " + \
            "; ".join(str(s.signature) for s in mine) + "."
        methods.append((export.name, fn, doc))
    all_ir = [s.llvm_ir for s in specializations]
    uses_numpy_api = any("kiln_PyArray_" in text for text in all_ir)
    if uses_numpy_api:
        _numpy_thunks(glue)
    support = [n for n in object_names.values() if n in _SUPPORT]
    doc = f"Compiled ahead of time by kiln from {module.__name__}."
    _init(glue, name, doc, methods, object_names, _support_source(support) if support else "",
          needs, uses_numpy_api)

    texts = [str(glue.module)] + all_ir
    if "nrt" in needs:
        texts.append(nrt._runtime_ir())
    if "stack" in needs:
        texts.append(stack._guard_ir())
    linked = None
    for text in texts:
        part = llvm.parse_assembly(_prefer_vector_width(text))
        part.triple, part.data_layout = triple, data_layout
        if linked is None:
            linked = part
        else:
            linked.link_in(part)
    init_symbol = f"PyInit_{name}"
    for value in list(linked.functions) + list(linked.global_variables):
        if not value.is_declaration and value.name != init_symbol:
            value.linkage = "internal"   # nothing but PyInit is visible outside the .so
    linked.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = pto.slp_vectorization = pto.loop_unrolling = True
    pass_builder = llvm.create_pass_builder(machine, pto)
    pass_builder.getModulePassManager().run(linked, pass_builder)
    object_code = machine.emit_object(linked)

    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    out_path = os.path.join(output_dir, name + suffix)
    with tempfile.TemporaryDirectory(prefix="kiln-aot-") as work:
        obj_path = os.path.join(work, f"{name}.o")
        with open(obj_path, "wb") as f:
            f.write(object_code)
        tmp_out = os.path.join(work, name + suffix)
        _link(linker, obj_path, tmp_out)
        shutil.copyfile(tmp_out, out_path + ".tmp")
        os.replace(out_path + ".tmp", out_path)
    if verbose:
        for spec in specializations:
            print(f"  {spec.name}: {spec.signature}", file=sys.stderr)
    return out_path

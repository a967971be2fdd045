"""The CPU JIT engine: LLVM IR text → optimized machine code in this process.

One MCJIT engine per process holds every compiled module; symbols of the CPython C API and
the C math library are resolved in-process. LLVM is initialized on first use, so
`import kiln` stays cheap."""
from __future__ import annotations

import ctypes
import os
import re
import threading
from functools import cached_property

import llvmlite
import llvmlite.binding as llvm

from .cache import cache_key

_lock = threading.RLock()


class CPUEngine:
    def __init__(self):
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.triple = llvm.get_process_triple()
        self.cpu_name = llvm.get_host_cpu_name()
        self.cpu_features = llvm.get_host_cpu_features().flatten()
        self.target_machine = target.create_target_machine(
            cpu=self.cpu_name, features=self.cpu_features, opt=3, reloc="default",
            codemodel="jitdefault")
        self.data_layout = str(self.target_machine.target_data)
        seed = llvm.parse_assembly("")
        seed.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(seed, self.target_machine)
        _bind_python_symbols()
        _bind_half_conversions()

    def _optimize(self, module, level):
        pto = llvm.create_pipeline_tuning_options(speed_level=level)
        pto.loop_vectorization = level >= 2
        pto.slp_vectorization = level >= 2
        pto.loop_unrolling = level >= 2
        pb = llvm.create_pass_builder(self.target_machine, pto)
        pm = pb.getModulePassManager()
        pm.run(module, pb)

    @cached_property
    def fingerprint(self) -> str:
        """What machine code depends on besides the IR: part of every cache key."""
        from .. import __version__
        return f"{self.triple} {self.cpu_name} {self.cpu_features} llvm{llvm.llvm_version_info} " \
               f"llvmlite{llvmlite.__version__} kiln{__version__}"

    def optimized_module(self, llvm_ir: str, level: int = 3):
        module = llvm.parse_assembly(_prefer_vector_width(llvm_ir))
        module.triple = self.triple
        module.data_layout = self.data_layout
        module.verify()
        self._optimize(module, level)
        return module

    def compile(self, llvm_ir: str, level: int = 3, object_refs=None,
                cache=None) -> "CompiledModule":
        """Optimize and load one module, or load its object code from `cache` on a hit.
        `object_refs` maps the module's `kiln.obj.*` symbols to the Python objects they
        name; `cache` is None when the code may not be cached."""
        with _lock:
            key = cache_key(llvm_ir, self.fingerprint) if cache is not None else None
            obj = cache.load(key) if cache is not None else None
            module = None
            if obj is None:
                module = self.optimized_module(llvm_ir, level)
                obj = self.target_machine.emit_object(module)
                if cache is not None:
                    cache.save(key, obj)
            bind_objects(object_refs or {})
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            self.engine.finalize_object()
            return CompiledModule(self, llvm_ir, level, module, from_cache=module is None)

    def function_address(self, name: str) -> int:
        return self.engine.get_function_address(name)


class CompiledModule:
    """Loaded machine code; the optimized IR and assembly are produced again on request
    when the code came from the cache."""

    def __init__(self, engine, llvm_ir, level, module, from_cache):
        self.engine = engine
        self.llvm_ir = llvm_ir
        self.level = level
        self._module = module
        self.from_cache = from_cache

    @property
    def module(self):
        if self._module is None:
            self._module = self.engine.optimized_module(self.llvm_ir, self.level)
        return self._module

    @cached_property
    def optimized_ir(self) -> str:
        return str(self.module)

    @cached_property
    def assembly(self) -> str:
        return self.engine.target_machine.emit_assembly(self.module)

    def address(self, name: str) -> int:
        return self.engine.function_address(name)


# Vectorize with 256-bit registers even where 512 exist (clang's choice for most x86 CPUs):
# streaming loops load fewer split cache lines and run faster; KILN_VECTOR_WIDTH overrides.
VECTOR_WIDTH = os.environ.get("KILN_VECTOR_WIDTH", "256")
_DEFINE = re.compile(r"^(define [^\n]*?)\s*\{$", re.MULTILINE)


def _prefer_vector_width(llvm_ir: str) -> str:
    return _DEFINE.sub(rf'\1 "prefer-vector-width"="{VECTOR_WIDTH}" {{', llvm_ir)


_bound_objects = {}  # symbol -> (ctypes cell holding the object's address, the object)


def bind_objects(object_refs):
    """Point each `kiln.obj.*` symbol at a cell holding its object's address in this process."""
    for symbol, obj in object_refs.items():
        if symbol not in _bound_objects:
            cell = ctypes.c_void_p(id(obj))
            _bound_objects[symbol] = (cell, obj)
            llvm.add_symbol(symbol, ctypes.addressof(cell))


_PY_SYMBOLS = [
    "PyLong_AsLongLong", "PyLong_AsUnsignedLongLong", "PyLong_FromLongLong",
    "PyLong_FromUnsignedLongLong", "PyFloat_FromDouble",
    "PyBool_FromLong", "PyComplex_FromDoubles", "PyTuple_New", "PyTuple_SetItem",
    "PyErr_SetString", "PyErr_SetObject", "PyErr_SetNone", "PyErr_Occurred", "PyErr_Clear",
    "PyType_IsSubtype", "Py_IncRef", "Py_DecRef",
    "PyObject_CallFunctionObjArgs", "PyObject_CallObject", "PyLong_FromVoidPtr", "PyLong_FromSsize_t",
    "PyLong_AsVoidPtr", "PyUnicode_FromString", "PyGILState_Ensure", "PyGILState_Release",
    "PyEval_SaveThread", "PyEval_RestoreThread", "PyCapsule_New", "PyCapsule_GetPointer",
    "PyGILState_Check", "PyErr_Fetch", "PyErr_NormalizeException", "PyException_SetTraceback",
]
_PY_DATA = ["_Py_NoneStruct", "_Py_TrueStruct", "_Py_FalseStruct", "_Py_NotImplementedStruct",
            "PyLong_Type", "PyFloat_Type", "PyComplex_Type", "PyBool_Type", "PyTuple_Type"]


def _bind_python_symbols():
    """Make the CPython C API and the exception classes visible to JIT-compiled code."""
    api = ctypes.pythonapi
    for name in _PY_SYMBOLS:
        llvm.add_symbol(name, ctypes.cast(getattr(api, name), ctypes.c_void_p).value)
    for name in _PY_DATA:
        llvm.add_symbol(name, ctypes.addressof(ctypes.c_char.in_dll(api, name)))
    import builtins
    from ..codegen.exceptions import BUILTIN_CLASS_SYMBOL
    for name, value in vars(builtins).items():
        if isinstance(value, type) and issubclass(value, BaseException):
            try:
                address = ctypes.addressof(ctypes.c_char.in_dll(api, f"PyExc_{name}"))
            except ValueError:
                continue
            llvm.add_symbol(BUILTIN_CLASS_SYMBOL.format(name), address)


# LLVM lowers a float16 conversion the CPU has no instruction for (float64 -> float16
# always) to a call to compiler-rt's helper; the JIT has no compiler-rt, and an unresolved
# call jumps to address 0. GCC's runtime (12 and later) has the same helpers, same ABI.
_HALF_HELPERS = ["__truncdfhf2", "__truncsfhf2", "__extendhfsf2"]


def _bind_half_conversions():
    try:
        library = ctypes.CDLL("libgcc_s.so.1")
    except OSError:
        return
    for name in _HALF_HELPERS:
        if hasattr(library, name):
            llvm.add_symbol(name, ctypes.cast(getattr(library, name), ctypes.c_void_p).value)


_engine = None


def get_engine() -> CPUEngine:
    global _engine
    with _lock:
        if _engine is None:
            _engine = CPUEngine()
        return _engine

"""The CPU JIT engine: LLVM IR text → optimized machine code in this process.

One MCJIT engine per process holds every compiled module; symbols of the CPython C API and
the C math library are resolved in-process. LLVM is initialized on first use, so
`import kiln` stays cheap."""
from __future__ import annotations

import ctypes
import threading
from functools import cached_property

import llvmlite.binding as llvm

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
        self._modules = []  # keep modules alive for the process
        _bind_python_symbols()

    def _optimize(self, module, level):
        pto = llvm.create_pipeline_tuning_options(speed_level=level)
        pto.loop_vectorization = level >= 2
        pto.slp_vectorization = level >= 2
        pto.loop_unrolling = level >= 2
        pb = llvm.create_pass_builder(self.target_machine, pto)
        pm = pb.getModulePassManager()
        pm.run(module, pb)

    def compile(self, llvm_ir: str, level: int = 3) -> "CompiledModule":
        """Parse, verify, optimize and JIT one module; returns its optimized IR and symbols."""
        with _lock:
            module = llvm.parse_assembly(llvm_ir)
            module.triple = self.triple
            module.data_layout = self.data_layout
            module.verify()
            self._optimize(module, level)
            self.engine.add_module(module)
            self.engine.finalize_object()
            self.engine.run_static_constructors()
            self._modules.append(module)
            return CompiledModule(self, module)

    def function_address(self, name: str) -> int:
        return self.engine.get_function_address(name)


class CompiledModule:
    def __init__(self, engine, module):
        self.engine = engine
        self.module = module

    @cached_property
    def optimized_ir(self) -> str:
        return str(self.module)

    @cached_property
    def assembly(self) -> str:
        return self.engine.target_machine.emit_assembly(self.module)

    def address(self, name: str) -> int:
        return self.engine.function_address(name)


_PY_SYMBOLS = [
    "PyLong_AsLongLong", "PyLong_AsUnsignedLongLong", "PyLong_FromLongLong",
    "PyLong_FromUnsignedLongLong", "PyFloat_AsDouble", "PyFloat_FromDouble",
    "PyBool_FromLong", "PyComplex_FromDoubles", "PyTuple_New", "PyTuple_SetItem",
    "PyErr_SetString", "PyErr_Occurred", "PyErr_Clear", "Py_IncRef", "Py_DecRef",
    "PyObject_Vectorcall", "PyObject_CallFunctionObjArgs", "PyTuple_GetItem",
    "PyLong_AsVoidPtr", "PyUnicode_FromString", "PyGILState_Ensure", "PyGILState_Release",
    "PyEval_SaveThread", "PyEval_RestoreThread",
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
    for name, value in vars(builtins).items():
        if isinstance(value, type) and issubclass(value, BaseException):
            try:
                address = ctypes.addressof(ctypes.c_char.in_dll(api, f"PyExc_{name}"))
            except ValueError:
                continue
            llvm.add_symbol(f"PyExc_{name}", address)


_engine = None


def get_engine() -> CPUEngine:
    global _engine
    with _lock:
        if _engine is None:
            _engine = CPUEngine()
        return _engine

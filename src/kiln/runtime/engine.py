"""The CPU JIT engine: LLVM IR text → optimized machine code in this process.

One MCJIT engine per process holds every compiled module; symbols of the CPython C API and
the C math library are resolved in-process. LLVM is initialized on first use, so
`import kiln` stays cheap. It sits in the runtime, under codegen, as the runtime's own
parts (NRT, the stack guard, the thread layer) compile into it; binding the parts a
module calls before loading it is library/linking.py's."""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import threading
from functools import cached_property

import llvmlite
import llvmlite.binding as llvm

from .cache import cache_key, internal_cache, kiln_stamp
from ..options import cpu_target, opt_level
from .symbols import bind_process_symbols

lock = threading.RLock()   # held while code is compiled or loaded


class CPUEngine:
    def __init__(self):
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.triple = llvm.get_process_triple()
        # the host's, or what KILN_CPU_NAME/CPU_FEATURES/ENABLE_AVX say (options.py)
        self.cpu_name, self.cpu_features = cpu_target()
        self.opt_level = opt_level()   # Numba's OPT: the level of the functions it compiles
        self.target_machine = target.create_target_machine(
            cpu=self.cpu_name, features=self.cpu_features, opt=3, reloc="default",
            codemodel="jitdefault")
        self.data_layout = str(self.target_machine.target_data)
        seed = llvm.parse_assembly("")
        seed.triple = self.triple
        self.engine = llvm.create_mcjit_compiler(seed, self.target_machine)
        bind_process_symbols(llvm.add_symbol)

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
        """What machine code depends on besides the IR and its optimization level (the
        level is in every key beside it)."""
        from ..version import __version__
        return f"{self.triple} {self.cpu_name} {self.cpu_features} llvm{llvm.llvm_version_info} " \
               f"llvmlite{llvmlite.__version__} kiln{__version__}"

    def optimized_module(self, llvm_ir: str, level: int = 3):
        module = llvm.parse_assembly(_prefer_vector_width(llvm_ir))
        module.triple = self.triple
        module.data_layout = self.data_layout
        module.verify()
        self._optimize(module, level)
        return module

    def compile(self, llvm_ir: str, level: int | None = None, object_refs=None,
                cache=None) -> "CompiledModule":
        """Optimize (at `level`, else OPT's) and load one module, or load its object code
        from `cache` on a hit. `object_refs` maps the module's `kiln.obj.*` symbols to the
        Python objects they name; `cache` is None when the code may not be cached."""
        level = self.opt_level if level is None else level
        with lock:
            key = cache_key(llvm_ir, f"{self.fingerprint} O{level}") if cache is not None \
                else None
            obj = cache.load(key) if cache is not None else None
            module = None
            if obj is None:
                module = self.optimized_module(llvm_ir, level)
                obj = self.target_machine.emit_object(module)
                if cache is not None:
                    cache.save(key, obj)
            self.load_object(obj, object_refs or {})
            compiled = CompiledModule(self, llvm_ir, level, module, from_cache=module is None,
                                      object_code=obj)
            compiled.object_symbols = tuple(object_refs or ())
            return compiled

    def compile_internal(self, name: str, make_ir, level: int = 2) -> "CompiledModule":
        """Compile one of kiln's own modules (`make_ir()` gives its IR), cached under
        `name` for this kiln and this CPU: a process that finds it never builds the IR."""
        with lock:
            store = internal_cache(name)
            key = hashlib.sha256(f"{self.fingerprint} {kiln_stamp()} {name} {level}"
                                 .encode()).hexdigest()
            obj = store.load(key)
            if obj is None:   # also kept under its IR's key, which outlives an edit of kiln
                compiled = self.compile(make_ir(), level, cache=store)
                store.save(key, compiled.object_code)
                return compiled
            self.load_object(obj, {})
            return CompiledModule(self, make_ir, level, None, from_cache=True, object_code=obj)

    def unloaded(self, llvm_ir: str) -> "CompiledModule":
        """The module of code loaded before from a cache entry, for its IR and assembly."""
        return CompiledModule(self, llvm_ir, self.opt_level, None, from_cache=True)

    def load_object(self, obj: bytes, object_refs):
        """Load object code, its `kiln.obj.*` symbols bound to `object_refs`' objects."""
        with lock:
            bind_objects(object_refs)
            self.engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
            self.engine.finalize_object()

    def function_address(self, name: str) -> int:
        return self.engine.get_function_address(name)

    def export(self, name: str) -> None:
        """Make the loaded function `name` resolvable from modules loaded later."""
        llvm.add_symbol(name, self.function_address(name))


class CompiledModule:
    """Loaded machine code; the optimized IR and assembly are produced again on request
    when the code came from the cache."""

    def __init__(self, engine, llvm_ir, level, module, from_cache, object_code=None):
        self.engine = engine
        self._llvm_ir = llvm_ir     # the IR, or what makes it (kiln's own modules)
        self.level = level
        self._module = module
        self.from_cache = from_cache
        self.object_code = object_code
        self.runtime_needs = ()     # what the code calls of the runtime (library/linking.py)
        self.object_symbols = ()    # its `kiln.obj.*` symbols

    @cached_property
    def llvm_ir(self) -> str:
        return self._llvm_ir() if callable(self._llvm_ir) else self._llvm_ir

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


_engine = None


def get_engine() -> CPUEngine:
    global _engine
    with lock:
        if _engine is None:
            _engine = CPUEngine()
        return _engine

"""`@cuda.jit`: kernels (launched as `kernel[blocks, threads](args)`) and device functions
(`device=True`, called from kernels), lazy or with eager signatures, as in Numba."""
from __future__ import annotations

import functools
import inspect

from kiln import types
from kiln.types import Signature

from . import args as kernel_args
from . import backend, checks, launch, signatures
from .kernelcontext import current, in_kernel

_OPTIONS = {"debug", "opt", "lineinfo", "cache", "fastmath", "inline", "link", "max_registers",
            "boundscheck", "lto", "extensions"}


def jit(func_or_sig=None, device=False, **options):
    """Compile a kernel, or a device function with `device=True`.

    Spellings: `@cuda.jit`, `@cuda.jit(device=True)`, `@cuda.jit("void(f4[:])")`,
    `@cuda.jit(["void(f4[:])", "void(f8[:])"])`, `@cuda.jit(sig, device=True)`.
    """
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"unknown option(s) for cuda.jit: {', '.join(sorted(unknown))}")
    if callable(func_or_sig) and not isinstance(func_or_sig, Signature):
        return _make(func_or_sig, None, device, options)
    sigs = func_or_sig

    def decorate(func):
        if not callable(func):
            raise TypeError(f"@cuda.jit decorates a function, not {func!r}")
        return _make(func, sigs, device, options)
    return decorate


def _make(func, sigs, device, options):
    return (DeviceFunction if device else Kernel)(func, sigs, options)


class _Compiled:
    """What kernels and device functions share: the Python function, its signatures and
    the one-time source check (at decoration with signatures, else at first use)."""

    kind = ""

    def __init__(self, py_func, sigs, options):
        if isinstance(py_func, _Compiled):
            py_func = py_func.py_func
        self.py_func = py_func
        functools.update_wrapper(self, py_func)
        self.options = dict(options)
        self._pysig = inspect.signature(py_func)
        params = self._pysig.parameters.values()
        self._nparams = len(self._pysig.parameters)
        self._simple = all(p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty
                           for p in params)
        self._sigs = [] if sigs is None else \
            signatures.parse(self.__name__, self.kind, sigs, self._nparams)
        self._checked = False
        if self._sigs:
            self._check()

    def _check(self):
        checks.check_source(self.py_func, self.kind)
        self._checked = True

    @property
    def signatures(self) -> list:
        """The explicit signatures (empty for a lazily typed function)."""
        return list(self._sigs)

    def __repr__(self):
        return f"<{self.kind} {self.__qualname__}>"

    def compile_options(self) -> dict:
        """What the decorator's options ask of the PTX compiler."""
        return {"fastmath": self.options.get("fastmath", False),
                "lineinfo": bool(self.options.get("lineinfo", False)),
                "debug": bool(self.options.get("debug", False))}

    def inspect_llvm(self, signature=None):
        """The LLVM IR compiled for the GPU (before libdevice and optimization): for
        `signature`, else a dict of it per explicit signature's argument types."""
        from .ptx import compile_llvm
        return self._per_signature(signature, lambda sig: compile_llvm(
            self, sig, self.kind != "kernel", **self.compile_options())[0])

    def inspect_asm(self, signature=None, cc=None):
        """The PTX for compute capability `cc` (default: the current device's when there is
        one, else compile_ptx's): for `signature`, else a dict per explicit signature."""
        from .ptx import compile_ptx, target_cc
        if cc is None and backend.active.is_available():
            cc = target_cc(backend.active.context().device.compute_capability)
        options = self.compile_options() | ({"cc": cc} if cc is not None else {})
        return self._per_signature(signature, lambda sig: compile_ptx(
            self, sig, self.kind != "kernel", **options)[0])

    def inspect_types(self, signature=None, file=None):
        """Print the source annotated with each local's type as typed for the GPU: for
        `signature`, else for each explicit signature."""
        from ..cpu.annotate import annotate
        from .ptx import type_for_device
        typed = self._per_signature(signature, lambda sig: type_for_device(
            self.py_func, sig, self.kind != "kernel", self.options.get("fastmath", False)))
        print("\n".join(annotate(t) for t in (typed.values() if signature is None
                                                else [typed])), file=file)

    def _per_signature(self, signature, compile_one):
        """For `signature`; else a dict for each explicit signature or, without any, for
        the argument types launches compiled the kernel for (as Numba's overloads)."""
        if signature is not None:
            return compile_one(signature)
        if not self._sigs:
            return {argtypes: compile_one(Signature(types.void, argtypes))
                    for argtypes in backend.active.compiled_argtypes(self)}
        return {tuple(sig.args): compile_one(sig) for sig in self._sigs}


class Kernel(_Compiled):
    """A CUDA kernel (Numba's `CUDADispatcher`)."""

    kind = "kernel"

    def __init__(self, py_func, sigs, options):
        super().__init__(py_func, sigs, options)
        self.known_launches = {}   # the back-end's short paths, by the arguments' kinds
        self._configured = {}      # kernel[key] by (key, current context)
        self._specializations = {}   # specialize()'s kernels by argument types
        # Numba's launch extensions: each one's prepare_args sees the arguments first
        self.extensions = list(options.get("extensions") or ())

    @property
    def specialized(self) -> bool:
        """Whether the kernel takes one set of argument types only (one signature)."""
        return len(self._sigs) == 1

    def specialize(self, *args):
        """This kernel compiled for the types of `args` only (Numba's): a kernel with that
        one signature, kept for the next call with the same types."""
        if self._sigs:
            raise RuntimeError(f"kernel '{self.__name__}' is already specialized: it was "
                               "given signatures; specialize() is for a lazily typed kernel")
        argtypes = signatures.argument_types(self.__name__, args)
        found = self._specializations.get(argtypes)
        if found is None:
            found = self._specializations[argtypes] = Kernel(
                self.py_func, [Signature(types.none, argtypes)], self.options)
        return found

    def __getitem__(self, key):
        """The kernel configured by `key`, kept for the next `kernel[key]` on the same device
        (a launch in a loop checks its configuration once)."""
        try:
            found = self._configured.get((key, backend.active.context()))
        except TypeError:   # an unhashable key (a list): checked every time
            return ConfiguredKernel(self, launch.parse(self.__name__, key))
        if found is None:
            if len(self._configured) >= 64:   # streams in keys: do not keep them all alive
                self._configured.clear()
            found = self._configured[(key, backend.active.context())] = \
                ConfiguredKernel(self, launch.parse(self.__name__, key))
        return found

    def takes_as_given(self, nargs) -> bool:
        """Whether `nargs` positional arguments bind as they are (no defaults to fill in) to
        a kernel whose source was checked."""
        return self._checked and self._simple and nargs == self._nparams

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        """`kernel[griddim, blockdim, stream, sharedmem]` (kept as that is)."""
        return self[griddim, blockdim, stream, sharedmem]

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launch with one thread per task: `kernel.forall(n)(args)`."""
        if ntasks < 0:
            raise ValueError(f"kernel '{self.__name__}': forall takes a task count >= 0, not "
                             f"{ntasks} (Can't create ForAll with negative task count)")
        tpb = tpb or min(max(ntasks, 1), 128)
        return self.configure(max(-(-ntasks // tpb), 1), tpb, stream, sharedmem)

    @property
    def cooperative(self) -> bool:
        """Whether the kernel syncs its grid (cuda.cg), so is launched cooperatively."""
        found = self.__dict__.get("_cooperative")
        if found is None:
            found = self._cooperative = checks.uses_grid_sync(self.py_func)
        return found

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of `blockdim` threads a cooperative launch of this kernel can
        have on the current device (for its one explicit signature)."""
        if len(self._sigs) != 1:
            raise TypeError(f"kernel '{self.__name__}': max_cooperative_grid_blocks needs "
                            f"exactly one signature, it has {len(self._sigs)}; give "
                            "@cuda.jit one")
        return backend.active.max_cooperative_blocks(self, tuple(self._sigs[0].args),
                                                     launch.threads_of(blockdim), dynsmem)

    # -- what the compiled kernel uses of the device (Numba's names) ----------------------
    def get_regs_per_thread(self, signature=None):
        return self._resource("regs_per_thread", signature)

    def get_shared_mem_per_block(self, signature=None):
        """Static shared memory (dynamic shared memory is given per launch)."""
        return self._resource("shared_mem_per_block", signature)

    def get_local_mem_per_thread(self, signature=None):
        return self._resource("local_mem_per_thread", signature)

    def get_const_mem_size(self, signature=None):
        return self._resource("const_mem_size", signature)

    def get_max_threads_per_block(self, signature=None):
        return self._resource("max_threads_per_block", signature)

    def _resource(self, name, signature):
        """For `signature`, else a dict per explicit signature's argument types."""
        return self._per_signature(signature, lambda sig: backend.active.kernel_resources(
            self, _argument_types(sig))[name])

    def __call__(self, *args, **kwargs):
        if in_kernel():   # called from device code: a device function (as in Numba)
            if not self.__dict__.get("_checked_as_device"):
                checks.check_source(self.py_func, DeviceFunction.kind)
                self._checked_as_device = True
            return current(self.__name__).call(self.py_func, args, kwargs)
        raise ValueError(f"kernel '{self.__name__}' was called without a launch "
                         f"configuration (launch configuration was not specified); launch "
                         f"it as {self.__name__}[blocks, threads](...)")

    def _kiln_typeof_(self):  # called from a kernel compiled for the GPU: a device function
        from .nvvm import device_function_type
        return device_function_type(self)

    @property
    def overloads(self) -> dict:
        """The kernel per tuple of argument types it is compiled for (Numba's): its
        signatures' and its launches'; another tuple of types gives that kernel too."""
        found = _Overloads(self)
        for argtypes in [tuple(sig.args) for sig in self._sigs] + \
                list(backend.active.compiled_argtypes(self)):
            found[argtypes] = _Overload(self, argtypes)
        return found

    def _bind(self, args):
        if self._simple and len(args) == self._nparams:
            return args
        try:
            bound = self._pysig.bind(*args)
        except TypeError as exc:
            raise TypeError(f"kernel '{self.__name__}' takes {self._nparams} arguments "
                            f"({', '.join(self._pysig.parameters)}) but was launched with "
                            f"{len(args)}: {exc}") from None
        bound.apply_defaults()
        return bound.args

    def launch(self, config, args):
        """Run the kernel with a checked LaunchConfig (what `kernel[...](args)` does)."""
        if not self._checked:
            self._check()
        if in_kernel():
            raise RuntimeError(f"kernel '{self.__name__}' cannot be launched from inside a "
                               "kernel (dynamic parallelism is not supported)")
        args = self._bind(args)
        if self.extensions:
            args = kernel_args.extended(self.extensions, args, config.stream)
        writebacks = []
        device_args = kernel_args.prepare(self.__name__, args, config.stream, writebacks)
        if self._sigs:
            device_args = signatures.match(self.__name__, self._sigs, device_args)
        backend.active.launch(self, config, device_args)
        kernel_args.write_back(writebacks, config.stream)


class _Overload:
    """The kernel for one tuple of argument types (what Numba's `overloads` holds)."""

    def __init__(self, kernel, argtypes):
        self.kernel = kernel
        self.argtypes = argtypes
        self.signature = Signature(types.void, argtypes)

    @property
    def cooperative(self) -> bool:
        return self.kernel.cooperative

    def max_cooperative_grid_blocks(self, blockdim, dynsmem=0):
        """The most blocks of `blockdim` threads a cooperative launch can have."""
        return backend.active.max_cooperative_blocks(self.kernel, self.argtypes,
                                                     launch.threads_of(blockdim), dynsmem)

    def __repr__(self):
        return f"<kernel {self.kernel.__name__}{self.signature}>"


class _Overloads(dict):
    def __init__(self, kernel):
        super().__init__()
        self._kernel = kernel

    def __missing__(self, argtypes):
        return _Overload(self._kernel, tuple(argtypes))


class ConfiguredKernel:
    """`kernel[blocks, threads, ...]`: call it with the kernel's arguments to launch."""

    __slots__ = ("kernel", "config", "_table")

    def __init__(self, kernel, config):
        self.kernel = kernel
        self.config = config
        self._table = None   # the back-end's compiled calls, when it has them
        backend.active.bind_launch(self)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError(f"kernel '{self.kernel.__name__}' is launched with positional "
                            f"arguments only, not {', '.join(kwargs)}=")
        kernel = self.kernel
        if kernel.extensions or not backend.active.launch_known(kernel, self.config, args):
            kernel.launch(self.config, args)

    def __repr__(self):
        c = self.config
        return f"<{self.kernel.__name__}[{c.griddim}, {c.blockdim}]>"


class DeviceFunction(_Compiled):
    """A function kernels call, which may return a value."""

    kind = "device function"

    def __call__(self, *args, **kwargs):
        if not in_kernel():
            raise TypeError(f"device function '{self.__name__}' can only be called from a "
                            "kernel or another device function")
        if not self._checked:
            self._check()
        return current(self.__name__).call(self.py_func, args, kwargs)

    def _kiln_typeof_(self):  # how kernels compiled for the GPU call it (cuda/nvvm.py)
        from .nvvm import device_function_type
        return device_function_type(self)

    def __getitem__(self, key):
        raise TypeError(f"device function '{self.__name__}' cannot be launched; only kernels "
                        "(@cuda.jit without device=True) take a launch configuration")


def _argument_types(signature) -> tuple:
    """The argument types of a signature given as text, a Signature or a tuple of types."""
    if isinstance(signature, tuple):
        return signature
    return tuple(types.parse_signature(signature).args)

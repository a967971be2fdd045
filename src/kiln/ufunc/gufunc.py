"""`@guvectorize`: a kernel over core dimensions ("(n),(n)->()") compiled into a NumPy
generalized ufunc, with Numba's API.

The kernel writes its outputs, which are its last arguments, in place. As in Numba it may
write its inputs too: the write lands in the operand unless NumPy passed a cast copy,
which NumPy writes back for the inputs named in `writable_args`. NumPy loops over the
broadcast outer dimensions and calls the inner loop, which builds each argument's core view
(a strided array of the core shape, or the scalar itself for a "()" input declared as a
number; a "()" output is a one-element array, as in Numba) and calls the kernel.

As Numba's, `guvectorize` (and the builder `GUVectorize`) gives a `GUFunc` whose calls go
to `.ufunc`, the real NumPy gufunc of its loops (`.signature`, broadcasting, `out=`, what
`dask.array.apply_gufunc` needs); target='parallel' with signatures gives that gufunc
itself. Without signatures the GUFunc is dynamic: it compiles a loop for the dtypes of
each call, whose outputs must then be passed. Compiled code calls a GUFunc through
gufunc_calls.py.
"""
from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..decorators import warn_if_nopython_false
from ..errors import TypingError
from ..runtime.threads import for_range
from ..types.signature import parse_signature
from ..types.ufunc_operands import check_core_type, input_type, layout_text, parse_layout
from . import gufunc_calls, pickling
from .loops import check_identity, compile_loop, make_ufunc
from .object_mode import object_mode_kernel
from .vectorize import check_options, kernel_cache, kernel_options

def guvectorize(*args, **options):
    """`@guvectorize([sigs], "(n),(n)->()", target=..., identity=...)`, or
    `@guvectorize("(n),(n)->()")` (lazy: a dynamic GUFunc)."""
    warn_if_nopython_false(options, "guvectorize")
    if len(args) == 1 and isinstance(args[0], str) and args[0].lstrip().startswith("("):
        signatures, layout = (), args[0]
        options.setdefault("is_dynamic", True)
    elif len(args) == 2:
        signatures, layout = args
        if isinstance(signatures, (str, t.Signature)):
            signatures = [signatures]
    else:
        raise TypeError("guvectorize takes a list of signatures and a layout such as "
                        "'(n),(n)->()', or only the layout")
    parse_layout(layout)

    def decorate(fn):
        fn = getattr(fn, "py_func", fn)    # an @njit function: its Python function
        if options.get("target") == "cuda":
            from ..cuda.gufunc import CUDAGUFunc
            cuda_options = {k: v for k, v in options.items() if k != "is_dynamic"}
            check_options(fn, {**cuda_options, "target": "cpu"}, "guvectorize")
            if cuda_options.get("writable_args"):
                raise TypeError("writable_args is for guvectorize's CPU targets; a CUDA "
                                "gufunc's kernel reads device copies of host inputs")
            ins, outs = parse_layout(layout)
            return CUDAGUFunc(fn, signatures, ins, outs)
        gufunc = GUVectorize(fn, layout, **options)
        for sig in signatures:
            gufunc.add(sig)
        if signatures:
            gufunc.disable_compile()
        return gufunc.build_ufunc()
    return decorate


class GUVectorize:
    """Numba's builder of gufuncs (`numba.np.ufunc.GUVectorize`): `GUVectorize(fn, layout,
    target=..., identity=..., cache=..., is_dynamic=..., writable_args=...)` is a GUFunc;
    `.add(signature)` compiles a loop, `.build_ufunc()` gives the gufunc (for
    target='parallel', the NumPy gufunc itself, as Numba's)."""

    def __new__(cls, func, signature, **options):
        options = dict(options)
        is_dynamic = bool(options.pop("is_dynamic", False))
        writable_args = tuple(options.pop("writable_args", ()))
        func = getattr(func, "py_func", func)
        target = check_options(func, options, "guvectorize")
        ins, outs = parse_layout(signature)
        kernel = _GKernel(func, ins, outs, target == "parallel", options, signature,
                          _writable_inputs(func, writable_args, len(ins)))
        made_by = (func, signature, dict(options, writable_args=writable_args))
        return GUFunc(kernel, made_by, is_dynamic, target)


def _writable_inputs(fn, writable_args, nin):
    """The inputs named (by position or by name) in `writable_args`: the kernel may write
    them, and NumPy writes a cast copy back. Other inputs are read-only in the kernel."""
    names = list(inspect.signature(fn).parameters)
    chosen = set()
    for arg in writable_args:
        index = names.index(arg) if arg in names else arg
        if not isinstance(index, int) or not 0 <= index < nin:
            raise ValueError(f"writable_args of {fn.__name__}(): {arg!r} is not one of its "
                             f"{nin} inputs {names[:nin]} (outputs are always writable)")
        chosen.add(index)
    return frozenset(chosen)


class _GKernel:
    def __init__(self, fn, ins, outs, parallel, options, layout, writable):
        self.fn, self.parallel = fn, parallel
        self.writable = writable   # inputs NumPy writes back from a cast copy (writable_args)
        self.cores = ins + outs
        self.nin, self.nout = len(ins), len(outs)
        self.layout = layout_text(ins, outs)
        self.layout_source = layout    # as written, for messages (Numba's)
        self.forceobj = bool(options.get("forceobj"))
        self.identity = options.get("identity")
        check_identity(self.identity)
        self.options = kernel_options(options)
        self.cache = kernel_cache(fn, options)
        nargs = len(inspect.signature(fn).parameters)
        if nargs != len(self.cores):
            raise TypeError(f"{fn.__name__}() takes {nargs} arguments but the layout "
                            f"{layout!r} has {len(self.cores)} operands")
        self.loops = {}    # kernel argument types -> (address, NumPy dtypes), in order
        self.signatures = []   # void(argument types as declared), in the order compiled
        self.keepalive = []

    def compile_signature(self, sig):
        parsed = parse_signature(sig)
        if parsed.return_type not in (None, t.none):
            raise TypeError(f"guvectorize signature {sig!r}: the kernel writes its outputs "
                            "and returns nothing; write it as 'void(float64[:], ...)'")
        self.compile(tuple(parsed.args))

    def compile(self, argtypes):
        if len(argtypes) != len(self.cores):
            raise TypeError(f"{self.fn.__name__}: the signature has {len(argtypes)} "
                            f"arguments, but the layout {self.layout!r} has "
                            f"{len(self.cores)} operands")
        kernel_types = tuple(self.kernel_type(k, ty) for k, ty in enumerate(argtypes))
        if kernel_types in self.loops:
            return kernel_types
        fn = object_mode_kernel(self.fn, None, kernel_types) if self.forceobj else self.fn
        address, typed, keep = compile_loop(
            fn, kernel_types, None, self.options, self.parallel,
            functools.partial(_core_stretch, self.cores), self.cache)
        if typed.return_type != t.none:
            raise TypeError(f"{self.fn.__name__}() returns {typed.return_type}; a guvectorize "
                            "kernel writes its outputs and returns nothing")
        self.keepalive.append(keep)
        self.loops[kernel_types] = (address, [getattr(ty, "dtype", ty).np_dtype
                                              for ty in kernel_types])
        self.signatures.append(t.none(*argtypes))
        return kernel_types

    def kernel_type(self, k, ty):
        core = self.cores[k]
        if isinstance(ty, t.Array) and ty.ndim != len(core) and (core or ty.ndim != 1):
            raise TypeError(f"type and shape signature mismatch for arg #{k + 1}")
        if isinstance(ty, t.Number) and core:
            raise TypeError(f"scalar type {ty} given for non scalar argument #{k + 1}")
        check_core_type(self.fn.__name__, self.layout, core, k < self.nin, k, ty)
        if isinstance(ty, t.Number):
            return ty
        # inputs are writable, as in Numba: a write lands in the operand unless NumPy
        # passed a cast copy (which writable_args makes NumPy write back)
        return t.Array(ty.dtype, ty.ndim, "A")

    def gufunc(self):
        # NumPy keeps the layout as written (its messages quote it, as Numba's do)
        written = str(self.layout_source).strip() if self.nout else self.layout
        return make_ufunc(self.fn.__name__, self.fn.__doc__, list(self.loops.values()),
                          self.nin, self.nout, self.identity, signature=written,
                          writable=self.writable)


def _core_stretch(cores, context, native, typed):
    """The iterations of a gufunc loop: per outer index, each operand's core view."""
    from ..library.arrays import make_array
    names = list(dict.fromkeys(n for core in cores for n in core))
    nargs = len(cores)

    def stretch(b, args, dims, steps, lo, hi, on_error):
        def load(array, index, ty):
            return b.load(b.gep(array, [ir.Constant(dm.i32, index)], source_etype=ty), typ=ty)
        sizes = {n: load(dims, 1 + j, dm.i64) for j, n in enumerate(names)}
        offset, operands = nargs, []
        for k, (core, ty) in enumerate(zip(cores, typed.argtypes)):
            base, outer = load(args, k, dm.ptr), load(steps, k, dm.i64)
            core_steps = [load(steps, offset + d, dm.i64) for d in range(len(core))]
            offset += len(core)
            operands.append((ty, base, outer, [sizes[n] for n in core], core_steps))
        retslot = context.alloca(b, dm.value_type(t.none))
        excslot = context.alloca(b, dm.ptr)
        with for_range(b, lo, hi) as i:
            values = []
            for ty, base, outer, shape, strides in operands:
                data = b.gep(base, [b.mul(i, outer)], source_etype=dm.i8)
                if isinstance(ty, t.Number):
                    values.append(dm.load_item(b, ty, data))
                    continue
                if not shape:  # a "()" operand seen as a one-element array
                    shape = [ir.Constant(dm.i64, 1)]
                    strides = [ir.Constant(dm.i64, ty.dtype.np_dtype.itemsize)]
                values.append(make_array(context, b, ty, data, shape, strides))
            status = b.call(native, [retslot, excslot] + values)
            with b.if_then(b.icmp_signed("!=", status, ir.Constant(dm.i32, 0)), likely=False):
                on_error(b, b.load(excslot, typ=dm.ptr))
                b.ret_void()
    return stretch


class GUFunc:
    """A gufunc made by `@guvectorize` (or GUVectorize), as Numba's GUFunc: calls go to
    `.ufunc`, the NumPy gufunc of the loops compiled so far. A dynamic one (made without
    signatures) compiles a loop for the dtypes of each call, whose outputs must then be
    passed; `disable_compile()` freezes it. Compiled code calls it as it calls a function
    (gufunc_calls.py)."""

    def __init__(self, kernel, made_by, is_dynamic, target="cpu"):
        self._kernel = kernel
        self._made_by = made_by     # (the Python function, layout, options)
        self._lock = threading.Lock()
        self._is_dynamic = is_dynamic
        self._frozen = False
        self._target = target
        self.gufunc_builder = _Builder(kernel)
        self._kernel_call = gufunc_calls.KernelCall(kernel)
        self.ufunc = None
        functools.update_wrapper(self, kernel.fn)
        self.build_ufunc()
        gufunc_calls.register(self, self)

    # -- Numba's builder API ---------------------------------------------------------------
    def add(self, sig):
        """Compile the loop of `sig` ('void(float64[:], float64[:])', a tuple of types)."""
        with self._lock:
            self._kernel.compile_signature(sig)
            self._rebuild()

    def build_ufunc(self):
        """The gufunc: this object (Numba's cpu target), or for target='parallel' with
        signatures the NumPy gufunc itself (as Numba's parallel builder gives)."""
        with self._lock:
            self._rebuild()
        if self._target == "parallel" and not self._is_dynamic:
            return self.ufunc
        return self

    def disable_compile(self):
        """Compile nothing more: calls take the loops there are."""
        if not self._kernel.loops:
            raise RuntimeError(f"{self.__name__} has no loop to keep: add a signature first")
        self._frozen = True

    def _rebuild(self):
        if self.ufunc is not None and self.ufunc.ntypes == len(self._kernel.loops):
            return
        self.ufunc = self._kernel.gufunc()
        pickling.remember(self.ufunc, pickling.recipe(
            "guvectorize", self._kernel.fn, self._kernel.signatures,
            self._made_by[1], self._made_by[2]))
        if self._kernel.loops:
            gufunc_calls.register(self, self.ufunc)

    @property
    def is_dynamic(self):
        return self._is_dynamic

    # -- calls -----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if self._frozen or not self._is_dynamic:
            return self.ufunc(*args, **kwargs)
        kernel = self._kernel
        nargs = kernel.nin + kernel.nout
        operands = args + tuple(kwargs.pop("out", ()) if isinstance(kwargs.get("out"), tuple)
                                else ([kwargs.pop("out")] if "out" in kwargs else []))
        if len(operands) != nargs:
            raise TypeError(f"Too few arguments for function '{self.__name__}'. Note that the "
                            "pattern `out = gufunc(Arg1, Arg2, ..., ArgN)` is not allowed. "
                            "Use `gufunc(Arg1, Arg2, ..., ArgN, out) instead. "
                            f"({self.__name__} was made by guvectorize without signatures, so "
                            f"it needs all {nargs} operands, outputs included, to choose its "
                            f"loop; got {len(operands)})")
        argtypes = tuple(self._operand_type(k, o) for k, o in enumerate(operands))
        with self._lock:
            if argtypes not in kernel.loops:
                kernel.compile(argtypes)
                self._rebuild()
        # The loop just made for these dtypes, by name: NumPy's search would take an older
        # loop the inputs cast to (float64 for int32), and an output cast from that loop's
        # is a fresh buffer that a kernel adding into its output reads as garbage.
        kwargs.setdefault("signature", tuple(kernel.loops[argtypes][1]))
        return self.ufunc(*operands, **kwargs)

    def _operand_type(self, k, value):
        """A "()" input is a number per element; any other operand a core view."""
        core, dtype = self._kernel.cores[k], input_type(value)
        if not core and k < self._kernel.nin:
            return dtype
        return self._kernel.kernel_type(k, t.Array(dtype, len(core) or 1, "A"))

    def _loop_for_compiled_call(self, dtypes):
        """The kernel types of the loop a call from compiled code with operands of `dtypes`
        runs: without signatures those dtypes' own (compiled now), else Numba's search."""
        kernel = self._kernel
        if not self._frozen:
            argtypes = tuple(dtype if not core and k < kernel.nin else
                             kernel.kernel_type(k, t.Array(dtype, len(core) or 1, "A"))
                             for k, (core, dtype) in enumerate(zip(kernel.cores, dtypes)))
            with self._lock:
                if argtypes not in kernel.loops:
                    kernel.compile(argtypes)
                    self._rebuild()
            return argtypes
        for kernel_types, (_, loop_dtypes) in kernel.loops.items():
            if matches(dtypes, loop_dtypes, kernel.nin):
                return kernel_types
        raise TypingError(f"cannot call {self!r} with types "
                          f"({', '.join(map(str, dtypes))}): its loops are "
                          f"{', '.join(self.types)}")

    # -- the NumPy gufunc's attributes -----------------------------------------------------
    nin = property(lambda self: self._kernel.nin)
    nout = property(lambda self: self._kernel.nout)
    nargs = property(lambda self: self._kernel.nin + self._kernel.nout)
    ntypes = property(lambda self: self.ufunc.ntypes)
    types = property(lambda self: self.ufunc.types)
    identity = property(lambda self: self.ufunc.identity)
    signature = property(lambda self: self.ufunc.signature)
    accumulate = property(lambda self: self.ufunc.accumulate)
    at = property(lambda self: self.ufunc.at)
    outer = property(lambda self: self.ufunc.outer)
    reduce = property(lambda self: self.ufunc.reduce)
    reduceat = property(lambda self: self.ufunc.reduceat)

    def __reduce__(self):
        if pickling.held_by_module(self, self._kernel.fn):
            return self.__qualname__
        fn, layout, options = self._made_by
        return pickling.rebuild_gufunc, (
            pickling.by_value(fn), layout, options, list(self._kernel.signatures),
            self._is_dynamic, self._frozen, pickling.source_for_pickle(fn))

    def __repr__(self):
        return f"<kiln.GUFunc {self.__name__!r} {self._kernel.layout}>"


class _Builder:
    """`GUFunc.gufunc_builder`, as Numba's: the Python function, the layout and the
    signatures compiled (`_sigs`, in order)."""

    def __init__(self, kernel):
        self._kernel = kernel
        self.py_func = kernel.fn
        self.signature = kernel.layout_source

    @property
    def _sigs(self):
        return list(self._kernel.signatures)


def matches(dtypes, loop_dtypes, nin):
    """Numba's loop search (numpy_support.ufunc_find_matching_loop): every input casts to
    the loop's safely (an integer to a float when the inputs mix them), and the loop's
    outputs cast to the given outputs' 'same_kind'."""
    given = [np.dtype(d.np_dtype) for d in dtypes]
    loop = [np.dtype(d) for d in loop_dtypes]
    mixed = any(d.kind in "iu" for d in given[:nin]) and \
        any(d.kind in "cf" for d in given[:nin])

    def can_cast(a, b, casting):
        return (mixed and a.kind in "iu" and b.kind in "cf") or np.can_cast(a, b, casting)
    return all(can_cast(a, b, "safe") for a, b in zip(given[:nin], loop[:nin])) and \
        all(can_cast(b, a, "same_kind") for a, b in zip(given[nin:], loop[nin:]))

"""`@guvectorize`: a kernel over core dimensions ("(n),(n)->()") compiled into a NumPy
generalized ufunc, with Numba's API.

The kernel writes its outputs, which are its last arguments, in place; its inputs are
read-only (a write is a TypingError) unless named in `writable_args`, which makes them
writable operands whose cast copies NumPy writes back, as in Numba. NumPy loops over the
broadcast outer dimensions and calls the inner loop, which builds each argument's core view
(a strided array of the core shape, or the scalar itself for a "()" input declared as a
number; a "()" output is a one-element array, as in Numba) and calls the kernel. With
signatures the result is a real gufunc (`.signature`, broadcasting, `out=`, what
`dask.array.apply_gufunc` needs); without them a `GUFunc` compiles a loop for the dtypes of
each call, whose outputs must then be passed.
"""
from __future__ import annotations

import functools
import inspect
import re

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..runtime.threads import for_range
from ..types.signature import parse_signature
from . import pickling
from .loops import make_ufunc
from .vectorize import Growing, check_options, input_type, kernel_cache, kernel_options

_NAME = re.compile(r"[A-Za-z_]\w*$")


def parse_layout(layout):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)]), or ValueError. A layout
    without '->' ('(n),(n)') has no outputs, as in Numba: the kernel writes into one of
    its operands."""
    text = "".join(str(layout).split())
    parts = text.split("->") if "->" in text else [text, ""]

    def groups(part):
        if not re.fullmatch(r"\([^()]*\)(,\([^()]*\))*", part):
            raise ValueError
        return [tuple(name for name in g.split(",") if name)
                for g in re.findall(r"\(([^()]*)\)", part)]
    try:
        if len(parts) != 2:
            raise ValueError
        ins, outs = groups(parts[0]), groups(parts[1]) if parts[1] else []
        names = [n for core in ins + outs for n in core]
        if not all(_NAME.match(n) for n in names):
            raise ValueError
    except ValueError:
        raise ValueError(f"bad guvectorize layout {layout!r}: write it as NumPy's gufunc "
                         "signatures, e.g. '(n),(n)->()' or '(m,n),(n,p)->(m,p)'") from None
    return ins, outs


def layout_text(ins, outs):
    """The layout as NumPy spells a gufunc's `.signature`: '(m,n),(n)->(m)'."""
    text = ",".join(f"({','.join(c)})" for c in ins)
    return text + "->" + ",".join(f"({','.join(c)})" for c in outs) if outs else text


def check_core_type(name, layout, core, is_input, k, ty):
    """A signature's type for operand k must fit its core dimensions: an array of as many
    dimensions, or for "()" a one-element 1-d array (outputs) or a number (inputs only, as
    outputs are written in place). TypeError otherwise."""
    if isinstance(ty, t.Number) and not core and is_input:
        return
    if isinstance(ty, t.Array) and (ty.ndim == len(core) or (not core and ty.ndim == 1)):
        return
    kind = "a number or a 1-d array" if not core and is_input else \
        f"a {max(len(core), 1)}-d array"
    raise TypeError(f"{name}: operand {k} has the core dimensions ({','.join(core)}) in "
                    f"{layout!r}, so its type must be {kind}, not {ty}")


def guvectorize(*args, **options):
    """`@guvectorize([sigs], "(n),(n)->()", target=..., identity=...)`, or
    `@guvectorize("(n),(n)->()")` (lazy)."""
    if len(args) == 1 and isinstance(args[0], str) and args[0].lstrip().startswith("("):
        signatures, layout = (), args[0]
    elif len(args) == 2:
        signatures, layout = args
        if isinstance(signatures, (str, t.Signature)):
            signatures = [signatures]
    else:
        raise TypeError("guvectorize takes a list of signatures and a layout such as "
                        "'(n),(n)->()', or only the layout")
    ins, outs = parse_layout(layout)
    options = dict(options)
    writable_args = tuple(options.pop("writable_args", ()))

    def decorate(fn):
        fn = getattr(fn, "py_func", fn)    # an @njit function: its Python function
        if options.get("target") == "cuda":
            from ..cuda.gufunc import CUDAGUFunc
            check_options(fn, {**options, "target": "cpu"}, "guvectorize")
            if writable_args:
                raise TypeError("writable_args is for guvectorize's CPU targets; a CUDA "
                                "gufunc's kernel reads device copies of host inputs")
            return CUDAGUFunc(fn, signatures, ins, outs)
        target = check_options(fn, options, "guvectorize")
        kernel = _GKernel(fn, ins, outs, target == "parallel", options, layout,
                          _writable_inputs(fn, writable_args, len(ins)))
        made_by = pickling.recipe("guvectorize", fn, signatures, layout,
                                  dict(options, writable_args=writable_args))
        if not signatures:
            return GUFunc(kernel, made_by)
        for sig in signatures:
            kernel.compile_signature(sig)
        gufunc = kernel.gufunc()
        pickling.remember(gufunc, made_by)
        return gufunc
    return decorate


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
        self.writable = writable   # inputs the kernel may write (writable_args)
        self.cores = ins + outs
        self.nin, self.nout = len(ins), len(outs)
        self.layout = layout_text(ins, outs)
        self.identity = options.get("identity")
        self.options = kernel_options(options)
        self.cache = kernel_cache(fn, options)
        nargs = len(inspect.signature(fn).parameters)
        if nargs != len(self.cores):
            raise TypeError(f"{fn.__name__}() takes {nargs} arguments but the layout "
                            f"{layout!r} has {len(self.cores)} operands")
        self.loops = {}
        self.keepalive = []

    def compile_signature(self, sig):
        parsed = parse_signature(sig)
        if parsed.return_type not in (None, t.none):
            raise TypeError(f"guvectorize signature {sig!r}: the kernel writes its outputs "
                            "and returns nothing; write it as 'void(float64[:], ...)'")
        self.compile(tuple(parsed.args))

    def compile(self, argtypes):
        from ..compiler import compile_ufunc_loop
        if len(argtypes) != len(self.cores):
            raise TypeError(f"{self.fn.__name__}: the signature has {len(argtypes)} "
                            f"arguments, but the layout {self.layout!r} has "
                            f"{len(self.cores)} operands")
        kernel_types = tuple(self.kernel_type(k, ty) for k, ty in enumerate(argtypes))
        try:
            address, typed, keep = compile_ufunc_loop(
                self.fn, kernel_types, None, self.options, self.parallel,
                functools.partial(_core_stretch, self.cores), self.cache)
        except TypingError as e:
            if "read-only" in e.msg:
                e.add_context("guvectorize passes its inputs read-only; name the inputs "
                              "the kernel writes in writable_args=(...)")
            raise
        if typed.return_type != t.none:
            raise TypeError(f"{self.fn.__name__}() returns {typed.return_type}; a guvectorize "
                            "kernel writes its outputs and returns nothing")
        self.keepalive.append(keep)
        self.loops[kernel_types] = (address, [getattr(ty, "dtype", ty).np_dtype
                                              for ty in kernel_types])

    def kernel_type(self, k, ty):
        check_core_type(self.fn.__name__, self.layout, self.cores[k], k < self.nin, k, ty)
        if isinstance(ty, t.Number):
            return ty
        # with no outputs ('(n),(n)'), the kernel writes an operand in place, as in Numba
        readonly = k < self.nin and k not in self.writable and self.nout > 0
        return t.Array(ty.dtype, ty.ndim, "A", readonly=readonly)

    def gufunc(self):
        return make_ufunc(self.fn.__name__, self.fn.__doc__, list(self.loops.values()),
                          self.nin, self.nout, self.identity, signature=self.layout,
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


class GUFunc(Growing):
    """A gufunc that grows: each call with new dtypes (outputs passed) compiles a loop."""

    def __call__(self, *args, **kwargs):
        kernel = self._kernel
        nargs = kernel.nin + kernel.nout
        operands = args + tuple(kwargs.pop("out", ()) if isinstance(kwargs.get("out"), tuple)
                                else ([kwargs.pop("out")] if "out" in kwargs else []))
        if len(operands) != nargs:
            raise TypeError(f"{self.__name__}() was made by guvectorize without signatures, "
                            f"so it needs all {nargs} operands, outputs included, to choose "
                            f"its loop; got {len(operands)} (or give it signatures)")
        argtypes = tuple(self._operand_type(k, o) for k, o in enumerate(operands))
        with self._lock:
            if argtypes not in kernel.loops:
                kernel.compile(argtypes)
                self.ufunc = kernel.gufunc()
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

    @property
    def signature(self):
        return self._kernel.layout

    @property
    def nout(self):
        return self._kernel.nout

    def __repr__(self):
        return f"<kiln.GUFunc {self.__name__!r} {self.signature}>"

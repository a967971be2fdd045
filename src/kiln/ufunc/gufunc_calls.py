"""Calling a gufunc (`@guvectorize`, CPU targets) from compiled code, as Numba does:
`gufunc(x, y, out)` with every operand passed, outputs included, returns None.

The call is compiled as loops over the loop dimensions (each operand's leading dimensions,
before its core ones, broadcast as NumPy does: aligned on the right, a dimension of 1
repeated) that call the kernel on each operand's core view, or for a "()" operand on its
element (a number where the loop's signature declares one, a one-element view where it
declares an array). The loop is the one the Python call would take: with signatures, the
first whose inputs the operands' dtypes cast to safely and whose outputs cast to the output
arrays' (Numba's search); without them, the operands' own dtypes, compiled on first use.
Sizes that do not fit raise Numba's ValueErrors at run time ("Operand has a mismatch in one
of its core dimensions", "Loop and array shapes are incompatible"); too few dimensions for
a core is Numba's TypingError, when compiling.
"""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from ..typing.registry import Resolution, Template, overload, registry

CORE_MISMATCH = ("Operand has a mismatch in one of its core dimensions. Please, check if all "
                 "arguments to a @guvectorize function have the same core dimensions.")
LOOP_MISMATCH = "Loop and array shapes are incompatible"


class KernelCall:
    """What the generated loops call: the gufunc's kernel, compiled for the core views'
    types with the gufunc's options (NumPy's error model)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.__name__ = kernel.fn.__name__
        registry.register(self, _KernelTemplate(kernel))

    def __call__(self, *args):
        raise TypeError(f"{self.__name__}'s kernel is called by compiled code only")


class _KernelTemplate(Template):
    targets = frozenset({"cpu"})

    def __init__(self, kernel):
        self.kernel = kernel

    def resolve(self, tctx, args, kws):
        if kws:
            return None
        args = tuple(t.unliteral(a) for a in args)
        typed = tctx.type_function(self.kernel.fn, args, None, self.kernel.options)
        if typed.return_type != t.none:
            raise TypingError(f"{self.kernel.fn.__name__}() returns {typed.return_type}; a "
                              "guvectorize kernel writes its outputs and returns nothing")

        def lower(ctx, builder, sig, llargs):
            return ctx.call_function(builder, typed, llargs)
        return Resolution(t.Signature(t.none, args), lower)


def register(gufunc, key):
    """Let compiled code call `key` (the GUFunc, or a NumPy gufunc it built) like `gufunc`."""
    def typer(*argtypes, **kws):
        return implementation(gufunc, argtypes, kws)
    overload(key, target="cpu")(typer)


def _loop_ndim(ty, core):
    return ty.ndim - len(core) if isinstance(ty, t.Array) else 0


def implementation(gufunc, argtypes, kws):
    """The Python implementation (compiled by kiln) of a call with `argtypes`."""
    kernel = gufunc._kernel
    name, layout = kernel.fn.__name__, kernel.layout_source
    if kernel.forceobj:   # Numba's object mode has no compiled kernel to call either
        raise TypingError("Calling a guvectorize function in object mode is not supported "
                          f"yet ({name} was made with forceobj=True)")
    if kws:
        raise TypingError(f"{name}: a gufunc called in compiled code takes its operands "
                          f"by position, not {', '.join(kws)}=")
    nargs = kernel.nin + kernel.nout
    if len(argtypes) != nargs:
        raise TypingError(f"Too few arguments for function '{name}'. Note that the pattern "
                          "`out = gufunc(Arg1, Arg2, ..., ArgN)` is not allowed. Use "
                          "`gufunc(Arg1, Arg2, ..., ArgN, out) instead." if len(argtypes) < nargs
                          else f"{name}() takes {nargs} operands (outputs included), "
                          f"{len(argtypes)} given")
    argtypes = tuple(t.unliteral(a) for a in argtypes)
    for k, (ty, core) in enumerate(zip(argtypes, kernel.cores)):
        kind, i = ("Input", k) if k < kernel.nin else ("Output", k - kernel.nin)
        if isinstance(ty, t.Array) and not isinstance(ty.dtype, t.Number) or \
                not isinstance(ty, (t.Array, t.Number)):
            raise TypingError(f"{name}: {kind.lower()} operand {i} is a {ty}; a gufunc takes "
                              "arrays of numbers (and numbers for its inputs)")
        ndim = ty.ndim if isinstance(ty, t.Array) else 0
        if ndim < len(core) or kind == "Output" and not isinstance(ty, t.Array):
            raise TypingError(f"{name}: {kind} operand {i} does not have enough dimensions "
                              f"(has {ndim}, gufunc core with signature {layout} requires "
                              f"{len(core)})")
    loop = gufunc._loop_for_compiled_call(tuple(getattr(a, "dtype", a) for a in argtypes))
    return _generate(name, kernel, gufunc._kernel_call, argtypes, loop)


def _generate(name, kernel, call, argtypes, loop):
    """exec the implementation's source: see the module docstring."""
    cores = kernel.cores
    env = {"np": np, "_kernel": call, "ValueError": ValueError}
    params = [f"a{k}" for k in range(len(argtypes))]
    lines = [f"def gufunc_call({', '.join(params)}):"]
    emit = lines.append
    # operands in the loop's dtypes (an input array NumPy would cast is cast here)
    for k, (ty, kty) in enumerate(zip(argtypes, loop)):
        want = getattr(kty, "dtype", kty)
        env[f"_t{k}"] = want.np_dtype.type
        if isinstance(ty, t.Array) and ty.dtype != want:
            if k >= kernel.nin:
                raise TypingError(f"{name}: output operand {k - kernel.nin} is a {ty}, but the "
                                  f"loop chosen writes {want}; pass an array of {want}")
            emit(f"    c{k} = a{k}.astype(_t{k})")
        else:
            emit(f"    c{k} = a{k}")
    ndims = [ty.ndim if isinstance(ty, t.Array) else 0 for ty in argtypes]
    loop_ndims = [_loop_ndim(ty, core) for ty, core in zip(argtypes, cores)]
    L = max([0] + loop_ndims)
    # core sizes: the first operand with each name sets it, the others must agree
    sizes = {}
    for k, (ty, core) in enumerate(zip(argtypes, cores)):
        for j, sym in enumerate(core):
            dim = f"c{k}.shape[{ndims[k] - len(core) + j}]"
            if sym not in sizes:
                sizes[sym] = f"n_{sym}"
                emit(f"    n_{sym} = {dim}")
            else:
                emit(f"    if {dim} != n_{sym}:")
                emit(f"        raise ValueError({CORE_MISMATCH!r})")
    # the loop shape, broadcast over the inputs; the outputs have it exactly
    for j in range(L):
        emit(f"    l{j} = 1")
        for k in range(kernel.nin):
            i = j - (L - loop_ndims[k])
            if i < 0:
                continue
            emit(f"    d = c{k}.shape[{i}]")
            emit("    if d != 1:")
            emit(f"        if l{j} == 1:")
            emit(f"            l{j} = d")
            emit(f"        elif l{j} != d:")
            emit(f"            raise ValueError({LOOP_MISMATCH!r})")
    for k in range(kernel.nin, len(argtypes)):
        if loop_ndims[k] != L:
            emit(f"    raise ValueError({LOOP_MISMATCH!r})")
            continue
        for j in range(L):
            emit(f"    if c{k}.shape[{j}] != l{j}:")
            if k == kernel.nin:   # the first output sets a dimension the inputs repeat
                emit(f"        if l{j} == 1:")
                emit(f"            l{j} = c{k}.shape[{j}]")
                emit("        else:")
                emit(f"            raise ValueError({LOOP_MISMATCH!r})")
            else:
                emit(f"        raise ValueError({LOOP_MISMATCH!r})")
    for k in range(kernel.nin):
        for i in range(loop_ndims[k]):
            emit(f"    s{k}_{i} = 0 if c{k}.shape[{i}] == 1 else 1")
    # scalar operands, once
    for k, (ty, kty) in enumerate(zip(argtypes, loop)):
        if isinstance(ty, t.Number):
            if isinstance(kty, t.Array):   # a "()" input the kernel reads as one element
                emit(f"    v{k} = np.empty(1, _t{k})")
                emit(f"    v{k}[0] = c{k}")
            else:
                emit(f"    v{k} = _t{k}(c{k})")
    indent = "    "
    for j in range(L):
        emit(f"{indent}for i{j} in range(l{j}):")
        indent += "    "
    operands = []
    for k, (ty, kty, core) in enumerate(zip(argtypes, loop, cores)):
        if isinstance(ty, t.Number):
            operands.append(f"v{k}")
            continue
        m = loop_ndims[k]
        index = [f"i{L - m + i}" + (f" * s{k}_{i}" if k < kernel.nin else "")
                 for i in range(m)]
        if core:
            operands.append(f"c{k}[{', '.join(index)}]" if index else f"c{k}")
        elif isinstance(kty, t.Number):
            item = f"c{k}[{', '.join(index)}]" if index else f"c{k}[()]"
            operands.append(item if ty.dtype == kty else f"_t{k}({item})")
        elif index:   # a "()" operand as a one-element view
            last = index[-1]
            operands.append(f"c{k}[{', '.join(index[:-1] + [f'{last}:{last} + 1'])}]")
        else:
            operands.append(f"c{k}.reshape(1)")
    emit(f"{indent}_kernel({', '.join(operands)})")
    emit("    return None")
    source = "\n".join(lines) + "\n"
    exec(source, env)
    impl = env["gufunc_call"]
    impl.__qualname__ = f"{name}.<compiled call>"
    return impl

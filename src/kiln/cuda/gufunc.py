"""`@guvectorize([...], layout, target='cuda')`: a kernel over core dimensions applied by a
CUDA kernel, one CUDA thread per element of the loop dimensions (Numba's CUDA gufuncs).

    @guvectorize(["void(float64[:, :], float64[:], float64[:])"], "(m,n),(n)->(m)",
                 target="cuda")
    def matvec(a, x, out):
        for i in range(a.shape[0]):
            s = 0.0
            for j in range(a.shape[1]):
                s += a[i, j] * x[j]
            out[i] = s

    matvec(a, x)              # host arrays in, a host array out
    matvec(d_a, d_x, d_out)   # device arrays in (outputs may be passed last), on the device

The user's function is a device function that writes its outputs in place. The loop
dimensions (each operand's leading dimensions, before its core ones) are broadcast (zero
strides, nothing copied), and the thread for each loop index calls `fn(op0[i], op1[i],
...)`: a view of each operand's core, or for a "()" input declared as a number the number
itself ("()" operands declared as arrays get a core of one element, as in Numba). The loop
is the first signature the inputs convert to safely (elementwise.py); without signatures,
the operands' own types (the outputs passed). Host inputs are converted on the host and
copied as they are; device inputs (and other libraries' arrays) are used in place, of any
strides, and must have the loop's dtype (the core views are the function's own arrays, so
nothing can convert them).
"""
from __future__ import annotations

import inspect

import numpy as np

from ..types import parse_signature, void
from ..types.ufunc_operands import check_core_type, input_type, layout_text
from .devicearray import DeviceNDArray
from .elementwise import (LoopKernels, as_operand, as_output, choose_loop, deliver, on_device,
                          settle, written_for)
from .kernel import jit


class CUDAGUFunc:
    """The result of `guvectorize(signatures, layout, target='cuda')`: callable like a
    gufunc on host and device arrays (and scalars for "()" inputs)."""

    def __init__(self, pyfunc, signatures, ins, outs):
        self.__name__ = pyfunc.__name__
        self.__doc__ = pyfunc.__doc__
        self.signature = layout_text(ins, outs)
        self.nin, self.nout = len(ins), len(outs)
        self._cores = ins + outs
        nargs = len(inspect.signature(pyfunc).parameters)
        if nargs != len(self._cores):
            raise TypeError(f"{self.__name__}() takes {nargs} arguments but the layout "
                            f"{self.signature!r} has {len(self._cores)} operands")
        self.types = [self._declared_loop(sig) for sig in signatures]
        self._lazy = not self.types
        ops = [f"op{k}" for k in range(len(self._cores))]
        self._kernels = LoopKernels("gufunc", self.__name__, jit(device=True)(pyfunc), ops,
                                    f"device_fn({', '.join(p + '[{i}]' for p in ops)})")

    def _declared_loop(self, sig):
        """(input dtypes, output dtypes, which operands are numbers) for one signature."""
        parsed = parse_signature(sig)
        if parsed.return_type not in (None, void):
            raise TypeError(f"guvectorize(target='cuda') signature {sig!r}: the kernel writes "
                            "its outputs and returns nothing; write it as "
                            "'void(float64[:], ...)'")
        if len(parsed.args) != len(self._cores):
            raise TypeError(f"{self.__name__}: the signature {sig!r} has {len(parsed.args)} "
                            f"arguments, but the layout {self.signature!r} has "
                            f"{len(self._cores)} operands")
        for k, (ty, core) in enumerate(zip(parsed.args, self._cores)):
            check_core_type(self.__name__, self.signature, core, k < self.nin, k, ty)
        dtypes = [np.dtype(getattr(ty, "dtype", ty).np_dtype) for ty in parsed.args]
        numbers = tuple(not hasattr(ty, "ndim") for ty in parsed.args)
        return tuple(dtypes[:self.nin]), tuple(dtypes[self.nin:]), numbers

    def _loop(self, args, outs):
        """The loop for these operands: of the signatures, as choose_loop picks; without
        them, the inputs' own types (a Python number's default one) and the outputs',
        which must be passed, a "()" input being a number (as the CPU's lazy gufunc)."""
        if not self._lazy:
            return choose_loop(self.__name__, self.types, args)
        if any(o is None for o in outs):
            raise TypeError(f"{self.__name__}() was made by guvectorize(target='cuda') "
                            f"without signatures, so it needs its {self.nout} output(s) "
                            "passed to know their types (or give it signatures)")
        loop = (tuple(np.dtype(input_type(a).np_dtype) for a in args),
                tuple(o.dtype for o in outs),
                tuple(k < self.nin and not core for k, core in enumerate(self._cores)))
        if loop not in self.types:
            self.types.append(loop)
        return loop

    def __repr__(self):
        return f"<kiln CUDA gufunc {self.__name__!r} {self.signature} ({len(self.types)} loops)>"

    def __call__(self, *args, out=None, stream=0):
        args, given_outs = self._split(args, out)
        args = [as_operand(a, stream) for a in args]
        outs = [None if o is None else as_output(self.__name__, f"output {k}", o, stream)
                for k, o in enumerate(given_outs)]
        in_types, out_types, numbers = self._loop(args, outs)
        loop_shape, sizes = self._loop_shape(args, outs)
        shapes = [loop_shape + tuple(sizes[d] for d in core) for core in self._cores]
        for k, (o, dt, shape) in enumerate(zip(outs, out_types, shapes[self.nin:])):
            if o is not None and (o.shape != shape or o.dtype != dt):
                raise ValueError(f"{self.__name__}(): output {k} must be a {dt} array of "
                                 f"shape {shape}, not {o.dtype} {o.shape}")
        inputs = [on_device(self.__name__, a, dt, shape, stream)
                  for a, dt, shape in zip(args, in_types, shapes)]
        written = [written_for(o, inputs, False, shape, dt, stream)
                   for o, dt, shape in zip(outs, out_types, shapes[self.nin:])]
        operands = inputs + written
        # a "()" operand declared as an array is read through a core of one element
        self._kernels.launch([x[..., None] if not core and not number else x for x, core, number
                              in zip(operands, self._cores, numbers)], len(loop_shape), stream)
        for o, w in zip(outs, written):
            settle(o, w, stream)
        to_device = any(isinstance(x, DeviceNDArray) for x in (*args, *outs))
        results = [deliver(w, given, to_device, stream)
                   for w, given in zip(written, given_outs)]
        return results[0] if self.nout == 1 else tuple(results)

    def _split(self, args, out):
        """The inputs and the outputs (None where not given): the outputs may follow the
        inputs, or come as out= (an array, or a tuple of them)."""
        if len(args) == self.nin + self.nout:
            if out is not None:
                raise TypeError(f"{self.__name__}(): outputs given both after the inputs "
                                "and as out=")
            return args[:self.nin], list(args[self.nin:])
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} input(s), or its inputs and "
                            f"its {self.nout} output(s) ({len(args)} given)")
        outs = [None] * self.nout if out is None else \
            list(out) if isinstance(out, tuple) else [out]
        if len(outs) != self.nout:
            raise TypeError(f"{self.__name__}(): out= needs {self.nout} output(s), not "
                            f"{len(outs)}")
        return args, outs

    def _loop_shape(self, args, outs):
        """The broadcast loop dimensions of the inputs and the size of every core
        dimension; a ValueError naming the function where they disagree."""
        sizes, loops = {}, []
        for k, (value, core) in enumerate(zip([*args, *outs], self._cores)):
            if value is None:
                continue
            what = f"input {k}" if k < self.nin else f"output {k - self.nin}"
            shape = np.shape(value)
            if len(shape) < len(core):
                raise ValueError(f"{self.__name__}(): {what} has the core dimensions "
                                 f"({','.join(core)}) in {self.signature!r}, so it needs "
                                 f"at least {len(core)} dimension(s), not shape {shape}")
            split = len(shape) - len(core)
            for dim, size in zip(core, shape[split:]):
                if sizes.setdefault(dim, size) != size:
                    raise ValueError(f"{self.__name__}(): core dimension {dim!r} is "
                                     f"{sizes[dim]} in one operand but {size} in {what} "
                                     f"(layout {self.signature!r})")
            if k < self.nin:
                loops.append(shape[:split])
        try:
            loop_shape = np.broadcast_shapes(*loops)
        except ValueError:
            raise ValueError(f"{self.__name__}(): the loop dimensions of the inputs could not "
                             f"be broadcast together: {' '.join(map(str, loops))}") from None
        for k, core in enumerate(self._cores[self.nin:]):
            missing = [d for d in core if d not in sizes]
            if missing:
                raise ValueError(f"{self.__name__}(): core dimension {missing[0]!r} of output "
                                 f"{k} is in no input; pass the output")
        return loop_shape, sizes

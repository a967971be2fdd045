"""Device code from elsewhere: `cuda.declare_device(name, sig, link=...)` names a function
compiled outside kiln (CUDA C, compiled by NVRTC at load; PTX, a cubin, a library) that
kernels call, and `cuda.jit(link=[...])` names files (or `cuda.CUSource`s) to link with the
kernel.

The function is called in Numba's device ABI, so code written for Numba links unchanged:

    extern "C" __device__ int mul(int *result, int x, int y) { *result = x * y; return 0; }

(the result through the first pointer, an int status that kiln ignores). Compiled, the
kernel's PTX declares it `.extern .func`; at load the driver back-end links the kernel with
the files through nvJitLink (driver/jitlink.py). The simulator cannot run foreign code."""
from __future__ import annotations

import os
import re

from .. import types as t
from .nvrtc import CUSource

DECLARED = {}   # name -> its ExternalDeviceFunction (the names ptx.py lets stay undefined)


class ExternalDeviceFunction:
    """What `declare_device` returns: callable from kernels only."""

    def __init__(self, name, signature, link):
        self.name = self.__name__ = name
        self.signature = signature
        self.link = list(link)

    def __repr__(self):
        return f"<external device function {self.name} {self.signature}>"

    def __call__(self, *args):
        raise NotImplementedError(f"device function '{self.name}' is external code "
                                  "(declare_device): it runs only compiled, on a GPU, not "
                                  "in the simulator or on the host")

    def _kiln_typeof_(self):   # kernels compiled for the GPU call it (a template below)
        from ..typing.registry import registry
        if not registry.has(self):
            registry.register(self, _call_template(self))
        return t.Function(self)


def declare_device(name, sig, link=None):
    """Declare the external device function `name` of signature `sig` ("int32(int32,
    int32)"), defined in `link` (files, or given to the kernel's `cuda.jit(link=...)`)."""
    signature = t.parse_signature(sig)
    if signature.return_type is None:
        raise TypeError(f"declare_device('{name}'): the signature needs a return type, as in "
                        "'float32(float32)'")
    links = [link] if isinstance(link, (str, os.PathLike, CUSource)) else list(link or ())
    function = DECLARED[name] = ExternalDeviceFunction(name, signature, links)
    return function


def _call_template(function):
    from llvmlite import ir

    from ..codegen import datamodel as dm
    from ..typing.registry import Resolution, Template
    from ..typing.unify import can_convert

    class Call(Template):
        """`i32 name(result*, args...)`, Numba's device ABI; the status is ignored."""

        targets = frozenset({"cuda"})

        def resolve(self, tctx, args, kws):
            sig = function.signature
            if kws or len(args) != len(sig.args) or not all(map(can_convert, args,
                                                                 sig.args)):
                return None
            return Resolution(t.Signature(sig.return_type, tuple(sig.args)), self.lower)

        def lower(self, context, builder, sig, args):
            result_ty = dm.value_type(sig.return_type)
            fnty = ir.FunctionType(dm.i32, [dm.ptr] + [a.type for a in args])
            fn = builder.module.globals.get(function.name) or \
                ir.Function(builder.module, fnty, function.name)
            slot = context.alloca(builder, result_ty)
            builder.call(fn, [slot] + list(args))
            return builder.load(slot, typ=result_ty)
    return Call()


def called_externals(ptx) -> list:
    """The declared external functions a kernel's PTX calls (its `.extern .func`s)."""
    names = re.findall(r"\.extern\s+\.func\s+(?:\([^)]*\)\s*)?([\w$]+)\s*\(", ptx)
    return [DECLARED[name] for name in names if name in DECLARED]


def link_files(kernel, ptx) -> list:
    """What to link with the kernel, each once (twice would define its functions twice): its
    `link=` files (paths as str) and CUSources, and its external functions'."""
    files = []
    for item in [*(kernel.options.get("link") or ()),
                 *(item for function in called_externals(ptx) for item in function.link)]:
        item = item if isinstance(item, CUSource) else os.fspath(item)
        if item not in files:
            files.append(item)
    return files

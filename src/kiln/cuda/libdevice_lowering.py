"""`cuda.libdevice` compiled: each function a call of libdevice's `__nv_<name>`, its
arguments converted to the declared types; what it writes through pointers goes to stack
slots and comes back, after its result, as a tuple (cuda/libdevice.py)."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..typing.registry import Resolution, Template, registry
from . import libdevice

_TYPES = {"f4": t.float32, "f8": t.float64, "i2": t.int16, "i4": t.int32, "i8": t.int64}


class _Call(Template):
    targets = frozenset({"cuda"})

    def __init__(self, name, signature):
        self.name = name
        result, self.arguments, self.written = libdevice.parse(signature)
        self.result = None if result == "v" else _TYPES[result]

    def resolve(self, tctx, args, kws):
        if kws or len(args) != len(self.arguments) or not all(
                isinstance(a, (t.Integer, t.Float, t.Boolean)) for a in args):
            return None
        argtypes = tuple(_TYPES[code] for code in self.arguments)
        returned = ([self.result] if self.result else []) + [_TYPES[c] for c in self.written]
        signature = t.Signature(returned[0] if len(returned) == 1 else
                                t.tuple_of(returned), argtypes)
        return Resolution(signature, self.lower)

    def lower(self, context, builder, sig, args):
        written = [_TYPES[code] for code in self.written]
        result = dm.value_type(self.result) if self.result else ir.VoidType()
        fnty = ir.FunctionType(result, [a.type for a in args] + [dm.ptr] * len(written))
        name = f"__nv_{self.name}"
        fn = builder.module.globals.get(name) or ir.Function(builder.module, fnty, name)
        slots = [context.alloca(builder, dm.value_type(ty)) for ty in written]
        value = builder.call(fn, list(args) + slots)
        values = ([value] if self.result else []) + \
            [builder.load(slot, typ=dm.value_type(ty)) for slot, ty in zip(slots, written)]
        if len(values) == 1:
            return values[0]
        return context.make_tuple(builder, sig.return_type, values)


for _name, _signature in libdevice.SIGNATURES.items():
    registry.register(getattr(libdevice, _name), _Call(_name, _signature))

"""jitclass instances in compiled code: the templates that make `Cls(args)`, `obj.field`,
`obj.field = v`, `obj.method(...)`, properties, static methods and dunder methods
(`len(obj)`, `obj[i]`, `obj + other`) calls of compiled code.

An instance is a mutable struct of its fields in spec order (types/classes.py), laid out,
counted and freed as library/structs.py does for every such struct.

Templates are keyed by attribute and method names (`("attr", name)`, `("method", name)`,
`("setattr", name)`), registered once per name that any jitclass uses; each applies only
to instances of a class that has that name, so other types are untouched.
"""
from __future__ import annotations

import operator

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing.registry import Resolution, Template, registry
from .structs import new_struct, read_field, write_field


# ---- templates ---------------------------------------------------------------------------------

def _call(tctx, dispatcher, args, kws, what):
    """The resolution of a call of a jitclass's compiled function, or a TypingError."""
    res = tctx.resolve_dispatcher(dispatcher, tuple(args), dict(kws))
    if res is None:
        shown = ", ".join([*map(str, args), *(f"{k}={v}" for k, v in kws.items())])
        raise TypingError(f"{what} cannot be called with ({shown})")
    return res


class Construct(Template):
    """`Cls(args)` in compiled code: a zeroed instance, then the compiled `__init__`."""

    def __init__(self, class_type):
        self.class_type = class_type

    def resolve(self, tctx, args, kws):
        inst_ty = self.class_type.instance_type
        inst_ty.require_defined()
        args, kws = tuple(map(t.unliteral, args)), {k: t.unliteral(v) for k, v in kws.items()}
        name = f"{self.class_type.class_name}()"
        if self.class_type.init is None:
            if args or kws:
                raise TypingError(f"{name} takes no arguments (the class has no __init__)")
            return Resolution(t.Signature(inst_ty, ()),
                              lambda ctx, b, sig, llargs: new_struct(ctx, b, inst_ty),
                              new_reference=True)
        init = _call(tctx, self.class_type.init, (inst_ty,) + args, kws, name)
        if init.signature.return_type != t.none:
            raise TypingError(f"{self.class_type.class_name}.__init__() should return "
                              f"None, not {init.signature.return_type}")

        def lower(ctx, b, sig, llargs):
            obj = new_struct(ctx, b, inst_ty)
            slot = ctx.hold_until_done(b, obj, inst_ty)   # released if __init__ raises
            init.lower(ctx, b, init.signature, [obj] + list(llargs))
            ctx.done_holding(b, slot)
            return obj
        return Resolution(t.Signature(inst_ty, init.signature.args[1:]), lower, init.kw_order,
                          new_reference=True)


def _class_of(ty):
    return ty.class_type if isinstance(ty, t.ClassInstanceType) else None


class Attribute(Template):
    """`obj.name`: a field (borrowed) or a property's getter; a static method read from
    the class (`Cls.name`) is that compiled function."""

    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        (obj,) = args
        if isinstance(obj, t.Optional) and isinstance(obj.type, t.ClassInstanceType):
            obj = obj.type   # an instance or None: the call checks that it is not None
        if isinstance(obj, t.Function) and hasattr(obj.pyfunc, "class_type"):
            static = obj.pyfunc.class_type.staticmethods.get(self.name)
            if static is None:
                return None
            return Resolution(t.Signature(t.typeof(static), (obj,)),
                              lambda ctx, b, sig, llargs: dm.null_value(sig.return_type))
        cls = _class_of(obj)
        if cls is None or self.name in cls.methods or self.name in cls.staticmethods:
            return None   # not a jitclass, or a method: a BoundMethod
        if self.name in cls.properties:
            getter = cls.properties[self.name][0]
            return _call(tctx, getter, (obj,), {}, f"property {cls.class_name}.{self.name}")
        if self.name not in cls.fields:
            raise TypingError(f"jitclass {cls.class_name} has no attribute {self.name!r}")
        return read_field(obj, self.name)


class SetAttribute(Template):
    """`obj.name = value`: a field (converted to its declared type, the old value released)
    or a property's setter."""

    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        obj, value = args[0], t.unliteral(args[1])
        cls = _class_of(obj)
        if cls is None:
            return None
        where = f"{cls.class_name}.{self.name}"
        if self.name in cls.properties:
            setter = cls.properties[self.name][1]
            if setter is None:
                raise TypingError(f"property {where} has no setter: it cannot be assigned")
            return _call(tctx, setter, (obj, value), {}, f"the setter of property {where}")
        if self.name not in cls.fields:
            raise TypingError(f"jitclass {cls.class_name} has no field {self.name!r} (its "
                              f"fields are those of its spec: {', '.join(cls.fields)})")
        return write_field(obj, self.name, value)


class Method(Template):
    """`obj.name(args)`: the compiled method with `obj` as self (a static method without)."""

    def __init__(self, name):
        self.name = name

    def resolve(self, tctx, args, kws):
        cls = _class_of(args[0])
        if cls is None:
            return None
        where = f"{cls.class_name}.{self.name}()"
        if self.name in cls.methods:
            return _call(tctx, cls.methods[self.name], args, kws, where)
        if self.name not in cls.staticmethods:
            return None
        res = _call(tctx, cls.staticmethods[self.name], args[1:], kws, where)

        def lower(ctx, b, sig, llargs):
            return res.lower(ctx, b, res.signature, llargs[1:])
        return Resolution(t.Signature(res.signature.return_type,
                                      (args[0],) + res.signature.args),
                          lower, res.kw_order, new_reference=True)


class Dunder(Template):
    """An operator or builtin applied to an instance (first operand) whose class defines
    one of its dunder methods, the first of `dunders` it has: `len(obj)` calls
    `obj.__len__()`, `float(obj)` `obj.__float__()` or else `obj.__index__()`."""

    def __init__(self, dunders, result=None):
        self.dunders = dunders
        self.result = result   # the number type a conversion (`float(obj)`) gives

    def resolve(self, tctx, args, kws):
        cls = _class_of(args[0]) if args else None
        dunder = next((d for d in self.dunders if cls and d in cls.methods), None)
        if dunder is None:
            return None
        if dunder == "__len__":
            return _length(tctx, cls, args)
        res = _call(tctx, cls.methods[dunder], args, kws, f"{cls.class_name}.{dunder}()")
        given = res.signature.return_type
        if self.result is None or given == self.result:
            return res
        if not isinstance(given, (t.Boolean, t.Integer, t.Float, t.Complex)):
            raise TypingError(f"{cls.class_name}.{dunder}() should return a number, not "
                              f"{given}")

        def lower(ctx, b, sig, llargs):   # `complex(obj)` of a `__float__`: a complex
            return ctx.cast(b, res.lower(ctx, b, res.signature, llargs), given, self.result)
        return Resolution(t.Signature(self.result, res.signature.args), lower, res.kw_order,
                          new_reference=True)


class Reflected(Template):
    """`other + obj` where only the instance, the second operand, has the operator: its
    reflected method, `obj.__radd__(other)`, as CPython falls back to it."""

    def __init__(self, dunder, reflected):
        self.dunder, self.reflected = dunder, reflected

    def resolve(self, tctx, args, kws):
        if len(args) != 2 or kws:
            return None
        left, right = _class_of(args[0]), _class_of(args[1])
        if right is None or self.reflected not in right.methods or \
                (left is not None and self.dunder in left.methods):
            return None
        res = _call(tctx, right.methods[self.reflected], (args[1], args[0]), {},
                    f"{right.class_name}.{self.reflected}()")
        swapped = res.signature.args

        def lower(ctx, b, sig, llargs):
            return res.lower(ctx, b, res.signature, [llargs[1], llargs[0]])
        return Resolution(t.Signature(res.signature.return_type, (swapped[1], swapped[0])),
                          lower, new_reference=True)


class Truth(Template):
    """`if obj:` and `bool(obj)` as CPython: `__bool__`, else `__len__() != 0`, else true."""

    def resolve(self, tctx, args, kws):
        cls = _class_of(args[0]) if len(args) == 1 and not kws else None
        if cls is None:
            return None
        where = f"{cls.class_name}.__bool__()"
        if "__bool__" in cls.methods:
            res = _call(tctx, cls.methods["__bool__"], args, {}, where)
            if res.signature.return_type != t.boolean:
                raise TypingError(f"{where} should return bool, not "
                                  f"{res.signature.return_type}")
            return res
        if "__len__" not in cls.methods:
            return Resolution(t.Signature(t.boolean, args),
                              lambda ctx, b, sig, llargs: ir.Constant(dm.i1, 1))
        res = _length(tctx, cls, args)

        def lower(ctx, b, sig, llargs):
            n = res.lower(ctx, b, res.signature, llargs)
            return b.icmp_signed("!=", n, ir.Constant(n.type, 0))
        return Resolution(t.Signature(t.boolean, args), lower)


def _length(tctx, cls, args):
    """`__len__()` checked as CPython's `len()` checks it: an int, not negative."""
    res = _call(tctx, cls.methods["__len__"], args, {}, f"{cls.class_name}.__len__()")
    length = res.signature.return_type
    if not isinstance(length, t.Integer):
        raise TypingError(f"{cls.class_name}.__len__() should return an integer, not {length}")

    def lower(ctx, b, sig, llargs):
        n = res.lower(ctx, b, res.signature, llargs)
        if length.signed:
            ctx.guard(b, b.icmp_signed("<", n, ir.Constant(n.type, 0)), ValueError,
                      "__len__() should return >= 0")
        return ctx.cast(b, n, length, t.int64)
    return Resolution(t.Signature(t.int64, res.signature.args), lower, new_reference=True)


# operator or builtin -> the dunder methods that implement it, tried in order
DUNDERS = {len: ("__len__",), operator.getitem: ("__getitem__",),
           operator.setitem: ("__setitem__",), operator.contains: ("__contains__",),
           operator.eq: ("__eq__",), operator.ne: ("__ne__",), operator.lt: ("__lt__",),
           operator.le: ("__le__",), operator.gt: ("__gt__",), operator.ge: ("__ge__",),
           operator.neg: ("__neg__",), operator.pos: ("__pos__",),
           operator.invert: ("__invert__",), abs: ("__abs__",), hash: ("__hash__",),
           str: ("__str__",), operator.index: ("__index__",),
           int: ("__int__", "__index__"), float: ("__float__", "__index__"),
           complex: ("__complex__", "__float__", "__index__")}
CONVERSIONS = {int: t.int64, float: t.float64, complex: t.complex128}
# binary operators: their dunder, in-place and reflected methods (`__add__`, `__iadd__`,
# `__radd__`); an in-place operator without its method falls back to the binary one
BINARY = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
          operator.truediv: "truediv", operator.floordiv: "floordiv", operator.mod: "mod",
          operator.pow: "pow", operator.matmul: "matmul", operator.lshift: "lshift",
          operator.rshift: "rshift", operator.and_: "and", operator.or_: "or",
          operator.xor: "xor"}
for _op, _name in BINARY.items():
    DUNDERS[_op] = (f"__{_name}__",)
    DUNDERS[getattr(operator, f"i{_op.__name__.strip('_')}")] = (f"__i{_name}__",)
REFLECTED = {op: (f"__{name}__", f"__r{name}__") for op, name in BINARY.items()}

_registered = set()
_python_classes = {}   # ClassType -> the Python class standing for it (experimental.py)


def python_class(inst_ty):
    """The Python class whose objects box instances of `inst_ty`."""
    return _python_classes[inst_ty.class_type]


def register_class(pycls, class_type):
    """Make `class_type`'s constructor, attributes, methods and dunders known to typing."""
    _python_classes[class_type] = pycls
    registry.register(pycls, Construct(class_type))
    names = [("attr", n) for n in (*class_type.fields, *class_type.properties,
                                   *class_type.staticmethods)]
    names += [("setattr", n) for n in (*class_type.fields, *class_type.properties)]
    names += [("method", n) for n in (*class_type.methods, *class_type.staticmethods)]
    makers = {"attr": Attribute, "setattr": SetAttribute, "method": Method}
    for key in names:
        if key not in _registered:
            _registered.add(key)
            registry.register(key, makers[key[0]](key[1]))
    for key in (operator.truth, bool):
        if key not in _registered:
            _registered.add(key)
            registry.register(key, Truth())
    for fn, dunders in DUNDERS.items():
        if set(dunders) & set(class_type.methods) and fn not in _registered:
            _registered.add(fn)
            registry.register(fn, Dunder(dunders, CONVERSIONS.get(fn)))
    for fn, (dunder, reflected) in REFLECTED.items():
        if reflected in class_type.methods and (fn, "reflected") not in _registered:
            _registered.add((fn, "reflected"))
            registry.register(fn, Reflected(dunder, reflected))

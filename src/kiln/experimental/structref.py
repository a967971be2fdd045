"""`kiln.experimental.structref`: mutable struct types defined by hand (Numba's
`numba.experimental.structref`), with a Python class standing for their values.

    @structref.register
    class PointType(types.StructRef):
        pass

    class Point(structref.StructRefProxy):
        @property
        def x(self):
            return get_x(self)          # an @njit function reading `p.x`

    structref.define_proxy(Point, PointType, ["x", "y"])

Compiled code reads and writes a struct's fields by name (library/structs.py);
`Point(1.0, 2.0)` makes one, from Python or compiled code, its field types those of the
values; `structref.new(point_type)` makes one of a given type with its fields all zeros.
A struct crossing into Python becomes an object of its proxy class holding a reference
to it (proxies.py), and goes back into compiled code as the very same struct.
"""
from __future__ import annotations

import ctypes

from llvmlite import ir

from .. import types as t
from ..codegen import boxing
from ..codegen import datamodel as dm
from ..decorators import njit
from ..errors import TypingError
from ..typing.registry import intrinsic, registry
from ..library.structs import Constructor, new_struct
from ..typed.typedlist import decode_type, encode_type
from .proxies import MeminfoProxy, box_proxy, meminfo_of

__all__ = ["register", "define_boxing", "define_constructor", "define_proxy", "new",
           "StructRefProxy"]

_PROXIES = {}   # StructRef subclass -> the Python class of its values (define_boxing)


def _check_subclass(struct_type):
    if struct_type is t.StructRef or not (isinstance(struct_type, type) and
                                          issubclass(struct_type, t.StructRef)):
        raise ValueError(f"cannot register {struct_type}: give a subclass of "
                         "types.StructRef")


def register(struct_type):
    """`@structref.register` on a types.StructRef subclass: compiled code reads and writes
    the fields of its struct types (kiln knows them from every StructRef made)."""
    _check_subclass(struct_type)
    return struct_type


def define_boxing(struct_type, obj_class):
    """Values of the struct types of `struct_type` cross into Python as objects of
    `obj_class` (a StructRefProxy subclass), and those objects back as their structs."""
    _check_subclass(struct_type)
    _PROXIES[struct_type] = obj_class


def define_constructor(py_class, struct_typeclass, fields):
    """Calling `py_class(*values)` in compiled code makes a struct of `struct_typeclass`
    whose fields `fields` hold the values (by position or by field name)."""
    registry.register(py_class, Constructor(py_class.__name__, struct_typeclass, fields))


def define_proxy(py_class, struct_typeclass, fields):
    """`define_constructor` and `define_boxing` at once."""
    define_constructor(py_class, struct_typeclass, fields)
    define_boxing(struct_typeclass, py_class)


@intrinsic
def new(typingctx, struct_type):
    """`structref.new(struct_type)` in compiled code: a new struct of that type, its fields
    all zeros (a field of a container, array or struct must be set before it is read)."""
    if not (isinstance(struct_type, t.TypeRef) and
            isinstance(struct_type.instance_type, t.StructRef)):
        raise TypingError(f"structref.new() takes a StructRef type, not {struct_type}")
    ty = struct_type.instance_type

    def codegen(context, builder, signature, args):
        return new_struct(context, builder, ty)
    codegen.new_reference = True
    return ty(struct_type), codegen


class StructRefProxy(MeminfoProxy):
    """The Python class of a struct's values: subclass it, give it properties and methods
    calling compiled functions, and name it in `define_proxy`. `Cls(*values)` makes a
    struct through the compiled constructor (override `__new__` to take keywords; never
    `__init__`)."""

    __slots__ = ("_type",)

    @classmethod
    def _numba_box_(cls, ty, mi):
        """An object of `cls` standing for the struct `ty` whose reference `mi` it takes."""
        instance = object.__new__(cls)
        instance._type, instance._meminfo = ty, mi
        return instance

    def __new__(cls, *args):
        ctor = cls.__dict__.get("_kiln_constructor_")
        if ctor is None:
            def ctor(*args):
                return cls(*args)
            ctor = njit(ctor)
            cls._kiln_constructor_ = ctor
        return ctor(*args)

    @property
    def _numba_type_(self):
        return self._type

    def _kiln_typeof_(self):
        return self._type


def _proxy_class(ty):
    for cls in type(ty).__mro__:
        if cls in _PROXIES:
            return _PROXIES[cls]
    return None


def _type_code(api, ty):
    """A new reference to a Python object naming `ty`: its pickle's text where it pickles
    (the code stays cacheable), else the type itself."""
    try:
        code = encode_type(ty)
    except Exception:   # a type class made in a function: not importable
        obj = api.constant_object(ty)
        api.incref(obj)
        return obj
    return api.call("PyUnicode_FromString", dm.ptr,
                    [api.context.state.global_string(code)], argtypes=[dm.ptr])


def _decoded(code):
    return code if isinstance(code, t.StructRef) else decode_type(code)


def from_native(address, code):
    """The proxy object of the struct at `address`, taking over its reference."""
    ty = _decoded(code)
    return _proxy_class(ty)._numba_box_(ty, address)


def has_type(obj, code):
    """Whether `obj` is a proxy of a struct of the type `code` names."""
    return isinstance(obj, StructRefProxy) and obj._type == _decoded(code)


@boxing.boxer(t.StructRef)
def _box(api, ty, value, fail):
    if _proxy_class(ty) is None:
        raise TypingError(f"kiln cannot pass a {ty.label} struct to Python: no Python class "
                          "stands for it (structref.define_boxing or define_proxy)")
    code = _type_code(api, ty)
    result = box_proxy(api, value, fail, from_native, code)
    api.decref(code)
    return result


@boxing.unboxer(t.StructRef)
def _unbox(unboxer, ty, obj):
    """A proxy's struct itself (borrowed), if it is a struct of type `ty`. The proxy's type
    object is compared with the one last seen to match (a cell of the module, holding a
    reference), and else with `ty` in Python (has_type), which fills the cell."""
    b, api = unboxer.b, unboxer.api
    is_proxy = api.call("PyType_IsSubtype", dm.i32,
                        [api.type_of(obj), api.constant_object(StructRefProxy)])
    unboxer.require(b.icmp_unsigned("!=", is_proxy, ir.Constant(dm.i32, 0)))
    module = api.context.module
    cell = module.globals.get(f"kiln.structref.seen.{ty}")
    if cell is None:
        cell = ir.GlobalVariable(module, dm.ptr, name=f"kiln.structref.seen.{ty}")
        cell.linkage, cell.initializer = "internal", ir.Constant(dm.ptr, None)
    proxy_type = api.read(obj, TYPE_OFFSET, dm.ptr)
    unboxer.require(b.icmp_unsigned("!=", proxy_type, ir.Constant(dm.ptr, None)))
    with b.if_then(b.icmp_unsigned("!=", proxy_type, b.load(cell, typ=dm.ptr)),
                   likely=False):
        code = _type_code(api, ty)
        answer = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                          [api.constant_object(has_type), obj, code, ir.Constant(dm.ptr, None)],
                          var_arg=True, argtypes=[dm.ptr])
        api.decref(code)
        same = b.icmp_unsigned("==", answer, api.global_object("_Py_TrueStruct"))
        with b.if_then(b.icmp_unsigned("!=", answer, ir.Constant(dm.ptr, None))):
            api.decref(answer)
        with b.if_then(same):   # kept alive by the cell: its address stays this type's
            api.incref(proxy_type)
            b.store(proxy_type, cell)
    unboxer.require(b.icmp_unsigned("==", proxy_type, b.load(cell, typ=dm.ptr)))
    return meminfo_of(unboxer, obj)


# where CPython keeps a StructRefProxy's `_type` slot (read by unboxing's IR): its one slot
# of its own, laid out right after those of its base
TYPE_OFFSET = MeminfoProxy.__basicsize__
if StructRefProxy.__basicsize__ != TYPE_OFFSET + ctypes.sizeof(ctypes.c_void_p):
    raise RuntimeError("kiln cannot tell where a StructRefProxy keeps its type")

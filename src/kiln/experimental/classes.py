"""`kiln.experimental.jitclass`: classes whose instances live in compiled code (Numba's
`numba.experimental.jitclass`).

    @jitclass([("count", int64)])          # or @jitclass({"count": int64}), or annotations
    class Counter:
        def __init__(self, start):
            self.count = start
        def add(self, n):
            self.count += n
            return self.count

The decorator types the fields from the spec (a list of (name, type) pairs or a dict; the
class's annotations give the fields the spec leaves out), compiles every method, property
and static method as an @njit function with the instance first, and returns a Python class
standing for the jitclass. Calling it, from Python or from compiled code, runs the compiled
`__init__` on a new instance (library/classes.py lays it out). From Python an instance is a
small object holding one reference to the instance's meminfo: its fields read and write the
instance through compiled accessors, its methods are the compiled methods, and passing it
to compiled code hands over the very instance (runtime/boxing.py), so changes are seen on
both sides.
"""
from __future__ import annotations

import functools
import inspect
import types as pytypes
import typing

import numpy as np

from .. import types as t
from ..codegen import boxing
from ..decorators import njit
from ..errors import UnsupportedError
from ..frontend.source import define_generated
from ..typing.unify import can_convert
from .proxies import MeminfoProxy, box_proxy, meminfo_of

__all__ = ["jitclass"]


def jitclass(cls_or_spec=None, spec=None):
    """`@jitclass`, `@jitclass(spec)`, `@jitclass(spec=spec)`, `jitclass(cls, spec)`:
    compile the class (with KILN_DISABLE_JIT, give it back as it is, as Numba does)."""
    if cls_or_spec is not None and not isinstance(cls_or_spec, type):
        if spec is not None:
            raise TypeError("jitclass(spec) takes one spec; use jitclass(cls, spec)")
        spec, cls_or_spec = cls_or_spec, None      # @jitclass(spec)

    def wrap(cls):
        from ..decorators import jit_disabled
        if jit_disabled():
            return cls          # as Numba: the Python class itself, to debug as Python
        return _make(cls, spec)

    return wrap if cls_or_spec is None else wrap(cls_or_spec)


class JitClassInstance(MeminfoProxy):
    """The Python face of a jitclass instance: one reference to its meminfo."""

    __slots__ = ()

    def _kiln_typeof_(self):
        return type(self).class_type.instance_type

    def __setattr__(self, name, value):
        # only fields and properties: the Python class it subclasses gives it a __dict__,
        # where an attribute would silently stay apart from the compiled instance
        if not hasattr(getattr(type(self), name, None), "__set__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        object.__setattr__(self, name, value)

    def __repr__(self):
        return f"<{type(self).__qualname__} jitclass instance at {self._meminfo:#x}>"


_PYTHON_TYPES = {float: t.float64, int: t.int64, bool: t.boolean, complex: t.complex128,
                 str: t.unicode_type}


def _annotation_type(annotation, where):
    """A field's kiln type from a class annotation: a kiln type, a jitclass, a Python or
    NumPy scalar type, or typing's List[X], Dict[K, V], Tuple[...], Optional[X] of them."""
    if isinstance(annotation, t.Type):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, JitClassInstance):
        return annotation.class_type.instance_type
    if annotation in _PYTHON_TYPES:
        return _PYTHON_TYPES[annotation]
    if isinstance(annotation, type) and issubclass(annotation, np.generic):
        try:
            return t.from_dtype(np.dtype(annotation))
        except TypeError:
            pass
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    inner = [_annotation_type(a, where) for a in args if a is not type(None)]
    if origin is list and len(inner) == 1:
        return t.ListType(inner[0])
    if origin is dict and len(inner) == 2:
        return t.DictType(*inner)
    if origin is tuple and inner:
        if len(args) == 2 and args[1] is Ellipsis:
            raise TypeError(f"{where}: {annotation!r} has no fixed length; kiln tuples do")
        return t.tuple_of(inner)
    if origin in (typing.Union, pytypes.UnionType) and len(args) == 2 and len(inner) == 1:
        return t.Optional(inner[0])
    raise TypeError(f"{where}: {annotation!r} is not a kiln type (give a type such as "
                    "kiln.float64, kiln.int64[:] or OtherClass.class_type.instance_type)")


def _storable(ty) -> bool:
    """Whether a jitclass field can hold values of `ty`."""
    if isinstance(ty, t.BaseTuple):
        return all(map(_storable, ty.types))
    if isinstance(ty, (t.ListType, t.DictType)):
        return not ty.is_undefined
    if isinstance(ty, t.Optional):   # optional(OtherClass...) or optional(node_type)
        return isinstance(ty.type, (t.MutableStruct, t.DeferredType)) or _storable(ty.type)
    return isinstance(ty, (t.Boolean, t.Integer, t.Float, t.Complex, t.Array, t.UnicodeType,
                           t.MutableStruct, t.DeferredType))


def _mangled(cls, name):
    """A private name (`__x`) as the class's methods spell it (`_Cls__x`), as Python does."""
    if name.startswith("__") and not name.endswith("__") and cls.__name__.lstrip("_"):
        return f"_{cls.__name__.lstrip('_')}{name}"
    return name


def _fields(cls, spec):
    """The fields' kiln types, in order: the spec's (a dict or (name, type) pairs of kiln
    types), then the annotations of the class and its bases that the spec leaves out."""
    if spec is None:
        spec = {}
    elif not isinstance(spec, dict):
        try:
            spec = dict(spec)
        except (TypeError, ValueError):
            raise TypeError(f"jitclass {cls.__name__}: the spec must be a dict or a list of "
                            "(name, type) pairs") from None
    fields = {}
    for name, ty in spec.items():
        if not isinstance(name, str):
            raise TypeError(f"spec keys should be strings, got {name!r}")
        if not isinstance(ty, t.Type):
            raise TypeError(f"jitclass {cls.__name__}, field {name!r}: spec values should be "
                            f"Numba type instances, got {ty!r} (a kiln type such as "
                            "kiln.float64, kiln.int64[:] or Other.class_type.instance_type)")
        fields[_mangled(cls, name)] = ty
    for base in reversed(cls.__mro__):
        for name, ann in inspect.get_annotations(base).items():
            if name not in fields and typing.get_origin(ann) is not typing.ClassVar:
                fields[name] = _annotation_type(ann, f"jitclass {cls.__name__}, field "
                                                     f"{name!r}")
    for name, ty in fields.items():
        if not _storable(ty):
            raise TypeError(f"jitclass {cls.__name__}: field {name!r} has type {ty}, which "
                            "kiln cannot store in a jitclass (numbers, strings, arrays, "
                            "tuples, typed lists and dicts, and jitclass instances can be)")
    return fields


_IGNORED = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__",
            "__annotations__", "__firstlineno__", "__static_attributes__", "__slots__"}


# methods that would replace what the Python object of an instance does itself
_PYTHON_MACHINERY = {"__new__", "__del__", "__getattr__", "__getattribute__", "__setattr__",
                     "__delattr__", "__init_subclass__", "__reduce__", "__reduce_ex__"}


# the dunder methods whose Python meaning compiled code gives (library/classes.py), as
# Numba's jitclass does; any other is refused rather than compiled as a plain method
SUPPORTED_DUNDERS = frozenset("""
    __abs__ __bool__ __complex__ __contains__ __float__ __getitem__ __hash__ __index__
    __invert__ __int__ __len__ __setitem__ __str__ __eq__ __ne__ __ge__ __gt__ __le__ __lt__
    __add__ __floordiv__ __lshift__ __matmul__ __mod__ __mul__ __neg__ __pos__ __pow__
    __rshift__ __sub__ __truediv__ __and__ __or__ __xor__ __iadd__ __ifloordiv__ __ilshift__
    __imatmul__ __imod__ __imul__ __ipow__ __irshift__ __isub__ __itruediv__ __iand__ __ior__
    __ixor__ __radd__ __rfloordiv__ __rlshift__ __rmatmul__ __rmod__ __rmul__ __rpow__
    __rrshift__ __rsub__ __rtruediv__ __rand__ __ror__ __rxor__""".split())


def _make(cls, spec):
    fields = _fields(cls, spec)
    methods, statics, properties, init = {}, {}, {}, None
    members = {}
    for base in reversed(cls.__mro__[:-1]):   # a plain base class's methods are inherited
        members.update(base.__dict__)
    for name, value in members.items():
        if name in _IGNORED or (name == "__hash__" and value is None):  # (set by __eq__)
            continue
        if name in _PYTHON_MACHINERY or (isinstance(value, property) and value.fget is None):
            raise TypeError(f"jitclass {cls.__name__}: {name!r} is not supported (the "
                            "instance's Python object is kiln's; a property needs a getter)")
        if isinstance(value, staticmethod):
            statics[name] = njit(value.__func__)
        elif isinstance(value, property):
            if value.fdel is not None:
                raise TypeError(f"deleter is not supported: {name}")
            properties[name] = (njit(value.fget), value.fset and njit(value.fset))
        elif inspect.isfunction(value):
            if name == "__init__":
                init = njit(value)
            elif name.startswith("__") and name.endswith("__") and \
                    name not in SUPPORTED_DUNDERS:
                raise TypeError(f"Method '{name}' is not supported.")
            else:
                methods[name] = njit(value)
        elif isinstance(value, classmethod):
            raise TypeError(f"jitclass {cls.__name__}: class methods ({name!r}) are not "
                            "supported")
        else:
            raise TypeError(f"class members are not yet supported: {name}")
    if "__eq__" in methods and "__ne__" not in methods:
        # Python's default `!=`: the negation of `__eq__`
        methods["__ne__"] = njit(define_generated(
            f"<kiln jitclass {cls.__qualname__} __ne__>",
            "def __ne__(self, other):\n    return not self.__eq__(other)\n", {}))
    shadowed = [name for name in fields if name in methods or name in statics or
                name in properties]
    if shadowed:
        raise NameError(f"name shadowing: {', '.join(shadowed)}")
    class_type = t.ClassType(cls.__name__, fields, methods, statics, properties, init)
    namespace = {"__slots__": (), "__doc__": cls.__doc__, "__module__": cls.__module__,
                 "__qualname__": cls.__qualname__, "class_type": class_type, "py_class": cls}
    for name, getter_setter in properties.items():
        namespace[name] = property(*getter_setter)
    for name, dispatcher in methods.items():
        namespace[name] = _method(dispatcher)
    for name, dispatcher in statics.items():
        namespace[name] = staticmethod(dispatcher)
    for name in fields:
        namespace[name] = _field_property(class_type, name)
    if init is not None:
        # `__new__` makes the instance; `Cls.__init__` keeps the user's name, docstring
        # and signature (help(Cls), inspect.signature(Cls))
        @functools.wraps(init.py_func)
        def __init__(self, *args, **kwargs):
            pass
        namespace["__init__"] = __init__
        signature = inspect.signature(init.py_func)
        namespace["__signature__"] = signature.replace(
            parameters=list(signature.parameters.values())[1:])
    namespace["__init_subclass__"] = classmethod(_no_subclass)
    try:   # as Numba's: a subclass of the Python class (isinstance(obj, cls) holds)
        boxed = JitClassType(cls.__name__, (cls, JitClassInstance), namespace)
    except TypeError:   # a class whose own layout (__slots__, a builtin base) conflicts
        boxed = JitClassType(cls.__name__, (JitClassInstance,), namespace)
    boxed.__new__ = _constructor(boxed, init)
    from ..library.classes import register_class
    register_class(boxed, class_type)
    return boxed


class JitClassType(type):
    """The type of every jitclass (Numba's `JitClassType`): `isinstance(C, JitClassType)`
    tells a jitclass from a plain class."""


def _no_subclass(cls, **kwargs):
    raise TypeError("cannot subclass from a jitclass")


def _method(dispatcher):
    @functools.wraps(dispatcher.py_func)
    def method(self, *args, **kwargs):
        return dispatcher(self, *args, **kwargs)
    return method


def _compiled_source(class_type, what, source, namespace):
    """An @njit function from generated `source` (kept where kiln reads source that has
    no file, under a name of its own class: two classes may share a qualified name)."""
    return njit(define_generated(f"<kiln {class_type.name} {what}>", source, namespace))


def _field_property(class_type, name):
    """A Python property reading and writing the field through compiled accessors; a value
    of the wrong type is a TypeError, as Numba's boxed instances raise."""
    where = f"{class_type.class_name}.{name}"
    get = _compiled_source(class_type, f"{name} get",
                           f"def get(self):\n    return self.{name}\n", {})
    put = _compiled_source(class_type, f"{name} set",
                           f"def put(self, value):\n    self.{name} = value\n", {})

    def setter(self, value):
        try:
            value_ty = t.typeof(value)
        except (TypeError, ValueError):
            value_ty = None
        ty = class_type.fields[name]   # (a deferred type is defined by now)
        if value_ty is None or not can_convert(value_ty, ty):
            raise TypeError(f"cannot assign a {type(value).__name__} to field {where}, "
                            f"which is {ty}")
        put(self, value)
    return property(lambda self: get(self), setter, doc=f"field {name}")


def _constructor(boxed, init):
    """`Cls(*args)` from Python: the arguments bound to `__init__`'s parameters as Python
    would (defaults filled in), then a compiled function that makes the instance."""
    signature = inspect.signature(init.py_func) if init else inspect.Signature()
    params = list(signature.parameters.values())[1:] if init else []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise UnsupportedError(f"{p.kind.name} argument type unsupported: the __init__ "
                                   f"of jitclass {boxed.__qualname__} cannot take *args or "
                                   "**kwargs")
    names = [p.name for p in params]
    passed = [f"{p.name}={p.name}" if p.kind == p.KEYWORD_ONLY else p.name for p in params]
    make = _compiled_source(boxed.class_type, "constructor",
                            f"def make({', '.join(names)}):\n"
                            f"    return _kiln_class_({', '.join(passed)})\n",
                            {"_kiln_class_": boxed})

    def __new__(cls, *args, **kwargs):
        if init is None:
            if args or kwargs:
                raise TypeError(f"{cls.__qualname__}() takes no arguments")
            return make()
        bound = signature.bind(None, *args, **kwargs)
        bound.apply_defaults()
        return make(*(bound.arguments[name] for name in names))
    return __new__


def from_native(address, boxed):
    """A Python instance of the jitclass `boxed` taking over the reference at `address`
    (called by boxing)."""
    result = object.__new__(boxed)
    result._meminfo = address
    return result


@boxing.boxer(t.ClassInstanceType)
def _box(api, ty, value, fail):
    """The jitclass's Python object, taking over the reference to the instance."""
    from ..library.classes import python_class
    return box_proxy(api, value, fail, from_native, api.constant_object(python_class(ty)))


@boxing.unboxer(t.ClassInstanceType)
def _unbox(unboxer, ty, obj):
    """A jitclass instance itself (borrowed), if `obj` is one of exactly this class."""
    from ..library.classes import python_class
    unboxer.require(unboxer.api.is_type(obj, unboxer.api.constant_object(python_class(ty))))
    return meminfo_of(unboxer, obj)

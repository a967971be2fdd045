"""kiln's types, with Numba's names: `kiln.types.float64`, `float64[:, ::1]`, `float64(int32)`."""
from .core import (  # noqa: F401 - re-exported
    Type, Number, Boolean, Integer, Float, Complex, NoneType, EllipsisType, Opaque, Module, Function,
    Dispatcher, InnerFunction, NumberClass, DType, BoundMethod, StringLiteral, Literal, ExceptionClass,
    BooleanLiteral, IntegerLiteral, LiteralArg, unliteral,
    from_dtype, as_dtype, integer_of, boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128, none, ellipsis, intp, uintp, integers,
    signed_integers, unsigned_integers, floats, complexes, numbers, Any)
from .containers import (  # noqa: F401
    Array, BaseTuple, UniTuple, Tuple, tuple_of, RangeType, SliceType, Optional, ListType,
    List, LiteralList, DictType, SetType, GeneratorType, Undefined, undefined, UnicodeType,
    unicode_type, SliceLiteral, slice2_type, slice3_type, Bytes, bytes_type)
from .records import Record  # noqa: F401
from .buffers import Buffer  # noqa: F401
from .charseq import CharSeq, UnicodeCharSeq  # noqa: F401
from .datetimes import NPDatetime, NPTimedelta  # noqa: F401
from .enums import EnumClass, EnumMember, IntEnumMember  # noqa: F401
IntEnumClass = EnumClass   # Numba's name for the class of an IntEnum
from .named_tuples import NamedTuple, NamedUniTuple, NamedTupleClass, named_tuple_of  # noqa: F401
from .signature import Signature, parse_signature  # noqa: F401
from .functions import (  # noqa: F401
    RawPointer, VoidPointer, CPointer, FunctionType, WrapperAddressProtocol, voidptr)
from .classes import (  # noqa: F401
    ClassType, ClassInstanceType, DeferredType, MutableStruct, deferred_type)
from .structref import StructRef, TypeRef  # noqa: F401
from .typeof import typeof  # noqa: F401
from . import misc  # noqa: F401  (Numba's types.misc.SliceLiteral, ...)

# Numba's short and alternative names.
bool_ = b1 = boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
byte = uint8
void = none
double = float64
string = unicode_type
optional = Optional
# Numba's base of the types with no run-time representation (Opaque's base there); an
# extension type subclasses it, a signature may name one (`Dummy('list')`), which no
# compiled code takes
Dummy = Opaque



def _c_integer(ctype, signed):
    """The kiln integer of a C integer type's width on this machine (as Numba's
    `types.intc`, `types.long_`, ... are)."""
    import numpy as _np
    return integer_of(_np.dtype(ctype).itemsize * 8, signed)


# Numba's names of C's types, by their width here (Numba takes them from NumPy's).
char, uchar = _c_integer("byte", True), _c_integer("ubyte", False)
short, ushort = _c_integer("short", True), _c_integer("ushort", False)
intc, uintc = _c_integer("intc", True), _c_integer("uintc", False)
int_, uint = _c_integer("int_", True), _c_integer("uint", False)
long_, ulong = _c_integer("int_", True), _c_integer("uint", False)  # as Numba: NumPy's int_
longlong, ulonglong = _c_integer("longlong", True), _c_integer("ulonglong", False)
ssize_t, size_t = intp, uintp

def literal(value):
    """Numba's `types.literal(value)`: the type of a compile-time constant (an int, a bool
    or a str: the literals kiln's `literally` and library overloads see)."""
    from ..errors import LiteralTypingError
    import builtins
    if isinstance(value, builtins.bool):
        return BooleanLiteral(value)
    if isinstance(value, int):
        return IntegerLiteral(value)
    if isinstance(value, str):
        return StringLiteral(value)
    if isinstance(value, slice):
        return SliceLiteral(value)
    raise LiteralTypingError(f"{type(value).__name__} cannot be used as a literal")


def maybe_literal(value):
    """`literal(value)`, or None where the value cannot be one."""
    try:
        return literal(value)
    except Exception:
        return None


# Numba's class names for kiln's type classes, taking Numba's constructor arguments
class _NumbaName(type):
    """`isinstance(x, types.Generator)` is `isinstance(x, GeneratorType)`."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls.kiln_class)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, cls.kiln_class)


class Generator(metaclass=_NumbaName):
    """Numba's `types.Generator(gen_func, yield_type, arg_types, state_types,
    has_finalizer)`: kiln's GeneratorType, whose layout depends on the yield type alone
    (the other arguments are Numba's layout, which kiln's coroutine frame holds)."""

    kiln_class = GeneratorType

    def __new__(cls, gen_func=None, yield_type=None, arg_types=(), state_types=(),
                has_finalizer=True):
        if not isinstance(yield_type, Type):
            raise TypeError(f"types.Generator needs a yield_type, not {yield_type!r}")
        return GeneratorType(yield_type)


class ExternalFunctionPointer(metaclass=_NumbaName):
    """Numba's `types.ExternalFunctionPointer(sig)`, the type of a ctypes or cffi function:
    kiln's FunctionType (`.sig`, `.get_pointer(function)`), which C functions and compiled
    ones share."""

    kiln_class = FunctionType

    def __new__(cls, sig, cconv=None, get_pointer=None):
        return FunctionType(sig)


class Set(metaclass=_NumbaName):
    """Numba's `types.Set(dtype, reflected=False)`: kiln's SetType (a compiled set)."""

    kiln_class = SetType

    def __new__(cls, dtype, reflected=False):
        return SetType(dtype)

# Numba's groups of types.
signed_domain = frozenset(signed_integers)
unsigned_domain = frozenset(unsigned_integers)
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset(floats) - {float16}
complex_domain = frozenset(complexes)
number_domain = integer_domain | real_domain | complex_domain

# `bool` is Numba's name too (`types.bool`); it stays out of __all__ so that a star import
# never hides Python's bool
bool = boolean  # noqa: A001

__all__ = [name for name in dir() if not name.startswith("_") and name != "bool"]

_ABSENT = {
    "Omitted": "kiln passes an omitted argument's default value to overloads instead",
    "pyobject": "kiln has no object mode (a Python object cannot be a compiled value); "
                "jit(forceobj=True) keeps the plain Python function, and "
                "`with kiln.objmode(...)` runs a block as Python",
    "ffi_forced_object": "kiln has no object mode (see types.pyobject)",
    "NestedArray": "kiln types a record's sub-array field as the C-contiguous Array it "
                   "reads as (Record.typeof(name))",
}


def __getattr__(name):
    if name in _ABSENT:
        raise AttributeError(f"kiln.types has no {name}: {_ABSENT[name]}")
    raise AttributeError(f"module 'kiln.types' has no attribute {name!r}")

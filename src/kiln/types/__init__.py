"""kiln's types, with Numba's names: `kiln.types.float64`, `float64[:, ::1]`, `float64(int32)`."""
from .core import (  # noqa: F401 - re-exported
    Type, Number, Boolean, Integer, Float, Complex, NoneType, EllipsisType, Opaque, Module, Function,
    Dispatcher, InnerFunction, NumberClass, DType, BoundMethod, StringLiteral, Literal, ExceptionClass,
    BooleanLiteral, IntegerLiteral, unliteral,
    from_dtype, as_dtype, integer_of, boolean, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128, none, ellipsis, intp, uintp, integers,
    signed_integers, unsigned_integers, floats, complexes, numbers)
from .containers import (  # noqa: F401
    Array, BaseTuple, UniTuple, Tuple, tuple_of, RangeType, SliceType, Optional, ListType,
    DictType, SetType, GeneratorType, Undefined, undefined, UnicodeType, unicode_type)
from .records import Record  # noqa: F401
from .signature import Signature, parse_signature  # noqa: F401
from .functions import (  # noqa: F401
    RawPointer, VoidPointer, CPointer, FunctionType, WrapperAddressProtocol, voidptr)
from .classes import ClassType, ClassInstanceType, DeferredType, deferred_type  # noqa: F401
from .typeof import typeof  # noqa: F401

# Numba's short and alternative names.
bool_ = b1 = boolean
i1, i2, i4, i8 = int8, int16, int32, int64
u1, u2, u4, u8 = uint8, uint16, uint32, uint64
f2, f4, f8 = float16, float32, float64
c8, c16 = complex64, complex128
byte = uint8
intc, uintc = int32, uint32
void = none
string = unicode_type
optional = Optional


# Numba's groups of types.
signed_domain = frozenset(signed_integers)
unsigned_domain = frozenset(unsigned_integers)
integer_domain = signed_domain | unsigned_domain
real_domain = frozenset(floats) - {float16}
complex_domain = frozenset(complexes)
number_domain = integer_domain | real_domain | complex_domain

__all__ = [name for name in dir() if not name.startswith("_")]

_ABSENT = {
    "Omitted": "kiln passes an omitted argument's default value to overloads instead",
    "NPDatetime": "datetime64 is not supported in compiled code",
    "NPTimedelta": "timedelta64 is not supported in compiled code",
}


def __getattr__(name):
    if name in _ABSENT:
        raise AttributeError(f"kiln.types has no {name}: {_ABSENT[name]}")
    raise AttributeError(f"module 'kiln.types' has no attribute {name!r}")

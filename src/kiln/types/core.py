"""The kiln type lattice: every value in compiled code has one of these types.

Types are immutable and hashable (they key specializations and caches); two types
are equal when their `key` is equal.
"""
from __future__ import annotations

import functools

import numpy as np


class Type:
    """Base of all kiln types. Subclasses define `key` (a tuple) and `name`, as a class
    attribute or through `Type.__init__(self, name)` (Numba's extension types call it)."""

    mutable = False

    def __init__(self, name=None):
        if name is not None:
            self.name = name

    @property
    def key(self):
        return (self.name,)

    def __eq__(self, other):
        return type(self) is type(other) and self.key == other.key

    def __hash__(self):
        return hash((type(self), self.key))

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name

    # `float64[:]`, `float64[:, ::1]` build array types, as in Numba.
    def __getitem__(self, spec):
        from .containers import array_from_slices
        return array_from_slices(self, spec)

    # `float64(int32, int32)` builds a signature; `float32(1.5)` converts a value (Numba's
    # behaviour for both).
    def __call__(self, *args):
        from .signature import Signature
        if len(args) == 1 and not isinstance(args[0], Type) and isinstance(self, Number):
            return self.np_dtype.type(args[0])
        return Signature(self, tuple(args))


@functools.total_ordering
class Number(Type):
    """Scalars with a NumPy dtype."""

    def __init__(self, name, np_dtype):
        self.name = name
        self.np_dtype = np.dtype(np_dtype)

    @property
    def key(self):
        """The name, as Numba's numbers have it (`np.iinfo(types.int8.key)` reads it)."""
        return self.name

    @property
    def bitwidth(self):
        return self.np_dtype.itemsize * 8

    def __lt__(self, other):
        """Numbers of one kind (and signedness) order by width, as Numba's do
        (`sorted(types.signed_domain)`); others do not compare."""
        if type(self) is not type(other) or \
                getattr(self, "signed", None) != getattr(other, "signed", None):
            return NotImplemented
        return self.bitwidth < other.bitwidth


class Boolean(Number):
    pass


class Integer(Number):
    @property
    def signed(self):
        return self.np_dtype.kind == "i"

    @property
    def minval(self):
        return int(np.iinfo(self.np_dtype).min)

    @property
    def maxval(self):
        return int(np.iinfo(self.np_dtype).max)


class Float(Number):
    pass


class Complex(Number):
    @property
    def underlying_float(self):
        return {64: float32, 128: float64}[self.bitwidth]


class NoneType(Type):
    name = "none"


class Opaque(Type):
    """A compile-time-only value with no runtime representation (modules, functions, dtypes...)."""


class Module(Opaque):
    """A namespace whose attributes compiled code reads as frozen globals."""
    kind = "module"

    def __init__(self, module):
        self.module = module
        self.label = module.__name__
        self.name = f"Module({module.__name__})"

    @property
    def key(self):
        return (self.module.__name__,)


class Function(Opaque):
    """A Python callable known to the library registry (e.g. `math.sin`, `len`, `np.sum`)."""

    def __init__(self, pyfunc):
        self.pyfunc = pyfunc
        self.name = f"Function({getattr(pyfunc, '__qualname__', pyfunc)})"

    @property
    def key(self):
        return (id(self.pyfunc),)


class Dispatcher(Opaque):
    """A kiln-compiled function called from compiled code."""

    def __init__(self, dispatcher):
        self.dispatcher = dispatcher
        self.name = f"Dispatcher({dispatcher.__name__})"

    @property
    def key(self):
        return (id(self.dispatcher),)


class InnerFunction(Opaque):
    """A function defined inside a compiled function (`def` or `lambda`): compiled for each
    call's argument types, with the outer locals it reads passed along."""

    def __init__(self, node, outer, captured):
        self.node = node          # its ast.FunctionDef
        self.outer = outer        # the enclosing FunctionIR
        self.captured = captured  # outer locals it reads, in order
        self.name = f"InnerFunction({node.name})"

    @property
    def key(self):
        return (id(self.node),)


class NumberClass(Opaque):
    """The class of a scalar type used as a value: `np.float32`, `int`, `kiln.float64`.

    Calling it converts (`np.float32(x)`); comparing an array's dtype to it works.
    """

    def __init__(self, instance_type):
        self.instance_type = instance_type
        self.name = f"class({instance_type})"

    @property
    def key(self):
        return (self.instance_type,)


class DType(Opaque):
    """The value of `arr.dtype`: compile-time constant, comparable to a NumberClass."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.name = f"dtype({dtype})"

    @property
    def key(self):
        return (self.dtype,)


class BoundMethod(Opaque):
    """`obj.method` before it is called: the receiver's type and the method's name."""

    def __init__(self, receiver, method):
        self.receiver = receiver
        self.method = method
        self.name = f"BoundMethod({receiver}.{method})"

    @property
    def key(self):
        return (self.receiver, self.method)


class Literal(Type):
    """Numba's `types.Literal`: the base of every type that carries a value known at compile
    time (`literal_value`). `IntegerLiteral`, `BooleanLiteral` and `StringLiteral` are what
    `types.literal(value)` makes and what `kiln.literally` compiles a function for; a plain
    `Literal(value, type)` is an argument some library function needs as a constant
    (`cuda.grid(1)`, a shared array's shape and dtype): the value, and the type the
    argument has at run time."""

    def __new__(cls, *args, **kwargs):
        # `Literal(value, type)` itself makes the library's compile-time argument
        return super().__new__(LiteralArg if cls is Literal else cls)

    def __init__(self, value, type):
        self.value = value
        self.type = type
        self.name = f"Literal({value!r})"

    @property
    def literal_value(self):
        """Numba's name for the value."""
        return self.value

    @property
    def literal_type(self):
        """Numba's name for the type of the value at run time."""
        return self.type if isinstance(self, LiteralArg) else unliteral(self)

    @property
    def key(self):
        return (self.value, self.type)


class LiteralArg(Literal, Opaque):
    """`Literal(value, type)` as a compile-time argument of a library function."""


class StringLiteral(Opaque, Literal):
    """A string known at compile time (error messages, dtype names, a string argument a
    function is compiled for by `kiln.literally`)."""

    def __init__(self, value):
        self.value = value
        self.name = "str"

    @property
    def key(self):
        return (self.value,)


class BooleanLiteral(Boolean, Literal):
    """The constant True or False as an argument of a library function: its overload sees
    the value (and may return another type for each, as `svd(compute_uv=False)` does), while
    its implementation is compiled for plain `boolean` (`unliteral`)."""

    def __init__(self, value):
        super().__init__("bool", np.bool_)
        self.value = value

    @property
    def key(self):
        return (self.value,)


class IntegerLiteral(Integer, Literal):
    """An integer known at compile time because the function is compiled for its value
    (`kiln.literally`): library overloads see it as BooleanLiteral's are seen."""

    def __init__(self, value):
        self.type = int64 if -2**63 <= value < 2**63 else uint64
        super().__init__(f"Literal[int]({value})", self.type.np_dtype)
        self.value = value

    @property
    def key(self):
        return (self.value,)


def unliteral(ty):
    """`ty` without a compile-time value: what code is compiled and values are held as (a
    string constant is a `unicode_type` value at run time)."""
    if isinstance(ty, StringLiteral):
        from .containers import unicode_type
        return unicode_type
    if isinstance(ty, BooleanLiteral):
        return boolean
    from .containers import SliceLiteral
    return ty.type if isinstance(ty, (IntegerLiteral, SliceLiteral)) else ty


class ExceptionClass(Opaque):
    def __init__(self, exc_class):
        self.exc_class = exc_class
        self.name = f"exception({exc_class.__name__})"

    @property
    def key(self):
        return (self.exc_class,)


boolean = Boolean("bool", np.bool_)
int8 = Integer("int8", np.int8)
int16 = Integer("int16", np.int16)
int32 = Integer("int32", np.int32)
int64 = Integer("int64", np.int64)
uint8 = Integer("uint8", np.uint8)
uint16 = Integer("uint16", np.uint16)
uint32 = Integer("uint32", np.uint32)
uint64 = Integer("uint64", np.uint64)
float16 = Float("float16", np.float16)
float32 = Float("float32", np.float32)
float64 = Float("float64", np.float64)
complex64 = Complex("complex64", np.complex64)
complex128 = Complex("complex128", np.complex128)
none = NoneType()


class EllipsisType(Opaque):
    """`...` in an index: as many whole axes as the other items leave."""
    name = "ellipsis"


ellipsis = EllipsisType()


class AnyType(Opaque):
    """Numba's `types.Any`: a placeholder for a type not chosen yet (a structref's fields
    before its preprocess_fields picks them); no value has it."""
    name = "any"


Any = AnyType()

intp = int64
uintp = uint64

signed_integers = (int8, int16, int32, int64)
unsigned_integers = (uint8, uint16, uint32, uint64)
integers = signed_integers + unsigned_integers
floats = (float16, float32, float64)
complexes = (complex64, complex128)
numbers = integers + floats + complexes

_BY_DTYPE = {t.np_dtype: t for t in (boolean,) + numbers}


def from_dtype(dtype) -> Number:
    """The kiln scalar type of a NumPy dtype (native byte order only); a structured dtype
    gives its Record (types/records.py), `S<n>` and `U<n>` a fixed-width string
    (types/charseq.py)."""
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        from .records import record_from_dtype
        return record_from_dtype(dtype, from_dtype)
    if dtype.kind in "Mm" and dtype.isnative:
        from .datetimes import from_np_dtype
        return from_np_dtype(dtype)
    if dtype.kind in "SU":
        from .charseq import fixed_width_of
        found = fixed_width_of(dtype)
        if found is not None:
            return found
    try:
        return _BY_DTYPE[dtype]
    except KeyError:
        raise TypeError(f"kiln does not support dtype {dtype!r}") from None


def as_dtype(ty) -> np.dtype:
    """The NumPy dtype of a kiln scalar type (Numba's `numpy_support.as_dtype`)."""
    dtype = getattr(unliteral(ty), "np_dtype", None)
    if dtype is None:
        raise NotImplementedError(f"{ty} cannot be represented as a NumPy dtype")
    return dtype


def integer_of(bitwidth: int, signed: bool) -> Integer:
    return from_dtype(f"{'i' if signed else 'u'}{bitwidth // 8}")

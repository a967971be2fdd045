"""The public extension API: users add functions, methods and attributes in a few lines."""
import numpy as np
import pytest
from llvmlite import ir

from kiln import njit, types
from kiln.errors import TypingError
from kiln.extending import intrinsic, overload, overload_attribute, overload_method, \
    register_jitable


def clamp(x, lo, hi):
    """A plain Python function that compiled code can't call until it is overloaded."""
    return min(max(x, lo), hi)


@overload(clamp)
def _clamp(x, lo, hi):
    if all(isinstance(a, types.Number) for a in (x, lo, hi)):
        def impl(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
        return impl
    return None


def test_overload_of_a_user_function():
    @njit
    def use(x):
        return clamp(x, 0.0, 1.0)
    assert use(1.5) == 1.0 and use(-2.0) == 0.0 and use(0.25) == 0.25


@register_jitable
def cube(x):
    return x * x * x


def test_register_jitable_keeps_python_callable():
    @njit
    def use(x):
        return cube(x) + 1
    assert cube(3) == 27
    assert use(3) == 28


@register_jitable
def fold(first, *rest):
    total = first
    for v in rest:
        total += v
    return total, len(rest)


@register_jitable
def sink(*args):
    pass


def calls_with_star_args(a, b):
    sink(a, b)
    sink()
    return fold(a), fold(b, a, 3), fold(b, a)


def test_register_jitable_takes_star_args():
    assert njit(calls_with_star_args)(1, 2.5) == calls_with_star_args(1, 2.5)


@intrinsic
def popcount(typingctx, x):
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)
    return x(x), codegen


def test_intrinsic_builds_llvm_ir():
    @njit
    def use(x):
        return popcount(x)
    assert use(0b101101) == 4
    assert use(np.uint8(255)) == 8
    assert isinstance(ir, object)


@overload_method(types.Array, "total")
def _total(arr):
    def impl(arr):
        s = 0.0
        for v in arr:
            s += v
        return s
    return impl


@overload_attribute(types.Array, "first")
def _first(arr):
    return lambda arr: arr[0]


def test_overload_method_and_attribute():
    @njit
    def use(a):
        return a.total() + a.first
    x = np.arange(5.0) + 1
    assert use(x) == 16.0


def test_numba_core_spellings():
    from kiln.core import types as core_types
    from kiln.core.errors import TypingError
    from kiln.core.types import float64
    import kiln
    assert core_types is kiln.types and float64 is kiln.float64
    assert TypingError is kiln.errors.TypingError


def pair_or_first(x, both=True):
    """Returns (x, -x), or x alone with both=False: the result's type depends on the flag."""
    return (x, -x) if both else x


@overload(pair_or_first)
def _pair_or_first(x, both=True):
    if isinstance(both, types.BooleanLiteral):
        both = both.value
    elif isinstance(both, types.Boolean):
        return None          # a flag known only at run time cannot choose the result type
    if both:
        return lambda x, both=True: (x, -x)
    return lambda x, both=True: x


def test_an_overload_sees_the_value_of_a_constant_bool():
    @njit
    def use(x):
        return pair_or_first(x), pair_or_first(x, False), pair_or_first(x, both=True)
    assert use(2.5) == ((2.5, -2.5), 2.5, (2.5, -2.5))

    @njit
    def flag_at_run_time(x, flag):
        return pair_or_first(x, flag)
    with pytest.raises(TypingError, match="pair_or_first"):
        flag_at_run_time(1.0, True)


def test_an_extension_type_names_itself_through_the_base_constructor():
    """Numba's extension types call `types.Type.__init__(self, name=...)` (numba-cuda's
    test_sm and test_localmem stopped at import without it)."""
    from kiln import types

    class Interval(types.Type):
        def __init__(self):
            super().__init__(name="Interval")
    assert str(Interval()) == "Interval" and Interval() == Interval()
    assert hash(Interval()) == hash(Interval()) and Interval() != types.int64

"""C from compiled code: ctypes foreign functions, Cython functions by address
(WrapperAddressProtocol), C pointers and first-class function values, each checked against
CPython (which calls the same C functions through ctypes) or SciPy."""
import ctypes
import ctypes.util
import math
import sys

import numpy as np
import pytest

from kiln import cfunc, njit, types
from kiln.errors import TypingError
from kiln.extending import get_cython_function_address
from kiln.types import FunctionType, WrapperAddressProtocol, float64

from helpers import check, run_script, same

LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
LIBC = ctypes.CDLL(None)


def _c(lib, name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


c_cos = _c(LIBM, "cos", ctypes.c_double, ctypes.c_double)
c_pow = _c(LIBM, "pow", ctypes.c_double, ctypes.c_double, ctypes.c_double)
c_ldexp = _c(LIBM, "ldexp", ctypes.c_double, ctypes.c_double, ctypes.c_int)
c_cosf = _c(LIBM, "cosf", ctypes.c_float, ctypes.c_float)
c_labs = _c(LIBC, "labs", ctypes.c_long, ctypes.c_long)
c_sincos = _c(LIBM, "sincos", None, ctypes.c_double, ctypes.POINTER(ctypes.c_double),
              ctypes.POINTER(ctypes.c_double))
c_memcpy = _c(LIBC, "memcpy", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)

EDGES = [0.0, -0.0, 0.5, -2.25, 1e308, 5e-324, math.inf, -math.inf, math.nan]


def call_cos(x):
    return c_cos(x) * 2.0


def call_pow(x, y):
    return c_pow(x, y)


def call_ldexp(x, n):
    return c_ldexp(x, n)


def call_labs(n):
    return c_labs(n) + 1


@pytest.mark.parametrize("x", EDGES)
def test_ctypes_function_of_doubles(x):
    check(call_cos, x)
    for y in (2.0, -1.0, 0.5, math.nan, math.inf):
        check(call_pow, x, y)


@pytest.mark.parametrize("n", [0, 1, -3, 1023, -1074, 2000])
def test_ctypes_function_with_int_arguments(n):
    check(call_ldexp, 1.5, n)
    check(call_labs, n)


def test_int_argument_that_does_not_fit_c_int_is_truncated_as_c_does():
    # compiled code converts int64 to C int as C would (ctypes itself raises only for
    # values beyond the platform's long)
    assert njit(call_ldexp)(1.0, 2**32 + 3) == 8.0


def test_float32_function():
    @njit
    def f(x):
        return c_cosf(x)

    for x in (np.float32(0.25), np.float32(-3.0), np.float32(np.inf)):
        assert same(np.float32(c_cosf(x)), f(x)) or (np.isnan(f(x)) and np.isnan(c_cosf(x)))
    assert types.typeof(c_cosf) == FunctionType("float32(float32)")


def test_void_function_writing_through_pointers():
    @njit
    def sin_and_cos(x):
        s = np.empty(1)
        c = np.empty(1)
        c_sincos(x, s, c)
        return s[0], c[0]

    for x in EDGES:
        s, c = ctypes.c_double(), ctypes.c_double()
        c_sincos(x, ctypes.byref(s), ctypes.byref(c))
        assert same((s.value, c.value), sin_and_cos(x))


def test_array_data_pointers_passed_through():
    @njit
    def copy_into(dst, src):
        c_memcpy(dst.ctypes.data, src.ctypes.data, src.nbytes)   # integer addresses
        c_memcpy(dst[1:].ctypes, src, 0)                          # array and its ctypes

    src = np.array([1.5, -0.0, np.nan, np.inf])
    dst = np.zeros(4)
    copy_into(dst, src)
    assert same(src, dst)
    empty = np.zeros(0)
    copy_into(empty, np.zeros(0))


def test_pointer_indexing_reads_and_writes():
    @cfunc(types.void(types.CPointer(types.int32), types.intp))
    def square_all(p, n):
        for i in range(n):
            p[i] = p[i] * p[i]

    @njit
    def run(a):
        square_all(a, a.size)
        return a.sum()

    a = np.array([-3, 0, 7, 46340], dtype=np.int32)
    assert run(a) == (np.array([-3, 0, 7, 46340], dtype=np.int64) ** 2).sum()
    assert list(a) == [9, 0, 49, 46340 ** 2]


# -- Cython functions by address: the published-package pattern from the issue -------------

scipy_special = pytest.importorskip("scipy.special")
NDTRI = type("ndtri", (WrapperAddressProtocol,),
             {"__wrapper_address__": lambda self: get_cython_function_address(
                 "scipy.special.cython_special", "ndtri"),
              "signature": lambda self: float64(float64)})()


def test_cython_function_through_wrapper_address_protocol():
    @njit
    def quantiles(p):
        out = np.empty_like(p)
        for i in range(p.size):
            out[i] = NDTRI(p[i])
        return out

    p = np.array([0.0, 1e-300, 0.025, 0.5, 0.975, 1.0, -0.5, 1.5, np.nan])
    assert same(scipy_special.ndtri(p), quantiles(p))
    assert same(np.zeros(0), quantiles(np.zeros(0)))


def test_get_cython_function_address_errors():
    with pytest.raises(ValueError, match="no C function 'nosuch'"):
        get_cython_function_address("scipy.special.cython_special", "nosuch")
    with pytest.raises(ValueError, match="no __pyx_capi__"):
        get_cython_function_address("math", "sin")
    with pytest.raises(ModuleNotFoundError):
        get_cython_function_address("no_such_module_here", "f")


# -- first-class function values ------------------------------------------------------------

@cfunc("float64(float64)")
def c_square(x):
    return x * x


@njit
def twice_plus_one(x):
    return 2.0 * x + 1.0


@njit
def apply_and_sum(fn, x):
    return fn(x) + fn(-x)


def test_external_function_pointer_is_numbas_name_of_a_c_function_type():
    """typeof of a ctypes function, as Numba's test_typeof checks it: an
    ExternalFunctionPointer whose `sig` is the C signature, and whose get_pointer gives
    the function's address."""
    ty = types.typeof(c_cos)
    assert isinstance(ty, types.ExternalFunctionPointer) and ty != types.typeof(c_cosf)
    assert ty.sig.args == (float64,) and ty.sig.return_type == float64
    assert ty == types.ExternalFunctionPointer(float64(float64)) == FunctionType("float64(float64)")
    assert ty.get_pointer(c_cos) == ctypes.cast(c_cos, ctypes.c_void_p).value
    assert ty.get_pointer(c_cos) != ty.get_pointer(c_pow)
    assert not isinstance(float64, types.ExternalFunctionPointer)


@pytest.mark.parametrize("callee, reference", [
    (c_square, lambda x: x * x), (c_cos, math.cos), (NDTRI, scipy_special.ndtri)])
def test_c_functions_as_arguments_share_one_specialization(callee, reference):
    for x in (0.25, -0.0, math.nan, 3.0):
        assert same(reference(x) + reference(-x), apply_and_sum(callee, x))
    assert apply_and_sum.signatures == [(FunctionType("float64(float64)"), types.float64)]


def test_compiled_function_where_a_function_type_is_declared():
    @njit("float64(FunctionType(float64(float64)), float64)")
    def apply(fn, x):
        return fn(x)

    @njit
    def from_compiled_code(x):
        return apply(twice_plus_one, x) + apply(c_square, x)

    for x in (1.5, -0.0, math.inf):
        assert same(twice_plus_one(x), apply(twice_plus_one, x))
        assert same(x * x, apply(c_square, x))
        assert same(2.0 * x + 1.0 + x * x, from_compiled_code(x))
    with pytest.raises(TypeError, match="no compiled signature"):
        apply(_c(LIBM, "ldexp", ctypes.c_double, ctypes.c_double, ctypes.c_int), 1.0)


def test_tuple_of_functions():
    @njit
    def total(fns, x):
        s = 0.0
        for f in fns:
            s += f(x)
        return s + fns[1](x)

    for x in (0.25, -1.0, math.nan):
        expected = x * x + math.cos(x) + scipy_special.ndtri(x) + math.cos(x)
        assert same(expected, total((c_square, c_cos, NDTRI), x))


@njit("float64(float64)")
def halved(x):
    return x / 2.0


@njit
def negated(x):
    return -x


def test_compiled_functions_in_a_list_a_tuple_loop_and_a_variable():
    """Different compiled functions are values of one FunctionType when one of them has a
    signature (the others compile for it), as Numba's first-class functions."""
    @njit
    def over_a_list(x):
        s = 0.0
        for f in [negated, halved, negated]:
            s += f(x)
        return s

    @njit
    def over_a_tuple(fns, x):
        s = 0.0
        for f in fns:
            s = f(s + x)
        return s

    @njit
    def chosen(which, x):
        f = halved if which else negated
        fs = [negated, halved]
        return f(x) + fs[1 - which](x)

    for x in (1.5, -0.0, math.inf, math.nan):
        assert same(-x + x / 2.0 - x, over_a_list(x))
        assert same(-((0.0 + x) / 2.0 + x), over_a_tuple((halved, negated), x))
        assert same(x / 2.0 - x, chosen(1, x)) and same(-x + x / 2.0, chosen(0, x))


def test_functions_without_a_signature_in_one_list_say_what_to_do():
    @njit
    def first(x):
        return x

    @njit
    def second(x):
        return x

    @njit
    def by_constant(x):
        return [first, second][0](x)   # a literal list: Python's answer

    @njit
    def by_number(x, i):
        return [first, second][i](x)
    with pytest.raises(TypingError, match="same explicit signature"):
        by_number(1.0, 1)
    assert by_constant(1.5) == 1.5


def test_exception_in_a_compiled_function_value_propagates():
    @njit
    def checked(x):
        if x < 0:
            raise ValueError("negative")
        return x

    @njit("float64(FunctionType(float64(float64)), float64)")
    def apply(fn, x):
        return fn(x) + 1.0

    @njit
    def through_compiled_code(x):
        return apply(checked, x)

    assert apply(checked, 2.0) == 3.0 and through_compiled_code(2.0) == 3.0
    with pytest.raises(ValueError, match="negative"):
        apply(checked, -2.0)
    with pytest.raises(ValueError, match="negative"):
        through_compiled_code(-2.0)


def test_exception_in_a_compiled_function_called_by_c_is_reported(monkeypatch):
    compare_type = FunctionType(types.intc(types.CPointer(types.float64),
                                           types.CPointer(types.float64)))
    qsort = _c(LIBC, "qsort", None, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
               types.foreign.ctype_of(compare_type))

    @njit
    def refuse_nan(a, b):
        if a[0] != a[0] or b[0] != b[0]:
            raise ValueError("cannot order NaN")
        return -1 if a[0] < b[0] else (1 if a[0] > b[0] else 0)

    @njit(types.void(compare_type, types.float64[::1]))
    def sort_with(compare, a):
        qsort(a, a.size, a.itemsize, compare)

    reports = []
    monkeypatch.setattr(sys, "unraisablehook", reports.append)
    a = np.array([3.0, -1.0, 2.0])
    sort_with(refuse_nan, a)
    assert list(a) == [-1.0, 2.0, 3.0] and reports == []
    sort_with(refuse_nan, np.array([1.0, np.nan]))   # C cannot take the exception: reported
    assert [r.exc_type for r in reports] == [ValueError] and reports[0].object is refuse_nan


# -- bad input ------------------------------------------------------------------------------

def test_pointer_of_the_wrong_dtype_is_a_typing_error():
    @njit
    def f(a):
        c_sincos(0.5, a, a)

    with pytest.raises(TypingError, match="a float32 array cannot be passed as "
                                          r"CPointer\(float64\)") as info:
        f(np.zeros(2, np.float32))
    assert "c_sincos(0.5, a, a)" in str(info.value)
    with pytest.raises(TypingError, match="float64 is not an array or a pointer"):
        f(1.0)


def test_wrong_argument_count_is_a_typing_error():
    @njit
    def f(x):
        return c_cos(x, x)

    with pytest.raises(TypingError, match=r"takes 1 argument\(s\), 2 given"):
        f(1.0)


def test_c_function_without_argtypes_is_a_typing_error():
    unknown = LIBM.tan   # argtypes never set: kiln does not guess (nor call variadics)

    @njit
    def f(x):
        return unknown(x)

    with pytest.raises(TypingError, match="'tan' has no argtypes") as info:
        f(1.0)
    assert "unknown(x)" in str(info.value)


def test_struct_by_value_is_a_typing_error():
    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_double), ("b", ctypes.c_double)]

    by_value = _c(LIBM, "cosh", ctypes.c_double, Pair)

    @njit
    def f(x):
        return by_value(x)

    with pytest.raises(TypingError, match="struct Pair, passed by value"):
        f(1.0)
    with pytest.raises(TypeError, match="struct passed by value"):
        FunctionType("float64(complex128)")


def test_pointer_to_struct_is_an_opaque_pointer():
    class Pair(ctypes.Structure):
        _fields_ = [("a", ctypes.c_double), ("b", ctypes.c_double)]

    copy_pairs = _c(LIBC, "memcpy", ctypes.c_void_p, ctypes.POINTER(Pair),
                    ctypes.POINTER(Pair), ctypes.c_size_t)
    assert types.typeof(copy_pairs).signature.args[:2] == (types.voidptr, types.voidptr)

    @njit
    def f(src):
        dst = np.zeros_like(src)
        copy_pairs(dst, src, src.nbytes)
        return dst

    src = np.array([[1.5, -0.0], [math.nan, math.inf]])
    assert same(src, f(src))


def test_unmapped_c_type_is_a_typing_error():
    strlen = _c(LIBC, "strlen", ctypes.c_size_t, ctypes.c_char_p)

    @njit
    def f(x):
        return strlen(x)

    with pytest.raises(TypingError, match="c_char_p"):
        f(1)


def test_missing_symbol_is_python_s_attribute_error():
    with pytest.raises(AttributeError, match="no_such_symbol"):
        LIBM.no_such_symbol


def test_calling_a_non_function_value():
    with pytest.raises(TypingError, match="not callable"):
        apply_and_sum(3.0, 1.0)


# -- arrays over C pointers ----------------------------------------------------------------

def test_carray_and_farray_view_pointer_memory():
    from kiln import carray, farray

    @njit
    def views(a, rows):
        c = carray(a.ctypes, (rows, a.size // rows))
        f = farray(a.ctypes, (rows, a.size // rows))
        flat = carray(a.ctypes.data, a.size, np.float64)
        c[0, 0] = -1.0       # writes reach the array
        return c.copy(), f.copy(), flat.sum()

    for n, rows in [(6, 2), (12, 3), (0, 1)]:
        a = np.arange(float(n))
        expected_c = a.reshape(rows, n // rows).copy()
        expected_f = a.reshape((rows, n // rows), order="F").copy()
        got_c, got_f, total = views(a, rows)
        if n:
            expected_c[0, 0] = -1.0
            expected_f[0, 0] = -1.0
        assert same(expected_c, got_c) and same(expected_f, got_f)
        assert total == (a.sum() if n else 0.0) and (n == 0 or a[0] == -1.0)


def test_carray_in_python_matches_compiled_code():
    from kiln import carray, farray
    a = np.arange(6.0)
    p = a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    assert same(a.reshape(2, 3), carray(p, (2, 3)))
    assert same(a.reshape((2, 3), order="F"), farray(p, (2, 3)))
    assert same(a, carray(a.ctypes.data, 6, np.float64))
    with pytest.raises(TypeError, match=r"mismatching dtype 'float32' for pointer type 'float64"):
        carray(p, 6, np.float32)
    with pytest.raises(TypeError, match="needs a dtype"):
        carray(a.ctypes.data, 6)


def test_carray_bad_input():
    from kiln import carray

    @njit
    def negative(a, n):
        return carray(a.ctypes, n).sum()

    @njit
    def wrong_dtype(a):
        return carray(a.ctypes, 3, np.float32).sum()

    @njit
    def no_dtype(a):
        return carray(a.ctypes.data, 3).sum()

    a = np.zeros(3)
    with pytest.raises(ValueError, match="negative dimensions"):
        negative(a, -1)
    with pytest.raises(TypingError,
                       match=r"mismatching dtype 'float32' for pointer type 'float64\*'"):
        wrong_dtype(a)
    with pytest.raises(TypingError, match="needs a dtype"):
        no_dtype(a)


CACHED_SCRIPT = """
import ctypes, ctypes.util
from kiln import cfunc, njit

libm = ctypes.CDLL(ctypes.util.find_library("m"))
cos = libm.cos
cos.argtypes, cos.restype = [ctypes.c_double], ctypes.c_double

@cfunc("float64(float64)")
def square(x):
    return x * x

@njit(cache=True)
def apply(f, x):
    return f(x) + 1.0

@njit(cache=True)
def frozen_cos(x):
    return cos(x)

assert apply(square, 3.0) == 10.0 and apply(cos, 0.0) == 2.0 and frozen_cos(0.0) == 1.0
hits = [next(iter(f._specializations.values())).result.compiled.from_cache
        for f in (apply, frozen_cos)]
print(*["HIT" if h else "MISS" for h in hits])
"""


def test_cache_keeps_function_arguments_and_not_frozen_addresses(tmp_path):
    def run():
        return run_script(tmp_path / "cached_c_calls.py", CACHED_SCRIPT,
                          tmp_path / "cache").stdout.split()

    assert run() == ["MISS", "MISS"]
    # a function value is an argument: cached; a frozen C address differs per process
    assert run() == ["HIT", "MISS"]

"""@cfunc: compiled functions with the C calling convention, called back by C code (ctypes'
qsort, SciPy's LowLevelCallable), checked against the same function run by CPython."""
import ctypes
import ctypes.util
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kiln import carray, cfunc, njit, types
from kiln.errors import TypingError

from helpers import run_script, same

scipy = pytest.importorskip("scipy")
from scipy import LowLevelCallable, integrate, ndimage  # noqa: E402

LIBC = ctypes.CDLL(None)


def hypot_py(x, y):
    return math.sqrt(x * x + y * y)


hypot_c = cfunc("float64(float64, float64)")(hypot_py)


def floor_div_py(a, b):
    return a // b


floor_div_c = cfunc(types.int64(types.int64, types.int64))(floor_div_py)


@cfunc(types.intc(types.CPointer(types.float64), types.CPointer(types.float64)))
def compare_doubles(a, b):
    """A qsort comparator: NaN sorts last, as np.sort puts it."""
    x, y = a[0], b[0]
    if x != x:
        return 0 if y != y else 1
    if y != y:
        return -1
    return -1 if x < y else (1 if x > y else 0)


@pytest.mark.parametrize("x, y", [(3.0, 4.0), (0.0, -0.0), (-1e300, 1e300), (math.inf, 1.0),
                                  (math.nan, 2.0), (5e-324, 0.0)])
def test_callable_from_python_through_its_machine_code(x, y):
    assert same(hypot_py(x, y), hypot_c(x, y))
    assert same(hypot_py(x, y), hypot_c.ctypes(x, y))


@pytest.mark.parametrize("a, b", [(7, 2), (-7, 2), (7, -2), (0, 5), (-2**63, 3)])
def test_integer_signature(a, b):
    assert floor_div_c(a, b) == floor_div_py(a, b)


def test_attributes():
    assert isinstance(hypot_c.address, int) and hypot_c.address != 0
    assert ctypes.cast(hypot_c.ctypes, ctypes.c_void_p).value == hypot_c.address
    assert hypot_c.ctypes.restype is ctypes.c_double
    assert hypot_c.ctypes.argtypes == (ctypes.c_double, ctypes.c_double)
    assert hypot_c.native_name in hypot_c.inspect_llvm()
    assert "define" in hypot_c.inspect_llvm()
    assert hypot_c.__name__ == "hypot_py"
    assert str(hypot_c.signature) == "float64(float64, float64)"
    assert types.typeof(hypot_c) == types.FunctionType("float64(float64, float64)")


def test_booleans_and_void_cross_as_c_types():
    @cfunc("bool_(int32, bool_)")
    def odd_and(n, flag):
        return n % 2 == 1 and flag

    seen = np.zeros(1)

    @cfunc(types.void(types.CPointer(types.float64), types.float64))
    def store(p, v):
        p[0] = v

    for n in (-3, -2, 0, 1, 2**31 - 1):
        for flag in (True, False):
            assert odd_and(n, flag) is (n % 2 == 1 and flag)
    assert store(seen.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), -2.5) is None
    assert seen[0] == -2.5


def test_a_cfunc_taking_a_c_function_from_c():
    @cfunc(types.float64(types.FunctionType("float64(float64)"), types.float64))
    def twice(f, x):
        return f(f(x))

    prototype = type(gaussian_c.ctypes)
    libm_cos = ctypes.cast(ctypes.CDLL(ctypes.util.find_library("m")).cos, prototype)
    assert twice.ctypes.argtypes == (prototype, ctypes.c_double)
    for x in (0.5, -0.0, 3.0, math.nan):
        assert same(gaussian_py(gaussian_py(x)), twice(gaussian_c.ctypes, x))
        assert same(math.cos(math.cos(x)), twice(libm_cos, x))


def test_allocation_inside_a_cfunc_is_freed():
    @cfunc("float64(int64)")
    def mean_of_range(n):
        a = np.arange(n) * 0.5
        return a.sum() / max(n, 1)

    for n in (0, 1, 10, 1000):
        assert mean_of_range(n) == (np.arange(n) * 0.5).sum() / max(n, 1)


@pytest.mark.parametrize("values", [[], [1.0], [3.0, -1.0, 2.0, -0.5],
                                    [np.nan, 1.0, -np.inf, np.inf, 0.0, np.nan, -7.25]])
def test_qsort_comparator_called_by_c(values):
    qsort = LIBC.qsort
    qsort.restype = None
    qsort.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                      type(compare_doubles.ctypes)]
    arr = np.array(values, dtype=np.float64)
    qsort(arr.ctypes.data, arr.size, arr.itemsize, compare_doubles.ctypes)
    assert same(np.sort(np.array(values, dtype=np.float64)), arr)


def test_qsort_called_from_compiled_code_with_a_cfunc_comparator():
    qsort = LIBC.qsort
    qsort.restype = None
    qsort.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t,
                      type(compare_doubles.ctypes)]

    @njit
    def sort_in_place(a):
        qsort(a.ctypes, a.size, a.itemsize, compare_doubles)

    rng = np.random.default_rng(4)
    for n in (0, 1, 2, 101):
        arr = rng.standard_normal(n)
        arr[::7] = np.nan
        expected = np.sort(arr)
        sort_in_place(arr)
        assert same(expected, arr)


def gaussian_py(x):
    return math.exp(-x * x)


gaussian_c = cfunc("float64(float64)")(gaussian_py)


@pytest.mark.parametrize("a, b", [(0.0, 1.0), (-math.inf, math.inf), (2.0, 2.0), (3.0, -1.0)])
def test_quad_with_a_low_level_callable(a, b):
    expected = integrate.quad(gaussian_py, a, b)
    got = integrate.quad(LowLevelCallable(gaussian_c.ctypes), a, b)
    assert same(expected[0], got[0], rtol=1e-15) and same(expected[1], got[1], rtol=1e-12)


def test_quad_with_extra_arguments_as_a_pointer():
    @cfunc(types.float64(types.intc, types.CPointer(types.float64)))
    def shifted(n, xx):
        args = carray(xx, n)
        return math.cos(args[0] + args[1]) * args[2]

    def shifted_py(x, c, scale):
        return math.cos(x + c) * scale

    for c, scale in [(0.0, 1.0), (1.5, -2.0)]:
        expected = integrate.quad(shifted_py, 0.0, 2.0, args=(c, scale))
        got = integrate.quad(LowLevelCallable(shifted.ctypes), 0.0, 2.0, args=(c, scale))
        assert same(expected[0], got[0], rtol=1e-15)


def test_generic_filter_with_a_low_level_callable():
    @cfunc(types.intc(types.CPointer(types.float64), types.intp,
                      types.CPointer(types.float64), types.voidptr))
    def spread(values, n, result, user_data):
        lo, hi = values[0], values[0]
        for i in range(1, n):
            lo = min(lo, values[i])
            hi = max(hi, values[i])
        result[0] = hi - lo
        return 1

    image = np.random.default_rng(1).standard_normal((9, 7))
    image[3, 3] = np.inf
    callback = LowLevelCallable(spread.ctypes,
                                signature="int (double *, npy_intp, double *, void *)")
    got = ndimage.generic_filter(image, callback, size=3)
    expected = ndimage.generic_filter(image, np.ptp, size=3)
    assert same(expected, got)


def test_exception_is_reported_and_zero_returned(monkeypatch):
    reports = []
    monkeypatch.setattr(sys, "unraisablehook", reports.append)
    assert same(0.0, cfunc("float64(float64, float64)")(_divide)(1.0, 0.0))
    assert floor_div_c(1, 0) == 0
    assert [r.exc_type for r in reports] == [ZeroDivisionError, ZeroDivisionError]
    assert "by zero" in str(reports[1].exc_value)
    assert repr(reports[1].object) == "<kiln.cfunc floor_div_py>"
    assert same(2.5, cfunc("float64(float64, float64)")(_divide)(5.0, 2.0))


def _divide(a, b):
    return a / b


def test_exception_goes_to_stderr_naming_the_function():
    program = textwrap.dedent("""
        from kiln import cfunc

        @cfunc("int64(int64)")
        def checked_sqrt(n):
            if n < 0:
                raise ValueError("negative input")
            return int(n ** 0.5)

        print(checked_sqrt(-4), checked_sqrt(16))
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "4"]
    assert "Exception ignored in: <kiln.cfunc checked_sqrt>" in done.stderr
    assert "ValueError: negative input" in done.stderr


@pytest.mark.parametrize("signature, problem", [
    ("complex128(float64)", "struct passed by value"),
    ("float64(complex64)", "struct passed by value"),
    ("float64(float64[:])", "not a C scalar or pointer"),
    ("(float64,)", "the return type must be given"),
    ("float64(UniTuple(float64, 2))", "invalid signature"),
])
def test_bad_signatures_are_typing_errors(signature, problem):
    with pytest.raises(TypingError, match=problem) as info:
        cfunc(signature)(_divide)
    assert "_divide" in str(info.value)


def test_body_that_does_not_type_names_the_line():
    def bad(x):
        return x.nosuch

    with pytest.raises(TypingError, match="nosuch"):
        cfunc("float64(float64)")(bad)


CACHED_CFUNC = textwrap.dedent("""
    import ctypes, sys
    import numpy as np
    from kiln import cfunc

    @cfunc("float64(float64, int32)", cache=True)
    def scaled(x, n):
        if n < 0:
            raise ValueError("negative n")
        return np.sqrt(x) * n

    assert scaled(16.0, 3) == 12.0 and np.isnan(scaled(-1.0, 2))
    assert scaled(4.0, -1) == 0.0            # reported to stderr, as without the cache
    print("HIT" if scaled._compiled.from_cache else "MISS")
""")


def test_cache_true_keeps_the_machine_code(tmp_path):
    def run():
        done = run_script(tmp_path / "cached_cfunc.py", CACHED_CFUNC, tmp_path / "cache")
        assert "Exception ignored in: <kiln.cfunc scaled>" in done.stderr
        assert "ValueError: negative n" in done.stderr
        return done.stdout.strip()

    assert run() == "MISS"
    assert run() == "HIT"


def test_a_c_callback_has_no_object_mode():
    with pytest.raises(NotImplementedError, match="no object mode"):
        cfunc("float64(float64)", forceobj=True)(lambda x: x)

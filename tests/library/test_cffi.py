"""cffi from compiled code: functions of `ffi.dlopen` libraries and of an out-of-line module
that cffi compiles here, `ffi.from_buffer(array)`, cffi functions as first-class values and
`@cfunc(...).cffi`. Each compiled function is checked against CPython, which calls the same
C functions through cffi."""
import importlib.util
import math
import sys

import numpy as np
import pytest

from kiln import cfunc, njit
from kiln.errors import TypingError
from kiln.types import typeof, CPointer, FunctionType, boolean, float64, int8, int32, int64, uint8, \
    uint32, uint64, voidptr
from kiln.types.cffi_types import c_declaration, kiln_type_of_cffi

from helpers import jit, check, same

cffi = pytest.importorskip("cffi", reason="cffi is not installed (the test extra has it)")

ffi = cffi.FFI()
ffi.cdef("""
    double cos(double); float cosf(float); double pow(double, double);
    double ldexp(double, int); long labs(long); int abs(int);
    void sincos(double, double *, double *);
    int printf(const char *, ...);
    long double cosl(long double);
""")
C = ffi.dlopen(None)

SOURCE = """
    typedef struct point { double x; double y; } point;
    double twice(double x) { return 2.0 * x; }
    int add_ints(int a, int b) { return a + b; }
    unsigned char low_byte(unsigned int x) { return (unsigned char)x; }
    _Bool is_positive(double x) { return x > 0; }
    void scale(double *p, long n, double f) { for (long i = 0; i < n; i++) p[i] *= f; }
    long sum_ints(const int *p, long n) { long s = 0; for (long i = 0; i < n; i++) s += p[i]; return s; }
    double norm2(point *p) { return p->x * p->x + p->y * p->y; }
    double norm2_by_value(point p) { return p.x * p.x + p.y * p.y; }
    double apply(double (*f)(double), double x) { return f(x) + 1.0; }
"""
DECLARATIONS = "\n".join(line.split("{")[0] + ";" if "(" in line else line
                         for line in SOURCE.splitlines())   # the functions' prototypes


@pytest.fixture(scope="module")
def ool(tmp_path_factory):
    """An out-of-line (API mode) cffi module, compiled with the machine's C compiler."""
    builder = cffi.FFI()
    builder.cdef(DECLARATIONS)
    builder.set_source("_kiln_cffi_test", SOURCE)
    where = tmp_path_factory.mktemp("cffi")
    try:
        path = builder.compile(tmpdir=str(where))
    except Exception as e:   # no C compiler: cffi.VerificationError, distutils errors
        pytest.skip(f"cffi cannot compile an out-of-line module here: {e}")
    spec = importlib.util.spec_from_file_location("_kiln_cffi_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["_kiln_cffi_test"] = module
    yield module
    del sys.modules["_kiln_cffi_test"]


EDGES = [0.0, -0.0, 0.5, -2.25, 1e308, 5e-324, math.inf, -math.inf, math.nan]


def dlopen_calls(x, n):
    return C.cos(x) * 2.0 + C.pow(x, 2.0) + C.ldexp(x, n) + C.labs(n) + C.abs(-n)


@pytest.mark.parametrize("x", EDGES)
@pytest.mark.parametrize("n", [0, -3, 7])
def test_dlopen_functions(x, n):
    check(dlopen_calls, x, n)


def call_cosf(x):
    return C.cosf(x)


@pytest.mark.parametrize("x", [0.0, 1.5, -3.25, math.inf, math.nan])
def test_float32_function(x):
    assert typeof(C.cosf) == FunctionType("float32(float32)")
    assert same(C.cosf(x), jit(call_cosf)(np.float32(x)))   # float32 returns as a float


def sincos_declared(x):
    out = np.zeros(2)
    C.sincos(x, ffi.from_buffer("double[]", out), ffi.from_buffer("double[]", out[1:]))
    return out


def sincos_plain(x):   # compiled code types the plain form as the array's item pointer
    out = np.zeros(2)
    C.sincos(x, ffi.from_buffer(out), ffi.from_buffer(out[1:]))
    return out


@pytest.mark.parametrize("x", EDGES)
def test_out_parameters_through_from_buffer(x):
    expected = check(sincos_declared, x)
    assert same(expected, jit(sincos_plain)(x))


def test_out_of_line_module_functions(ool):
    lib = ool.lib

    def calls(x, k):
        return lib.twice(x) + lib.add_ints(k, 3) + lib.low_byte(k) + lib.is_positive(x)

    for x in EDGES:
        for k in (0, 7, 258, 2**31 - 1):   # cffi refuses what C would wrap
            check(calls, x, k)


def test_register_module_as_numba_spells_it(ool):
    from kiln.core.typing import cffi_utils
    cffi_utils.register_module(ool)   # not needed by kiln: a check that it is a cffi module
    with pytest.raises(TypeError, match="not an out-of-line cffi module"):
        cffi_utils.register_module(math)


def test_from_buffer_pointer_parameters(ool):
    lib, offi = ool.lib, ool.ffi

    def scale_then_sum(a, counts):
        lib.scale(offi.from_buffer("double[]", a), a.size, -1.5)
        return lib.sum_ints(offi.from_buffer("int[]", counts), counts.size)

    for a, counts in [(np.arange(5.0), np.arange(7, dtype=np.int32)),
                      (np.array([math.nan, math.inf, -0.0]), np.array([-2, 2**31 - 1], np.int32)),
                      (np.empty(0), np.empty(0, np.int32)),
                      (np.ones((2, 3)), np.ones((3, 2), np.int32))]:
        check(scale_then_sum, a, counts)


def test_struct_pointer_is_opaque(ool):
    lib, offi = ool.lib, ool.ffi

    def norm(xy):
        return lib.norm2(offi.from_buffer("point[]", xy))

    check(norm, np.array([3.0, -4.0]))
    with pytest.raises(TypingError, match="passed by value"):
        njit(lambda x: lib.norm2_by_value(x))(1.0)


def test_c_function_values(ool):
    lib = ool.lib

    @cfunc("float64(float64)")
    def cube(x):
        return x * x * x

    @njit
    def cube_compiled(x):
        return x * x * x

    @njit
    def call_apply(f, x):
        return lib.apply(f, x)

    @njit
    def call_value(f, x):
        return f(x)

    for f, py in [(C.cos, C.cos), (lib.twice, lambda x: 2 * x), (cube, lambda x: x ** 3),
                  (cube.cffi, lambda x: x ** 3), (cube_compiled, lambda x: x ** 3)]:
        for x in (0.5, -2.0, math.inf):
            assert same(py(x) + 1.0, call_apply(f, x))
            assert same(py(x), call_value(f, x))
    # C functions of one signature share one specialization, whoever made them
    assert len([s for s in call_value.signatures if s[0] == FunctionType("float64(float64)")]) == 1


def test_cfunc_as_cffi_pointer():
    @cfunc("int64(int32, uint8, float64, voidptr, CPointer(float64))")
    def mixed(a, b, x, p, q):
        return a + b + int(x) + int(q[0])

    q = np.array([5.0])
    pointer = mixed.cffi
    assert ffi.typeof(pointer).cname == "int64_t(*)(int32_t, uint8_t, double, void *, double *)"
    assert pointer(-7, 255, 2.9, ffi.NULL, ffi.from_buffer("double[]", q)) == -7 + 255 + 2 + 5


def test_type_mapping():
    for cname, want in [("int", int32), ("unsigned int", uint32), ("long", int64),
                        ("size_t", uint64), ("char", int8), ("unsigned char", uint8),
                        ("_Bool", boolean), ("double", float64), ("void *", voidptr),
                        ("double *", CPointer(float64)), ("struct { int a; } *", voidptr),
                        ("double (*)(double)", FunctionType("float64(float64)"))]:
        assert kiln_type_of_cffi(ffi.typeof(cname)) == want, cname
    enums = cffi.FFI()
    enums.cdef("enum colour { RED, GREEN }; enum sign { MINUS = -1, PLUS = 1 };")
    assert kiln_type_of_cffi(enums.typeof("enum colour")) == uint32
    assert kiln_type_of_cffi(enums.typeof("enum sign")) == int32
    assert c_declaration(FunctionType("void(CPointer(int16), boolean)"), "f") == \
        "void (*f)(int16_t *, _Bool)"


STRUCTS = cffi.FFI()
STRUCTS.cdef("""
    typedef struct { int i1; float f2; double d3; int8_t c; } rec;
    typedef double (*rec_fn)(rec *, size_t);
    typedef struct { int bits: 4; } bitfield;
    typedef struct { float a[9]; } with_array;
    typedef union { int a; float b; } either;
""")


def rec_total(base):
    total = 0.0
    for i in range(base.size):
        total += base[i].i1 * base[i].f2 / base[i].d3 + base[i].c
    return total


def test_map_type_declares_a_cfunc_over_c_structs():
    """Numba's cffi_utils.map_type (public API for cffi users): a struct is the Record of
    its fields at cffi's offsets, and a cfunc declared with it reads C memory through
    carray as NumPy reads the same bytes."""
    from kiln import carray
    from kiln.core.typing.cffi_utils import map_type
    rec = map_type(STRUCTS.typeof("rec"), use_record_dtype=True)
    ctype = STRUCTS.typeof("rec")
    assert rec.np_dtype.itemsize == STRUCTS.sizeof(ctype)
    assert [rec.np_dtype.fields[name][1] for name in "i1 f2 d3 c".split()] == \
        [STRUCTS.offsetof(ctype, name) for name in "i1 f2 d3 c".split()]
    sig = map_type(STRUCTS.typeof("rec_fn"), use_record_dtype=True)
    assert sig.args == (CPointer(rec), uint64) and sig.return_type == float64
    total = jit(rec_total)

    @cfunc(sig)
    def over_c(ptr, n):
        return total(carray(ptr, n))
    data = STRUCTS.new("rec[3]")
    for i in range(3):
        data[i].i1, data[i].f2, data[i].d3, data[i].c = i * 123, i * 21.5, (1 + i) * 213, -i
    array = np.frombuffer(STRUCTS.buffer(data), rec.np_dtype)
    expected = sum(int(r["i1"]) * float(r["f2"]) / float(r["d3"]) + int(r["c"]) for r in array)
    assert over_c.ctypes(int(STRUCTS.cast("size_t", data)), 3) == pytest.approx(expected)
    for cname, error, message in [("bitfield", ValueError, "field 'bits' has bitshift"),
                                  ("with_array", TypeError, "scalar fields only"),
                                  ("either", TypeError, "union"),
                                  ("rec", TypeError, "use_record_dtype=True")]:
        with pytest.raises(error, match=message):
            map_type(STRUCTS.typeof(cname), use_record_dtype=cname != "rec")


def test_bad_input_is_a_typing_error(ool):
    lib, offi = ool.lib, ool.ffi
    cases = [
        (lambda: C.printf(0), "variadic"),
        (lambda: C.cosl(1.0), "long double"),
        (lambda: C.not_declared(1.0), "has no attribute"),
        (lambda a: lib.scale(offi.from_buffer(a[::2]), 2, 1.0), "C-contiguous"),
        (lambda a: lib.scale(offi.from_buffer(a.reshape((2, 2)).T), 2, 1.0), "C-contiguous"),
        (lambda a: offi.from_buffer("double", a), "array or pointer type"),
        (lambda a: ffi.from_buffer("double[", a), "double\\["),
        (lambda a: offi.from_buffer("double[", a), "double\\["),
        (lambda a: lib.sum_ints(offi.from_buffer("float[]", a), 2), "item types differ"),
        (lambda a: lib.sum_ints(offi.from_buffer(a), 2), "cannot be passed"),
        (lambda a: offi.from_buffer(1.0), "needs an array"),
    ]
    for fn, message in cases:
        args = (np.zeros(4),) * fn.__code__.co_argcount
        with pytest.raises(TypingError, match=message):
            jit(fn)(*args)

"""@njit / @jit: decorator forms, lazy and eager compilation, dispatch and introspection."""
import cmath
import threading

import numpy as np
import pytest

import kiln
from kiln import float32, float64, int32, jit, njit


def add(a, b):
    return a + b


def test_decorator_forms():
    assert njit(add)(1, 2) == 3
    assert njit()(add)(1, 2) == 3
    assert njit(fastmath=True)(add)(1.5, 2.0) == 3.5
    assert jit(add)(1, 2) == 3
    assert jit(nopython=True)(add)(1, 2) == 3
    assert jit("f8(f8, f8)", nopython=True)(add)(1.0, 2.0) == 3.0
    assert jit(float64(int32, int32))(add)(np.int32(1), np.int32(2)) == 3.0
    both = njit(["f8(f8, f8)", "i8(i8, i8)"])(add)
    assert both(1, 2) == 3 and isinstance(both(1, 2), int)
    assert both(1.5, 2.0) == 3.5


def test_forceobj_runs_python():
    f = jit(forceobj=True)(add)
    assert f("a", "b") == "ab"


def float_division_ops(a, b):
    return a // b, a % b, a / b, a ** b


def test_error_model_numpy_gives_numpys_float_results():
    """error_model="numpy" (Numba's, and every @vectorize kernel's): float //, %, / and **
    give NumPy's inf/nan where Python raises; the default model raises as Python does."""
    numpy_model = njit(error_model="numpy")(float_division_ops)
    values = [7.0, -7.0, 0.0, -0.0, np.inf, np.nan, 10.0, -1.0, 400.0]
    with np.errstate(all="ignore"):
        for a in values:
            for b in values:
                x, y = np.float64(a), np.float64(b)
                expected = (np.floor_divide(x, y), np.remainder(x, y), np.true_divide(x, y),
                            np.power(x, y))
                got = numpy_model(a, b)
                assert np.array_equal(np.array(got), np.array(expected), equal_nan=True), \
                    (a, b, got, expected)
    python_model = njit(float_division_ops)
    for a, b in ((7.0, 0.0), (0.0, -1.0)):
        with pytest.raises(ZeroDivisionError):
            python_model(a, b)
    with pytest.raises(OverflowError):
        python_model(10.0, 400.0)


def test_lazy_compilation_one_specialization_per_type():
    f = njit(add)
    assert f.signatures == []
    f(1, 2)
    f(3, 4)
    assert f.signatures == [(kiln.int64, kiln.int64)]
    f(1.0, 2)
    assert (kiln.float64, kiln.int64) in f.signatures
    assert len(f.signatures) == 2


def test_eager_signature_forms():
    def first(x):
        return x[0]
    for sig in ["f8(f8[:])", "float64(float64[:])", float64(float64[:]), "f8(f8[::1])"]:
        f = njit(sig)(first)
        assert f(np.arange(3.0) + 1) == 1.0
        assert len(f.signatures) == 1

    def corner(a):
        return a[0, 0]
    f = njit("f8(f8[:, ::1])")(corner)
    assert f(np.ones((2, 2))) == 1.0


def test_explicit_signature_refuses_other_types_by_name():
    f = njit("f8(f8[:])")(lambda x: x[0])
    with pytest.raises(TypeError, match=r"<lambda>.*accepted: float64\(array\(float64"):
        f(np.arange(3))


def test_explicit_signature_converts_scalars():
    f = njit("f8(f8, f8)")(add)
    assert f(1, 2) == 3.0 and isinstance(f(1, 2), float)
    g = njit("f4(f4, f4)")(add)
    assert g(0.1, 0.2) == float(np.float32(0.1) + np.float32(0.2))


def test_explicit_float_signature_takes_an_int_beyond_64_bits_as_python_converts_it():
    """A declared float or complex takes any Python int, as float(x) / complex(x) do
    (Numba's test_complex passes -10**36 to cmath.sqrt); an int parameter still refuses it."""
    f = njit("c16(c16)")(lambda x: cmath.sqrt(x))
    for x in [-10**36, 2**64, -2**70 - 1]:
        assert f(x) == cmath.sqrt(x)
    with pytest.raises(OverflowError):   # as cmath.sqrt(10**400): beyond a float's range
        f(10**400)
    g = njit("i8(i8)")(lambda x: x)
    with pytest.raises(TypeError, match="argument 1"):
        g(2**64)


def masked_bit(table, i):
    return table[i] & 4


def half(x):
    return x * 0.5


def test_a_number_returned_as_a_declared_bool_is_its_truth():
    """Numba converts to a declared b1 by truth (`table[i] & mask`, in a published package;
    kiln refused it, issue 32); never by truncation (4 is True)."""
    table = np.array([4, 1, 12, 255], np.uint8)
    f = njit("b1(u1[::1], i4)")(masked_bit)
    assert [f(table, i) for i in range(4)] == [bool(masked_bit(table, i)) for i in range(4)]
    g = njit("b1(f8)")(half)
    for x in [0.0, -0.0, 0.25, np.nan, -np.inf, 5e-324]:
        assert g(x) is bool(half(x))


def test_layout_specializations():
    def total(x):
        s = 0.0
        for v in x:
            s += v
        return s
    f = njit(total)
    base = np.arange(10.0)
    assert f(base) == base.sum()
    assert f(base[::2]) == base[::2].sum()
    layouts = sorted(sig[0].layout for sig in f.signatures)
    assert layouts == ["A", "C"]


def test_attributes_preserved_and_introspection():
    def documented(x):
        """Doubles x."""
        y = x * 2
        return y
    f = njit(documented)
    assert f.__name__ == "documented" and f.__doc__ == "Doubles x."
    assert f.py_func is documented
    assert f.__code__ is documented.__code__ and f.func_code is documented.__code__
    f(3)
    llvm = f.inspect_llvm()
    assert len(llvm) == 1 and "define" in next(iter(llvm.values()))
    asm = f.inspect_asm((kiln.int64,))
    assert "ret" in asm
    import io
    out = io.StringIO()
    f.inspect_types(file=out)
    assert "y = int64" in out.getvalue()


def test_keyword_and_default_arguments():
    def scaled(x, factor=2, offset=0.5):
        return x * factor + offset
    f = njit(scaled)
    assert f(3) == scaled(3)
    assert f(3, offset=1.0) == scaled(3, offset=1.0)
    assert f(x=3, factor=4) == scaled(x=3, factor=4)
    with pytest.raises(TypeError, match="scaled"):
        f(1, 2, 3, 4)


def test_compiled_calls_pass_keywords_after_omitted_defaults_as_python():
    """A keyword past a parameter left to its default (`g(x, c=1)`), keywords in any order,
    and `*args` after a default: the values Python gives."""
    def g(a, b=2, c=10):
        return a - b * c

    def h(a, b=10, *rest):
        return a + b + len(rest)

    def calls(x):
        return (g(x, c=1), g(c=3, a=x), g(x, 5), g(x, b=1, c=1), g(x),
                h(x), h(x, 1), h(x, 1, 2, 3))
    jg, jh = njit(g), njit(h)
    compiled = njit(lambda x: (jg(x, c=1), jg(c=3, a=x), jg(x, 5), jg(x, b=1, c=1), jg(x),
                               jh(x), jh(x, 1), jh(x, 1, 2, 3)))
    for x in (1, -7, 2.5):
        assert compiled(x) == calls(x)


def test_calls_between_compiled_functions():
    @njit
    def square(x):
        return x * x

    @njit
    def hyp(a, b=3.0):
        return square(a) + square(b)
    assert hyp(4.0) == 25.0
    assert hyp(2, b=1) == 5
    # compiled inside hyp's module for both types: signatures it has, as in Numba (not
    # Python entries: overloads)
    assert square.signatures == [(kiln.float64,), (kiln.int64,)] and square.overloads == {}


def test_recursion_with_explicit_signature():
    @njit("i8(i8)")
    def fib(n):
        if n < 2:
            return n
        return fib(n - 1) + fib(n - 2)
    assert fib(20) == 6765


def test_recursion_without_signature_is_inferred_from_the_base_case():
    def fact(n):
        if n <= 1:
            return 1
        return n * fact_c(n - 1)
    fact_c = njit(fact)

    def halves(n):              # the base case says int, the recursion makes it float
        if n <= 0:
            return 1
        return halves_c(n - 1) * 0.5
    halves_c = njit(halves)

    def total(a, i):            # the recursive call's result kept in a local first
        if i == len(a):
            return 0.0
        rest = total_c(a, i + 1)
        return a[i] + rest
    total_c = njit(total)
    for n in (0, 1, 5, 20):
        assert fact_c(n) == fact(n) and type(fact_c(n)) is int
        assert fact_c(float(n)) == fact(float(n))
        assert halves_c(n) == halves(n) and type(halves_c(n)) is float
    a = np.array([1.5, -2.0, np.inf])
    assert total_c(a, 0) == total(a, 0) and total_c(a[:0], 0) == 0.0


def test_recursion_whose_base_case_falls_off_the_end_returns_none():
    """Issue 32: the implicit `return None` at the end is a base case ('calls itself on
    every path that returns' before)."""
    def countdown(a, i):
        if i < a.shape[0]:
            a[i] = i * 2
            return countdown_c(a, i + 1)
    countdown_c = njit(countdown)

    def fill(a, i):
        if i < a.shape[0]:
            fill_c(a, i + 1)
            a[i] = a[i + 1] + 1 if i + 1 < a.shape[0] else 1
    fill_c = njit(fill)
    for n in (0, 1, 7):
        a, b = np.zeros(n), np.zeros(n)
        assert countdown_c(a, 0) is countdown(b, 0) is None and np.array_equal(a, b)
        assert fill_c(a, 0) is fill(b, 0) is None and np.array_equal(a, b)


def is_even(n):
    if n == 0:
        return True
    return is_odd_c(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even_c(n - 1)


is_even_c, is_odd_c = njit(is_even), njit(is_odd)


def test_mutual_recursion_without_signatures():
    for n in (0, 1, 7, 10):
        assert (is_even_c(n), is_odd_c(n)) == (is_even(n), is_odd(n))


def test_recursion_without_a_base_case_is_a_clear_error():
    @njit
    def forever(n):
        return forever(n - 1)
    with pytest.raises(kiln.errors.TypingError, match="calls itself on every path that returns"):
        forever(5)


def test_closures_and_globals_are_frozen():
    scale = 3.0
    offsets = (1, 2, 3)

    def use(x):
        return x * scale + offsets[1] + len(offsets)
    assert njit(use)(2.0) == use(2.0)


OFFSET = 1


def add_offset(x):
    return x + OFFSET


def test_a_second_dispatcher_reads_globals_when_it_compiles():
    """As in Numba: each dispatcher freezes the globals it sees when it compiles; a first
    dispatcher keeps what it compiled, called from Python and from compiled code."""
    global OFFSET
    first = njit(add_offset)

    @njit
    def twice_first(x):
        return first(x) * 2
    assert (first(1), twice_first(1)) == (2, 4)
    OFFSET = 10
    try:
        second = njit(add_offset)

        @njit
        def both(x):
            return second(x) * 100 + first(x)
        assert second(1) == add_offset(1) == 11
        assert both(1) == 1102 and first(1) == 2 and twice_first(1) == 4
        assert first(1.5) == add_offset(1.5)     # a new specialization compiles now
        assert second.py_func is add_offset is first.py_func
    finally:
        OFFSET = 1


def test_global_array_is_read_only_constant():
    table = np.array([1.0, 2.0, 4.0])

    def lookup(i):
        return table[i]
    assert njit(lookup)(2) == 4.0


def test_compiling_is_thread_safe():
    def work(x):
        s = 0
        for i in range(x):
            s += i
        return s
    f = njit(work)
    results = []
    barrier = threading.Barrier(4)

    def run():
        barrier.wait()
        results.append(f(100))
    threads = [threading.Thread(target=run) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [4950] * 4
    assert len(f.signatures) == 1


def test_fastmath_sets_llvm_flags_and_strict_does_not():
    def total(x):
        s = 0.0
        for v in x:
            s += v
        return s
    x = np.arange(100.0)
    strict, fast = njit(total), njit(fastmath=True)(total)
    assert strict(x) == fast(x) == 4950.0
    assert "fadd fast" not in next(iter(strict.inspect_llvm().values()))
    assert "fast" in next(iter(fast.inspect_llvm().values()))
    flags = njit(fastmath={"reassoc", "nsz"})(total)
    assert flags(x) == 4950.0
    with pytest.raises(ValueError, match="fastmath"):
        njit(fastmath={"bogus"})(total)


def test_unsupported_argument_type_names_function():
    with pytest.raises(TypeError, match="add.*argument 1"):
        njit(add)(object(), object())


def test_pickle_round_trip():
    import pickle
    f = njit(add)
    g = pickle.loads(pickle.dumps(f))
    assert g(2, 3) == 5


def test_float32_arguments_stay_float32():
    f = njit(add)
    r = f(np.float32(0.1), np.float32(0.2))
    assert r == float(np.float32(0.1) + np.float32(0.2))
    assert f.signatures[0] == (float32, float32)


def test_print_in_compiled_code(capsys):
    def show(x, a):
        print("x is", x, (1, 2.5), a[0], None)
        return x
    njit(show)(3, np.arange(2.0))
    assert capsys.readouterr().out == "x is 3 (1, 2.5) 0.0 None\n"


def test_nogil_releases_the_gil_and_computes():
    def spin(n):
        s = 0
        for i in range(n):
            s += i % 7
        return s
    f = njit(nogil=True)(spin)
    results = []
    threads = [threading.Thread(target=lambda: results.append(f(2_000_000))) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [spin(2_000_000)] * 2


def test_compiled_function_as_argument():
    @njit
    def square(x):
        return x * x

    @njit
    def cube(x):
        return x * x * x

    @njit
    def integrate(f, a, b, n):
        h = (b - a) / n
        total = 0.0
        for i in range(n):
            total += f(a + (i + 0.5) * h)
        return total * h
    assert abs(integrate(square, 0.0, 1.0, 1000) - 1 / 3) < 1e-6
    assert abs(integrate(cube, 0.0, 1.0, 1000) - 1 / 4) < 1e-6
    assert abs(integrate(square, 0.0, 2.0, 1000) - 8 / 3) < 1e-5
    assert len(integrate.signatures) == 2


def zeros_of(n, dtype=np.float32):
    return np.zeros(n, dtype), dtype


def test_numpy_scalar_classes_and_dtypes_are_arguments_compiled_per_value():
    """`f(n, np.float32)`, `f(n, np.dtype('i2'))` and a default `dtype=np.float32`, as in
    Numba (typeof: NumberClass, DType); each is its own specialization, and comes back as
    the same object. An alias class (np.longlong) or a byte-swapped dtype is refused."""
    f = njit(zeros_of)
    for args in [(3, np.int8), (2, np.dtype("complex64")), (1, np.bool_), (2,)]:
        (got, got_dtype), (expected, expected_dtype) = f(*args), zeros_of(*args)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert got_dtype is expected_dtype
    assert kiln.typeof(np.int8) == kiln.types.NumberClass(kiln.int8)
    assert kiln.typeof(np.dtype("i2")) == kiln.types.DType(kiln.int16)
    for bad in [np.longlong, np.dtype(">i2"), np.dtype("M8[D]")]:
        with pytest.raises(TypeError, match="argument 2"):
            f(1, bad)


def test_type_objects_convert_values_and_build_signatures():
    assert kiln.float32(0.1) == np.float32(0.1) and isinstance(kiln.float32(0.1), np.float32)
    assert kiln.int16(7) == np.int16(7) and isinstance(kiln.int16(7), np.int16)
    sig = kiln.float64(kiln.int32, kiln.int32)
    assert sig.return_type == kiln.float64 and sig.args == (kiln.int32, kiln.int32)


def test_omitted_constant_defaults_are_filled_by_the_entry_point():
    def scaled(x, factor=2, offset=0.5, flag=True, nothing=None):
        return x * factor + offset if flag and nothing is None else 0.0
    f = njit(scaled)
    assert f(3) == scaled(3) and f(3, 4) == scaled(3, 4)
    assert f(3, 4, 1.0, False) == scaled(3, 4, 1.0, False)
    assert f(3, offset=1.0) == scaled(3, offset=1.0)
    assert len(f.signatures) == 1
    spec = f._specializations[f.signatures[0]]
    assert spec.call(3) == 6.5  # the entry point alone, no Python fallback
    assert spec.call(3, 1) is not NotImplemented
    assert spec.call() is NotImplemented


def test_fastmath_reaches_library_functions():
    def vmax(x):
        m = x[0]
        for v in x:
            m = max(m, v)
        return m
    x = np.array([1.0, 5.0, -2.0, 3.0])
    fast, strict = njit(fastmath=True)(vmax), njit(vmax)
    assert fast(x) == strict(x) == 5.0
    assert "maxnum" in next(iter(fast.inspect_llvm().values()))
    assert "maxnum" not in next(iter(strict.inspect_llvm().values()))
    # Without fast-math, Python's rule: a comparison with NaN is false, so NaN first stays.
    assert np.isnan(strict(np.array([np.nan, 1.0])))
    assert strict(np.array([1.0, np.nan])) == 1.0


def test_partial_fastmath_flags_keep_nan_semantics_of_max():
    def two(a, b):
        return max(a, b)
    f = njit(fastmath={"contract"})(two)
    assert f(1.0, np.nan) == 1.0 and np.isnan(f(np.nan, 1.0))


def test_pickle_by_reference_for_module_level_dispatchers(tmp_path, monkeypatch):
    import pickle
    import sys as _sys
    (tmp_path / "pickled_module.py").write_text(
        "from kiln import njit\n\n@njit\ndef inc(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import pickled_module
    try:
        again = pickle.loads(pickle.dumps(pickled_module.inc))
        assert again is pickled_module.inc and again(1) == 2
    finally:
        _sys.modules.pop("pickled_module", None)


def test_unpickling_without_the_source_file_uses_the_shipped_source(tmp_path):
    import linecache
    import pickle
    path = tmp_path / "gone.py"
    path.write_text("def work(x):\n    total = 0\n    for i in range(x):\n"
                    "        total += i * 3\n    return total\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    data = pickle.dumps(njit(namespace["work"]))
    path.unlink()
    linecache.clearcache()
    assert pickle.loads(data)(5) == 30  # compiled from the source that travelled with it


def test_overloads_and_disable_compile_as_numba():
    f = njit(add)
    assert f(1, 2) == 3 and f(1.5, 2.0) == 3.5
    assert set(f.overloads) == {tuple(sig) for sig in f.signatures} and len(f.overloads) == 2
    assert all(spec.signature.args == key for key, spec in f.overloads.items())
    f.disable_compile()
    assert f(3, 4) == 7                      # compiled already
    with pytest.raises(TypeError, match="compiling is disabled"):
        f(1j, 2j)
    f.disable_compile(False)
    assert f(1j, 2j) == 3j


def test_calls_do_not_change_the_dispatcher_s_reference_count():
    # the first call installs the trampoline, whose fallback holds the dispatcher weakly
    import sys

    def times_ten(a):
        return a * 10

    inner = jit("intp(intp)")(times_ten)

    def outer(x):
        return inner(x + 4)

    compiled = jit("intp(intp)")(outer)
    before = sys.getrefcount(compiled), sys.getrefcount(inner)
    assert compiled(1) == outer(1) and inner(2) == times_ten(2)
    assert (sys.getrefcount(compiled), sys.getrefcount(inner)) == before

"""Numba's public names beyond the decorators (issue 16, "Numba's names"): each works as in
Numba, or is absent with an error that says why."""
import operator
import os

import numpy as np
import pytest

import kiln
from kiln import njit, types
from kiln.core import errors

from helpers import check


def test_type_groups_are_numba_s():
    assert types.signed_domain == {types.int8, types.int16, types.int32, types.int64}
    assert types.unsigned_domain == {types.uint8, types.uint16, types.uint32, types.uint64}
    assert types.integer_domain == types.signed_domain | types.unsigned_domain
    assert types.real_domain == {types.float32, types.float64}
    assert types.complex_domain == {types.complex64, types.complex128}
    assert types.number_domain == \
        types.integer_domain | types.real_domain | types.complex_domain
    assert types.boolean not in types.number_domain


def test_a_number_type_s_key_is_its_name():
    # as Numba's: tests and user code pass it to NumPy (np.iinfo(ty.key))
    for ty in sorted(types.integer_domain, key=str):
        assert ty.key == str(ty) and np.iinfo(ty.key).max == np.iinfo(ty.np_dtype).max
    assert types.float64.key == "float64" and types.boolean.key == "bool"
    assert types.literal(3).key != types.int64.key and types.literal(3) != types.int64


def test_numbers_of_one_kind_order_by_width():
    assert sorted(types.signed_domain) == [types.int8, types.int16, types.int32, types.int64]
    assert sorted(types.complex_domain) == [types.complex64, types.complex128]
    assert types.float32 < types.float64 and types.uint16 >= types.uint8
    for a, b in [(types.int8, types.uint16), (types.int64, types.float32)]:
        with pytest.raises(TypeError):
            a < b


@pytest.mark.parametrize("name", ["Omitted", "NestedArray", "pyobject"])
def test_absent_type_names_say_why(name):
    with pytest.raises(AttributeError, match=f"kiln.types has no {name}: "):
        getattr(types, name)


def test_numba_error_names_catch_kiln_s_errors():
    @njit
    def bad(x):
        return x.no_such_attribute

    for name in ("NumbaError", "TypingError", "NumbaValueError", "NumbaTypeError",
                 "NumbaAttributeError"):
        with pytest.raises(getattr(errors, name)):
            bad(1.0)
    assert issubclass(errors.NumbaPerformanceWarning, errors.NumbaWarning)
    with pytest.raises(AttributeError, match="kiln neither raises nor warns it"):
        errors.NumbaRuntimeError
    with pytest.raises(AttributeError, match="kiln neither raises nor warns it"):
        errors.IRError


def test_config_reads_the_environment_and_writes_what_kiln_reads_later(monkeypatch):
    monkeypatch.setenv("KILN_BOUNDSCHECK", "0")   # and restored after the test
    assert kiln.config.BOUNDSCHECK == 0
    kiln.config.BOUNDSCHECK = True          # read when a function is decorated
    assert os.environ["KILN_BOUNDSCHECK"] == "1" and kiln.config.BOUNDSCHECK == 1

    @njit
    def read(a, i):
        return a[i]

    with pytest.raises(IndexError):
        read(np.zeros(3), 5)
    assert kiln.config.NUMBA_NUM_THREADS >= kiln.get_num_threads()
    assert kiln.config.NUMBA_DEFAULT_NUM_THREADS >= 1
    with pytest.raises(AttributeError, match="cannot change now: it is fixed"):
        kiln.config.NUMBA_NUM_THREADS = kiln.config.NUMBA_NUM_THREADS + 1
    with pytest.raises(AttributeError, match="kiln.config has no DEBUG: "):
        kiln.config.DEBUG = 1
    with pytest.raises(AttributeError, match="no setting 'NO_SUCH'"):
        kiln.config.NO_SUCH


def operator_functions(a, b):
    x = a
    x = operator.iadd(x, b)     # numbers are immutable: the in-place form is the binary one
    y = operator.ilshift(int(a), 2)
    return (x, y, operator.isub(a, b), operator.imul(a, b), operator.itruediv(a, b),
            operator.ifloordiv(a, b), operator.imod(a, b), operator.ipow(a, 2),
            operator.abs(-a), operator.not_(a), operator.index(True), operator.neg(b),
            operator.lt(a, b), operator.truth(b))


@pytest.mark.parametrize("a, b", [(7, 3), (-7.5, 2.0), (0, -4)])
def test_operator_module_functions(a, b):
    check(operator_functions, a, b)


def in_place_on_arrays(a):
    b = operator.iadd(a, 1.0)      # arrays: in place, as in NumPy
    return b is not None, operator.getitem(a, 0)


def test_operator_in_place_functions_on_arrays_write_in_place():
    check(in_place_on_arrays, np.arange(3.0))


def test_dtype_conversions_by_numba_s_names():
    from kiln.np.numpy_support import as_dtype, from_dtype
    for dtype in ("?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8",
                  "c8", "c16"):
        assert as_dtype(from_dtype(np.dtype(dtype))) == np.dtype(dtype)
        assert kiln.from_dtype(dtype) == from_dtype(dtype)
    with pytest.raises(NotImplementedError, match="unicode_type cannot be represented"):
        as_dtype(types.unicode_type)
    assert from_dtype("M8[ns]") == types.NPDatetime("ns") and \
        as_dtype(types.NPTimedelta("")) == np.dtype("m8")
    with pytest.raises(TypeError, match="does not support dtype"):
        from_dtype("M8[10Y]")    # a unit with a multiplier
    with pytest.raises(errors.NumbaNotImplementedError, match="does not support dtype"):
        from_dtype(np.clongdouble)   # Numba's class, which code written for Numba skips


def test_version_info_compares_as_a_tuple():
    assert kiln.version_info[:3] == tuple(map(int, kiln.__version__.split(".")))
    assert kiln.version_info >= (0, 1)


@pytest.mark.parametrize("name", ["stencil", "generated_jit", "pndindex", "gdb", "gdb_init",
                                  "gdb_breakpoint"])
def test_absent_top_level_names_say_what_to_use(name):
    with pytest.raises(AttributeError, match=f"kiln has no {name}: .+"):
        getattr(kiln, name)


# Numba's C type names: the integer of the C type's width here, as NumPy has it
C_TYPES = {"char": "byte", "uchar": "ubyte", "short": "short", "ushort": "ushort",
           "intc": "intc", "uintc": "uintc", "int_": "int_", "uint": "uint",
           "long_": "int_", "ulong": "uint", "longlong": "longlong",
           "ulonglong": "ulonglong", "ssize_t": "intp", "size_t": "uintp", "byte": "ubyte",
           "double": "double"}


@pytest.mark.parametrize("name, numpy_name", C_TYPES.items())
def test_c_type_names_are_numpy_s_widths(name, numpy_name):
    assert types.as_dtype(getattr(types, name)) == np.dtype(numpy_name)
    assert getattr(kiln, name) is getattr(types, name)     # numba.double, numba.intc


def test_c_type_names_compile_in_signatures():
    @njit(types.double(types.ulonglong, types.intc))
    def scale(n, k):
        return n * 0.5 + k

    assert scale(np.uint64(6), 2) == 5.0
    assert scale.nopython_signatures[0].args == (types.uint64, types.int32)


def test_type_class_names():
    gen = types.Generator(gen_func=None, yield_type=types.int32, arg_types=(types.int64,),
                          state_types=(types.int64,))
    assert gen == types.GeneratorType(types.int32) and isinstance(gen, types.Generator)
    assert issubclass(types.GeneratorType, types.Generator)
    assert types.Set(types.int64) == types.SetType(types.int64)
    assert isinstance(types.SetType(types.int64), types.Set)
    assert not isinstance(types.int64, (types.Set, types.Generator))
    assert types.bool is types.boolean and "bool" not in types.__all__

    def gen(n):
        for i in range(n):
            yield i

    assert isinstance(kiln.typeof(njit(gen)(3)), types.Generator)


@pytest.mark.parametrize("name", ["TypingError", "NumbaError", "NumbaValueError",
                                  "NumbaDeprecationWarning", "UnsupportedBytecodeError"])
def test_error_names_at_the_top_level(name):
    assert getattr(kiln, name) is getattr(errors, name)


def test_numba_s_warning_classes_filter_as_in_numba():
    import warnings
    for name in ("NumbaDeprecationWarning", "NumbaPendingDeprecationWarning",
                 "NumbaExperimentalFeatureWarning", "NumbaParallelSafetyWarning",
                 "NumbaTypeSafetyWarning", "NumbaInvalidConfigWarning", "NumbaSystemWarning",
                 "NumbaPedanticWarning", "NumbaIRAssumptionWarning", "NumbaDebugInfoWarning"):
        assert issubclass(getattr(errors, name), errors.NumbaWarning)
    assert issubclass(errors.NumbaDeprecationWarning, DeprecationWarning)
    assert issubclass(errors.NumbaPendingDeprecationWarning, PendingDeprecationWarning)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("ignore", errors.NumbaDeprecationWarning)
        warnings.warn("old", errors.NumbaDeprecationWarning)
        warnings.warn("other", errors.NumbaExperimentalFeatureWarning)
    assert [w.category for w in seen] == [errors.NumbaExperimentalFeatureWarning]


def test_unsupported_bytecode_error_catches_what_kiln_does_not_compile():
    @njit
    def uses_global_statement():
        global C_TYPES
        C_TYPES = 1

    with pytest.raises(errors.UnsupportedBytecodeError):
        uses_global_statement()


def test_deprecated_decorator_warns_and_calls():
    @errors.deprecated("new_twice")
    def twice(x):
        return 2 * x

    @errors.deprecated
    def thrice(x):
        return 3 * x

    with pytest.warns(DeprecationWarning, match='Use "new_twice" instead'):
        assert twice(2) == 4
    with pytest.warns(DeprecationWarning, match='deprecated function "thrice"'):
        assert thrice(2) == 6


def test_machine_facts_in_config():
    import sys
    assert kiln.config.IS_WIN32 is sys.platform.startswith("win32")
    assert kiln.config.IS_OSX is sys.platform.startswith("darwin")
    assert kiln.config.IS_32BITS is (sys.maxsize < 2 ** 32)
    assert kiln.config.MACHINE_BITS == (32 if kiln.config.IS_32BITS else 64)
    with pytest.raises(AttributeError, match="is a fact about this machine"):
        kiln.config.IS_WIN32 = True


def test_threading_layer_priority(monkeypatch):
    monkeypatch.delenv("KILN_THREADING_LAYER_PRIORITY", raising=False)
    monkeypatch.delenv("NUMBA_THREADING_LAYER_PRIORITY", raising=False)
    assert kiln.config.THREADING_LAYER_PRIORITY == ["omp", "workqueue"]
    monkeypatch.setenv("NUMBA_THREADING_LAYER_PRIORITY", "tbb omp workqueue")
    assert kiln.config.THREADING_LAYER_PRIORITY == ["tbb", "omp", "workqueue"]
    with pytest.raises(ValueError, match="takes layer names"):
        kiln.config._set_layer_priority(["gpu"])
    with pytest.raises(ValueError, match="none of .* is a layer kiln has"):
        kiln.config._set_layer_priority(["tbb"])


def test_parallel_chunksize_is_kept_per_thread_and_changes_no_result():
    import threading

    @njit(parallel=True)
    def total(n):
        s = 0
        for i in kiln.prange(n):
            s += i
        return s

    assert kiln.get_parallel_chunksize() == 0
    assert kiln.set_parallel_chunksize(7) == 0
    assert kiln.get_parallel_chunksize() == 7 and total(1000) == sum(range(1000))
    other = []
    t = threading.Thread(target=lambda: other.append(kiln.get_parallel_chunksize()))
    t.start()
    t.join()
    assert other == [0]
    with kiln.parallel_chunksize(3):
        assert kiln.get_parallel_chunksize() == 3 and total(10) == 45
    assert kiln.set_parallel_chunksize(0) == 7
    with pytest.raises(ValueError, match="greater than or equal to zero"):
        kiln.set_parallel_chunksize(-1)


def test_typed_set_is_absent_and_says_what_to_use():
    with pytest.raises(AttributeError, match="kiln.typed has no Set: "):
        kiln.typed.Set


def test_jitclass_spec_as_a_keyword_of_the_decorator_factory():
    from kiln.experimental import jitclass

    @jitclass(spec=[("count", types.int64)])
    class Counter:
        def __init__(self, start):
            self.count = start

        def add(self, n):
            self.count += n
            return self.count

    @jitclass([("count", types.int64)])
    class Counter2:
        def __init__(self, start):
            self.count = start

    assert Counter(2).add(3) == 5 and Counter2(4).count == 4
    with pytest.raises(TypeError, match="takes one spec"):
        jitclass([("a", types.int64)], [("b", types.int64)])


def test_nopython_and_forceobj_as_numba_takes_them():
    def ident(x):
        return x

    with pytest.raises(ValueError, match="Only one of 'nopython' or 'forceobj' can be True"):
        kiln.jit(nopython=True, forceobj=True)
    plain = kiln.jit(forceobj=True)(ident)
    assert plain("a") == "a" and plain.py_func is ident and plain.nopython_signatures == []
    plain.disable_compile()   # a dispatcher's method, with nothing to disable
    assert plain("b") == "b"
    for option in ("nopython", "forceobj"):
        with pytest.warns(RuntimeWarning, match=f"{option} is set for njit and is ignored"):
            compiled = njit(**{option: True})(ident)
        assert compiled(3) == 3 and len(compiled.nopython_signatures) == 1


def test_star_import_gives_numba_s_names():
    names = {}
    exec("from kiln import *", names)
    assert names["TypingError"] is errors.TypingError and names["double"] is types.float64
    assert "bool" not in names and "NumbaError" in kiln.__all__ and "int32" in kiln.__all__


def test_jit_module_compiles_the_module_s_own_functions(tmp_path, monkeypatch):
    (tmp_path / "jm_usecase.py").write_text(
        "import math\n"
        "from kiln import jit_module, njit\n"
        "def inc(x):\n    return x + 1\n"
        "def twice_inc(x):\n    return inc(inc(x))\n"
        "@njit\ndef already(x):\n    return x\n"
        "jit_module(nopython=True)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import jm_usecase as m
    assert m.twice_inc(1) == 3 and m.twice_inc.py_func(1) == 3
    assert m.inc.nopython_signatures and m.already.py_func(2) == 2
    assert m.math.sqrt(4.0) == 2.0          # imported functions are left alone


def test_types_literal_is_the_type_overloads_see():
    assert types.literal(3) == types.IntegerLiteral(3) and types.literal(3).literal_value == 3
    assert types.literal(True) == types.BooleanLiteral(True)
    assert types.literal("a") == types.StringLiteral("a")
    assert types.maybe_literal(1.5) is None
    with pytest.raises(errors.LiteralTypingError, match="float cannot be used as a literal"):
        types.literal(1.5)

    from kiln.extending import overload

    def kind(x):
        pass

    @overload(kind)
    def kind_impl(x):
        value = x.literal_value if isinstance(x, types.IntegerLiteral) else None
        return lambda x: value == 123

    @njit
    def foo(x):
        return kind(kiln.literally(x))

    assert foo(123) and not foo(7)     # the overload saw types.literal(123) for 123


def test_config_can_be_imported_again_under_another_name():
    import importlib.util
    spec = importlib.util.spec_from_loader("numba_like_config", loader=None)
    kiln.config.__spec__, old = spec, kiln.config.__spec__   # what an import alias does
    kiln.config.__spec__ = old
    assert kiln.config.__spec__ is old


def test_nopython_false_warns_that_it_has_no_effect_as_numba_does():
    with pytest.warns(errors.NumbaDeprecationWarning,
                      match="The keyword argument 'nopython=False' was supplied"):
        compiled = kiln.jit(nopython=False)(lambda x: x * 2)
    assert compiled(3) == 6
    with pytest.warns(errors.NumbaDeprecationWarning, match="'nopython=False'") as caught:
        add_one = kiln.vectorize(["float64(float64)"], nopython=False)(lambda x: x + 1)
    assert caught[0].filename == __file__ and add_one(1.5) == 2.5   # at the caller's line
    with pytest.warns(errors.NumbaDeprecationWarning, match="'nopython=False'"):
        kiln.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)",
                         nopython=False)(lambda a, b: None)


def test_dummy_is_the_base_of_types_with_no_representation():
    # Numba's types.Dummy: extension types subclass it; a signature naming one compiles
    # no function (a TypingError, as Numba's nopython mode gives)
    assert issubclass(types.Module, types.Dummy) and types.Dummy("list").name == "list"

    def truth(x):
        return bool(x)

    with pytest.raises(errors.TypingError):
        kiln.jit((types.Dummy("list"),), nopython=True)(truth)


class _SaysItsType:
    @property
    def _numba_type_(self):   # Numba's protocol: an object that says its type
        return types.UniTuple(types.boolean, 3)


def test_an_object_saying_its_numba_type_has_it():
    assert kiln.typeof(_SaysItsType()) == types.UniTuple(types.boolean, 3)
    with pytest.raises(TypeError):   # it is no such tuple: compiled code does not take it
        njit(lambda x: x[0])(_SaysItsType())

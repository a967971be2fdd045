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


@pytest.mark.parametrize("name", ["Omitted", "NPDatetime"])
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
        errors.NumbaDeprecationWarning


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
        kiln.config.NUMBA_NUM_THREADS = 1
    with pytest.raises(AttributeError, match="kiln.config has no DISABLE_JIT: "):
        kiln.config.DISABLE_JIT = 1
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
    with pytest.raises(TypeError, match="does not support dtype"):
        from_dtype("M8[ns]")


def test_version_info_compares_as_a_tuple():
    assert kiln.version_info[:3] == tuple(map(int, kiln.__version__.split(".")))
    assert kiln.version_info >= (0, 1)


@pytest.mark.parametrize("name", ["stencil", "generated_jit", "pndindex", "gdb"])
def test_absent_top_level_names_say_what_to_use(name):
    with pytest.raises(AttributeError, match=f"kiln has no {name}: .+"):
        getattr(kiln, name)

"""Large callees are compiled once per process and called from later modules
(codegen/sharing.py): the results stay NumPy's, exceptions still come out of the shared
code, and code that must stand alone (cache=True) still carries its own copy."""
import re

import numpy as np
import pytest

from kiln import njit

DECLARED = re.compile(r'declare [^\n]*@"?(kiln\.[^"\s(]*\.shared)"?')
DEFINED = re.compile(r'define [^\n]*@"?(kiln\.[^"\s(]*\.shared)"?')


def median_and_sort(a):
    return np.median(a), np.sort(a)


def median_plus_one(a):
    return np.median(a) + 1.0


def inverse(a):
    return np.linalg.inv(a)


def declared(dispatcher, a):
    return set(DECLARED.findall(next(iter(dispatcher.inspect_llvm().values()))))


def test_a_large_callee_is_compiled_once_and_called_by_later_functions():
    a = np.random.default_rng(5).standard_normal(101)
    first, second = njit(median_and_sort), njit(median_plus_one)
    got = first(a)
    assert got[0] == np.median(a) and np.array_equal(got[1], np.sort(a))
    assert second(a) == np.median(a) + 1.0
    assert second(a[:0].copy()) != second(a[:0].copy())   # NaN for an empty array, as NumPy
    assert declared(first, a) & declared(second, a)        # both call one loaded copy
    for f in (first, second):
        assert not DEFINED.findall(next(iter(f.inspect_llvm().values())))


def test_an_exception_raised_in_shared_code_reaches_every_caller():
    first, second = njit(inverse), njit(lambda a: np.linalg.inv(a) * 2.0)
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    assert np.allclose(first(good), np.linalg.inv(good))
    for f in (first, second):
        with pytest.raises(np.linalg.LinAlgError):
            f(np.zeros((3, 3)))


def test_cached_code_carries_its_own_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    a = np.arange(9.0)[::-1].copy()
    njit(median_and_sort)(a)                        # the shared median is loaded
    cached = njit(cache=True)(median_plus_one)
    assert cached(a) == np.median(a) + 1.0
    assert not declared(cached, a)

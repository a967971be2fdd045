"""Records crossing the CPython boundary (issue 32): NumPy record scalars as arguments (a
reference into their array, as in Numba), as results (a copy) and as frozen globals; and
the array attributes Numba's test_array_attr checks (`flags`, `dtype` returned, `.imag` of
real arrays), each against NumPy on the same values."""
import numpy as np
import pytest

from kiln import njit, typeof
from kiln.errors import TypingError

NESTED = np.dtype([("a", np.int32), ("f", np.int32, (2, 5))])
FROZEN = np.zeros(1, dtype=[("a", np.int32), ("b", np.float32)])[0]
FROZEN["a"] = 3


@njit
def bump(r):
    r.a += 1
    r.f[1, 2] = 9
    return r


@njit
def sub_array_attributes(r):
    return r.f.shape, r.f.strides, r.f.ndim, r.f.size, r.f.itemsize, r.f.nbytes


def test_a_record_argument_is_a_reference_and_a_returned_one_a_copy():
    arr = np.zeros(3, NESTED)
    out = bump(arr[1])
    assert arr["a"].tolist() == [0, 1, 0] and arr["f"][1, 1, 2] == 9
    assert isinstance(out, np.void) and out.dtype == NESTED and out["a"] == 1
    out["a"] = 50                       # the result is the record's copy
    assert arr["a"][1] == 1
    for rec in (np.recarray(2, NESTED)[1], arr[2]):     # np.record and np.void alike
        f = rec["f"]
        assert sub_array_attributes(rec) == (f.shape, f.strides, f.ndim, f.size,
                                             f.itemsize, f.nbytes)


def test_records_of_other_dtypes_get_their_own_specialization():
    @njit
    def first(r):
        return r["x"]

    wide, narrow = np.dtype([("x", np.int64)]), np.dtype([("x", np.int8), ("y", "f8")])
    assert first(np.ones(1, wide)[0]) == 1 and first(np.full(1, 7, narrow)[0]) == 7
    assert len(first.signatures) == 2
    assert typeof(np.zeros(1, narrow)[0]) == first.signatures[1][0]


def test_a_global_record_is_frozen_when_compiling():
    @njit
    def same_a(x):
        return x.a == FROZEN.a

    x = np.zeros(1, FROZEN.dtype)[0]
    x["a"] = 3
    assert same_a(x)
    x["a"] = 2
    assert not same_a(x)


@pytest.mark.parametrize("make", [
    lambda: np.arange(20, dtype=np.int32).reshape(4, 5), lambda: np.ones((4, 5)).T,
    lambda: np.ones((4, 5))[::2], lambda: np.array(42), lambda: np.zeros((1, 0, 2)),
    lambda: np.ones((4, 5))[:, :1], lambda: np.ones((4, 5))[:1]])
def test_flags_as_numpy(make):
    @njit
    def flags(a):
        return a.flags.contiguous, a.flags.c_contiguous, a.flags.f_contiguous

    a = make()
    expected = (a.flags.contiguous, a.flags.c_contiguous, a.flags.f_contiguous)
    assert flags(a) == expected
    assert njit((typeof(a).copy(layout="A"),))(flags.py_func)(a) == expected


def test_dtype_results_imag_of_real_arrays_and_record_parts():
    @njit
    def dtype_of(a):
        return a.dtype

    @njit
    def imag(a):
        return a.imag

    for a in (np.ones(3, np.int32), np.zeros(2, [("x", "i1"), ("y", "i1")])):
        assert dtype_of(a) == a.dtype
    for a in (np.arange(6, dtype=np.uint8).reshape(2, 3), np.ones(4, np.float32)):
        got, expected = imag(a), a.imag
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert not got.any() and not got.flags.writeable
    records = np.zeros(3, [("real", np.float32), ("imag", np.complex64)])
    with pytest.raises(TypingError, match=r"cannot access \.imag of array of Record"):
        imag(records)

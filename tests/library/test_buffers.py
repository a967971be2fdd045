"""bytearray, memoryview and array.array arguments (library/buffers.py): len, items,
iteration, item assignment, a memoryview's slices and attributes, checked against CPython
on the same objects; read-only buffers and copying slices refused at compile time."""
import array
import copy

import numpy as np
import pytest

import kiln
from kiln.errors import ArgumentTypingError, TypingError


@kiln.njit
def read(b, i):
    total = 0.0
    for k, x in enumerate(b):
        total += x * (k + 1)
    return len(b), b[i], b[-1], total


@pytest.mark.parametrize("b", [
    bytearray(b"\x00\xffabc"), array.array("q", [-2**62, 7, 0, 3]), array.array("f", [1.5, -2.0]),
    memoryview(b"xyz"), memoryview(np.arange(10, dtype=np.int16)[::-3]),   # strided
], ids=["bytearray", "array-q", "array-f", "readonly-memoryview", "strided-memoryview"])
def test_reading_a_buffer_as_python_does(b):
    assert read(b, 1) == read.py_func(b, 1)
    assert type(read(b, 0)[1]) is type(read.py_func(b, 0)[1])


@kiln.njit
def count(b):
    n = 0
    for x in b:
        n += 1
    return n, len(b)


@pytest.mark.parametrize("b", [bytearray(), memoryview(b""), array.array("d")])
def test_an_empty_buffer(b):
    assert count(b) == count.py_func(b)


@kiln.njit
def write(b, i, v):
    b[i] = v


@pytest.mark.parametrize("make, i, v", [
    (lambda: (bytearray(b"abc"),) * 2, -1, 200),
    (lambda: (array.array("Q", [2**64 - 1, 5]),) * 2, 0, 2**63 + 1),
    (lambda: (lambda a: (a, memoryview(a)))(np.zeros((2, 3))), (1, 2), 2.5),
    (lambda: (lambda a: (a, memoryview(a)[::2]))(bytearray(b"abcdef")), 1, 0),   # strided
], ids=["bytearray", "array-Q", "2d-memoryview", "strided-memoryview"])
def test_writing_into_a_buffer_as_python_does(make, i, v):
    expected, view = make()
    view[i] = v
    got, view = make()
    write(view, i, v)
    assert np.array_equal(np.asarray(got), np.asarray(expected))


def test_read_only_buffers_and_copying_slices_are_refused():
    with pytest.raises(TypingError, match="read-only"):
        write(memoryview(b"abc"), 0, 1)
    ro = np.arange(3)
    ro.setflags(write=False)
    with pytest.raises(TypingError, match="read-only"):
        write(memoryview(ro), 0, 1)
    with pytest.raises(TypingError, match="cannot slice a bytearray"):
        kiln.njit(lambda b: b[1:])(bytearray(b"abc"))
    with pytest.raises(ArgumentTypingError, match="memoryview"):   # no number format
        read(memoryview(b"ab").cast("c"), 0)


@kiln.njit
def attributes(m):
    return (m.ndim, m.shape, m.strides, m.itemsize, m.nbytes, m.readonly, m.contiguous,
            m.c_contiguous, m.f_contiguous)


def _attributes(m):   # CPython's, but for `contiguous` spelled as Numba reads it
    return (m.ndim, m.shape, m.strides, m.itemsize, m.nbytes, m.readonly,
            m.c_contiguous or m.f_contiguous, m.c_contiguous, m.f_contiguous)


@pytest.mark.parametrize("make", [
    lambda a: a, lambda a: a.T, lambda a: a[::2], lambda a: np.zeros(()),
    lambda a: np.ascontiguousarray(a)[:, :1].copy(), lambda a: memoryview(bytearray(b"xy")),
], ids=["C", "F", "strided", "0-d", "column", "bytearray"])
def test_memoryview_attributes_as_python_gives_them(make):
    m = memoryview(make(np.arange(12).reshape(3, 4)))
    assert attributes(m) == _attributes(m)


@kiln.njit
def middle(m, i, j):
    s = m[i:j]
    return s, s[0] + 2 * s[-1]


@pytest.mark.parametrize("m", [memoryview(b"xyzuvw"), memoryview(np.arange(8.0))[::-2]])
def test_a_memoryview_slice_views_the_same_memory(m):
    got, value = middle(m, 1, -1)
    expected, expected_value = middle.py_func(m, 1, -1)
    assert value == expected_value and got.tolist() == expected.tolist()
    assert got.readonly == expected.readonly


def test_writing_through_a_memoryview_slice():
    data = bytearray(b"abcdef")
    kiln.njit(lambda m: write(m[2:], 0, 33))(memoryview(data))
    assert data == bytearray(b"ab!def")


@kiln.njit
def copy_half(m):
    m[:2] = m[-2:]


def test_assigning_a_memoryview_slice_as_python_does():
    expected, got = bytearray(b"abcd"), bytearray(b"abcd")
    copy_half.py_func(memoryview(expected))
    copy_half(memoryview(got))
    assert got == expected
    with pytest.raises(TypingError, match="slice of a memoryview"):   # Python: TypeError
        kiln.njit(lambda m: write(m, slice(0, 2), 7))(memoryview(bytearray(b"ab")))
    with pytest.raises(TypingError, match="cannot slice a bytearray"):   # may resize it
        kiln.njit(lambda b, v: write(b, slice(0, 2), v))(bytearray(b"ab"), np.zeros(2))


def test_a_bytearray_comes_back_as_itself():
    data = bytearray(b"k")
    assert kiln.njit(lambda b: b)(data) is data


@kiln.njit
def from_buffer(b, count, offset):
    return np.frombuffer(b, np.int16, count, offset)


@pytest.mark.parametrize("b", [b"\x01\x00\x02\x00\xff", bytearray(b"\x01\x00\x02\x00"),
                               memoryview(b"abcdef"), array.array("h", [1, -2, 3])],
                         ids=["bytes", "bytearray", "memoryview", "array"])
def test_frombuffer_as_numpy_reads_it(b):
    for count, offset in [(-1, 0), (1, 2), (2, 0), (-1, 1), (5, 0), (1, 9), (0, 0), (-1, -1)]:
        try:
            expected = np.frombuffer(b, np.int16, count, offset)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e).replace("(", r"\(").replace(")", r"\)")):
                from_buffer(b, count, offset)
            continue
        got = from_buffer(b, count, offset)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
        assert got.flags.writeable == expected.flags.writeable


def test_frombuffer_shares_the_memory():
    data = bytearray(4)
    from_buffer(data, -1, 0)[1] = -1
    assert data == bytearray(b"\x00\x00\xff\xff")
    assert np.array_equal(kiln.njit(lambda b: np.frombuffer(b))(b"12345678"),
                          np.frombuffer(b"12345678"))


def views(m):
    a = np.asarray(m)
    a[0, 0] += 1
    return a, np.array(m), np.asarray(m, np.float32), a[1], m[1, 2]


def test_numpy_arrays_of_a_memoryview_as_numpy_makes_them():
    expected_base, got_base = np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3)
    expected = views(memoryview(expected_base))
    got = kiln.njit(views)(memoryview(got_base))
    assert np.array_equal(got_base, expected_base)   # np.asarray wrote through
    for e, g in zip(expected[:4], got[:4]):   # a[1]: a view of the memoryview's memory
        assert g.dtype == e.dtype and np.array_equal(g, e)
    assert got[4] == expected[4]
    with pytest.raises(TypingError, match="sub-views"):   # Python: NotImplementedError
        kiln.njit(lambda m: m[1])(memoryview(got_base))
    with pytest.raises(TypingError, match="iterate|iterable"):
        count(memoryview(got_base))

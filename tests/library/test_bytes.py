"""`bytes` in compiled code (library/bytes_values.py): arguments, constants, len, items,
slices, iteration, == and isinstance, and bytes returned to Python, checked against CPython."""
import pytest

from helpers import check


def read(b, i):
    total = 0
    for x in b:
        total += x
    return len(b), b[i], total, b == b"abc", b != b"", isinstance(b, bytes), \
        isinstance(b, (str, int))


@pytest.mark.parametrize("b, i", [(b"abc", 0), (b"abc", -1), (b"\x00\xff\x80", 1),
                                  (b"abc", 3), (b"ab", -3), (b"", 0)])
def test_reading_bytes_as_python_does(b, i):
    check(read, b, i)   # out of range: CPython's IndexError


def given_back(b):
    c = b"k\x00ln"
    return b, c, len(c), c[3]


@pytest.mark.parametrize("b", [b"", b"xyz", bytes(range(256))])
def test_bytes_return_to_python_equal(b):
    check(given_back, b)


def sliced(b, start, stop, step):
    return b[start:stop:step], b[start:stop]


@pytest.mark.parametrize("b", [b"", b"xyzuvw", bytes(range(256))])
@pytest.mark.parametrize("bounds", [(1, 5, 1), (None, None, -1), (-100, 100, 2), (5, 1, 1),
                                    (-2, None, -3), (0, 1, 0)])
def test_bytes_slices_as_python_gives_them(b, bounds):
    check(sliced, b, *bounds)   # a zero step: CPython's ValueError

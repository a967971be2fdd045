"""Loops over the positions of multi-dimensional arrays (issue 33: they walk the shape as
nested loops): `a.flat`, np.ndindex, np.ndenumerate and np.nditer against NumPy on C,
Fortran, strided, reversed, 0-d and empty arrays of int and float dtypes, with `break`,
`continue` and `else`."""
import numpy as np
import pytest

from helpers import check, slow_except


def flat_sum(a):
    total = 0.0
    for v in a.flat:
        total += v
    return total


def flat_list(a):
    out = np.empty(a.size, a.dtype)
    k = 0
    for v in a.flat:
        out[k] = v
        k += 1
    return out


def flat_len(a):
    return len(a.flat)


def ndindex_list(shape):
    out = []
    for idx in np.ndindex(shape):
        out.append(idx)
    return out


def ndenumerate_pairs(a):
    total = 0.0
    count = 0
    for idx, v in np.ndenumerate(a):
        weight = 1
        for i in idx:
            weight = weight * 3 + i
        total += weight * v
        count += 1
    return total, count


def nditer_sum(a):
    total = 0.0
    seen = 0
    for x in np.nditer(a):
        total = total * 0.5 + x.item()
        seen += 1
    return total, seen


def nditer_pairs(a, b):
    total = 0.0
    for x, y in np.nditer((a, b)):
        total = total * 0.25 + x.item() * 2 + y.item()
    return total


def early_exit(a, stop):
    count = 0
    for idx, v in np.ndenumerate(a):
        if v == stop:
            break
        if v < 0:
            continue
        count += 1
    else:
        count = -1
    found = -1
    for v in a.flat:
        found += 1
        if v == stop:
            break
    return count, found


def ndindex_nested(n, m):
    total = 0
    for i, j in np.ndindex(n, m):
        for (k,) in np.ndindex(j + 1):
            total += i * 100 + j * 10 + k
    return total


def base(shape, dtype):
    size = int(np.prod(shape))
    values = (np.arange(size) * 7 % 11 - 3).astype(dtype)
    return values.reshape(shape)


def layouts(shape, dtype):
    a = base(shape, dtype)
    yield a
    yield np.asfortranarray(a)
    if a.ndim:
        yield a[..., ::-1]
        yield a[..., ::2]
    if a.ndim >= 2:
        yield a.T
        yield a[::-1, 1:]


SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2), (0, 3), (3, 0), (2, 0, 2)]


@pytest.mark.parametrize("shape, dtype", slow_except(   # int32: one shape by default
    [(shape, dtype) for dtype in (np.float64, np.int32) for shape in SHAPES],
    *[(shape, np.float64) for shape in SHAPES], ((3, 4), np.int32), rows=True),
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_positions_in_c_order(shape, dtype):
    for a in layouts(shape, dtype):
        check(flat_sum, a)
        check(flat_list, a)
        check(flat_len, a)
        check(ndenumerate_pairs, a)
        check(early_exit, a, a.flat[a.size // 2] if a.size else 0)


@pytest.mark.parametrize("shape", [(), (0,), (4,), (3, 2), (2, 0), (2, 3, 2), (1, 1, 1, 3)],
                         ids=str)
def test_ndindex(shape):
    check(ndindex_list, shape)


def test_ndindex_nested_and_zero_dims():
    check(ndindex_nested, 3, 4)
    check(ndindex_nested, 0, 4)
    check(ndindex_nested, 3, 0)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (2, 1, 3)], ids=str)
def test_nditer_in_numpys_order(shape):
    for a in layouts(shape, np.float64):
        check(nditer_sum, a)
    a = base(shape, np.float64)
    b = base(shape[-1:], np.float64) if shape else np.array(2.0)
    check(nditer_pairs, a, b)
    if a.ndim >= 2:
        check(nditer_pairs, a.T, np.ascontiguousarray(a.T))
        check(nditer_pairs, a[::-1], a)


def zipped(a, k):
    # (zip(np.ndindex(...), range(k)) does not compile yet: a zip of an ndindex fails in
    # lowering, as before this change)
    out = []
    for idx, r in zip(np.ndenumerate(a), range(k)):
        out.append((idx[0][0], idx[0][-1], r))
    total = 0.0
    for n, v in enumerate(a.T.flat):
        total += n * v
    for (i, x), y in zip(np.ndenumerate(a), a.T.flat):
        total += x * y - i[0]
    return out, total


def test_positions_inside_zip_and_enumerate():
    a = base((3, 4), np.float64)
    for k in [0, 5, 12, 20]:
        check(zipped, a, k)
    check(zipped, np.asfortranarray(base((2, 3, 2), np.float64)), 7)

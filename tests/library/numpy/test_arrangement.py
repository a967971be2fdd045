"""Flips, rot90, atleast_*d, expand_dims, swapaxes, moveaxis, broadcast_to, contiguity,
column_stack, dstack, the splits and np.shape/ndim/size against NumPy (arrangement.py)."""
import numpy as np
import pytest

from helpers import as_python, chk, jit, same

try:
    from numpy.exceptions import AxisError
except ImportError:
    from numpy import AxisError

M = np.arange(12.0).reshape(3, 4) - 5
C = (np.arange(24) - 7).reshape(2, 3, 4)


def flips(a, k):
    return np.fliplr(a), np.flipud(a), np.rot90(a), np.rot90(a, k)


def test_flips_and_rotations():
    for a in (M, M.T, M[::2, ::-3], np.zeros((0, 2))):
        for k in (-5, -1, 0, 1, 2, 3, 6):
            chk(flips, a, k)
    chk(flips, M[0], 1)      # ValueError: 1-d
    chk(flips, C.astype(np.complex128), 3)


def atleast(x):
    return np.atleast_1d(x), np.atleast_2d(x), np.atleast_3d(x)


def atleast_many(x, y):
    return np.atleast_1d(x, y), np.atleast_2d(x, y), np.atleast_3d(x, y)


def test_atleast():
    for x in (2.5, np.arange(3)[::-1], M, C, np.zeros(0, np.bool_)):
        chk(atleast, x)
    chk(atleast_many, M[0], 3)


def expand_dims(a, axis):
    return np.expand_dims(a, axis)


def swapaxes(a, i, j):
    return np.swapaxes(a, i, j), a.swapaxes(j, i)


def moveaxis(a, i, j):
    return np.moveaxis(a, i, j)


def views_write(a):
    np.swapaxes(a, 0, 2)[1, 2, 0] = 100
    np.moveaxis(a, 0, 2)[1, 2, 0] = 200
    np.expand_dims(a, 1)[1, 0, 0, 3] = 300
    np.rot90(a[0])[0, 1] = 400
    return a.sum()


def test_axis_views():
    for a in (C, C.transpose(2, 0, 1), C[:, ::-1, ::2]):
        for axis in (-4, -1, 0, 2, 3, 4):
            chk(expand_dims, a, axis)
        for i, j in ((0, 2), (-1, 1), (1, 1), (3, 0)):
            chk(swapaxes, a, i, j)
            chk(moveaxis, a, i, j)
    chk(moveaxis, C, 0, -4)      # AxisError
    with pytest.raises(AxisError):
        jit(moveaxis)(C, 0, -4)
    chk(expand_dims, np.zeros(0, np.complex128), 0)
    chk(views_write, C.copy())


def broadcast_to(a, shape):
    return np.broadcast_to(a, shape)


def test_broadcast_to():
    for a, shape in ((np.arange(3), (2, 3)), (np.arange(3)[:, None], (2, 3, 4)),
                     (np.arange(3), (0, 3)), (np.arange(3)[:1], (4, 0)),
                     (np.arange(3), (3, 2)), (np.arange(3), (-1, 3))):
        chk(broadcast_to, a, shape)
    got = jit(broadcast_to)(np.arange(3), (2, 3))
    assert got.strides == (0, 8)   # a view, read-only as NumPy's
    assert not got.flags.writeable and not broadcast_to(np.arange(3), (2, 3)).flags.writeable


def contiguous(a):
    return np.ascontiguousarray(a), np.asfortranarray(a)


def test_contiguity():
    for a in (M, M.T, M[::2, ::-1], np.arange(3.0)[::2]):
        got = jit(contiguous)(a)
        chk(contiguous, a)
        assert got[0].flags.c_contiguous and got[1].flags.f_contiguous
    assert jit(contiguous)(M)[0] is M or np.shares_memory(jit(contiguous)(M)[0], M)


def stacks(a, b):
    return np.column_stack((a, b)), np.dstack((a, b))


def test_stacks():
    chk(stacks, np.arange(3.0), np.arange(3.0)[::-1] * 1j)
    chk(stacks, np.arange(3), np.arange(4))    # ValueError: the sizes differ
    chk(stacks, M, M.T[:3, ::-1])


def _tuples(x):
    return tuple(_tuples(i) for i in x) if isinstance(x, (list, tuple)) else x


def chk_pieces(f, *args):
    """chk for functions returning lists of arrays (kiln returns typed Lists)."""
    try:
        expected = f(*args)
    except Exception as e:
        with pytest.raises(type(e)):
            jit(f)(*args)
        return
    got = _tuples(as_python(jit(f)(*args)))
    assert same(_tuples(expected), got), (f.__name__, args, expected, got)


def split(a, s):
    return np.split(a, s)


def array_split(a, s, axis):
    return np.array_split(a, s, axis)


def hvsplit(a, s):
    return np.hsplit(a, s), np.vsplit(a, s)


def test_splits():
    for s in (1, 2, 3, 4, 0, -1):
        chk_pieces(split, np.arange(6), s)
        chk_pieces(array_split, C, s, 2)
        chk_pieces(array_split, C, s, -2)
        chk_pieces(hvsplit, M[:2], s)
    for s in ((2, 5), (-2, 1, 100), ()):
        chk_pieces(split, np.arange(6), s[:2] if len(s) > 2 else s)
    chk_pieces(split, np.arange(6), np.array([3, 1, 4]))
    chk_pieces(array_split, C, 2, 3)          # AxisError
    chk_pieces(hvsplit, np.arange(4), 2)      # vsplit of 1-d: ValueError


def sizes(a):
    return np.shape(a), np.ndim(a), np.size(a)


def test_shape_ndim_size():
    for a in (C, M[:, :0], 3.5):
        chk(sizes, a)

"""np.round/around/.round, real, imag, nan_to_num, take, flatnonzero, extract, compress,
select, append, delete and insert against NumPy (picking.py)."""
import numpy as np

from helpers import chk

F = np.array([1.25, -2.5, np.nan, np.inf, -np.inf, 0.5, -0.0, 123.456, 0.125, -1.5e30])
I = np.array([15, 25, -15, 7, -45, 0], np.int64)
Z = F.astype(np.complex128)
Z.imag = F[::-1]


def rounding(a, d):
    return np.round(a), np.around(a, d), a.round(d)


def test_round():
    for a in (F, F.astype(np.float32)[::-2], Z.reshape(2, 5).T, I):
        for d in (-2, -1, 0, 1, 3):
            chk(rounding, a, d)
    chk(rounding, F[:0], 1)


def round_scalar(x, d):
    return np.round(x, d)


def round_into(a, out):
    np.round(a, 1, out)
    return out


def test_round_scalars_and_out():
    for x in (2.5, -3.55, 1e300, 15, 1.5 - 2.55j):
        for d in (-1, 0, 1):
            chk(round_scalar, x, d)
    chk(round_into, F, np.zeros(10))
    chk(round_into, F, np.zeros(3))     # ValueError: the shapes differ


def parts(a):
    return np.real(a), np.imag(a)


def real_view(a):
    np.real(a)[0] = 9.0
    return a


def test_real_imag():
    for a in (Z, F, 2.5, 1 - 2j):
        chk(parts, a)
    chk(real_view, Z)
    chk(parts, Z[:0])


def nan_to_num(a):
    return np.nan_to_num(a), np.nan_to_num(a, nan=-1.0, posinf=2.0, neginf=-3.0)


def nan_to_num_in_place(a):
    np.nan_to_num(a, copy=False)
    return a


def test_nan_to_num():
    for a in (F, F.astype(np.float32)[::-1], Z, I, np.nan, -np.inf):
        chk(nan_to_num, a)
    chk(nan_to_num_in_place, F.reshape(2, 5).T)


def take(a, i):
    return np.take(a, i), a.take(i)


def test_take_and_extract():
    m = F.reshape(2, 5).T
    for i in (0, -1, 9, 10, -11, np.array([[0, -1], [3, 3]]), np.array([], np.int64),
              np.array([1, 12])):
        chk(take, m, i)
    chk(take, I.astype(np.bool_), np.array([2, 0]))
    for i in ([1, 5, 1], (1, 5, 1), ((1, 5, 1), (9, 3, 2)), np.array(3), [10]):
        chk(take, m, i)     # lists and (nested) tuples as NumPy's arrays of them


def take_along(a, i, axis):
    return np.take(a, i, axis=axis)


def test_take_along_an_axis():
    m = np.arange(24.0).reshape(2, 3, 4)
    for i in (np.array([0, 2, 1, 2]), (0, -1), 1, -3, np.array([3])):
        for axis in (0, 1, -1, 3, -4):   # (3, -4: NumPy's AxisError; 3: an IndexError too)
            chk(take_along, m, i, axis)
    chk(take_along, np.arange(5), 2, 0)
    chk(take_along, np.ones((3, 1, 2)).T, (0, 0), 1)


def picks(c, a):
    return np.flatnonzero(c), np.extract(c, a), np.compress(c.ravel(), a)


def test_flatnonzero_extract_compress():
    m = F.reshape(2, 5)
    chk(picks, m > 0, m.T)
    chk(picks, (m > 0)[:, :2], m)         # condition shorter than the array
    chk(picks, np.ones((3, 4), np.bool_), m)   # IndexError: past the array's end
    chk(picks, np.zeros((2, 6), np.bool_), m)  # past the end, but all False


def select(a):
    return np.select([a > 1, a < 0], [a, -a * 2]), np.select([a > 0], [a], 0.5)


def test_select():
    chk(select, F)
    chk(select, F[::-1])
    chk(select, I)


def append(a, v):
    return np.append(a, v)


def delete(a, obj):
    return np.delete(a, obj)


def insert(a, obj, v):
    return np.insert(a, obj, v)


def test_append_delete_insert():
    chk(append, F.astype(np.float32), 1.0)
    chk(append, I.reshape(2, 3).T, F)
    chk(append, I[:0], F[:0])
    for obj in (0, -1, 9, 10, -11, np.array([0, 0, -1]), np.array([3, 12])):
        chk(delete, F.reshape(2, 5), obj)
    for obj in (0, 10, -10, 11, -3, np.array([2]), np.array([0, 10, 2, 2]), np.array([0, 11])):
        chk(insert, F, obj, 7.5)
    for v in (np.array([7.5, -1.0, 2.0, 3.0]), np.array([7.5, -1.0, 2.0])):
        chk(insert, F, 2, v)
        chk(insert, F, np.array([0, 10, 2, 2]), v)   # ValueError for 3 values

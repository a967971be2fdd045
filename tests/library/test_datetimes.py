"""datetime64 and timedelta64 in compiled code, against NumPy on the same inputs: scalars
in and out, NaT, unit conversions (the calendar for years and months), arithmetic and
comparisons across units, NumPy's errors for units that do not mix, and M8/m8 arrays."""
import itertools
import warnings

import numpy as np
import pytest

from kiln import njit, prange
from kiln.errors import TypingError

DT, TD = np.datetime64, np.timedelta64


def same(expected, got):
    """Bit for bit: the same kind of value, dtype (unit) and int64 content (NaT included)."""
    if isinstance(expected, tuple):
        return isinstance(got, tuple) and len(got) == len(expected) and \
            all(same(e, g) for e, g in zip(expected, got))
    if isinstance(expected, (np.ndarray, np.datetime64, np.timedelta64)):
        return type(got) is type(expected) and got.dtype == expected.dtype and \
            np.array_equal(np.asarray(got).view(np.int64), np.asarray(expected).view(np.int64))
    if isinstance(expected, (float, np.floating)):
        return isinstance(got, float) and (got == expected or np.isnan(got) and np.isnan(expected))
    if isinstance(expected, (bool, np.bool_)):
        return isinstance(got, bool) and got == expected
    return isinstance(got, int) and got == expected


def check(cfunc, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = cfunc.py_func(*args)
    got = cfunc(*args)
    assert same(expected, got), f"{cfunc.py_func.__name__}{args}: NumPy {expected!r}, kiln {got!r}"


@njit
def td_td(a, b):
    return (a + b, a - b, a / b, a // b, a % b, a == b, a != b, a < b, a <= b, a > b,
            a >= b)


@pytest.mark.parametrize("units", [("s", "us"), ("W", "D"), ("Y", "M"), ("", "ms"),
                                   ("h", "h")])
def test_timedelta_pairs(units):
    ua, ub = units
    values = [3, -7, 0, "NaT"]
    for x, y in itertools.product(values, values):
        a = TD(x, ua) if ua else TD(x)
        check(td_td, a, TD(y, ub))
        check(td_td, TD(y, ub), a)


@njit
def td_number(a, n, f):
    return (a * n, n * a, a * f, f * a, a / n, a // n, a / f, a // f, -a, +a, abs(a),
            np.isnat(a), a == 3, a + 1)


def test_timedelta_with_numbers():
    for value, n, f in itertools.product([TD(7, "ps"), TD(-7, "ps"), TD("NaT", "ps")],
                                         [2, -3, 0], [1.5, -0.5, 0.0, np.nan]):
        check(td_number, value, n, f)
    check(td_number, TD(-3, "ms"), np.uint32(2), np.float32(2.5))


@njit
def dt_td(a, b):
    return a + b, b + a, a - b, a - 1, np.isnat(a)


@njit
def dt_dt(a, b):
    return a - b, a == b, a != b, a < b, a <= b, a > b, a >= b


@njit
def picked(a, b):
    return min(a, b), max(a, b), min(b, a), max(b, a)


def test_min_max_of_two():
    """Python's rule: a NaT first is kept, a NaT second is passed over."""
    for values in ([TD(3, "s"), TD(-1, "s"), TD("NaT", "s")],
                   [DT(1, "ns"), DT(2, "ns"), DT("NaT", "ns")]):
        for a, b in itertools.product(values, values):
            check(picked, a, b)


DATES = [DT("2014-03-01"), DT("1969-12-31"), DT("1600-02-29"), DT("NaT", "D")]


@pytest.mark.parametrize("dt_unit, td_unit", [("Y", "D"), ("M", "W"), ("D", "h"), ("Y", "M"),
                                              ("s", "ms"), ("W", "D"), ("D", "")])
def test_datetime_with_timedelta(dt_unit, td_unit):
    for date, delta in itertools.product(DATES, [10000, -100, 2, "NaT"]):
        b = TD(delta, td_unit) if td_unit else TD(delta)
        check(dt_td, date.astype(f"M8[{dt_unit}]"), b)


@pytest.mark.parametrize("units", [("Y", "D"), ("M", "W"), ("D", "W"), ("s", "m"), ("Y", "M"),
                                   ("M", "h")])
def test_datetime_pairs(units):
    for x, y in itertools.product(DATES, DATES + [DT("2014-03-01T00:00:01")]):
        a, b = x.astype(f"M8[{units[0]}]"), y.astype(f"M8[{units[1]}]")
        check(dt_dt, a, b)
        check(dt_dt, b, a)


@njit
def add(a, b):
    return a + b


@njit
def mul(a, b):
    return a * b


def test_operations_numpy_has_no_loop_for():
    """`dt * 2`, `td + 1.5`, `dt + dt`: NumPy raises; kiln refuses when compiling."""
    for f, a, b in ((add, TD(3, "s"), 1.5), (mul, DT("2020-01-01"), 2), (add, DATES[0], DATES[1])):
        with pytest.raises(TypeError):
            f.py_func(a, b)
        with pytest.raises(TypingError, match="unsupported operand types"):
            f(a, b)


@njit
def chosen(a, b, first):
    x = a if first else b
    return x


def test_a_variable_of_two_units_holds_the_finer():
    got = chosen(TD(3, "s"), TD(5, "ms"), True)
    assert got.dtype == np.dtype("m8[ms]") and got == TD(3, "s")
    with pytest.raises(TypingError, match="no common type"):
        chosen(TD(3, "s"), DT("2020-01-01"), True)


def test_units_that_do_not_mix():
    """NumPy raises for a timedelta in years with one in days, and for a datetime in days
    plus a timedelta in months; kiln refuses when compiling, naming the function."""
    with pytest.raises(TypingError, match="incompatible nonlinear base time units"):
        td_td(TD(1, "Y"), TD(1, "D"))
    with pytest.raises(TypingError, match="dt_td"):
        dt_td(DT("2014-01-01"), TD(1, "M"))
    with pytest.raises(TypeError):
        TD(1, "Y") + TD(1, "D")


@njit
def builtins_of(a):
    return hash(a), int(a), isinstance(a, np.datetime64), isinstance(a, np.timedelta64)


def test_builtins():
    for value in (TD(-4, "ns"), DT("2000-01-01T01:02:03", "ns"), DT("NaT", "ns")):
        assert builtins_of(value) == (int(value.astype(np.int64)), int(value.astype(np.int64)),
                                      isinstance(value, np.datetime64),
                                      isinstance(value, np.timedelta64))
    with pytest.raises(TypingError, match=r"Only datetime64\[ns\] can be converted"):
        builtins_of(DT("2014"))


@njit
def constructed(n):
    return (np.datetime64("2020-01-01"), np.timedelta64(3, "h"), np.timedelta64(n, "ms"),
            np.datetime64(n, "D"), np.timedelta64(n), np.datetime64("NaT"))


def test_constructors():
    check(constructed, 5)
    check(constructed, -1)


FROZEN_DATE, FROZEN_NAT = DT("2001-01-01"), TD("NaT", "D")


@njit
def with_constants(x):
    return x + FROZEN_DATE, x + FROZEN_NAT


def test_frozen_constants():
    check(with_constants, TD(4, "D"))


def test_unsupported_multiplier():
    with pytest.raises(Exception, match=r"Unsupported array dtype: datetime64\[10Y\]"):
        array_ops(np.array(["2010"], dtype="M8[10Y]"), 0)


@njit
def array_ops(a, i):
    x = a[i]
    b = a[::-1]
    a[0] = b[1]
    total = 0
    for v in a[1:]:
        if not np.isnat(v):
            total += 1
    return x, b, a[1:], a.dtype == a.dtype, total, len(a)


def test_arrays():
    dates = np.array(["2020-01-01", "NaT", "1969-12-31", "2400-02-29"], dtype="M8[D]")
    check(array_ops, dates.copy(), 2)
    check(array_ops, np.array([5, -3, np.iinfo(np.int64).min, 0], dtype="m8[s]"), -1)
    check(array_ops, np.arange(8, dtype="m8[ms]")[::2], 1)   # not contiguous


@njit
def made(n, d):
    a = np.empty(n, dtype="M8[s]")
    for i in range(n):
        a[i] = d + np.timedelta64(i, "m")
    b = np.zeros(n, dtype="m8[ms]")
    b[:] = np.timedelta64(1, "s")
    return a, b, a.astype(np.int64), bool(b[0]) if n else False


def test_created_arrays():
    check(made, 3, DT("2020-02-28T23:59:00"))
    check(made, 0, DT("2020-02-28T23:59:00"))


@njit
def stored(a, value):
    a[0] = value
    a[1] = 7
    return a


def test_store_converts_units():
    check(stored, np.zeros(2, dtype="m8[ms]"), TD(2, "s"))
    check(stored, np.zeros(2, dtype="M8[h]"), DT("2001-01-01"))
    check(stored, np.zeros(2, dtype="M8[D]"), DT("2001-01-01T23", "h"))   # rounds down
    for day in ("2001-03-01T05", "1969-12-31T23", "1600-02-29T00", "2400-12-31T12", "NaT"):
        check(stored, np.zeros(2, dtype="M8[M]"), DT(day, "h"))     # by the calendar
        check(stored, np.zeros(2, dtype="M8[Y]"), DT(day, "h"))
    check(stored, np.zeros(2, dtype="M8[Y]"), DT("1969-12-25", "W"))


def same_array(expected, got):
    return got.dtype == expected.dtype and got.shape == expected.shape and \
        np.array_equal(got.view(np.int64) if got.dtype.kind in "mM" else got,
                       expected.view(np.int64) if expected.dtype.kind in "mM" else expected,
                       equal_nan=expected.dtype.kind == "f")


@njit
def elementwise(dates, deltas, step):
    return (dates + step, np.subtract(dates, step), dates - dates[::-1], dates < dates[::-1],
            dates == step + dates[::-1], np.isnat(dates), deltas * 2, deltas / 2, deltas / 1.5,
            deltas / deltas[::-1], deltas // deltas[::-1], deltas % deltas[::-1], -deltas,
            np.where(np.isnat(dates), dates[::-1], dates), np.maximum(deltas, deltas[::-1]))


@pytest.mark.parametrize("n", [5, 0])
def test_ufuncs_on_arrays(n):
    dates = np.array(["2011-01-01", "NaT", "1971-02-02", "1969-12-31", "2400-02-29"],
                     dtype="M8[D]")[:n]
    deltas = np.array([1, -7, 3, np.iinfo(np.int64).min, 0], dtype="m8[s]")[:n]
    for step in (TD(5, "h"), TD("NaT")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = elementwise.py_func(dates, deltas, step)
        got = elementwise(dates, deltas, step)
        for e, g in zip(expected, got):
            assert same_array(e, g), (step, e, g)


def test_ufunc_refuses_units_that_do_not_mix():
    with pytest.raises(TypingError, match=r"ufunc 'add' is not supported between "
                                          r"datetime64\[ns\] and timedelta64\[M\]"):
        elementwise(np.zeros(1, "M8[ns]"), np.zeros(1, "m8[s]"), TD(1, "M"))


@njit
def ordered(a):
    return np.sort(a), np.argsort(a), a.min(), np.max(a), min(a), max(a), np.sum(a - a[0]), \
        np.mean(a - a[0]), (a - a[0]).mean()


def test_sorting_and_extremes_put_nat_last():
    """np.sort puts NaT last; np.min/np.max give NaT when there is one, as NaN for floats;
    the builtins min/max compare with `<`, where NaT is never smaller; sums and means of
    timedeltas (truncating) are NaT with one."""
    nat = np.iinfo(np.int64).min
    for values in ([3, nat, -1, 2], [nat, 5, nat, -4], [nat], [7, 2, 1]):
        a = np.array(values, dtype=np.int64).view("M8[D]")   # (timedeltas: the same code)
        expected, got = ordered.py_func(a), ordered(a)
        assert same_array(expected[0], got[0]) and same_array(expected[1], got[1])
        assert same(expected[2:], got[2:]), (a, expected, got)


def test_signatures():
    """Numba's spelling of datetime types in signatures."""
    from kiln import types, vectorize
    add = njit("NPDatetime('us')(NPDatetime('ms'), NPTimedelta('us'))")(lambda a, b: a + b)
    assert same(DT(1, "ms") + TD(2, "us"), add(DT(1, "ms"), TD(2, "us")))
    mul = vectorize([types.NPTimedelta("s")(types.NPTimedelta("s"), types.int64)])(
        lambda a, b: a * b)
    assert mul(TD(2), 3) == TD(6)


@njit(parallel=True)
def parallel_total(a, d):
    s = np.timedelta64(0, "s")
    for i in prange(a.size):
        s += a[i] + d
    return s


def test_prange_reduction():
    deltas = np.arange(-50, 1000).astype("m8[s]")
    assert same(parallel_total.py_func(deltas, TD(1, "m")), parallel_total(deltas, TD(1, "m")))


def test_store_refuses_a_timedelta_of_calendar_units():
    with pytest.raises(TypeError):
        stored.py_func(np.zeros(2, dtype="m8[D]"), TD(1, "Y"))
    with pytest.raises(TypingError, match="same_kind"):
        stored(np.zeros(2, dtype="m8[D]"), TD(1, "Y"))

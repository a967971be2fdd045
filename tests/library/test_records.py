"""Structured arrays: records as references into their array (`a[i].x`, `a[i]["x"]`, their
assignment, `a["x"]` field views), each checked against NumPy on the same data."""
import numpy as np
import pytest

from kiln import literal_unroll, njit
from kiln.errors import TypingError

ALIGNED = np.dtype([("x", np.float64), ("n", np.int32), ("flag", np.bool_),
                    ("z", np.complex64)], align=True)
PACKED = np.dtype([("c", np.int8), ("v", np.float64), ("u", np.uint16)])   # v, u unaligned


def filled(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    a = np.zeros(n, dtype)
    for name in dtype.names:
        kind = dtype.fields[name][0]
        if kind.kind == "b":
            a[name] = rng.integers(0, 2, n).astype(bool)
        elif kind.kind in "iu":
            a[name] = rng.integers(0, 100, n).astype(kind)
        else:
            a[name] = (rng.standard_normal(n) * 10).astype(kind)
    return a


@njit
def weighted_sum(a):
    s = 0.0
    for i in range(a.shape[0]):
        r = a[i]
        if r.flag:
            s += r.x * r["n"]
    return s


def python_weighted_sum(a):
    s = 0.0
    for r in a:
        if r["flag"]:
            s += r["x"] * r["n"]
    return s


@pytest.mark.parametrize("n", [0, 1, 17])
def test_fields_read_as_numpy(n):
    a = filled(ALIGNED, n, seed=n)
    assert weighted_sum(a) == python_weighted_sum(a)


def test_nan_and_inf_fields():
    a = filled(ALIGNED, 4)
    a["flag"] = True
    a["x"][1], a["x"][2] = np.nan, np.inf
    assert np.isnan(weighted_sum(a)) and np.isnan(python_weighted_sum(a))


@njit
def update(a):
    for r in a:
        r.n = r.n * 2 - 7      # attribute assignment writes the array
        r["x"] = -r.x          # so does item assignment
        if r.n < 0:
            r.flag = False
        r.z = r.z * 1j


def test_record_writes_reach_the_array():
    a = filled(ALIGNED, 9, seed=3)
    expected = a.copy()
    for r in expected:
        r["n"] = r["n"] * 2 - 7
        r["x"] = -r["x"]
        if r["n"] < 0:
            r["flag"] = False
        r["z"] = r["z"] * 1j
    update(a)
    np.testing.assert_array_equal(a, expected)


def test_a_recarray_is_passed_as_its_records():
    """np.recarray only adds attribute access to fields (which compiled code spells the same
    on its records); the array itself comes back, still a recarray."""
    a = filled(ALIGNED, 9, seed=4).view(np.recarray)
    expected = a.copy()
    assert weighted_sum(a) == python_weighted_sum(expected)
    update.py_func(expected)
    update(a)
    np.testing.assert_array_equal(a, expected)
    assert njit(lambda r: r)(a) is a    # (other subclasses: test_bad_input.py)


@njit
def through_a_view(a, value):
    a[1:][::2][0].x = value      # a record of a view of a view
    a[-1]["n"] = 5               # negative index
    return a[::-1]["x"]


def test_views_and_field_views():
    a = filled(ALIGNED, 6)
    expected = a.copy()
    expected[1]["x"] = 2.5
    expected[-1]["n"] = 5
    got = through_a_view(a, 2.5)
    np.testing.assert_array_equal(a, expected)
    np.testing.assert_array_equal(got, expected[::-1]["x"])
    got[0] = 99.0                # the returned field view shares the array's memory
    assert a["x"][-1] == 99.0


@njit
def field_stats(a):
    return a["v"].sum(), a["c"].max(), np.mean(a["u"][1:])


def test_field_views_in_numpy_functions():
    a = filled(PACKED, 11, seed=5)   # packed: fields at odd offsets
    np.testing.assert_allclose(field_stats(a), (a["v"].sum(), a["c"].max(),
                                                np.mean(a["u"][1:])))


@njit
def copy_items(a, b):
    for i in range(a.shape[0]):
        b[i] = a[a.shape[0] - 1 - i]    # a record assigned copies its bytes


def test_record_assignment_copies():
    a, b = filled(PACKED, 5, seed=1), np.zeros(5, PACKED)
    copy_items(a, b)
    np.testing.assert_array_equal(b, a[::-1])


@njit
def strided_2d(a):
    total = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j].c = i - j
            total += a[i, j]["u"]
    return total


def test_two_dimensional_and_non_contiguous():
    base = filled(PACKED, 24, seed=2).reshape(4, 6)
    a = base[:, ::2]
    expected = base.copy()
    for i in range(4):
        for j in range(3):
            expected[i, 2 * j]["c"] = i - j
    assert strided_2d(a) == int(a["u"].sum())
    np.testing.assert_array_equal(base, expected)


def test_errors_name_the_field_and_the_function():
    @njit
    def missing(a):
        return a[0]["nope"]

    with pytest.raises(TypingError, match="no field 'nope'.*'x', 'n', 'flag', 'z'"):
        missing(filled(ALIGNED, 1))

    @njit
    def complex_into_int(a):
        a[0].n = 1j

    with pytest.raises(TypingError, match="complex"):
        complex_into_int(filled(ALIGNED, 1))

    @njit
    def number_into_record(a):
        a[0] = 1

    with pytest.raises(TypingError, match="cannot store"):
        number_into_record(filled(ALIGNED, 1))

    @njit
    def record_in_list(a):
        return [a[0]]

    with pytest.raises(TypingError, match="record in a list"):
        record_in_list(filled(ALIGNED, 1))

    @njit
    def fill_with_a_number(a):
        a[:] = 1.0

    with pytest.raises(TypingError):
        fill_with_a_number(filled(ALIGNED, 2))


def test_other_dtypes_are_other_specializations():
    other = np.dtype([("x", np.float64), ("n", np.int64), ("flag", np.bool_),
                      ("z", np.complex64)], align=True)
    a, b = filled(ALIGNED, 5), filled(other, 5)
    assert weighted_sum(a) == python_weighted_sum(a)
    assert weighted_sum(b) == python_weighted_sum(b)
    assert len(weighted_sum.signatures) == 2


def test_record_scalars_are_arguments():   # (more in test_records_boundary.py)
    @njit
    def field(r):
        return r.x

    a = filled(ALIGNED, 2)
    assert field(a[1]) == a[1]["x"]


@njit
def made_here(n, dtype_like):
    a = np.zeros(n, ALIGNED)
    for i in range(n):
        a[i].x = i * 0.5
        a[i]["n"] = i * i
        a[i].flag = i % 2 == 0
    b = np.empty_like(dtype_like)
    b[:] = a[: b.shape[0]]
    return a, a.copy(), a[1:][::2], a["x"], b


@pytest.mark.parametrize("n", [0, 1, 6])
def test_record_arrays_made_in_compiled_code(n):
    """np.zeros/empty_like of a record dtype, .copy() and views, returned to Python with
    their dtype (padding and all) and freed with them."""
    a, copy, view, field, b = made_here(n, np.zeros(min(n, 2), ALIGNED))
    expected = np.zeros(n, ALIGNED)
    expected["x"] = np.arange(n) * 0.5
    expected["n"] = np.arange(n) ** 2
    expected["flag"] = np.arange(n) % 2 == 0
    for got, want in ((a, expected), (copy, expected), (view, expected[1:][::2]),
                      (field, expected["x"]), (b, expected[:min(n, 2)])):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    view[...] = expected[:1] if n > 1 else view   # a view writes its array
    if n > 1:
        assert a[1] == expected[0]


SUBARRAYS = np.dtype([("a", "i4"), ("j", "f4", (3, 2)), ("v", "f8", (2,))])


def subarray_fields(a):
    r = a[1]
    r["j"][2, 1] = -1.5
    a[0]["v"][:] = 7.0
    total = 0.0
    for x in r["j"].ravel():
        total += x
    return total, r["j"].shape, a["j"].sum(), a["v"].shape, a[2]["j"][0, 1], a["j"][:, 1, 0]


@pytest.mark.parametrize("step", [1, 2])
def test_sub_array_fields_are_views_into_the_record(step):
    a = np.zeros(5, SUBARRAYS)[::step]
    a["j"] = np.arange(a.size * 6, dtype=np.float32).reshape(a.size, 3, 2)
    a["v"][1] = [np.nan, -np.inf]
    b = a.copy()
    expected = subarray_fields(b)
    got = njit(subarray_fields)(a)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    assert a.tobytes() == b.tobytes()   # the same writes reached the array


def sub_array_made_here(n):
    b = np.zeros(n, SUBARRAYS)
    b[0].j[1, 1] = 5
    return b[0].j, b


def test_a_sub_array_of_an_array_made_in_compiled_code_returns_to_python():
    j, b = njit(sub_array_made_here)(2)
    assert j.shape == (3, 2) and j[1, 1] == 5 and b[0]["j"][1, 1] == 5


@njit
def fill_sub_arrays(r, value):
    r.j = value           # r.j[...] = value: filled or broadcast, as NumPy assigns
    r["v"] = r["j"][0]


@pytest.mark.parametrize("value", [1.5, np.arange(2.0), np.ones((3, 2))])
def test_assigning_a_whole_sub_array_field(value):
    got, expect = np.zeros(3, SUBARRAYS).view(np.recarray), np.zeros(3, SUBARRAYS)
    fill_sub_arrays(got[1], value)
    expect[1]["j"] = value
    expect[1]["v"] = expect[1]["j"][0]
    assert got.tobytes() == expect.tobytes()
    with pytest.raises(ValueError):      # shapes that do not broadcast, as in NumPy
        fill_sub_arrays(got[1], np.ones(4))


FIELD_OF = (1, "v")   # a global tuple's items are constants too (Numba's test_globals)
FIELD_NAME = "u"


def fields_by_known_names(a):
    i = FIELD_OF[0]
    name = FIELD_OF[1]
    local = "c"
    a[i][name] = 2.5
    a[0][local] += 3
    column = a[FIELD_NAME]
    return a[i][name] + column.sum(), a[name].sum()


FIELD_NAMES = ("u", "v", "c")


def sum_of_named_fields(r):
    total = 0.0
    for name in literal_unroll(FIELD_NAMES):   # each copy of the body reads its name
        total = total * 10 + r[name]
    return total


def test_a_loop_over_a_global_tuple_of_field_names():
    a = filled(PACKED, 2)
    assert njit(sum_of_named_fields)(a[1]) == pytest.approx(sum_of_named_fields(a[1]))


def test_a_field_named_by_a_string_known_when_compiling():
    a, b = filled(PACKED, 3), filled(PACKED, 3)
    assert njit(fields_by_known_names)(a) == pytest.approx(fields_by_known_names(b))
    np.testing.assert_array_equal(a, b)

    @njit
    def by_a_branch(a, k):
        name = "v"
        if k:
            name = "u"
        return a[0][name]

    with pytest.raises(TypingError, match="cannot index Record"):
        by_a_branch(filled(PACKED, 1), True)


@njit
def fields_by_position_and_attribute(a, i):
    r = a[i]
    r[0] = r[-1]          # r[k]: the k-th field (a position known when compiling)
    a.v[i] += 1.0         # a.v: the field view a["v"], as Numba allows on any record array
    return r[1], a.c[i], a[i]


def test_fields_by_position_and_record_array_attributes():
    got, expect = filled(PACKED, 4), filled(PACKED, 4)
    for i in range(4):
        result = fields_by_position_and_attribute(got, i)
        expect[i][0] = expect[i][-1]
        expect["v"][i] += 1.0
        assert result[:2] == (expect[i][1], expect["c"][i])
        assert result[2].tobytes() == expect[i].tobytes()
        assert result[2].v == expect[i]["v"]     # a returned record is an np.record
    assert got.tobytes() == expect.tobytes()


def field_out_of_range(r):
    return r[3]


@njit
def field_named_by_a_local_tuple(r):
    names = ("u", "v")
    total = r[names[1]]
    for name in literal_unroll(names):
        total += r[name]
    return total


def test_local_tuples_of_names_and_bad_positions():
    a = filled(PACKED, 2)
    assert field_named_by_a_local_tuple(a[1]) == \
        pytest.approx(field_named_by_a_local_tuple.py_func(a[1]))
    with pytest.raises(TypingError, match="Requested index 3 is out of range"):
        njit(field_out_of_range)(a[0])
    with pytest.raises(TypingError, match=r"Field 'nope' was not found in record with "
                                          r"fields \('c', 'v', 'u'\)"):
        njit(lambda r: r["nope"])(a[0])


INNER = np.dtype([("a", "i8"), ("b", "i4")])
NESTED = np.dtype([("x", "?"), ("grid", INNER, (2, 2)), ("one", INNER),
                   (("a title", "t"), "f4")])


@njit
def nested_records(a, i):
    r = a[i]
    total = 0
    for j in range(2):
        for k in range(2):
            total += r.grid[j, k].a
    r.one.a = total
    r.grid[0, 1] = r.one      # a nested record's bytes copied
    r["a title"] += 0.5       # a field named by its title
    return total, r.one, r.grid[1, 0].b


def test_nested_records_and_titles():
    got = np.zeros(3, NESTED)[::-1]
    got["grid"]["a"] = np.arange(12).reshape(3, 2, 2)
    got["grid"]["b"] = -np.arange(12).reshape(3, 2, 2)
    got["t"] = [1, 2, 3]
    expect = got.copy()
    for i in range(3):
        total, one, b = nested_records(got, i)
        r = expect[i]
        r["one"]["a"] = r["grid"]["a"].sum()
        r["grid"][0, 1] = r["one"]
        r["t"] += 0.5
        assert (total, b) == (r["one"]["a"], r["grid"][1, 0]["b"])
        assert one.tobytes() == r["one"].tobytes()
    assert got.tobytes() == expect.tobytes()


def test_numba_record_type_api():
    import ctypes
    from kiln import types
    rec = types.from_dtype(NESTED)
    assert len(rec) == 4 and rec.dtype == NESTED and rec.size == NESTED.itemsize
    assert set(rec.fields) == set(NESTED.fields)          # names and titles
    assert rec.is_title("a title") and not rec.is_title("t")
    assert rec.typeof("a title") == rec.typeof("t") == types.float32
    assert rec.typeof("one") == types.from_dtype(INNER) and rec.offset("one") == \
        NESTED.fields["one"][1]
    from kiln.np.numpy_support import from_struct_dtype
    assert from_struct_dtype(NESTED) == rec
    with pytest.raises(TypeError, match="not a structured dtype"):
        from_struct_dtype(np.float64)

    class C(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int8), ("b", ctypes.c_double), ("c", ctypes.c_int16)]
    made = types.Record.make_c_struct([("a", types.int8), ("b", types.float64),
                                       ("c", types.int16)])
    assert made.size == ctypes.sizeof(C) and made.offset("c") == C.c.offset


@njit
def assign_fields_across(a, b):
    a["j"] = b["j"]       # a["x"] = value: the field across the array, as NumPy assigns
    a["a"] = 7
    return a["v"]


def test_assigning_a_field_across_a_record_array():
    got, expect = np.zeros(3, SUBARRAYS)[::-1], np.zeros(3, SUBARRAYS)[::-1]
    source = np.ones(3, SUBARRAYS)
    source["j"] = np.arange(18, dtype=np.float32).reshape(3, 3, 2)
    assign_fields_across(got, source)
    expect["j"], expect["a"] = source["j"], 7
    assert got.tobytes() == expect.tobytes()


@njit
def first_field(r):
    return r["a"]


def test_a_wider_record_converts_where_compiling_is_off():
    """Numba's width subtyping: a record starting with another's fields is taken by the
    code compiled for the narrower one (the dispatcher converts it)."""
    narrow = np.zeros(1, [("a", "f8")])
    wide = np.array([(2.5, 3.0)], [("a", "f8"), ("b", "f8")])
    other = np.zeros(1, [("b", "f8"), ("a", "f8")])
    first_field(narrow[0])
    first_field.disable_compile()
    try:
        assert first_field(wide[0]) == 2.5
        with pytest.raises(TypeError):
            first_field(other[0])     # same names, other offsets: no conversion
    finally:
        first_field.disable_compile(False)


@njit
def sub_array_of(r):
    return r.j


def test_a_sub_array_of_a_record_argument_outlives_the_record():
    import gc
    a = np.zeros(2, SUBARRAYS).view(np.recarray)
    a[1].j = np.arange(6).reshape(3, 2)
    j = sub_array_of(a[1])
    del a
    gc.collect()
    assert j.tolist() == [[0, 1], [2, 3], [4, 5]]

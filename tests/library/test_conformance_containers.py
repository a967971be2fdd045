"""Python containers and sequences as Numba gives them (issue 32, Numba's own test_sets,
test_comprehension, test_slices, test_range, test_unpack_sequence, test_tuples and
test_map_filter_reduce): a list made in compiled code comes back a Python list, a Python
list argument is reflected (and returned as itself), a kiln.typed.List stays one; tuple
truth, tuple(), `*` of tuple displays, named tuples nested in named tuples, unpacking a
range, list or array into names, `in` of a range, and slices frozen into the code or
compiled for their value."""
from collections import namedtuple

import numpy as np
import pytest

from kiln import njit, typed, types
from kiln.errors import TypingError, UnsupportedError


# ---- lists: Python lists out, typed Lists stay typed ------------------------------------------

def made_lists(n):
    evens = [i * 2 for i in range(n)]
    return evens, list(range(n)), sorted([3, 1, 2]), "a b".split(), [[1, 2], [3]], \
        evens + [7], evens[1:]


def test_lists_made_in_compiled_code_are_python_lists():
    got = njit(made_lists)(4)
    assert got == made_lists(4)
    assert all(type(x) is list for x in got)
    assert all(type(x) is list for x in got[4])   # a list of lists: lists all the way down


def test_a_typed_list_made_in_compiled_code_stays_typed():
    @njit
    def make():
        out = typed.List()
        out.append(1.5)
        return out
    got = make()
    assert isinstance(got, typed.List) and list(got) == [1.5]


def appended(items):
    items.append(7)
    return items


def slice_and_pair(items):
    return items[1:], (items, 3)


def test_a_list_argument_is_reflected_and_returned_as_itself():
    given = [1, 2]
    got = njit(appended)(given)
    assert got is given and given == [1, 2, 7]
    floats = [1.5, 2.5, 3.5]
    part, (same, three) = njit(slice_and_pair)(floats)
    assert type(part) is list and part == [2.5, 3.5] and same is floats and three == 3


def append_then_raise(items):
    items.append(42)
    raise ZeroDivisionError


def test_a_list_argument_is_reflected_when_the_call_raises():
    given = [1, 2]
    with pytest.raises(ZeroDivisionError):
        njit(append_then_raise)(given)
    assert given == [1, 2, 42]


def add_and_update(sa, sb):
    sa.add(42.0)
    sa.update(sb)
    return sa, len(sa), len(sb)


def test_a_set_argument_is_reflected_and_returned_as_itself():
    expected, got, src = {1.0, 2.0}, {1.0, 2.0}, {5.0, 6.0}
    result = njit(add_and_update)(got, src)
    assert result == add_and_update(expected, src) and got == expected
    assert result[0] is got and src == {5.0, 6.0}
    with pytest.raises(TypeError, match="empty set"):
        njit(add_and_update)(set(), src)


def test_an_operator_between_a_set_and_no_set_is_a_typing_error():
    with pytest.raises(TypingError, match="All arguments must be Sets"):
        njit(lambda a, b: a & b)({1, 2}, (1, 2))


def test_a_reflected_list_signature_takes_a_python_list():
    length = njit((types.List(types.intp, reflected=True),))(lambda items: len(items))
    assert length([1, 2, 3]) == 3
    assert isinstance(types.List(types.int64), types.ListType)
    assert types.List(types.int64) != types.ListType(types.int64)
    nested = types.List(dtype=types.List(types.float64[::1]))   # Numba's keyword
    assert nested.dtype == types.List(types.float64[::1])


def test_an_inferred_list_type_has_no_initial_value():
    """Numba's List.initial_value (the items of a list of literals) is None where unknown;
    kiln's typing never knows it."""
    from kiln.extending import overload
    seen = []

    def probe(x):
        pass

    @overload(probe)
    def probe_impl(x):
        seen.append(x)
        return lambda x: len(x)

    njit(lambda: probe([1, 2, 3]))()
    assert isinstance(seen[0], types.List) and seen[0].initial_value is None


def test_a_set_example_returns_a_list():
    @njit
    def unique(src):
        seen, out = set(), []
        for v in src:
            if v not in seen:
                seen.add(v)
                out.append(v)
        return out
    assert unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def calls_inner_from_comprehension(xs):
    y = 3

    def inner(x):
        return x + y
    return [inner(z) for z in xs]


def test_a_comprehension_calls_a_nested_function_that_reads_outer_locals():
    assert njit(calls_inner_from_comprehension)(np.arange(3)) == [3, 4, 5]


def test_printing_an_array_keeps_its_reference(capsys):
    @njit
    def show(n):
        a = np.arange(n)
        print(a)
        return a
    got = show(5)
    assert capsys.readouterr().out.strip() == "[0 1 2 3 4]"
    assert list(got) == [0, 1, 2, 3, 4]


# ---- tuples ----------------------------------------------------------------------------------

Point = namedtuple("Point", ("x", "y", "z"))
Rect = namedtuple("Rect", ("width", "height"))


def truth_and_tuple(tup):
    return bool(tup), (3 if tup else 2), tuple(tup), tuple()


def test_tuple_truth_and_constructor():
    f = njit(truth_and_tuple)
    for tup in ((4, 5.5), (1,), ()):
        assert f(tup) == truth_and_tuple(tup)
    assert f(Rect(1, 2)) == (True, 3, (1, 2), ())
    assert type(f(Rect(1, 2))[2]) is tuple


def nested_named(n):
    r = Rect(list(range(n)), np.zeros(n + 1))
    return Point(r, len(r.width), len(r.height))


def test_a_named_tuple_holding_a_named_tuple_keeps_its_class():
    got = njit(nested_named)(3)
    assert type(got) is Point and type(got.x) is Rect and got.x.width == [0, 1, 2]


def star_displays(a):
    z = [1, 2]
    return (*a, *(*a, a), *(z.append(4), z.extend(a))), z


def map_with_star():
    args = range(3), range(10, 13)
    return [y for y in map(lambda a, b: (a + 10, b + 5), *args)]


def test_star_of_tuple_displays_and_map_of_starred_iterables():
    assert njit(star_displays)((10, 20)) == star_displays((10, 20))
    assert njit(map_with_star)() == map_with_star()


def test_tuple_types_as_numba_makes_them():
    assert types.Tuple((types.int32, types.int32)) == types.UniTuple(types.int32, 2)
    assert isinstance(types.Tuple((types.int32, types.float64)), types.Tuple)
    with pytest.raises(TypingError, match="Argument 'types' is not iterable"):
        types.Tuple(types.uint32)
    with pytest.raises(TypingError, match="Argument 'types' is not iterable"):
        types.NamedTuple(types.uint32, Point)


def test_a_conversion_refused_names_both_tuple_types():
    with pytest.raises(TypingError, match=r"No conversion from UniTuple\(int32 x 2\) to "
                                          r"UniTuple\(float32 x 1\)"):
        njit(types.Tuple((types.float32,))(types.UniTuple(types.int32, 2)))(lambda t: t)


def test_entry_point_checks_the_tuple_size():
    f = njit((types.UniTuple(types.int32, 2),))(lambda t: t[0])
    entry = f.overloads[f.signatures[0]].entry_point
    assert entry((4, 5)) == 4
    with pytest.raises(ValueError, match=r"size mismatch for tuple, expected 2 element\(s\) "
                                         "but got 3"):
        entry((4, 5, 6))


def test_a_tuple_argument_of_over_1000_items_is_refused():
    with pytest.raises(UnsupportedError, match="Tuple 'tup' length must be smaller than 1000"):
        njit(lambda tup: len(tup))(tuple(range(1001)))


# ---- unpacking and ranges ----------------------------------------------------------------------

def unpack3(seq):
    a, b, c = seq
    return a + b + c


def unpack_range(n):
    a, b, c = range(n)
    return a * 100 + b * 10 + c


@pytest.mark.parametrize("seq", [[1, 2, 3], np.array([1.5, 2.5, 3.5])])
def test_unpacking_a_list_or_an_array(seq):
    assert njit(unpack3)(seq) == unpack3(seq)


def test_unpacking_a_range_checks_its_length_as_python():
    f = njit(unpack_range)
    assert f(3) == unpack_range(3)
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 3, got 2\)"):
        f(2)
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 3\)"):
        f(4)
    with pytest.raises(TypingError, match="failed to unpack int32"):
        njit((types.int32,))(unpack2)


def unpack2(x):
    a, b = x
    return a


def range_contains(val, start, stop, step):
    return [val in r for r in (range(start), range(start, stop), range(start, stop, step))]


def test_in_a_range_as_python():
    f = njit(range_contains)
    for bounds in [(0, 0, 1), (1, 0, -1), (-1, 4, 1), (-1, 4, 10), (5, -5, -2)]:
        for val in (True, -5, -1, 0, 1, 4, 5, -1.0, 1.0, 1.1, 1 + 0j, 1 + 1j, np.uint64(3)):
            assert f(val, *bounds) == range_contains(val, *bounds), (val, bounds)


# ---- slices ----------------------------------------------------------------------------------

def test_slices_frozen_into_the_code_and_compiled_for_their_value():
    z = slice(1, 2, 3)
    assert njit(lambda: z)() == z
    items = (1, 2, 3, 4)
    for s in (slice(None, None, -1), slice(1, 3), slice(3, None, -2)):
        assert njit(lambda: items[s])() == items[s]
    assert types.misc.SliceLiteral(slice(1)) == types.misc.SliceLiteral(slice(1))
    assert types.misc.SliceLiteral(slice(1)) != types.misc.SliceLiteral(slice(None))
    with pytest.raises(ValueError, match="Int value is too large"):
        njit(lambda x: x)(slice(None, None, -2**63 - 1))


def test_slice_indices_is_checked_as_numba_does():
    indices = njit(lambda s, *args: s.indices(*args))
    assert indices(slice(1, None, 2), 7) == slice(1, None, 2).indices(7)
    with pytest.raises(TypingError, match=r"indices\(\) takes exactly one argument \(3 given\)"):
        indices(slice(None), 1, 2, 3)
    with pytest.raises(TypingError, match="'float64' object cannot be interpreted as an "
                                          "integer"):
        indices(slice(None, None, 0), 1.2)

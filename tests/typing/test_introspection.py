"""getattr() and hasattr() in compiled code (typing/introspection.py): answered from the
value's type when compiling, checked against CPython on the same values."""
import collections
import math

import numpy as np
import pytest

from kiln import njit, typed, types
from kiln.errors import TypingError, UnsupportedError

from helpers import check

Point = collections.namedtuple("Point", "x y")
VALUES = [1, 2.5, 1j, True, "ab", (5, 6.5), Point(1, 2.5), np.ones((2, 3)), [1, 2], {1, 2}]


def array_attributes(a):
    return getattr(a, "ndim"), getattr(a, "shape"), getattr(a, "T").shape, \
        getattr(a, "sum")(), getattr(math, "pi"), getattr(np, "cos")(0.0)


def named_tuple_fields(p):
    return getattr(p, "y"), getattr(p, "x", -1.0)


def with_default(x, default):
    return getattr(x, "__not_an_attribute__", default), getattr(x, "real", default)


def without_default(x):
    return getattr(x, "__not_an_attribute__")


def has(x):
    return hasattr(x, "__hash__"), hasattr(x, "shape"), hasattr(x, "real"), \
        hasattr(x, "__not_an_attribute__"), hasattr(x, "y"), hasattr(x, "append"), \
        isinstance(x, (list, set))


def first_size(x):
    if hasattr(x, "shape"):   # pruned: x.shape is typed only where x has it
        return x.shape[0]
    return -1


def by_name(x, name):
    return getattr(x, name)


def test_getattr_reads_the_attribute():
    check(array_attributes, np.arange(6.0).reshape(2, 3))
    check(named_tuple_fields, Point(1, 2.5))


@pytest.mark.parametrize("x", VALUES[:6])
def test_getattr_default_where_python_has_no_such_attribute(x):
    check(with_default, x, None)
    check(with_default, x, "default")


@pytest.mark.parametrize("x", [1.5, "ab", (1, 2), np.ones(2)])
def test_getattr_of_a_missing_attribute_raises_python_s_attribute_error(x):
    with pytest.raises(AttributeError) as want:
        without_default(x)
    with pytest.raises(AttributeError) as got:
        njit(without_default)(x)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("x", VALUES)
def test_hasattr_is_python_s_answer(x):
    check(has, x)
    check(first_size, x)


def methods_read_not_called(a):
    a.sum
    getattr(a, "sum")
    m = getattr(a, "mean")
    return getattr(a, "size")


def test_a_method_read_and_not_called_is_no_value():
    check(methods_read_not_called, np.ones(3))


def test_a_name_passed_in_compiles_for_its_value():
    compiled = njit(by_name)
    assert compiled(2.5, "real") == 2.5 and compiled(3j, "imag") == 3.0
    assert compiled(np.ones((2, 4)), "shape") == (2, 4)


def test_record_fields_and_jitclass_attributes():
    from kiln.experimental import jitclass

    @jitclass([("value", types.float64)])
    class Box:
        def __init__(self, value):
            self.value = value

        def doubled(self):
            return 2 * self.value

    def read(r, b):
        return getattr(r, "a"), hasattr(r, "b"), getattr(b, "value"), \
            getattr(b, "doubled")(), hasattr(b, "value"), getattr(b, "nothing", 0.5)

    recs = np.array([(1.5, 2)], dtype=[("a", "f8"), ("b", "i8")])
    assert njit(read)(recs[0], Box(3.0)) == (1.5, True, 3.0, 6.0, True, 0.5)


def test_what_the_type_does_not_answer_is_refused():
    def optional_value(n):
        x = None if n > 0 else 1.5
        return hasattr(x, "real")

    def computed_name(n):
        return getattr(1.5, "real" if n else "imag")

    def held_method(a):   # a method of a value no local holds: compiled code cannot
        m = a[:1].sum     # keep it to call later
        return m()

    def not_compiled(x):   # Python's str has it; compiled code does not
        return getattr(x, "maketrans")

    for fn, args, error in [(optional_value, (1,), TypingError),
                            (computed_name, (1,), TypingError),
                            (held_method, (np.ones(2),), UnsupportedError),
                            (not_compiled, ("ab",), TypingError)]:
        with pytest.raises(error):
            njit(fn)(*args)


def test_a_name_assigned_in_branches_is_refused_naming_the_variable():
    def branchy(pred):
        if pred > 3:
            attr = "real"
        else:
            attr = "imag"
        return hasattr(1.5, attr)

    with pytest.raises(TypingError, match='cannot determine the type of variable "attr"'):
        njit(branchy)(6)


def float_or_not_a_class(x):
    return isinstance(x, (float, "not a type")), isinstance(x, ())


def test_isinstance_tries_the_classes_in_python_s_order():
    check(float_or_not_a_class, 2.5)   # float matches before the string is reached
    with pytest.raises(TypeError):
        float_or_not_a_class(1)
    with pytest.raises(TypingError, match="not 'not a type'"):
        njit(float_or_not_a_class)(1)


def list_kinds(x):
    return isinstance(x, typed.List), isinstance(x, list), hasattr(x, "append"), \
        getattr(x, "shape", None)


@pytest.mark.parametrize("x", [typed.List([1, 2]), [1, 2]])
def test_a_typed_list_is_one_and_a_python_list_another(x):
    check(list_kinds, x)


def test_a_dict_is_answered_where_dict_and_typed_dict_agree():
    # a DictType value is a dict (a display) or a kiln.typed.Dict (an argument) in Python
    d = typed.Dict.empty(types.int64, types.int64)
    check(has, d)
    with pytest.raises(TypingError, match="it is a dict or a Dict in Python"):
        njit(lambda x: isinstance(x, dict))(d)


def displayed_dicts(n):
    c = dict()
    c[n] = 3
    d = {n: 1.5}
    return isinstance(c, dict), isinstance(d, typed.Dict), isinstance({n: n}, dict), \
        isinstance(d, (list, dict)), isinstance(b"x", bytes)


def reassigned_dict(x):
    c = {1: 2}
    if x:
        c = typed.Dict.empty(types.int64, types.int64)
    return isinstance(c, dict)


def test_a_dict_made_by_a_display_is_a_dict():
    # a dict display (or dict()) makes a dict in Python, as a local assigned one once;
    # a local that may also hold a typed.Dict stays unknown
    check(displayed_dicts, 4)
    with pytest.raises(TypingError, match="it is a dict or a Dict in Python"):
        njit(reassigned_dict)(True)


def numpy_classes(a):
    x = a[0]
    return isinstance(x, np.int64), isinstance(x, np.integer), isinstance(x, np.float64), \
        isinstance(x, np.floating), isinstance(x, np.generic), isinstance(x, np.int32)


@pytest.mark.parametrize("a", [np.arange(3), np.ones(2), np.ones(2, np.float32),
                               np.zeros(2, np.int32)])
def test_a_number_is_an_instance_of_its_numpy_class(a):
    # a[0] is a NumPy scalar in Python; compiled code holds one type for it and for an int
    check(numpy_classes, a)


def python_number_classes(x):
    return isinstance(x, int), isinstance(x, float), isinstance(x, complex), \
        isinstance(x, (np.int8, np.float32))


@pytest.mark.parametrize("x", [3, 2.5, 1j, True, np.int32(3), np.uint8(3), np.int8(-1),
                               np.float32(1.5), np.complex64(1j)])
def test_a_number_of_another_width_is_only_its_numpy_class(x):
    check(python_number_classes, x)


def range_and_bytes(n):
    r = range(n)
    return isinstance(r, range), isinstance(r, tuple), isinstance(b"ab", (str, bytes)), \
        hasattr(r, "step")


def test_a_range_and_bytes_are_their_classes():
    check(range_and_bytes, 3)


def numpy_class_of_int():
    return isinstance(1, np.intp), isinstance(1, np.int32), isinstance(True, np.bool_)


def kiln_types(x):
    return isinstance(x, types.int32), isinstance(x, (types.float64, types.int64))


def a_type_class():
    return isinstance(1, types.Integer)


def test_numbas_isinstance_of_types_and_numpy_aliases():
    # one type for a Python int and an np.int64, as in Numba (CPython answers False)
    assert njit(numpy_class_of_int)() == (True, False, True)
    assert njit(kiln_types)(np.int32(3)) == (True, False)
    assert njit(kiln_types)(3) == (False, True)
    with pytest.raises(TypingError, match="Numba type classes are not supported"):
        njit(a_type_class)()


def stored_methods(n, x):
    out = []
    add = out.append   # read before the list's items are known
    for i in range(n):
        add(i * x)
    first = [1]
    grow = first.append
    first = [2]        # the method stays the first list's
    grow(n)
    h = getattr(x, "__hash__")
    return out, first, h()


@pytest.mark.parametrize("x", [3, 2.5])
def test_a_method_kept_in_a_local_is_called_later(x):
    check(stored_methods, 4, x)

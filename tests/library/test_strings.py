"""Strings in compiled code against CPython: arguments and returns, constants, len,
indexing and slicing, comparisons, +, *, `in`, hashing (dict keys, set items, list items,
kiln.typed containers from Python), exceptions with string arguments and bad programs.
Inputs cover the empty string and non-ASCII text (é, 中, an emoji outside the BMP)."""
import math

import numpy as np
import pytest

import kiln

from helpers import as_python as plain
from helpers import jit
from kiln import njit, types
from kiln.errors import TypingError
from kiln.typed import Dict, List

TEXTS = ["", "a", "abc", "héllo", "中文字", "a😀b", "😀", "aaa", "abcabc", " x y "]


def check(pyfunc, *args):
    """Compiled and CPython agree: same value and type, or the same exception type. The
    session's shared dispatcher (helpers.jit) compiles each lambda once per signature."""
    compiled = jit(pyfunc)
    try:
        expected = pyfunc(*args)
    except Exception as e:   # noqa: BLE001 - the compiled function must raise the same type
        with pytest.raises(type(e)):
            compiled(*args)
        return
    got = compiled(*args)
    assert type(got) is type(expected) and got == expected, (args, expected, got)


@pytest.mark.parametrize("s", TEXTS)
def test_argument_and_return(s):
    check(lambda s: s, s)
    check(lambda s: len(s), s)
    check(lambda s: (s, len(s), bool(s)), s)


def test_tuples_of_strings_in_and_out():
    check(lambda t, n: (t[0] + t[1] * n, t), ("a", "é"), 3)
    check(lambda t, n: (t[0] + t[1] * n, t), ("", ""), 0)
    with pytest.raises(TypingError, match="unsupported operand"):
        njit(lambda t: t[0] + t[1])(("a", 2))


def test_constants():
    check(lambda: "héllo 中😀")
    check(lambda: "")
    check(lambda: ("a", "bc"))

    def reassigned(flag):
        x = "one"
        if flag:
            x = "two" + x
        return x
    check(reassigned, True)
    check(reassigned, False)


@pytest.mark.parametrize("s", TEXTS)
@pytest.mark.parametrize("i", [0, 1, 2, -1, -2, -3, 3, 5, -6])
def test_index(s, i):
    check(lambda s, i: s[i], s, i)


@pytest.mark.parametrize("s", ["", "a", "héllo", "a😀b中文"])
def test_slices(s):
    for start in (None, -7, -2, 0, 1, 3, 9):
        for stop in (None, -9, -1, 0, 2, 4, 10):
            for step in (None, 1, 2, 3, -1, -2):
                check(lambda s, a, b, c: s[a:b:c], s, start, stop, step)
    check(lambda s: s[::0], s)   # ValueError as CPython


@pytest.mark.parametrize("a", TEXTS)
@pytest.mark.parametrize("b", ["", "a", "abc", "abd", "ab", "中", "a😀b"])
def test_comparisons_and_operators(a, b):
    check(lambda a, b: (a == b, a != b, a < b, a <= b, a > b, a >= b), a, b)
    check(lambda a, b: (a + b, b in a, a in b), a, b)


@pytest.mark.parametrize("s", ["", "ab", "中😀"])
@pytest.mark.parametrize("n", [-1, 0, 1, 3])
def test_repeat(s, n):
    check(lambda s, n: (s * n, n * s), s, n)


def grow(s, k):
    """`+=` on a string only a local holds (grown in place) while other names, a list, a
    dict and a cached hash hold earlier versions, which must not change."""
    out = s + ""
    before = out
    seen = {out: 0}
    parts = [out]
    h = hash(out)
    for i in range(k):
        out += s
        out += "é"[: i % 2]
        if i == 3:
            before = out
            parts[0] += "!"
    parts.append(out)
    return out, before, parts, len(seen), h == hash(s + ""), hash(out) == hash(out[:] + "")


@pytest.mark.parametrize("s", ["", "ab", "中😀"])
def test_augmented_add_builds_without_changing_other_references(s):
    check(grow, s, 40)


def test_constant_operands():
    check(lambda s: ("x" + s + "!", s == "abc", "b" in s, s < "b", "ab" * 2), "abc")


def test_empty_containers_typed_by_string_constants():
    def build(flag):
        x = "a" if flag else "bc"
        d = {}
        d["k"] = 1
        d[x] = 2
        items = []
        items.append("z")
        items.append(x)
        seen = set()
        seen.add("q")
        acc = ""
        for _ in range(3):
            acc += x
        return d["k"] + d[x], items[0] + items[1], "q" in seen, acc, "a" == "a", "ab"[1]
    check(build, True)
    check(build, False)


def test_hash_is_consistent_and_never_minus_one():
    f = njit(lambda a, b: (hash(a) == hash(b), hash(a) != -1))
    for a in TEXTS:
        assert f(a, a) == (True, True)
        assert f(a, a + "") == (True, True)
    assert f("abc", "abd")[0] is False


def mixed_equality(s, n, x, c):
    return (s == n, n == s, s != n, n != s, s == x, x != s, s == None, None != s,  # noqa: E711
            s == c, c != s, True == s, s != False)


def test_a_string_never_equals_a_number_or_none():
    f = jit(mixed_equality)
    for s, n in [("1", 1), ("", 0), ("True", 1)]:
        assert f(s, n, 1.0, 1j) == mixed_equality(s, n, 1.0, 1j)


def test_hash_equals_python():
    """CPython's SipHash-1-3 over its 1, 2 or 4-byte form: each width, each tail length."""
    f = njit(lambda s: hash(s))
    for char in "a", "\xff", "\u0100", "\uffff", "\U00010000", "\U0001f40d":
        for n in range(18):
            s = "x" * (n // 2) + char * (n - n // 2)
            assert f(s) == hash(s), s
    for s in TEXTS:
        assert f(s) == hash(s) == f(s), s   # the second call reads the cached hash


def test_a_python_that_hashes_strings_otherwise_is_warned_of():
    from types import SimpleNamespace

    from kiln.library.string_hash import algorithm_warning
    assert algorithm_warning(SimpleNamespace(algorithm="siphash13", cutoff=0)) is None
    for algorithm, cutoff in ("fnv", 0), ("siphash24", 0), ("siphash13", 7):
        message = algorithm_warning(SimpleNamespace(algorithm=algorithm, cutoff=cutoff))
        assert algorithm in message and "differs from Python's" in message
        assert ("PEP 456" in message) == (algorithm == "fnv")   # Numba's words for FNV


def test_dict_with_string_keys_counts_words():
    def count(words):
        d = {}
        for i in range(len(words)):
            w = words[i]
            d[w] = d.get(w, 0) + 1
        return d
    words = "the cat and the hat and the 中 😀 the".split()
    got = jit(count)(List(words))
    assert dict(got) == count(words) and list(got) == list(count(words))


def test_string_sets_and_lists():
    def build(s):
        items = [s, s + "x", "y", s]
        return set(items), items, "y" in set(items), items.index("y")
    for s in ("", "é", "y"):
        expected = build(s)
        got = jit(build)(s)
        assert got[0] == expected[0] and list(got[1]) == expected[1] and got[2:] == expected[2:]


def test_typed_containers_from_python():
    d = Dict.empty(types.unicode_type, types.int64)
    d["héllo"] = 1
    d["中"] = 2
    lookup = njit(lambda d, k: d[k])
    assert lookup(d, "中") == 2
    with pytest.raises(KeyError):
        lookup(d, "missing")
    @njit
    def add(d, k, v):
        d[k] = v
    add(d, "😀", 3)
    assert dict(d) == {"héllo": 1, "中": 2, "😀": 3}
    lst = List(["a", "", "中😀"])
    assert njit(lambda l, i: l[i])(lst, 2) == "中😀"
    assert list(lst) == ["a", "", "中😀"]


def test_exception_with_string_argument():
    def bad(s):
        if len(s) > 2:
            raise ValueError(s + " is too long", len(s))
        return s
    check(bad, "ab")
    with pytest.raises(ValueError) as info:
        jit(bad)("中文字")
    assert info.value.args == ("中文字 is too long", 3)

    def caught(s):
        try:
            raise KeyError(s + "!")
        except KeyError:
            return 1
    check(caught, "x")


def test_bad_programs_name_the_problem():
    with pytest.raises(TypingError, match="line"):
        njit(lambda s: s + 1)("a")
    with pytest.raises(TypingError, match="no_such_method"):
        njit(lambda s: s.no_such_method())("a")
    with pytest.raises(TypingError):
        njit(lambda s: s[1.5])("a")


def test_type_names():
    assert types.unicode_type is types.string
    assert types.typeof("x") == types.unicode_type


def test_iteration():
    def chars(s):
        out, n = "", 0
        for c in s:
            out = c + out
            n += 1
        for c in "xy":
            out += c
        return out, n
    for s in TEXTS:
        check(chars, s)

    def stops(s):
        for c in s:
            if c == "b":
                raise ValueError(c)
        return 0
    check(stops, "abc")
    check(stops, "ac")


METHOD_CASES = [
    (lambda s: s.split(), [" a  b c ", "", "中 😀\tx\n", "   "]),
    (lambda s: (s.split(None, 1), s.split(None, 0)), [" a  b c ", "a b", "  ", ""]),
    (lambda s: (s.split(","), s.split(",", 1), s.split(", ")), ["a,b,,c", "", ",", "a, b"]),
    (lambda s: s.split(""), ["abc"]),
    (lambda s: (",".join(s.split()), "".join(s.split(" "))), [" a b ", "", "中 文"]),
    (lambda s: ("-".join(s), s.join((s, s)), "".join((s,))), ["abc", "", "中😀"]),
    (lambda s: (s.strip(), s.lstrip(), s.rstrip(), s.strip("xa"), s.rstrip("")),
     ["  ab  ", "xaxbx", "", "\u3000中\u2028", "xxx"]),
    (lambda s: (s.find("b"), s.rfind("b"), s.count("b"), s.find("b", 2), s.count(""),
                s.find("", 9), s.rfind("", 1, 2), s.count("b", -2), s.find("b", -9, -1)),
     ["abcb", "", "b", "😀b😀b"]),
    (lambda s: s.index("c"), ["abc", "xyz"]),
    (lambda s: s.rindex("c", 0, 2), ["acbc", "abc"]),
    (lambda s: (s.replace("a", "xy"), s.replace("", "-"), s.replace("a", "", 1),
                s.replace("", "-", 2), s.replace("an", "中", 0)), ["banana", "", "a"]),
    (lambda s: (s.startswith("ab"), s.endswith("a"), s.startswith(""), s.endswith("😀")),
     ["abca", "", "a", "x😀"]),
    (lambda s: (s.upper(), s.lower(), s.isupper(), s.islower()),
     ["Héllo ΑΒγ Дж ѐЀ", "ABC", "abc1", "", "1", "ÀÞ×àþ÷", "ÿŸµς"]),
    # ß has no upper case of one code point: CPython gives 'SS'
    (lambda s: (s.islower(), s.isupper(), s.isalpha(), s.lower(), s.upper()),
     ["ß", "ßa", "ªº", "Aß"]),
    (lambda s: (s.isdigit(), s.isalpha(), s.isspace(), s.isalnum()),
     ["123", "abcé", " \t\x1c\u3000", "a1", "", "a b", "Ωж"]),
    (lambda s: (s.zfill(6), s.center(7, "*"), s.ljust(5), s.rjust(5, "中"), s.center(6),
                s.zfill(1)), ["-12", "+1", "abc", "", "ab", "-"]),
    (lambda s: s.center(5, "ab"), ["x"]),
    (lambda s: (ord(s[0]), chr(ord(s[0]) + 1), ord("é")), ["a", "中", "😀"]),
    (lambda s: ord(s), ["ab", ""]),
    (lambda n: chr(n), [0x110000, -1, 0x10FFFF]),
]


@pytest.mark.parametrize("index", range(len(METHOD_CASES)))
def test_methods(index):
    f, inputs = METHOD_CASES[index]
    compiled = jit(f)
    for x in inputs:
        try:
            expected = f(x)
        except Exception as e:   # noqa: BLE001
            with pytest.raises(type(e)):
                compiled(x)
            continue
        got = plain(compiled(x))
        assert got == expected, (x, expected, got)


def test_bad_method_arguments():
    with pytest.raises(TypingError, match="str.find"):
        njit(lambda s: s.find(1))("a")
    with pytest.raises(TypingError, match="str.join"):
        njit(lambda s: s.join((1, 2)))("a")


@pytest.mark.parametrize("x", [0, 1, -1, 123456789, -2**63, 2**63 - 1, True, False,
                               0.0, -0.0, 1.0, 0.1, 1e22, 1e-7, 1 / 3, float("inf"),
                               -float("inf"), 123456789012345678.0, 5e-324])
def test_str_of_numbers(x):
    check(lambda x: str(x), x)
    check(lambda x: f"{x}", x)


def test_str_of_other_values():
    check(lambda: (str(), str(None), str("中"), str(np.uint64(2**64 - 1)), str(np.int8(-5))))
    check(lambda: str(float("nan")))
    check(lambda x, s: (str(object=x), str(object=s)), 2.5, "text")   # Python's keyword


@pytest.mark.parametrize("s", ["12", " -0 ", "+7", "1_000", "_1", "1__0", "1_", "", "x", "- 1",
                               "9223372036854775807", "-9223372036854775808", "\u3000 42\n"])
def test_int_of_str(s):
    check(lambda s: int(s), s)


def test_int_of_str_past_int64_is_overflow():
    with pytest.raises(OverflowError):
        njit(lambda s: int(s))("9223372036854775808")


@pytest.mark.parametrize("s", ["1.5", " -2e3 ", "inf", "-Infinity", "+nan", "0x1p3", "", "1e500",
                               ".5", "5.", "abc", "1.5x", "nan(1)", "1e", "-0.0", "中"])
def test_float_of_str(s):
    def parse(s):
        x = float(s)
        return x, x != x, math.copysign(1.0, x)
    try:
        expected = parse(s)
    except ValueError:
        with pytest.raises(ValueError):
            jit(parse)(s)
        return
    got = jit(parse)(s)
    assert got[1:] == expected[1:] and (expected[1] or got[0] == expected[0]), (s, got)


def test_format_specs():
    def floats(x):
        return (format(x, ""), format(x, ".3f"), format(x, "8.2f"), format(x, "<8"),
                format(x, "e"), format(x, "08.1f"), format(x, ".2e"), format(x, "g"))
    for x in (3.14159, -2.5, 0.0, 1e300, -float("inf")):
        check(floats, x)

    def ints(x):
        return (format(x, "d"), format(x, "5d"), format(x, "05d"), format(x, "^7"),
                format(x, "*>4"), format(x, ".2f"))
    for x in (42, -7, 0):
        check(ints, x)

    def texts(s):
        return format(s, ""), format(s, "s"), format(s, ">5"), format(s, ".2"), format(s, "-^7s")
    for s in ("ab", "中😀x", ""):
        check(texts, s)


def test_f_strings():
    def f(n, x, s):
        return f"n={n} x={x:.3f} s={s!s} {s:>5}|{n:04d}{{}}", f"", f"plain", f"{s}", f"{n}{s}"
    check(f, 7, 3.14159, "中")
    check(f, -12, -0.0005, "")


def test_f_string_in_raise_reaches_python():
    def bad(n):
        if n < 0:
            raise ValueError(f"bad n={n}")
        return n
    with pytest.raises(ValueError, match="^bad n=-3$"):
        jit(bad)(-3)
    check(bad, 2)

    def handled(n):
        try:
            raise KeyError(f"k{n}")
        except KeyError:
            return str(n) + "!"
    check(handled, 4)


def test_str_format_and_percent():
    def formatted(n, x, s):
        return ("{} items, {:.2f} each, {}!".format(n, x, s), "{0}-{1:>6}".format(n, x),
                "no fields {{}}".format(), "{}{}{}{}{}{}".format(s, n, x, s, n, True),
                "%d items, %.2f each, %s! %5d|%-4s|%05.1f %%" % (n, x, s, n, s, x),
                "n=%d" % n, "%s" % s, "%i/%s/%d" % (n, True, False), "%e %g" % (x, x))
    check(formatted, 3, 1.234, "é")
    check(formatted, -3, -2.5e-10, "")
    with pytest.raises(TypingError, match="takes 2 arguments"):
        njit(lambda n: "{} {}".format(n))(1)
    with pytest.raises(TypingError, match="takes 1 values"):
        njit(lambda n: "%d" % (n, n))(1)
    with pytest.raises(TypingError, match="does not support the % format"):
        njit(lambda n: "%x" % n)(1)
    with pytest.raises(TypingError, match="str.format fields"):
        njit(lambda n: "{name}".format(n))(1)


def test_bad_format_programs():
    with pytest.raises(TypingError, match="format spec"):
        njit(lambda x: f"{x:,}")(1)
    with pytest.raises(TypingError, match="does not apply"):
        njit(lambda x: f"{x:d}")(1.5)
    with pytest.raises(kiln.errors.UnsupportedError, match="!a"):
        njit(lambda x: f"{x!a}")(1)


def reprs(x):
    return repr(x), f"{x!r}", f"[{x!r:>12}]"


@pytest.mark.parametrize("x", ["", "abc", "it's", 'say "hi"', "both ' and \"", "t\tn\nr\r\\",
                               "\x00\x1f\x7f\x80\xa0\xad\xe9", "中\u200b\U0001F600\U000E0001",
                               3, -2.5, True, None])
def test_repr_is_cpython_s(x):
    # strings: CPython's quotes and escapes, and its own list of printable code points
    check(reprs, x)

"""Records with fixed-width string fields (`U<n>`, `S<n>`): read as NumPy reads them (the
text without its trailing NULs), written as NumPy assigns (truncated to the width, padded
with NULs), used as str/bytes, and passed across the CPython boundary; each checked
against NumPy on the same record arrays."""
import numpy as np
import pytest

from kiln import njit, types
from kiln.errors import TypingError

TEXT = np.dtype([("x", np.float64), ("name", "U5"), ("tag", "S3"), ("n", np.int16)])
NAMES = ["", "abcde", "héllo", "x\x00y", "\U0001f600z", "ab"]    # empty, full, non-ASCII
TAGS = [b"", b"abc", b"\xffz", b"a\x00", b"q", b"xy"]              # NUL inside, 8-bit


def records():
    a = np.zeros(len(NAMES), TEXT)
    a["x"] = np.arange(len(NAMES)) / 2
    a["name"], a["tag"], a["n"] = NAMES, TAGS, np.arange(len(NAMES))
    return a


@njit
def read(a, i):
    r = a[i]
    return r.name, r["tag"], r.x, r.n


@pytest.mark.parametrize("step", [1, 2, -1])   # contiguous, strided, reversed
def test_read_fields_as_numpy(step):
    a = records()[::step]
    for i in range(len(a)):
        expect = (str(a[i]["name"]), bytes(a[i]["tag"]), a[i]["x"], a[i]["n"])
        got = read(a, i)
        assert got == expect and type(got[0]) is str and type(got[1]) is bytes


@njit
def write(a, i, name, tag):
    a[i].name = name
    a[i]["tag"] = tag


@pytest.mark.parametrize("step", [1, 2])
def test_write_truncates_and_pads_as_numpy(step):
    got, expect = records()[::step], records()[::step]
    values = [("abcdefgh", b"wxyz"), ("", b""), ("é", b"\x00"), ("12345", b"abc"),
              ("\U0001f600" * 7, b"\xfe")]
    for i in range(len(got)):
        name, tag = values[i % len(values)]
        write(got, i, name, tag)
        expect[i]["name"], expect[i]["tag"] = name, tag
    assert got.tobytes() == expect.tobytes()      # the padding too, and no other bytes


@njit
def text_operations(a, i, j):
    r, s = a[i], a[j]
    return (r.name == s.name, r.name != "ab", len(r.name), r.name + "!", r.name.upper(),
            "b" in r.name, r.tag == s.tag, len(r.tag), str(r.name), "x\x00y" == r.name,
            r.tag != b"a")


def test_fields_are_str_and_bytes():
    a = records()
    for i in range(len(a)):
        for j in (0, i, 5):
            r, s = str(a[i]["name"]), str(a[j]["name"])
            t, u = bytes(a[i]["tag"]), bytes(a[j]["tag"])
            assert text_operations(a, i, j) == (r == s, r != "ab", len(r), r + "!", r.upper(),
                                                "b" in r, t == u, len(t), r, "x\x00y" == r,
                                                t != b"a")


@njit
def copy_fields(dst, src, i):
    dst[i].name = src[i].name     # U field to U field of another width
    dst[i].tag = src[i].tag
    return dst[i].name


def test_field_to_narrower_field():
    narrow = np.dtype([("name", "U2"), ("tag", "S1")])
    src, got = records(), np.zeros(len(NAMES), narrow)
    expect = np.zeros(len(NAMES), narrow)
    for i in range(len(src)):
        assert copy_fields(got, src, i) == str(got[i]["name"])
        expect[i]["name"], expect[i]["tag"] = src[i]["name"], src[i]["tag"]
    assert got.tobytes() == expect.tobytes()


@njit
def swap_name(r, name):
    old = r.name
    r.name = name
    return old, r


def test_record_scalar_in_and_out():
    a = records()
    old, back = swap_name(a[2], "zz")            # writes the array, returns a copy
    assert old == "héllo" and a[2]["name"] == "zz"
    assert back.tobytes() == a[2].tobytes() and back["tag"] == a[2]["tag"]


def test_fixed_width_arguments_by_signature():
    """An explicit signature's U<n>/S<n> argument takes a str/bytes, cut to n chars."""
    f = njit((types.UnicodeCharSeq(3), types.CharSeq(2)))(lambda s, b: (s, b))
    assert f("héllo", b"xyz") == ("hél", b"xy")
    assert f("", b"") == ("", b"")
    assert types.from_dtype(TEXT).typeof("name") == types.UnicodeCharSeq(5)
    assert types.from_dtype(TEXT).offset("tag") == TEXT.fields["tag"][1]


@njit
def field_view(a, i):
    return a["name"][i], a["tag"][i]


def test_field_view_items():
    a = records()[::2]
    for i in range(len(a)):
        assert field_view(a, i) == (a["name"][i], a["tag"][i])


def store_number(a):
    a[0].tag = 1


def store_bytes_into_text(a):
    a[0].name = b"ab"


@pytest.mark.parametrize("fn", [store_number, store_bytes_into_text])
def test_wrong_kind_of_value_is_a_typing_error(fn):
    with pytest.raises(TypingError, match="cannot store"):
        njit(fn)(records())


@njit
def put_items(u, values):
    for i in range(len(values)):
        u[i] = values[i]
    return u


@njit
def longest(u):
    best = u[0]
    for x in u:
        if len(x) > len(best):
            best = x
    return best, u[::-1]


@pytest.mark.parametrize("kind", ["U4", "S4"])
def test_text_arrays_as_numpy(kind):
    """Arrays of U/S items (as a field view is): items read and written as NumPy does,
    the array returned as a view of its NumPy array."""
    words = ["", "abcd", "héllo", "x\x00", "ab"] if kind == "U4" else \
        [b"", b"abcd", b"\xffhello", b"x\x00", b"ab"]
    got, expect = np.zeros(7, kind)[::-1], np.zeros(7, kind)[::-1]
    put_items(got, tuple(words))
    expect[:len(words)] = words
    assert got.tobytes() == expect.tobytes()
    best, back = longest(expect[1:])
    assert best == max(expect[1:], key=len) and back.dtype == expect.dtype
    assert np.array_equal(back, expect[1:][::-1])


@njit
def hash_and_fill(a, u):
    u[:] = "abcdef"       # filled, each item cut to the width
    a["name"] = "xy"
    return hash(a[1].name) == hash("xy"), u[0]


def test_hash_and_fill_of_text_items():
    a, u = records(), np.zeros(3, "U4")
    assert hash_and_fill(a, u) == (True, "abcd")
    assert list(a["name"]) == ["xy"] * len(a) and list(u) == ["abcd"] * 3


@njit
def show(a, i):
    print(a[i].name, a[i].tag, a[i])


def test_print_text_fields_and_records(capsys):
    a = records()
    for i in (0, 2):
        show(a, i)
        print(a[i]["name"], bytes(a[i]["tag"]), a[i])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == lines[1] and lines[2] == lines[3]


@njit
def text_arrays_made_here(n, names):
    u = np.zeros(n, "U3")
    e = np.empty((n, 2), dtype="S2")
    for i in range(n):
        u[i] = names[i % len(names)].name
        e[i, 0] = b"abc"
    return u, e, names["name"].copy(), np.empty_like(u)


def test_text_arrays_made_in_compiled_code():
    names = records()
    u, e, copied, empty = text_arrays_made_here(4, names)
    assert u.dtype == np.dtype("U3") and list(u) == [str(x)[:3] for x in names["name"][:4]]
    assert e.dtype == np.dtype("S2") and list(e[:, 0]) == [b"ab"] * 4
    assert copied.dtype == TEXT["name"] and list(copied) == list(names["name"])
    assert list(empty) == [""] * 4 and list(e[:, 1]) == [b""] * 4   # empty text, not garbage


@njit
def formatted(a, i):
    r = a[i]
    return f"{r.name}|{r.name:>7}|{r.name:.2}|{r.x}", "{:^7}".format(r.name), str(r.name)


def test_text_fields_in_formatting():
    a = records()
    for i in range(len(a)):
        r = a.view(np.recarray)[i]
        assert formatted(a, i) == (f"{r.name}|{r.name:>7}|{r.name:.2}|{r.x}",
                                   "{:^7}".format(r.name), str(r.name))

"""The Unicode tables of compiled strings (runtime/unicode_tables.py, read through
library/unicode_data.py) against the running CPython: the tables themselves (every code
point in the long run, a spread of them by default), and the compiled case mappings and
classes on characters of many scripts, special casings and Final_Sigma contexts included;
an ahead-of-time module carries the tables, and a cached hit binds them without the code
generator (the long run)."""
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from kiln import njit
from kiln.runtime import unicode_tables as U

MAPPINGS = (str.upper, str.lower, str.title, str.casefold)
FLAGS = {U.ALPHA: str.isalpha, U.DECIMAL: str.isdecimal, U.DIGIT: str.isdigit,
         U.NUMERIC: str.isnumeric, U.LOWER: str.islower, U.UPPER: str.isupper,
         U.PRINTABLE: str.isprintable, U.XID_START: str.isidentifier,
         U.XID_CONTINUE: lambda c: ("a" + c).isidentifier()}


def _table_disagreements(codes):
    tables = U.TABLES
    records = tables.records.reshape(-1, U.COLUMNS)
    wrong = []
    for c in codes:
        ch = chr(c)
        row = records[tables.index2[(tables.index1[c >> U.SHIFT] << U.SHIFT) +
                                    (c & ((1 << U.SHIFT) - 1))]]
        flags = {bit: bool(row[0] & bit) for bit in FLAGS}
        mapped = []
        for m in range(4):
            at = row[2 + 2 * m]
            mapped.append(chr(c + row[1 + 2 * m]) if at == 0 else
                          "".join(map(chr, tables.seqs[at + 1:at + 1 + tables.seqs[at]])))
        if flags != {bit: test(ch) for bit, test in FLAGS.items()} or \
                mapped != [f(ch) for f in MAPPINGS]:
            wrong.append(hex(c))
    return wrong


def test_the_tables_are_cpythons_on_a_spread_of_code_points():
    special = [0xDF, 0x130, 0x149, 0x1C4, 0x1C5, 0x1C6, 0x3A3, 0x3C2, 0x1E9E, 0xFB01,
               0x10427, 0x1D518, 0x2167, 0x2177, 0x2460, 0x660, 0x1FFC, 0xE0001, 0x10FFFF]
    assert _table_disagreements(list(range(0, 0x110000, 61)) + special) == []


@pytest.mark.slow
def test_the_tables_are_cpythons_on_every_code_point():
    assert _table_disagreements(range(0x110000)) == []


def every_method(s):
    return (s.upper(), s.lower(), s.title(), s.capitalize(), s.swapcase(), s.casefold(),
            s.isupper(), s.islower(), s.istitle(), s.isalpha(), s.isalnum(), s.isdecimal(),
            s.isdigit(), s.isnumeric(), s.isidentifier(), s.isprintable())


SPECIAL = ["", "𐐧", "𐐧𐐧 𐐏", "ß", "straße STRASSE", "İstanbul", "ǆaǅ Ǆ", "ﬁne ﬃ", "ŉ",
           "ΣΑΣ ΟΔΟΣ", "aΣ.b", "A\u0345Σ", "Σ", "ΑΣ\u0301", "aaaǄa", "ⅷ", "Ⅷ", "①", "٠",
           "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ῼ ᾳ", "%^Abc 5 $% Def𐐁𐐩", "中文", "\x00\x7f\u200b", "_x١",
           # ASCII text, which maps without the tables
           "x", "Hello, wORLD! it's 3am_x9Y", " \tmIxEd\ncAsE ", "".join(map(chr, range(128)))]


def _random_texts(count, seed=32):
    rng = random.Random(seed)
    blocks = [(0x80, 0x250), (0x370, 0x530), (0x1E00, 0x2000), (0x2100, 0x2200),
              (0x10400, 0x10450), (0x1D400, 0x1D800), (0, 0x40000)]
    return ["".join(chr(rng.randrange(*rng.choice(blocks))) for _ in range(rng.randrange(1, 6)))
            for _ in range(count)]


def test_case_and_classes_of_many_scripts_as_cpython():
    compiled = njit(every_method)
    for s in SPECIAL + _random_texts(300):
        assert compiled(s) == every_method(s), s



AOT_SOURCE = '''
from kiln.aot import export


@export("unicode_type(unicode_type)")
def shout(s):
    return s.upper() + s.title() + str(s.isalpha())
'''


@pytest.mark.slow
def test_an_ahead_of_time_module_carries_the_tables(tmp_path):
    """Built by kiln.aot and run where kiln cannot be imported (-I -S, NumPy alone)."""
    from kiln.aot import find_linker
    if find_linker() is None:
        pytest.skip("kiln.aot links with the system's cc or ld")
    (tmp_path / "source.py").write_text(AOT_SOURCE)
    built = subprocess.run([sys.executable, "-m", "kiln.aot", str(tmp_path / "source.py"),
                            "--name", "unicodedemo", "-o", str(tmp_path)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    numpy_only = tmp_path / "numpy_only"
    numpy_only.mkdir()
    site = os.path.dirname(os.path.dirname(np.__file__))
    for name in ("numpy", "numpy.libs"):
        if os.path.exists(os.path.join(site, name)):
            os.symlink(os.path.join(site, name), numpy_only / name)
    texts = ["straße 𐐧ǆ", "ΣΑΣ", "", "ﬁ İ"]
    child = (f"import sys; sys.path[:0] = [{str(tmp_path)!r}, {str(numpy_only)!r}]; "
             f"import unicodedemo; print(ascii([unicodedemo.shout(s) for s in {texts!r}]))")
    ran = subprocess.run([sys.executable, "-I", "-S", "-c", child], capture_output=True,
                         text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == ascii([s.upper() + s.title() + str(s.isalpha())
                                        for s in texts])


CACHED_SOURCE = '''
import sys
from kiln import njit


@njit(cache=True)
def shout(s):
    return s.upper() + str(s.isalpha())


print(ascii(shout("straße 𐐧ǆ")), "llvmlite.ir" in sys.modules)
'''


@pytest.mark.slow
def test_a_cached_hit_binds_the_tables_without_the_code_generator(tmp_path):
    (tmp_path / "cached.py").write_text(CACHED_SOURCE)
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(tmp_path / "cached.py")], env=env,
                           capture_output=True, text=True, timeout=300) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    expected = ascii("straße 𐐧ǆ".upper() + "False")
    assert runs[0].stdout.strip() == f"{expected} True"    # compiled
    assert runs[1].stdout.strip() == f"{expected} False"   # a hit

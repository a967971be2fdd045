"""Ahead-of-time compilation (kiln.aot): a module's exported functions built into a CPython
extension, imported in a fresh process where kiln and llvmlite cannot be imported, and
checked against the Python functions they were compiled from."""
import importlib.util
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kiln.aot import compile_module, find_linker
from kiln.aot.build import BuildError

pytestmark = pytest.mark.skipif(
    find_linker() is None,
    reason="kiln.aot links the extension with the system's cc or ld, and neither is on PATH")

SOURCE = '''
import numpy as np
from kiln import njit
from kiln.aot import export


@export("f8(f8, f8)")
def hypot(x, y):
    return (x * x + y * y) ** 0.5


@export("f8(f8[:])")
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s


@export("f8[:](f8[:], f8)")
def scaled(a, k):
    return a * k + 1.0


@export("f8(f8)")
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return x ** 0.5


@export("i8(i8)")
def check_index(i):
    if i > 10:
        raise IndexError(i, "past the end")
    return i


@export("tail", "f8[:](f8[:])")
def rest(a):
    return a[1:]


@njit
def _fib(n):
    if n < 2:
        return n
    return _fib(n - 1) + _fib(n - 2)


@export("f8(f8, f8)")
@export("i8(i8, i8)")
@njit(fastmath=True)
def combine(a, b):
    return a * 2 + b + _fib(10)


@export("f8[:, :](i8, i8)")
def grid(n, m):
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = i * m + j
    return out
'''

CHILD = '''
import pickle, resource, sys
sys.path[:0] = sys.argv[1:]   # the extension's folder, and a folder holding only NumPy

class NoKiln:
    """Refuse kiln and llvmlite, as a machine with only NumPy would."""
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("kiln", "llvmlite"):
            raise ImportError(f"{name} is blocked in this test")

sys.meta_path.insert(0, NoKiln())
import numpy as np
import aotdemo as m

def attempt(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("raised", type(e).__name__, e.args)

a = np.linspace(0.0, 3.0, 7)
out = {
    "hypot": m.hypot(3.0, 4.0), "hypot_ints": m.hypot(3, np.float32(4)),
    "hypot_text": attempt(m.hypot, "3", 4.0),
    "total": m.total(a), "total_strided": m.total(a[::2]), "total_empty": m.total(a[:0]),
    "scaled": m.scaled(a, 2.5),
    "sqrt": attempt(m.checked_sqrt, 2.0), "sqrt_negative": attempt(m.checked_sqrt, -1.0),
    "index": attempt(m.check_index, 3), "index_past": attempt(m.check_index, 11),
    "tail": m.tail(a), "tail_is_view": m.tail(a).base is not None,
    "combine_int": m.combine(2, 3), "combine_float": m.combine(2.0, 0.5),
    "combine_numpy_int": m.combine(np.int32(2), True),
    "grid": m.grid(3, 4),
    "wrong_type": attempt(m.total, [1.0, 2.0]), "wrong_count": attempt(m.hypot, 1.0),
    "doc": m.hypot.__doc__, "signature": str(__import__("inspect").signature(m.combine)),
    "imported": sorted(k for k in sys.modules if k.partition(".")[0] in ("kiln", "llvmlite")),
}
# arrays made in compiled code are freed with their last reference: 100 x 4 MB stays small
big = np.ones(500_000)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for _ in range(100):
    m.scaled(big, 2.0)
out["growth_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
pickle.dump(out, sys.stdout.buffer)
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The demo module built with the command line: (its folder, the Python module)."""
    folder = tmp_path_factory.mktemp("aot")
    (folder / "demo_source.py").write_text(SOURCE)
    done = subprocess.run([sys.executable, "-m", "kiln.aot", str(folder / "demo_source.py"),
                           "--name", "aotdemo", "-o", str(folder)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    path = done.stdout.strip()
    assert os.path.basename(path).startswith("aotdemo.") and os.path.exists(path)
    spec = importlib.util.spec_from_file_location("demo_source", folder / "demo_source.py")
    python = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(python)
    return folder, python


def _attempt(fn, *args):
    try:
        return ("ok", fn(*args))
    except Exception as e:
        return ("raised", type(e).__name__, e.args)


def _numpy_only(folder):
    """A folder that holds NumPy and nothing else of this environment's packages."""
    only = folder / "numpy_only"
    if not only.exists():
        only.mkdir()
        site = os.path.dirname(os.path.dirname(np.__file__))
        for name in ("numpy", "numpy.libs"):   # (a wheel's bundled libraries beside it)
            if os.path.exists(os.path.join(site, name)):
                os.symlink(os.path.join(site, name), only / name)
    return only


def test_runs_without_kiln_or_llvmlite(built):
    """The interpreter runs isolated, without site-packages (-I -S): it sees the standard
    library, NumPy and the extension; kiln and llvmlite are also refused by an import hook."""
    folder, py = built
    done = subprocess.run([sys.executable, "-I", "-S", "-c", CHILD, str(folder),
                           str(_numpy_only(folder))], cwd=folder, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    out = pickle.loads(done.stdout)
    assert out["imported"] == []
    a = np.linspace(0.0, 3.0, 7)
    assert out["hypot"] == py.hypot(3.0, 4.0)
    assert out["hypot_ints"] == 5.0   # converted as Numba converts for explicit signatures
    assert out["hypot_text"][:2] == ("raised", "TypeError")
    assert out["total"] == py.total(a)
    assert out["total_strided"] == py.total(a[::2])
    assert out["total_empty"] == 0.0
    np.testing.assert_array_equal(out["scaled"], py.scaled(a, 2.5))
    assert out["sqrt"] == _attempt(py.checked_sqrt, 2.0)
    assert out["sqrt_negative"] == ("raised", "ValueError", ("negative input",))
    assert out["index"] == ("ok", 3)
    assert out["index_past"] == ("raised", "IndexError", (11, "past the end"))
    np.testing.assert_array_equal(out["tail"], py.rest(a))
    assert out["tail_is_view"]
    assert out["combine_int"] == py.combine.py_func(2, 3) and type(out["combine_int"]) is int
    assert out["combine_float"] == py.combine.py_func(2.0, 0.5)
    assert out["combine_numpy_int"] == py.combine.py_func(2, 1)   # to the first: i8(i8, i8)
    assert type(out["combine_numpy_int"]) is int
    np.testing.assert_array_equal(out["grid"], py.grid(3, 4))
    assert out["wrong_type"][:2] == ("raised", "TypeError")
    assert "float64(array(float64, 1d, A))" in out["wrong_type"][2][0]
    assert out["wrong_count"][:2] == ("raised", "TypeError")
    assert out["doc"].startswith("Compiled ahead of time by kiln")
    assert out["signature"] == "(a, b, /)"
    assert out["growth_kb"] < 100_000, "arrays returned by compiled code are not freed"


def _module(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nfrom kiln.aot import export\n" +
                    textwrap.dedent(body))
    return path


def test_api_builds_and_refuses_what_it_cannot_carry(tmp_path):
    path = _module(tmp_path, "aot_api_demo", '''
        @export("i8(i8)")
        def twice(n):
            return 2 * n
        ''')
    out = compile_module(path, name="aot_api_ext", output_dir=tmp_path, cpu="host")
    assert os.path.basename(out).startswith("aot_api_ext.")
    spec = importlib.util.spec_from_file_location("aot_api_ext", out)
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    assert ext.twice(21) == 42

    with pytest.raises(BuildError, match="np.random"):
        compile_module(_module(tmp_path, "aot_random", '''
            @export("f8()")
            def draw():
                return np.random.random()
            '''), output_dir=tmp_path)
    with pytest.raises(BuildError, match="exports nothing"):
        compile_module(_module(tmp_path, "aot_empty", "x = 1\n"), output_dir=tmp_path)


def test_export_checks_signature_and_name():
    from kiln.aot import export
    with pytest.raises(TypeError, match="invalid signature"):
        export("f8(nosuchtype)")
    with pytest.raises(ValueError, match="valid Python name"):
        export("not-a-name", "f8(f8)")(lambda x: x)

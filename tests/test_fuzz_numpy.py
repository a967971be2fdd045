"""The NumPy fuzzer (tests/fuzz_numpy, issue 31): a short seeded batch of array programs
must agree with NumPy (and kiln's unfused and parallel=True runs with kiln's fused one), and
the fuzzer itself must tell every kind of failure apart, and find and shrink a bug."""
import numpy as np
import pytest

from tests.fuzz_numpy.compare import same
from tests.fuzz_numpy.generator import Program, flatten, generate
from tests.fuzz_numpy.inputs import build_all
from tests.fuzz_numpy.reducer import reduce
from tests.fuzz_numpy.runner import Child, classify, run_seeds

QUICK_SEEDS = range(6)      # each program is compiled twice by kiln: seconds apiece
LONG_SEEDS = range(6, 60)


def _agree_with_numpy(seeds, jobs):
    results = run_seeds(seeds, jobs=jobs)
    failures = [(p, o) for p, o in results if o.kind not in ("ok", "unsupported")]
    report = "\n\n".join(f"seed {p.seed}: {o.kind}: {o.detail}\n{p.source}" for p, o in failures)
    assert not failures, f"{len(failures)} programs differ from NumPy:\n{report}"
    assert sum(o.kind == "ok" for _, o in results) >= len(seeds) * 0.8


def test_quick_batch_agrees_with_numpy():
    _agree_with_numpy(QUICK_SEEDS, jobs=1)   # one child: the test run's workers fill the cores


@pytest.mark.slow   # a minute of programs: the long run
def test_long_batch_agrees_with_numpy():
    _agree_with_numpy(LONG_SEEDS, jobs=2)


def test_a_seed_gives_the_same_program_and_both_judges():
    assert generate(1234) == generate(1234)
    assert generate(1234).source != generate(1235).source
    assert {generate(s).judge for s in range(4)} == {"unfused", "parallel"}
    banned = generate(1234, banned=generate(1234).tags[:1])
    assert generate(1234).tags[0] not in banned.tags


def test_programs_cover_the_numpy_surface():
    programs = [generate(seed) for seed in range(150)]
    sources = "\n".join(p.source for p in programs)
    for construct in ["np.where(", "np.clip(", "np.sort(", "np.unique(", "np.cumsum(", "axis=",
                      "keepdims=True", "dtype=np.", ".astype(", "[None]", "::-1]", "] = ",
                      "+= ", "np.array([", ".T", "np.nan", "s0", "s1", "s3", "np.float32(",
                      ".reshape(", "np.concatenate(", "np.zeros(", "np.arange(", "np.sin(",
                      "np.isnan(", ".fill(", " > "]:
        assert construct in sources, construct
    specs = [s for p in programs for s in p.inputs if s[0] == "array"]
    args = [a for p in programs[:60] for a in build_all(p.inputs)[:3]]
    assert {s[1] for s in specs} >= {"bool", "int8", "uint64", "float16", "complex64"}
    assert any(a.ndim == 0 for a in args) and any(a.size == 0 for a in args)
    assert any(a.flags.f_contiguous and not a.flags.c_contiguous for a in args)
    assert any(any(s < 0 for s in a.strides) for a in args)
    assert any(p.source != flatten(p.source) for p in programs)   # something to fuse
    assert any(any(p.ulps) for p in programs)


def test_flattening_keeps_the_order_and_hoists_nested_operations():
    source = "import numpy as np\n\n\ndef f(a0):\n    v1 = np.sqrt(a0 * 2) + a0[a0 > 0].sum()\n" \
             "    return (v1,)\n"
    flat = flatten(source)
    assert flat.index("t1 = a0 * 2") < flat.index("t2 = np.sqrt(t1)") < flat.index("a0 > 0")
    namespace = {}
    exec(flat, namespace)
    x = np.array([1.0, -2.0, 4.0])
    expected = np.sqrt(x * 2) + x[x > 0].sum()
    assert same((expected,), namespace["f"](x)) is None


def test_comparison_is_bit_exact_and_strict_about_types():
    assert same(np.array([0.0]), np.array([-0.0])) is not None
    assert same(np.array([np.nan]), np.array([-np.nan])) is None
    assert same(np.array([1], np.int32), np.array([1], np.int64)) is not None
    assert same(np.array([1.0, 2.0]), np.array([[1.0, 2.0]])) is not None
    assert same(np.float32(0.1), 0.1) is not None          # a float64 where NumPy has float32
    assert same(np.float32(0.1), float(np.float32(0.1))) is None
    assert same(np.int8(1), 1.0) is not None
    assert same(np.bool_(True), 1) is not None
    assert same(np.float64(1.5), np.array(1.5)) is None    # a 0-d array for a scalar
    near = np.nextafter(1.0, 2.0)
    assert same(np.array([1.0]), np.array([near])) is not None
    assert same(np.array([1.0]), np.array([near]), ulps=1) is None
    assert same(np.array([1.0]), np.array([np.nextafter(near, 2.0)]), ulps=1) is not None


def _answer(reference, kiln, judge, leaked=0):
    return {"reference": reference, "kiln": kiln, "judge": judge, "leaked": leaked}


def test_each_kind_of_failure_is_told_apart():
    program = Program(0, "", "", (), (0,), "parallel", ("binop +",))
    one, two = ("ok", (np.array([1]),), ()), ("ok", (np.array([2]),), ())
    raises = ("raise", "ValueError", False, "ValueError: x", 0, ())
    refused = ("raise", "TypingError", True, "no implementation", 5, None)
    inside = ("raise", "TypingError", True, "in the library", 0, None)
    assert classify(program, _answer(one, one, one)).kind == "ok"
    assert classify(program, _answer(one, two, two)).kind == "value"
    assert classify(program, _answer(one, one, two)).kind == "judge"
    assert classify(program, _answer(one, raises, raises)).kind == "exception"
    assert classify(program, _answer(raises, raises, raises)).kind == "ok"
    assert classify(program, _answer(one, refused, refused)).kind == "unsupported"
    assert classify(program, _answer(one, inside, inside)).kind == "exception"
    assert classify(program, _answer(one, one, one, leaked=64)).kind == "leak"


PLANTED = """import numpy as np


def f(a0, a1, a2, s0, s1, s2, s3):
    v3 = a0 * 2.0
    v4 = np.maximum(a0, a1)
    v5 = a0 - a1
    v6 = v3 + 1.0
    return (v3, v4, v5, v6,)
"""
CRASHING = """import ctypes
import numpy as np


def f(a0, a1, a2, s0, s1, s2, s3):
    return (ctypes.string_at(0),)
"""
OUT_OF_RANGE = """import numpy as np


def f(a0, a1, a2, s0, s1, s2, s3):
    v3 = a0 + 1.0
    v4 = a2[5]
    return (v3, v4,)
"""


@pytest.mark.slow   # a batch run and a reduction, several processes: the long run
def test_a_planted_bug_is_found_and_reduced_and_a_crash_is_a_crash():
    # kiln's code generator made to emit every float subtraction as an addition
    inputs = (("array", "float64", (3,), "C", (1.0, 2.0, 3.5), None, False),) * 3 + \
        (("scalar", 1), ("scalar", 1.5), ("scalar", True), ("scalar", 1j))
    program = Program(0, PLANTED, flatten(PLANTED), inputs, (0, 0, 0, 0), "unfused")
    child = Child("fsub")
    try:
        assert child.run(Program(0, CRASHING, CRASHING, inputs, (0,), "unfused")).kind == "crash"
        # NumPy's IndexError: kiln checks the index only with boundscheck=True (seed 6067)
        past_the_end = Program(0, OUT_OF_RANGE, OUT_OF_RANGE, inputs, (0, 0, 0), "unfused")
        out = child.run(past_the_end); assert out.kind == "ok", out
        outcome = child.run(program)
    finally:
        child.stop()
    assert outcome.kind == "value", outcome
    reduced = reduce(program, outcome, max_runs=30, plant="fsub")
    body = [line for line in reduced.splitlines() if line.startswith("    ")]
    assert body == ["    v5 = a0 - a1", "    return (v5,)"], reduced

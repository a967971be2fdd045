"""The differential fuzzer (tests/fuzz, issue 14): a quick batch of seeded programs must all
agree with CPython/NumPy, and the fuzzer itself must find, report and reduce a bug."""
import pytest

from tests.fuzz.generator import Program, generate
from tests.fuzz.reducer import reduce
from tests.fuzz.runner import Child, run_programs

QUICK_SEEDS = range(200)


@pytest.mark.slow   # hundreds of programs, each compiled in a child: the long run
def test_quick_batch_agrees_with_cpython():
    programs = [generate(seed) for seed in QUICK_SEEDS]
    failures = [(p, o) for p, o in zip(programs, run_programs(programs, jobs=2)) if o.kind != "ok"]
    report = "\n\n".join(f"seed {p.seed}: {o.kind}: {o.detail}\ninput: {p.inputs[o.case]}\n"
                         f"{p.source}" for p, o in failures)
    assert not failures, f"{len(failures)} programs differ from CPython:\n{report}"


def test_a_seed_gives_the_same_program_and_inputs():
    assert generate(1234) == generate(1234)
    device = [generate(seed, device=True).source for seed in range(40)]   # nothing to allocate
    assert not any(word in s for s in device for word in ("try:", "= [", "in [", "{", "np.",
                                                         "set(", "*r"))
    assert generate(1234).source != generate(1235).source
    assert generate(7, arrays=False).source.count("np.") == 0


def test_both_program_kinds_are_generated():
    sources = [generate(seed).source for seed in QUICK_SEEDS]
    assert any("np." in s for s in sources) and any("np." not in s for s in sources)
    for construct in ["while ", "for ", "break", "continue", "else:", "raise ", "return None",
                      "math.", "divmod(", "@jit\ndef g0", "arr[", "iarr[", " if ", " and ",
                      " or ", "not ", ".sum()", "np.linspace(", "+=", "prange(",
                      "@jit(parallel=True)", ".append(", ".pop(", ".remove(", ".index(", " for e",
                      " = {}", "del dc", ".get(", ".items()"]:
        assert any(construct in s for s in sources), construct


@pytest.mark.slow   # runs and reduces a batch of programs in children: the long run
def test_a_planted_bug_is_found_and_reduced():
    # kiln's code generator made to emit every float subtraction as an addition
    programs = [generate(seed) for seed in range(12)]
    honest, planted = run_programs(programs), run_programs(programs, plant="fsub")
    found = [(p, o) for p, h, o in zip(programs, honest, planted)
             if h.kind == "ok" and o.kind in ("value", "exception")]
    assert found, [o.kind for o in planted]
    program, outcome = max(found, key=lambda pair: len(pair[0].source.splitlines()))
    reduced = reduce(program, outcome, plant="fsub", max_runs=200)
    lines = [line for line in reduced.splitlines() if line.strip()]
    assert len("".join(lines)) < len(program.source)  # fewer statements or smaller ones
    assert len(lines) <= 8, reduced
    again = Child("fsub").run(Program(0, reduced, (program.inputs[outcome.case],)))
    assert (again.kind, again.detail) == (outcome.kind, outcome.detail)


CRASHING = """
import ctypes
ctypes.string_at(0)

def f(a, b, x, y, arr, iarr):
    return a
"""
LOOPING = """
def f(a, b, x, y, arr, iarr):
    while True:
        pass
"""
FINE = """
@jit
def f(a, b, x, y, arr, iarr):
    return a + 1
"""


@pytest.mark.slow   # waits out a hanging child's time limit: the long run
def test_a_crash_or_a_hang_is_recorded_and_the_runner_goes_on():
    inputs = ((1, 2, 0.5, 1.5, ("float64", [1.0]), ("int64", [1])),)
    child = Child(timeout=5.0)
    try:
        assert child.run(Program(0, CRASHING, inputs)).kind == "crash"
        assert child.run(Program(0, FINE, inputs)).kind == "ok"
        assert child.run(Program(0, LOOPING, inputs)).kind == "hang"
        assert child.run(Program(0, FINE, inputs)).kind == "ok"
    finally:
        child.stop()


@pytest.mark.slow   # hundreds of programs, each compiled in a child: the long run
def test_quick_batch_compiles_for_the_gpu_or_is_refused_at_a_line():
    """`--cuda`: every program, its functions as device functions called by a kernel, is
    compiled to PTX (and assembled by ptxas when installed) or refused with an error that
    names the line (the GPU cannot allocate, catch exceptions...): programs made for device
    code (which nearly all compile) and ordinary ones (which test the refusals)."""
    programs = [generate(seed, device=True) for seed in range(40)] + \
        [generate(seed) for seed in range(100)]
    failures = [(p, o) for p, o in zip(programs, run_programs(programs, jobs=2, cuda=True))
                if o.kind != "ok"]
    report = "\n\n".join(f"seed {p.seed}: {o.kind}: {o.detail}\n{p.source}"
                         for p, o in failures)
    assert not failures, f"{len(failures)} programs do not compile for the GPU:\n{report}"


def test_the_gpu_mode_reports_an_error_without_a_line():
    inputs = ((1, 2, 1.5, 2.5, ("float64", [1.0]), ("int64", [1])),)
    child = Child(cuda=True)
    try:
        fine = child.run(Program(0, "@jit\ndef f(a, b, x, y, arr, iarr):\n"
                                    "    return [a][0] + x\n", inputs))
        broken = child.run(Program(0, "@jit\ndef f(a, b, x, y, arr, iarr):\n    return a\n"
                                      "f.py_func = None\n", inputs))
    finally:
        child.stop()
    assert fine.kind == "ok"   # a list: refused at its line
    assert broken.kind == "exception" and "raises TypeError" in broken.detail

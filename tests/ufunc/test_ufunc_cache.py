"""cache=True for @vectorize and @guvectorize: a second process loads the loops' machine
code from disk instead of compiling them."""
import textwrap

from helpers import run_script

SCRIPT = textwrap.dedent("""
    import math
    import numpy as np
    from kiln import guvectorize, vectorize
    from kiln.runtime import engine

    compiled = []
    original = engine.CPUEngine.compile

    def spy(self, llvm_ir, *args, **kwargs):
        module = original(self, llvm_ir, *args, **kwargs)
        compiled.append(module.from_cache)
        return module
    engine.CPUEngine.compile = spy

    @vectorize(["float64(float64, float64)"], cache=True)
    def hyp(a, b):
        return math.sqrt(a * a + b * b)

    @guvectorize(["void(float64[:], float64[:])"], "(n)->()", cache=True)
    def total(x, out):
        out[0] = x.sum()

    assert hyp(3.0, 4.0) == 5.0 and total(np.ones((2, 3))).tolist() == [3.0, 3.0]
    print("HIT" if compiled and all(compiled) else "MISS")
""")


def test_second_process_loads_ufunc_loops_from_cache(tmp_path):
    def run():
        return run_script(tmp_path / "cached_ufuncs.py", SCRIPT,
                          tmp_path / "cache").stdout.strip()
    assert run() == "MISS"
    assert run() == "HIT"

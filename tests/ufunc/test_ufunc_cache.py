"""cache=True for @vectorize and @guvectorize: a second process loads the loops' machine
code from disk instead of compiling them."""
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import math
    import numpy as np
    from kiln import guvectorize, vectorize
    from kiln.cpu import engine

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
    script = tmp_path / "cached_ufuncs.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, KILN_CACHE_DIR=str(tmp_path / "cache"))

    def run():
        done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()
    assert run() == "MISS"
    assert run() == "HIT"

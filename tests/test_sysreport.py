"""`python -m kiln` (and the `kiln` command): the system report. Each test runs it in a child
process, as a user would, and reads its lines; missing pieces (SciPy, cffi, OpenMP, CUDA's
bindings and toolkit) are simulated by blocking their imports or kiln's search for them
before the report runs."""
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kiln.runtime import blas

SECTIONS = ["CPU", "Threads (parallel=True)", "Libraries", "CUDA", "Cache", "Environment"]
LABELS = ["kiln", "Python", "NumPy", "LLVM", "model", "cores", "LLVM target CPU", "SIMD",
          "LLVM features", "threading layer", "OpenMP runtime", "threads", "SciPy",
          "BLAS / LAPACK", "cffi", "simulator", "cuda-bindings", "driver", "ptxas",
          "libdevice", "NVRTC", "nvJitLink", "kernels run", "cache=True", "kiln's own code"]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KILN_", "NUMBA_")) and k not in ("CUDA_HOME", "CUDA_PATH")}
    env.update(extra)
    return env


def run(args, env=None, code=None):
    command = [sys.executable, "-c", code] if code else [sys.executable, *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env=env or clean_env())
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def lines(text):
    """label -> value, the wrapped continuation lines joined."""
    out, label = {}, None
    for row in text.splitlines():
        if row.startswith(" " * 22) and label:
            out[label] += " " + row.strip()
        elif len(row) > 22 and row[:22].strip() and row[22] != " ":
            label = row[:22].strip()
            out[label] = row[22:].strip()
        else:
            label = None
    return out


def test_report_has_every_line():
    proc = run(["-m", "kiln"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("kiln system report\n")
    for section in SECTIONS:
        assert f"\n{section}\n" in proc.stdout
    found = lines(proc.stdout)
    missing = [label for label in LABELS if label not in found]
    assert not missing, f"no line for {missing}:\n{proc.stdout}"
    import kiln
    import numpy
    assert found["kiln"].startswith(kiln.__version__)
    assert found["NumPy"].startswith(numpy.__version__)
    assert re.match(r"llvmlite [\d.]+, LLVM \d+\.\d+", found["LLVM"])
    assert re.match(r"\d+ enabled: ", found["LLVM features"])
    assert found["threading layer"].split(":")[0] in ("omp", "posix")
    assert found["KILN_* / NUMBA_*"] == "none set"
    assert "could not check" not in proc.stdout, proc.stdout
    assert proc.stderr == ""


def test_numba_spelling_and_bad_flags():
    assert run(["-m", "kiln", "-s"]).stdout.startswith("kiln system report")
    bad = run(["-m", "kiln", "--bogus"])
    assert bad.returncode == 2 and "usage: kiln" in bad.stderr


def test_console_script():
    script = Path(sys.executable).with_name("kiln")
    if not script.exists():
        script = shutil.which("kiln")
        if script is None:
            pytest.skip("the `kiln` command is not installed here (pip install -e . makes it)")
    proc = subprocess.run([str(script)], capture_output=True, text=True, timeout=300,
                          env=clean_env())
    assert proc.returncode == 0 and proc.stdout.startswith("kiln system report"), proc.stderr


NOTHING_OPTIONAL = textwrap.dedent("""
    import sys
    from pathlib import Path
    for name in ("scipy", "cffi", "cuda", "nvidia"):
        sys.modules[name] = None          # as if not installed
    from kiln.runtime import loaded, threads
    loaded.openmp_library = threads._openmp_library = lambda: None   # no libgomp / libiomp5
    from kiln.cuda import toolkit
    toolkit.SYSTEM_ROOT = Path("/nonexistent/cuda")
    from kiln.sysreport import main
    sys.exit(main())
""")


def test_without_scipy_cffi_openmp_or_cuda():
    proc = run(None, code=NOTHING_OPTIONAL)
    assert proc.returncode == 0, proc.stderr
    found = lines(proc.stdout)
    assert found["threading layer"].startswith("posix: no OpenMP runtime was found")
    assert found["OpenMP runtime"].startswith("not found")
    assert "apt install libgomp1" in found["OpenMP runtime"]
    assert "pip install intel-openmp" in found["OpenMP runtime"]
    assert found["SciPy"].startswith("not installed")
    if blas.provider().name == "numpy":   # NumPy's bundled one serves
        assert found["BLAS / LAPACK"].startswith("NumPy's bundled OpenBLAS")
    else:
        assert "pip install scipy" in found["SciPy"]
    assert found["cffi"].startswith("not installed") and "pip install cffi" in found["cffi"]
    assert found["cuda-bindings"].startswith("not installed")
    assert "pip install 'kiln[cuda]'" in found["cuda-bindings"]
    for label in ("ptxas", "libdevice"):
        assert found[label].startswith("not found"), found[label]
        assert "nvidia-cuda-nvcc-cu12" in found[label]
    assert "nvidia-cuda-nvrtc-cu12" in found["NVRTC"]
    assert "nvidia-nvjitlink-cu12" in found["nvJitLink"]
    assert found["kernels run"].startswith("nowhere")
    assert "KILN_ENABLE_CUDASIM=1" in found["kernels run"]
    assert "could not check" not in proc.stdout, proc.stdout


def test_settings_in_effect():
    env = clean_env(KILN_BOUNDSCHECK="1", NUMBA_NUM_THREADS="1", NUMBA_BOUNDSCHECK="0",
                    NUMBA_NOT_A_SETTING="x", KILN_THREADING_LAYER="posix",
                    KILN_ENABLE_CUDASIM="1", KILN_CACHE_DIR="/tmp/kiln-report-cache")
    proc = run(["-m", "kiln"], env=env)
    found = lines(proc.stdout)
    assert found["KILN_BOUNDSCHECK"].startswith("1  (check every array index")
    assert found["NUMBA_BOUNDSCHECK"] == "0  (overridden by KILN_BOUNDSCHECK)"
    assert found["NUMBA_NUM_THREADS"].startswith("1  (the most threads")
    assert found["NUMBA_NOT_A_SETTING"] == "x  (not a setting kiln reads)"
    assert found["threading layer"] == "posix: KILN_THREADING_LAYER=posix asks for it"
    assert found["threads"].startswith("1 at most")
    assert found["simulator"].startswith("on")
    assert found["kernels run"] == "in the simulator"
    assert found["cache=True"].startswith("/tmp/kiln-report-cache/")
    assert found["kiln's own code"].startswith("/tmp/kiln-report-cache/internal")


def test_a_bad_setting_is_reported_not_raised():
    proc = run(["-m", "kiln"], env=clean_env(KILN_THREADING_LAYER="bogus"))
    assert proc.returncode == 0, proc.stderr
    found = lines(proc.stdout)
    assert found["threading layer"].startswith("could not start (ValueError: unknown "
                                               "threading layer 'bogus'")

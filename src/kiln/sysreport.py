"""The system report: `python -m kiln` (or the `kiln` command; `kiln -s` as Numba's
`numba -s`) prints in one place what kiln finds on this machine, and for each piece that is
missing what it costs and how to get it. Paste its output into bug reports.

Each probe asks the same code kiln itself uses (the thread layer's choice, kiln.cuda's
toolkit search and driver loader, the cache's folders), so the report says what kiln will
do, not what a separate heuristic guesses. A probe that fails becomes a line saying so; the
report itself never raises. Nothing heavy is imported unless its line needs it: SciPy's
BLAS tables, cuda-bindings and the NVIDIA libraries are loaded only to report on them.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

WIDTH = 22      # the label column
WRAP = 100      # long values wrap at this width

# Settings kiln reads from the environment: name without prefix -> (Numba's NUMBA_ name
# accepted too, what it does). Kept beside README's "Switches" table and docs/reference.md.
SETTINGS = {
    "BOUNDSCHECK": (True, "check every array index (as boundscheck=True)"),
    "CACHE_DIR": (True, "where cache=True keeps machine code"),
    "DUMP": (True, "print compile stages (typed, llvm, asm, fusion)"),
    "NUM_THREADS": (True, "the most threads a parallel region may use"),
    "THREADING_LAYER": (True, "the thread layer of parallel=True (omp or posix)"),
    "ENABLE_CUDASIM": (True, "run kiln.cuda kernels in the simulator"),
    "VECTOR_WIDTH": (False, "the widest vector registers LLVM may use (default 256)"),
    "CPU_NAME": (True, "the CPU machine code is made for (LLVM's name)"),
    "CPU_FEATURES": (True, "the CPU features machine code may use"),
    "ENABLE_AVX": (True, "0: machine code uses no AVX"),
    "OPT": (True, "LLVM's optimization level for compiled functions (0-3 or max; default 3)"),
    "DISABLE_PERFORMANCE_WARNINGS": (True, "no PerformanceWarning"),
    "COLOR_SCHEME": (True, "accepted; kiln's error messages are plain text"),
}
# Read by kiln's tests and benchmarks, not by the library.
TOOLING = {
    "KILN_TEST_CUDA_HARDWARE": "the test suite runs its GPU tests (tests/cuda)",
    "KILN_BENCH_BLAS_THREADS": "bench/run.py's BLAS thread count",
}
# Other variables kiln or its libraries read, shown when set.
RELATED = ("CUDA_HOME", "CUDA_PATH", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES")

CUDA_WHEELS = "pip install 'kiln[cuda]'"
NVIDIA_WHEELS = ("nvidia-cuda-nvcc-cu12", "nvidia-cuda-nvrtc-cu12", "nvidia-nvjitlink-cu12",
                 "nvidia-nvvm", "nvidia-cuda-runtime-cu12")


class Report:
    def __init__(self):
        self.lines = []

    def section(self, title):
        self.lines += ["", title, "-" * len(title)]

    def line(self, label, text):
        text = str(text)
        if len(text) <= WRAP - WIDTH and "\n" not in text:
            self.lines.append(f"{label:<{WIDTH}}{text}")
            return
        wrapped = textwrap.wrap(text, WRAP - WIDTH, break_on_hyphens=False,
                                break_long_words=False) or [""]
        self.lines.append(f"{label:<{WIDTH}}{wrapped[0]}")
        self.lines += [" " * WIDTH + rest for rest in wrapped[1:]]

    def probe(self, label, fn):
        """A line from `fn()` (a string), or one saying why it could not be found out."""
        try:
            text = fn()
        except Exception as exc:   # the report must finish whatever one probe meets
            text = f"could not check ({type(exc).__name__}: {exc})"
        self.line(label, text)

    def text(self):
        return "\n".join(self.lines).lstrip("\n") + "\n"


def _version(distribution):
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _where(module_file):
    return str(Path(module_file).resolve().parent)


# ---- versions ---------------------------------------------------------------------------------

def _kiln():
    import kiln
    where = _where(kiln.__file__)
    text = f"{kiln.__version__} ({where}"
    try:
        commit = subprocess.run(["git", "-C", where, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=5)
        if commit.returncode == 0 and commit.stdout.strip():
            text += f", git {commit.stdout.strip()}"
    except (OSError, subprocess.SubprocessError):
        pass
    return text + ")"


def _python():
    return (f"{platform.python_version()} ({platform.python_implementation()}, "
            f"{sys.executable}); {platform.system()} {platform.release()} "
            f"{platform.machine()}")


def _numpy():
    import numpy
    return f"{numpy.__version__} ({_where(numpy.__file__)})"


def _llvmlite():
    import llvmlite
    import llvmlite.binding as llvm
    llvm_version = ".".join(map(str, llvm.llvm_version_info))
    return f"llvmlite {llvmlite.__version__}, LLVM {llvm_version}"


# ---- the CPU ---------------------------------------------------------------------------------

def _cpu_model():
    try:
        with open("/proc/cpuinfo") as file:
            for row in file:
                if row.startswith("model name"):
                    return row.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _cores():
    total = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = total
    return f"{usable} usable by this process, {total} in the machine"


def _llvm_cpu():
    import llvmlite.binding as llvm
    return llvm.get_host_cpu_name()


def _enabled_features():
    import llvmlite.binding as llvm
    return sorted(name for name, on in llvm.get_host_cpu_features().items() if on)


def _simd():
    features = set(_enabled_features())
    names = [label for flag, label in (("sse4.2", "SSE4.2"), ("avx", "AVX"), ("avx2", "AVX2"),
                                       ("fma", "FMA"), ("avx512f", "AVX-512F"),
                                       ("neon", "NEON"), ("sve", "SVE")) if flag in features]
    width = os.environ.get("KILN_VECTOR_WIDTH", "256")
    text = ", ".join(names) or "none that kiln knows of"
    if "avx512f" in features:
        text += (f"; kiln prefers {width}-bit vectors (KILN_VECTOR_WIDTH=512 lets LLVM use "
                 "512-bit registers)")
    return text


def _features():
    features = _enabled_features()
    return f"{len(features)} enabled: " + " ".join(features)


# ---- threads ---------------------------------------------------------------------------------

def _loaded_library(fragments):
    """The path of a loaded shared library whose name contains one of `fragments`."""
    try:
        with open("/proc/self/maps") as file:
            for row in file:
                path = row.split()[-1] if len(row.split()) >= 6 else ""
                if any(fragment in os.path.basename(path) for fragment in fragments):
                    return path
    except OSError:
        pass
    return None


OPENMP_HINT = ("install one: `apt install libgomp1` (GNU OpenMP, present wherever GCC's "
               "runtime is) or `pip install intel-openmp`")


def _threads(report):
    from kiln.options import env_value
    from kiln.runtime import threads
    wanted = env_value("THREADING_LAYER")
    library = threads._openmp_library()
    path = _loaded_library(("libgomp", "libiomp5")) if library is not None else None
    if library is None:
        openmp = f"not found: {OPENMP_HINT}"
    else:
        openmp = path or getattr(library, "_name", "loaded")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the no-OpenMP warning: said on the line below
            layer = threads.threading_layer()
    except Exception as exc:
        layer_text = f"could not start ({type(exc).__name__}: {exc})"
    else:
        source = "KILN_THREADING_LAYER" if os.environ.get("KILN_THREADING_LAYER") is not None \
            else "NUMBA_THREADING_LAYER"
        if layer == "posix" and wanted and wanted.strip().lower() in ("posix", "workqueue"):
            why = f"{source}={wanted} asks for it"
        elif layer == "posix":
            why = ("no OpenMP runtime was found (next line), so kiln's own layer runs "
                   "parallel code: correct, but slower to start a region")
        elif wanted and wanted.strip().lower() != "default":
            why = f"{source}={wanted}; an OpenMP runtime is loaded"
        else:
            why = "the default, since an OpenMP runtime is loaded (KILN_THREADING_LAYER=posix " \
                  "chooses kiln's own)"
        layer_text = f"{layer}: {why}"
    report.line("threading layer", layer_text)
    report.line("OpenMP runtime", openmp)

    def count():
        configured = env_value("NUM_THREADS")
        text = f"{threads.MAX_THREADS} at most"
        if configured is not None:
            text += " (KILN_NUM_THREADS or NUMBA_NUM_THREADS)"
        else:
            text += " (every core this process may use; KILN_NUM_THREADS lowers it)"
        if os.environ.get("OMP_NUM_THREADS"):
            text += f"; regions start with {threads._initial_threads()} (OMP_NUM_THREADS)"
        return text
    report.probe("threads", count)


# ---- libraries -------------------------------------------------------------------------------

def _scipy(report):
    """SciPy, and the BLAS/LAPACK that compiled code calls (runtime/blas.py): NumPy's
    bundled OpenBLAS where found, else SciPy's."""
    from .runtime import blas
    try:
        import scipy
    except ImportError:
        scipy = None
    if scipy is None and blas.provider().name == "numpy":
        report.line("SciPy", "not installed (not needed: NumPy bundles the BLAS/LAPACK that "
                             "np.dot, @ and np.linalg in compiled code call)")
    elif scipy is None:
        report.line("SciPy", "not installed: np.dot, @ and np.linalg in compiled code need "
                             "its BLAS/LAPACK, as this NumPy bundles none; pip install scipy "
                             "(or kiln[linalg])")
        report.line("BLAS / LAPACK", "none (NumPy's wheels bundle one; SciPy has one)")
        return
    else:
        report.line("SciPy", f"{scipy.__version__} ({_where(scipy.__file__)})")

    def found():
        provider = blas.provider()
        if provider.name == "numpy":
            return (f"NumPy's bundled OpenBLAS ({os.path.basename(provider.path)}, 64-bit "
                    "integers; KILN_BLAS=scipy picks SciPy's)")
        return _scipy_blas(scipy)
    report.probe("BLAS / LAPACK", found)


def _scipy_blas(scipy):
    try:
        from scipy.linalg import cython_blas, cython_lapack  # noqa: F401  (what kiln uses)
    except ImportError as exc:
        return (f"not usable: scipy.linalg.cython_blas/cython_lapack do not import "
                f"({exc}); reinstall SciPy (pip install --force-reinstall scipy)")
    text = "SciPy's (scipy.linalg.cython_blas and cython_lapack)"
    try:
        config = scipy.show_config(mode="dicts")["Build Dependencies"]
        parts = []
        for kind in ("blas", "lapack"):
            entry = config.get(kind, {})
            if entry.get("name"):
                parts.append(f"{kind.upper()} {entry['name']} {entry.get('version', '')}"
                             .strip())
        if parts:
            text += ": " + ", ".join(parts)
    except Exception:   # older SciPy: no dict form of its build configuration
        pass
    return text


def _cffi():
    if importlib.util.find_spec("cffi") is None:
        return ("not installed: only needed to call cffi functions from compiled code; "
                "pip install cffi")
    return _version("cffi") or "installed"


# ---- CUDA ------------------------------------------------------------------------------------

def _simulator():
    from kiln.options import env_value
    value = env_value("ENABLE_CUDASIM")
    on = value is not None and value.strip().lower() not in ("", "0", "false", "no", "off")
    if on:
        return f"on (ENABLE_CUDASIM={value}): kiln.cuda kernels run in the simulator, as Python"
    return ("off: set KILN_ENABLE_CUDASIM=1 (or NUMBA_ENABLE_CUDASIM=1) to run kiln.cuda "
            "kernels in the simulator without a GPU")


def _driver(report):
    """The driver and its devices, through kiln's own loader (kiln/cuda/driver/api.py)."""
    if importlib.util.find_spec("cuda") is None or \
            importlib.util.find_spec("cuda.bindings") is None:
        report.line("cuda-bindings", "not installed: launching kernels on a GPU needs it; "
                    f"{CUDA_WHEELS}")
        report.line("driver", "not checked (needs cuda-bindings)")
        return
    report.line("cuda-bindings", _version("cuda-bindings") or "installed")
    from kiln.cuda.driver import api
    driver, why = api.load()
    if driver is None:
        report.line("driver", f"not usable: {why}")
        report.line("devices", "none")
        return
    from kiln.cuda.driver.device import Device
    from kiln.cuda.driver.ptxversion import driver_version_text
    report.line("driver", f"CUDA {driver_version_text(driver.call('cuDriverGetVersion'))}")
    count = driver.call("cuDeviceGetCount")
    for ordinal in range(count):
        def describe(ordinal=ordinal):
            device = Device(driver, ordinal)
            major, minor = device.compute_capability
            return f"{device.name}, compute capability {major}.{minor}"
        report.probe(f"device {ordinal}", describe)


def _tool_version(path):
    try:
        run = subprocess.run([str(path), "--version"], capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    for row in run.stdout.splitlines():
        if "release" in row:
            return row.split("release", 1)[1].strip().rstrip(",")
    return None


def _ptxas():
    from kiln.cuda import toolkit
    path = toolkit.ptxas_path()
    if path is None:
        return ("not found: the tests assemble kernels with it and skip without it; "
                f"{toolkit.INSTALL_HINT}, or set CUDA_HOME to a toolkit")
    version = _tool_version(path)
    return f"{path}" + (f" (release {version})" if version else "")


def _libdevice():
    from kiln.cuda import toolkit
    path = toolkit.libdevice_path()
    if path is None:
        return ("not found: math functions in kernels (math.exp, cuda.libdevice) need it; "
                f"{toolkit.INSTALL_HINT}, or set CUDA_HOME to a toolkit")
    return str(path)


def _nvidia_library(module, name, version, hint):
    """NVRTC or nvJitLink: loaded as cuda-bindings loads it (through cuda-pathfinder)."""
    def probe():
        if importlib.util.find_spec("cuda") is None or \
                importlib.util.find_spec("cuda.bindings") is None:
            return f"not checked (needs cuda-bindings): {hint}"
        try:
            bindings = importlib.import_module(f"cuda.bindings.{module}")
        except ImportError as exc:
            return f"not usable ({exc}): {hint}"
        where = ""
        try:
            from cuda import pathfinder
            where = f" at {pathfinder.load_nvidia_dynamic_lib(name).abs_path}"
        except Exception:   # no cuda-pathfinder, or an older one: the version says enough
            pass
        try:
            found = version(bindings)
        except Exception as exc:
            return f"not found ({type(exc).__name__}: {str(exc).splitlines()[0]}): {hint}"
        return f"{found}{where}"
    return probe


def _nvrtc_version(bindings):
    result, major, minor = bindings.nvrtcVersion()
    return f"{major}.{minor}"


def _nvjitlink_version(bindings):
    major, minor = bindings.version()
    return f"{major}.{minor}"


def _cuda(report):
    report.probe("simulator", _simulator)
    try:
        _driver(report)
    except Exception as exc:
        report.line("driver", f"could not check ({type(exc).__name__}: {exc})")
    report.probe("ptxas", _ptxas)
    report.probe("libdevice", _libdevice)
    report.probe("NVRTC", _nvidia_library(
        "nvrtc", "nvrtc", _nvrtc_version,
        "CUDA C sources in link= need it; pip install nvidia-cuda-nvrtc-cu12 (or kiln[cuda])"))
    report.probe("nvJitLink", _nvidia_library(
        "nvjitlink", "nvJitLink", _nvjitlink_version,
        "linking declare_device/link= code, and PTX for an older driver, need it; "
        "pip install nvidia-nvjitlink-cu12 (or kiln[cuda])"))

    def kernels():
        import kiln.cuda
        if kiln.cuda.is_available():
            from kiln.cuda import backend
            return "in the simulator" if getattr(backend.active, "simulated", False) \
                else "on the GPU"
        return ("nowhere: no GPU kiln can use (the lines above say why); "
                "KILN_ENABLE_CUDASIM=1 runs them in the simulator")
    report.probe("kernels run", kernels)

    def wheels():
        found = [f"{name} {_version(name)}" for name in NVIDIA_WHEELS if _version(name)]
        return ", ".join(found) or ("none (kiln looks in CUDA_HOME, cuda-pathfinder's places and "
                                    f"/usr/local/cuda instead); {CUDA_WHEELS} installs them")
    report.probe("NVIDIA wheels", wheels)


# ---- cache and environment -------------------------------------------------------------------

def _writable(path):
    path = Path(path)
    while not path.exists():
        if path.parent == path:
            return False
        path = path.parent
    return os.access(path, os.W_OK)


def _cache(report):
    override = os.environ.get("KILN_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    user = Path.home() / ".cache" / "kiln"
    if override:
        functions = f"{override}/<a folder per source folder> (KILN_CACHE_DIR or NUMBA_CACHE_DIR)"
        internal = Path(override) / "internal"
    else:
        functions = (f"__pycache__/kiln beside each source file, else {user}/<a folder per "
                     "source folder> where that cannot be written (KILN_CACHE_DIR moves it)")
        internal = user / "internal"
    report.line("cache=True", functions)
    state = "" if _writable(internal) else \
        " (not writable: kiln compiles its own code in each process; set KILN_CACHE_DIR)"
    report.line("kiln's own code", f"{internal}{state}")


def _environment(report):
    shown = False
    for name in sorted(os.environ):
        value = os.environ[name]
        if name in TOOLING:
            report.line(name, f"{value}  ({TOOLING[name]})")
        elif name.startswith(("KILN_", "NUMBA_")):
            prefix, key = name.split("_", 1)
            setting = SETTINGS.get(key)
            if setting is None or (prefix == "NUMBA" and not setting[0]):
                note = "not a setting kiln reads"
            elif prefix == "NUMBA" and os.environ.get(f"KILN_{key}") is not None:
                note = f"overridden by KILN_{key}"
            else:
                note = setting[1]
            report.line(name, f"{value}  ({note})")
        elif name in RELATED:
            report.line(name, value)
        else:
            continue
        shown = True
    if not shown:
        report.line("KILN_* / NUMBA_*", "none set")


# ---- the report ------------------------------------------------------------------------------

def build() -> Report:
    report = Report()
    report.section("kiln system report")
    report.probe("kiln", _kiln)
    report.probe("Python", _python)
    report.probe("NumPy", _numpy)
    report.probe("LLVM", _llvmlite)

    report.section("CPU")
    report.probe("model", _cpu_model)
    report.probe("cores", _cores)
    report.probe("LLVM target CPU", _llvm_cpu)
    report.probe("SIMD", _simd)
    report.probe("LLVM features", _features)

    report.section("Threads (parallel=True)")
    try:
        _threads(report)
    except Exception as exc:
        report.line("threading layer", f"could not check ({type(exc).__name__}: {exc})")

    report.section("Libraries")
    try:
        _scipy(report)
    except Exception as exc:
        report.line("SciPy", f"could not check ({type(exc).__name__}: {exc})")
    report.probe("cffi", _cffi)

    report.section("CUDA")
    _cuda(report)

    report.section("Cache")
    try:
        _cache(report)
    except Exception as exc:
        report.line("cache", f"could not check ({type(exc).__name__}: {exc})")

    report.section("Environment")
    _environment(report)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="kiln", description="Print what kiln finds on this machine: versions, CPU, "
        "threads, BLAS, CUDA, cache, settings (as Numba's `numba -s`).")
    parser.add_argument("-s", "--sysinfo", action="store_true",
                        help="print the system report (the default; Numba's spelling)")
    parser.parse_args(argv)
    sys.stdout.write(build().text())
    sys.stdout.flush()
    return 0

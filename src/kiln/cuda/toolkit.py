"""Where the pieces of NVIDIA's toolkit that kiln uses come from: libdevice (the GPU math
library, LLVM bitcode), ptxas (the PTX assembler, used by tests and `check_ptx`) and CUDA's
headers (for CUDA C compiled by NVRTC, nvrtc.py).

Each is looked up in its NVIDIA wheel (`nvidia-cuda-nvcc-cu12`, `pip install kiln[cuda]`;
the headers in `nvidia-cuda-runtime-cu12`), then in a toolkit named by CUDA_HOME or
CUDA_PATH, then by NVIDIA's `cuda-pathfinder` where it is installed (it knows the CUDA 13
wheels' layout, conda and system toolkits), then in /usr/local/cuda. kiln compiles to PTX
without any; only code calling libdevice's math needs it."""
from __future__ import annotations

import functools
import re
import importlib.util
import os
from pathlib import Path

INSTALL_HINT = "pip install nvidia-cuda-nvcc-cu12 (or kiln[cuda])"


def _wheel_roots(wheel):
    """The folders of the CUDA 12 wheel `nvidia.<wheel>`, where it is installed."""
    spec = importlib.util.find_spec(f"nvidia.{wheel}") if \
        importlib.util.find_spec("nvidia") is not None else None
    if spec is not None and spec.submodule_search_locations:
        yield from map(Path, spec.submodule_search_locations)


def _named_roots():
    """The toolkits CUDA_HOME and CUDA_PATH name."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            yield Path(os.environ[var])


SYSTEM_ROOT = Path("/usr/local/cuda")


def _pathfinder(finder, name):
    """cuda-pathfinder's answer for `name` (a Path), or None where it is not installed, is
    too old to have `finder`, or finds nothing."""
    try:
        from cuda import pathfinder
        found = getattr(pathfinder, finder)(name)
    except Exception:   # not installed, an older release, or not found: look elsewhere
        return None
    return Path(found) if found else None


def _find(relative, finder, name):
    """`relative` under the CUDA 12 wheel or a named toolkit, else what cuda-pathfinder's
    `finder(name)` finds, else `relative` under the system toolkit; None if none has it
    (cuda-pathfinder is asked only when the first places do not have it)."""
    def candidates():
        for root in [*_wheel_roots("cuda_nvcc"), *_named_roots()]:
            yield root / relative
        yield _pathfinder(finder, name)
        yield SYSTEM_ROOT / relative
    return next((path for path in candidates() if path is not None and path.is_file()),
                None)


@functools.lru_cache(maxsize=None)
def libdevice_path() -> Path | None:
    return _find("nvvm/libdevice/libdevice.10.bc", "find_bitcode_lib", "device")


@functools.lru_cache(maxsize=None)
def ptxas_path() -> Path | None:
    return _find("bin/ptxas", "find_nvidia_binary_utility", "ptxas")


def include_dirs() -> list:
    """The folders of CUDA's headers (cuda_fp16.h...) that exist, for NVRTC's -I: only the
    wheel's and the named toolkits', since another release's headers may not suit NVRTC."""
    return [str(root / "include") for root in [*_wheel_roots("cuda_runtime"), *_named_roots()]
            if (root / "include" / "cuda_runtime.h").is_file()]


def ptxas_usage(report: str) -> dict:
    """Registers, shared, local (stack frame) and constant memory (banks other than 0, which
    holds the parameters) of the one entry in ptxas's verbose `report`."""
    def number(pattern):
        found = re.search(pattern, report)
        return int(found.group(1)) if found else 0
    constant = sum(int(n) for n, bank in re.findall(r"(\d+) bytes cmem\[(\d+)\]", report)
                   if bank != "0")
    return {"regs_per_thread": number(r"Used (\d+) registers"),
            "shared_mem_per_block": number(r"(\d+) bytes smem"),
            "local_mem_per_thread": number(r"(\d+) bytes stack frame"),
            "const_mem_size": constant}


@functools.lru_cache(maxsize=None)
def ptxas_targets(ptxas) -> tuple:
    """The (major, minor) GPU targets `ptxas` assembles for, from its --help (CUDA 13's
    dropped sm_50 to sm_72); empty where the list cannot be read."""
    import subprocess
    shown = subprocess.run([str(ptxas), "--help"], capture_output=True, text=True).stdout
    listed = shown[shown.find("Allowed values"):] if "Allowed values" in shown else ""
    return tuple(sorted({(int(n[:-1]), int(n[-1]))
                         for n in re.findall(r"'sm_(\d+)'", listed)}))


def assembly_target(ptx_target, targets):
    """What ptxas assembles PTX for `ptx_target` as: that target where ptxas knows it, else
    the oldest newer one it knows (PTX for sm_XY runs on every sm_MN with MN >= XY)."""
    if not targets or tuple(ptx_target) in targets:
        return tuple(ptx_target)
    newer = [t for t in targets if t >= tuple(ptx_target)]
    if not newer:
        raise RuntimeError(f"this ptxas assembles for none of sm_{ptx_target[0]}"
                           f"{ptx_target[1]} and newer")
    return newer[0]


def check_ptx(ptx: str, cc) -> str:
    """Assemble `ptx` with ptxas for `cc` (a (major, minor) pair), or the oldest newer
    target where this ptxas has dropped `cc`; return ptxas's verbose report (registers,
    shared memory), or raise RuntimeError with its complaint."""
    import subprocess
    import tempfile
    ptxas = ptxas_path()
    if ptxas is None:
        raise RuntimeError(f"ptxas not found: {INSTALL_HINT}")
    cc = assembly_target(cc, ptxas_targets(ptxas))
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx)
        done = subprocess.run([str(ptxas), "-v", f"-arch=sm_{cc[0]}{cc[1]}", str(source),
                               "-o", str(Path(tmp) / "kernel.cubin")],
                              capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"ptxas rejected the PTX:\n{done.stderr}")
    return done.stderr

"""Which PTX the driver present will load: the PTX ISA version and `sm_XY` target are chosen
from `cuDriverGetVersion` and the device's compute capability, never from what LLVM or a
toolkit would like to write (numba fails with CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "Unsupported
.version 8.8; current version is 8.4", when its NVVM is newer than the driver).

The table is the PTX ISA release history: the first CUDA release whose driver JIT accepts
each ISA version."""
from __future__ import annotations

import re

from ..ptx import PTX_ISA, target_cc

# (first driver version as cuDriverGetVersion reports it, e.g. 12080 for 12.8, newest PTX
# ISA ×10 it loads), newest first. 12.6 kept ISA 8.5; 12.7 (8.6) was a driver-only number.
DRIVER_PTX = ((13010, 91), (13000, 90), (12090, 88), (12080, 87), (12070, 86), (12050, 85),
              (12040, 84), (12030, 83), (12020, 82), (12010, 81), (12000, 80), (11080, 78),
              (11070, 77), (11060, 76), (11050, 75), (11040, 74), (11030, 73), (11020, 72),
              (11010, 71), (11000, 70), (10020, 65), (10010, 64), (10000, 63))

_VERSION = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)", re.MULTILINE)


def driver_version_text(version: int) -> str:
    return f"{version // 1000}.{version % 1000 // 10}"


def max_ptx_isa(driver_version: int) -> int:
    """The newest PTX ISA (×10) the driver's JIT loads; 0 for a driver older than CUDA 10."""
    for first, isa in DRIVER_PTX:
        if driver_version >= first:
            return isa
    return 0


def choose(cc, driver_version: int) -> tuple:
    """(compute capability to compile for, PTX ISA ×10 to emit, whether the PTX must go
    through nvJitLink because the driver's JIT is older than the ISA the target needs)."""
    target = target_cc(cc)
    needed = PTX_ISA[target]
    newest = max_ptx_isa(driver_version)
    return target, needed, needed > newest


def ptx_isa_of(ptx: str) -> int:
    """The `.version` (×10) a PTX text declares."""
    found = _VERSION.search(ptx)
    if found is None:
        raise ValueError("the PTX has no .version directive")
    return int(found.group(1)) * 10 + int(found.group(2))

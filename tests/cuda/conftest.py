"""CUDA tests run under the simulator: KILN_ENABLE_CUDASIM=1 is set here while kiln.cuda
is first imported (the back-end is chosen then, once), and restored after, so that
subprocesses started by other tests do not inherit it. With KILN_TEST_CUDA_HARDWARE=1 the
same tests run on a real GPU instead, except those marked `cudasim_only` (simulator
diagnostics such as deadlock reports), and so do those marked `gpu` (test_hardware.py),
which skip otherwise. See docs/gpu.md."""
import os

import pytest

HARDWARE = os.environ.get("KILN_TEST_CUDA_HARDWARE", "").strip() not in ("", "0")
if not HARDWARE:
    _previous = os.environ.get("KILN_ENABLE_CUDASIM")
    os.environ["KILN_ENABLE_CUDASIM"] = "1"
    try:
        import kiln.cuda  # noqa: F401
    finally:
        if _previous is None:
            del os.environ["KILN_ENABLE_CUDASIM"]
        else:
            os.environ["KILN_ENABLE_CUDASIM"] = _previous


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: a kiln.cuda test; runs on the simulator, and on "
                            "a GPU with KILN_TEST_CUDA_HARDWARE=1")
    config.addinivalue_line("markers", "cudasim_only: checks behaviour only the simulator "
                            "has (deadlock and out-of-bounds reports, wall-time events)")
    config.addinivalue_line("markers", "gpu: needs a real GPU through the driver back-end; "
                            "runs only with KILN_TEST_CUDA_HARDWARE=1")


def pytest_collection_modifyitems(config, items):
    from kiln.cuda import backend
    simulated = backend.active.simulated
    for item in items:
        if "gpu" in item.keywords and (not HARDWARE or backend.active.name != "driver"):
            item.add_marker(pytest.mark.skip(
                reason="needs a GPU: set KILN_TEST_CUDA_HARDWARE=1 on a machine with one "
                       f"(here: {backend.active.reason or backend.active.name})"))
            continue
        if "cuda" not in item.keywords:
            continue
        if not HARDWARE and not simulated:
            item.add_marker(pytest.mark.skip(
                reason="kiln.cuda was imported without the simulator before tests/cuda could "
                       "enable it; run tests/cuda on its own or set KILN_ENABLE_CUDASIM=1"))
        elif HARDWARE and not backend.active.is_available():
            item.add_marker(pytest.mark.skip(reason="no CUDA GPU available"))
        elif "cudasim_only" in item.keywords and not simulated:
            item.add_marker(pytest.mark.skip(reason="simulator-only behaviour"))

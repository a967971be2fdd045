"""Where kiln finds NVIDIA's toolkit (libdevice, ptxas), and what ptxas assembles for."""
import types

import pytest

from kiln.cuda import toolkit


def test_the_toolkit_is_found_in_order(monkeypatch, tmp_path):
    """The CUDA 12 wheel, then CUDA_HOME, then cuda-pathfinder (CUDA 13 wheels, conda, system
    toolkits), then /usr/local/cuda; a pathfinder too old or failing is passed over."""

    def make(root):
        path = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        path.parent.mkdir(parents=True)
        path.write_bytes(b"")
        return path
    home, found_by_pathfinder = make(tmp_path / "home"), make(tmp_path / "cu13")
    monkeypatch.setattr(toolkit, "_wheel_roots", lambda wheel: iter(()))
    monkeypatch.setattr(toolkit, "SYSTEM_ROOT", tmp_path / "none")
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "home"))
    finder = types.SimpleNamespace(find_bitcode_lib=lambda name: str(found_by_pathfinder)
                                   if name == "device" else None)
    monkeypatch.setattr("cuda.pathfinder", finder, raising=False)
    libdevice_path = toolkit.libdevice_path.__wrapped__
    assert libdevice_path() == home
    monkeypatch.delenv("CUDA_HOME")
    assert libdevice_path() == found_by_pathfinder
    monkeypatch.setattr("cuda.pathfinder", types.SimpleNamespace())   # too old a release
    assert libdevice_path() is None


def test_ptx_for_a_dropped_target_is_assembled_for_the_oldest_newer_one():
    cuda13 = ((7, 5), (8, 0), (9, 0), (10, 0))
    assert toolkit.assembly_target((7, 0), cuda13) == (7, 5)
    assert toolkit.assembly_target((9, 0), cuda13) == (9, 0)
    assert toolkit.assembly_target((7, 0), ()) == (7, 0)   # no list read: ptxas decides
    with pytest.raises(RuntimeError, match="none of sm_120 and newer"):
        toolkit.assembly_target((12, 0), cuda13)


@pytest.mark.skipif(toolkit.ptxas_path() is None, reason=f"ptxas not installed: "
                    f"{toolkit.INSTALL_HINT}")
def test_ptxas_lists_the_targets_it_assembles_for():
    targets = toolkit.ptxas_targets(toolkit.ptxas_path())
    assert (9, 0) in targets and all(t >= (5, 0) for t in targets)

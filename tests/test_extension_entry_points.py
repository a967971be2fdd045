"""Extension packages found through the `numba_extensions` (or `kiln_extensions`) entry
point: their `init` runs once, before the first function is compiled, as in Numba."""
import os
import sys
import textwrap
import time

import pytest

import kiln
from kiln import decorators, njit


def install(tmp_path, package, group, body):
    """A package with an `init` entry point, as pip would install it."""
    (tmp_path / f"{package}.py").write_text(textwrap.dedent(body))
    info = tmp_path / f"{package}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\ninit = {package}:init\n")


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setattr(decorators, "_extensions_loaded", False)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("kiln_test_ext_ok", "kiln_test_ext_bad"):
        sys.modules.pop(name, None)


def test_init_registers_overloads_before_the_first_compile(fresh):
    install(fresh, "kiln_test_ext_ok", "numba_extensions", """
        calls = []

        def triple(x):
            raise NotImplementedError

        def init():
            from kiln.extending import overload
            calls.append(1)

            @overload(triple)
            def triple_impl(x):
                return lambda x: 3 * x
    """)
    import kiln_test_ext_ok as ext

    def use(x):
        return ext.triple(x)

    compiled = njit(use)
    assert ext.calls == [1] and compiled(4) == 12
    njit(use)
    assert ext.calls == [1]            # once per process


def test_an_extension_that_fails_warns_and_is_passed_over(fresh):
    install(fresh, "kiln_test_ext_bad", "kiln_extensions", """
        def init():
            raise RuntimeError("broken")
    """)
    with pytest.warns(UserWarning, match=r"extension module 'kiln_test_ext_bad' "
                      r"\(kiln_extensions entry point\) failed to load due to "
                      r"'RuntimeError\(broken\)'"):
        compiled = njit(lambda x: x + 1)
    assert compiled(1) == 2


def test_the_remembered_scan_sees_each_install_and_edit(monkeypatch, tmp_path):
    """Whether any distribution declares an extension is remembered across processes
    (cached hits skip the scan) while the folders and files it read keep their states."""
    from kiln.runtime import cache
    monkeypatch.setattr(cache, "SETTLED_NS", -1 << 62)   # every change counts as settled
    monkeypatch.setattr(cache, "user_cache_root", lambda: str(tmp_path / "cache"))
    site = tmp_path / "site"
    (site / "other-1.0.dist-info").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "absent")])
    declared = decorators._extensions_declared
    steps = [
        (lambda: None, False),
        (lambda: install(site, "kiln_test_ext_new", "numba_extensions", ""), True),
        (lambda: (site / "kiln_test_ext_new-1.0.dist-info" / "entry_points.txt")
         .write_text("[console_scripts]\nx = y:z\n"), False),        # edited in place
        (lambda: (site / "other-1.0.dist-info" / "entry_points.txt")
         .write_text("[kiln_extensions]\ninit = other:init\n"), True),  # added to a folder
        (lambda: (site / "other-1.0.dist-info" / "entry_points.txt").unlink(), False),
        (lambda: (tmp_path / "absent").mkdir() or install(
            tmp_path / "absent", "kiln_test_ext_late", "kiln_extensions", ""), True),
    ]
    for change, expected in steps:
        time.sleep(0.05)   # past the tick of a coarse file-system clock: the change shows
        change()
        assert declared() is expected
        assert declared() is expected   # from what was remembered
    assert any(n.startswith("extensions-") for n in os.listdir(tmp_path / "cache" / "internal"))

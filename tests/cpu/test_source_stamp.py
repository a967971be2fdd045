"""kiln's source stamp (runtime/cache.py's source_stamp), in every cache key: any edit of
kiln's sources must change it, whether it is computed by listing the folders or read from
the manifest that a cached hit checks instead."""
import os
import time

import pytest

from kiln.runtime import cache


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub" / "__pycache__").mkdir(parents=True)
    (root / "a.py").write_text("A = 1\n")
    (root / "sub" / "b.py").write_text("B = 2\n")
    (root / "sub" / "notes.txt").write_text("not source\n")
    return root


def stamps(root, tmp_path):
    """(the stamp through the manifest kept in one store, a fresh listing's stamp)."""
    kept = cache.ObjectCache("stamp", [str(tmp_path / "store")])
    fresh = cache.ObjectCache("stamp", [str(tmp_path / f"fresh{os.urandom(4).hex()}")])
    return cache.source_stamp(str(root), kept), cache.source_stamp(str(root), fresh)


def same_size_rewrite(path):
    """Rewrite `path` with other text of the same size and its old modification time:
    only its change time tells."""
    stat = path.stat()
    path.write_text(path.read_text().replace("1", "7").replace("2", "8"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


@pytest.mark.parametrize("change", [
    lambda root: same_size_rewrite(root / "a.py"),
    lambda root: same_size_rewrite(root / "sub" / "b.py"),
    lambda root: (root / "sub" / "c.py").write_text(""),
    lambda root: (root / "sub" / "b.py").unlink(),
    lambda root: (root / "sub" / "b.py").rename(root / "sub" / "c.py"),
    lambda root: (root / "new").mkdir() or (root / "new" / "d.py").write_text(""),
], ids=["edit", "edit-in-subfolder", "add", "remove", "rename", "add-folder"])
def test_every_change_of_a_source_changes_the_stamp(tree, tmp_path, monkeypatch, change):
    monkeypatch.setattr(cache, "SETTLED_NS", -1 << 62)   # the tree's folders count as settled
    before, fresh = stamps(tree, tmp_path)
    assert before == fresh
    assert os.listdir(tmp_path / "store"), "the manifest was kept"
    assert stamps(tree, tmp_path)[0] == before   # read from the manifest
    time.sleep(0.05)   # past the tick of a coarse file-system clock: the change shows
    change(tree)
    after, fresh = stamps(tree, tmp_path)
    assert after == fresh != before


def test_the_manifest_holds_while_nothing_changes(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLED_NS", -1 << 62)
    before = stamps(tree, tmp_path)[0]
    (tree / "sub" / "__pycache__" / "b.cpython.pyc").write_bytes(b"")   # bytecode: no change
    (tree / "sub" / "notes.txt").write_text("other text, not source\n")
    monkeypatch.setattr(cache, "_listing", None)   # the folders are not listed again
    kept = cache.ObjectCache("stamp", [str(tmp_path / "store")])
    assert cache.source_stamp(str(tree), kept) == before


def test_a_folder_changed_just_now_keeps_no_manifest(tree, tmp_path):
    """Its next change may fall in the same tick of the file system's clock, unseen by
    its state: the next process lists the folders again."""
    stamps(tree, tmp_path)
    assert not (tmp_path / "store").exists() or not os.listdir(tmp_path / "store")


def test_a_remembered_value_follows_its_files(tmp_path, monkeypatch):
    """remembered(): kept while its paths keep their states, a path absent included;
    a corrupt or foreign manifest is computed again."""
    monkeypatch.setattr(cache, "SETTLED_NS", -1 << 62)
    store = cache.ObjectCache("memo", [str(tmp_path / "store")])
    source, absent = tmp_path / "source.txt", tmp_path / "absent.txt"
    source.write_text("one")
    computed = []

    def value():
        computed.append(1)
        text = source.read_text() + (absent.read_text() if absent.exists() else "")
        return text, [str(source), str(absent)]
    assert [cache.remembered(store, "k" * 64, value) for _ in range(3)] == ["one"] * 3
    assert len(computed) == 1
    time.sleep(0.05)
    source.write_text("two")
    assert cache.remembered(store, "k" * 64, value) == "two"
    absent.write_text("!")
    assert cache.remembered(store, "k" * 64, value) == "two!"
    for manifest in (b"not marshal", b"\x00", cache.marshal.dumps(("a", "b")),
                     cache.marshal.dumps(([str(source)], [(0, 0, 0)], "stale"))):
        store.save("k" * 64, manifest)
        assert cache.remembered(store, "k" * 64, value) == "two!"
    assert len(computed) == 7


def test_kiln_stamp_is_the_stamp_of_kilns_folder():
    root = os.path.dirname(os.path.dirname(os.path.abspath(cache.__file__)))
    fresh = cache.ObjectCache("stamp", [])   # keeps nothing: lists the folders
    assert cache.kiln_stamp.__wrapped__() == cache.source_stamp(root, fresh)

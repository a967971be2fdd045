"""`python -m kiln cache`: the entries of the on-disk cache, with their size, age and
function, and `--clear` to delete them. It looks in the user's cache directory
(KILN_CACHE_DIR, else ~/.cache/kiln) and in the `__pycache__/kiln` folders under the
paths given (the current directory by default), where entries sit beside their source."""
from __future__ import annotations

import argparse
import os
import sys
import time

from . import nativelib, precompiled
from ..runtime.cache import SUFFIX, read_entry, user_cache_root

# the files of the cache: entries, the shared libraries linked from them (and the
# runtime's), the host's fingerprint (cpu/nativelib.py)
_SUFFIXES = (SUFFIX, nativelib.SUFFIX, nativelib.FINGERPRINT_SUFFIX)


def entry_files(paths):
    """Every entry file under the user's cache directory and the `__pycache__/kiln`
    folders under `paths`, each once."""
    found = set()
    for root in [user_cache_root(), *paths]:
        for folder, dirs, files in os.walk(root):
            inside = root == user_cache_root() or folder.endswith(
                os.path.join("__pycache__", "kiln"))
            found.update(os.path.realpath(os.path.join(folder, name)) for name in files
                         if inside and name.endswith(_SUFFIXES))
    return sorted(found)


def describe(path) -> dict:
    """What `path` holds: its size, age, kind and function."""
    stat = os.stat(path)
    internal = os.path.basename(os.path.dirname(path)) == "internal"
    entry = path.endswith(SUFFIX)
    data = read_entry(path) if entry else None
    header = precompiled.describe(data) if data is not None else None
    name = os.path.basename(path).rpartition("-")[0]
    if not entry:
        kind = "internal" if internal else "library"
    elif data is None:
        kind = "corrupt"
    elif header is not None:
        kind, name = "source", f"{header['function']} ({header['file']})"
    else:
        kind = "internal" if internal else "ir"
    return {"path": path, "size": stat.st_size, "age": time.time() - stat.st_mtime,
            "kind": kind, "function": name}


def _age(seconds):
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kiln cache", description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", default=["."],
                        help="where to look for __pycache__/kiln folders (default: .)")
    parser.add_argument("--clear", action="store_true", help="delete the entries listed")
    args = parser.parse_args(argv)
    entries = [describe(path) for path in entry_files(args.paths)]
    print(f"{'size':>9}  {'age':>4}  {'kind':8}  function")
    for e in entries:
        print(f"{e['size']:>9}  {_age(e['age']):>4}  {e['kind']:8}  {e['function']}")
        if args.clear:
            os.unlink(e["path"])
    total = sum(e["size"] for e in entries)
    print(f"{len(entries)} entries, {total / 1e6:.1f} MB{', deleted' if args.clear else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

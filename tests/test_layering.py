"""The package layering of src/kiln, checked over the import graph.

Every import statement of every module counts, those inside functions too (a lazy import
hides a dependency, it does not remove it), relative imports resolved. Modules collapse
to their package under kiln (kiln.library.lists is kiln.library); a top-level module is
its own unit. A unit may import only units of lower layers. Where a lower layer must call
a higher one it goes through a registry that the higher one fills (typing/registry.py
for templates; for type families codegen/boxing.py, datamodel.py, ownership.py, context.py's
constants and casts, and typing/families.py and codegen/families.py; cpu/reflection.py
for the typed copies of list and set arguments). There are no exceptions: the test fails
on any import that does not go down, and on any module over MAX_LINES lines."""
from __future__ import annotations

import ast
import pathlib
from collections import defaultdict

SRC = pathlib.Path(__file__).resolve().parents[1] / "src"

# Lowest first. Units of one layer may not import each other.
LAYERS = [
    ("kiln.errors", "kiln.options", "kiln.version", "kiln.questions"),
    ("kiln.types",),
    ("kiln.np", "kiln.core"),   # Numba's spellings of kiln.types
    ("kiln.frontend",),
    ("kiln.typing",),
    ("kiln.runtime",),
    ("kiln.codegen",),
    ("kiln.parallel",),   # an AST stage and the lowering of its chunks: codegen is enough
    ("kiln.library",),
    ("kiln.compiler",),
    ("kiln.cpu",),
    ("kiln.decorators",),
    ("kiln.typed",),
    ("kiln.experimental",),
    ("kiln.ccallback",),
    ("kiln.config",),
    ("kiln.cuda",),
    ("kiln.ufunc",),
    ("kiln",),            # the package itself: the public API
    ("kiln.aot",),        # ahead-of-time compilation (imported on its own, never by kiln)
    ("kiln.extending", "kiln.sysreport"),
    ("kiln.__main__",),
]

MAX_LINES = 800


def _modules():
    """{dotted name: (path, is a package)} of every module under src/kiln."""
    found = {}
    for path in sorted((SRC / "kiln").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = (path, is_package)
    return found


def _imported(name, is_package, node, modules):
    """The kiln modules an import statement of module `name` names."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        if node.level:
            base = name.split(".")[:len(name.split(".")) + is_package - node.level]
            base = ".".join(base + ([node.module] if node.module else []))
        else:
            base = node.module
        # `from package import module` imports the module; `from module import name`, the module
        targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                   for alias in node.names]
    for target in targets:
        while target not in modules and "." in target:
            target = target.rsplit(".", 1)[0]
        if target in modules:
            yield target


def _unit(module):
    """The layering unit of a module: its package under kiln, or itself."""
    parts = module.split(".")
    return ".".join(parts[:2])


def import_edges():
    """{(importing module, imported module): ["path:line", ...]} over src/kiln."""
    modules = _modules()
    edges = defaultdict(list)
    for name, (path, is_package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(name, is_package, node, modules):
                    if _unit(name) != _unit(target):
                        edges[name, target].append(f"{path.relative_to(SRC)}:{node.lineno}")
    return edges


def _rank():
    return {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def violations():
    """{(importer, imported): places} for every import that does not go down a layer."""
    rank = _rank()
    return {edge: places for edge, places in import_edges().items()
            if rank[_unit(edge[0])] <= rank[_unit(edge[1])]}


def test_every_unit_has_a_layer():
    rank = _rank()
    assert sorted({_unit(m) for m in _modules()} - set(rank)) == []


def test_imports_go_down_the_layers():
    found = violations()
    lines = [f"{a} -> {b}: {', '.join(places)}" for (a, b), places in sorted(found.items())]
    assert not found, "imports against the layering:\n" + "\n".join(lines)


def test_no_module_is_too_long():
    lengths = {str(path.relative_to(SRC)): len(path.read_text().splitlines())
               for path, _ in _modules().values()}
    long = sorted(p for p, n in lengths.items() if n > MAX_LINES)
    assert not long, f"over {MAX_LINES} lines: " + ", ".join(f"{p} ({lengths[p]})" for p in long)

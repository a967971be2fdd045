"""kiln posing as `numba`, for the conformance runner only (never installed).

`import numba` here is `kiln` under Numba's name: every public name comes from kiln
(`kiln.__getattr__` answers the lazy ones), and Numba's public modules are kiln's modules
under Numba's module names (`numba.types` *is* `kiln.types`). Numba's internals
(`numba.core.compiler`, `numba.core.ir`, ...) are not provided: importing one raises
ModuleNotFoundError naming it, so a test that needs one fails and the report says why.

Numba's test files (`numba.tests.*`) and its test harness (`numba.testing`) are loaded
from the real Numba installed beside kiln in conformance/.venv, leniently: a top-level
import of a Numba internal there binds a placeholder that raises
`NotImplementedError("... is a Numba internal ...")` as soon as a test uses it, so the
module imports and only the tests that use internals fail (many modules import one
internal helper for one test). CONFORMANCE_STRICT_IMPORTS=1 loads the test modules
strictly instead (the harness stays lenient): one that imports an internal fails whole.
Imports inside a test's body are never rewritten.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

import kiln
from kiln import *  # noqa: F401,F403

_FACADE = os.path.dirname(os.path.abspath(__file__))
__path__ = [_FACADE]

# Numba's public modules, by Numba's name -> kiln's module
ALIASES = {
    "numba.types": "kiln.types",
    "numba.core.types": "kiln.types",
    "numba.errors": "kiln.errors",
    "numba.core.errors": "kiln.errors",
    "numba.config": "kiln.config",
    "numba.core.config": "kiln.config",
    "numba.extending": "kiln.extending",
    "numba.core.extending": "kiln.extending",
    "numba.typed": "kiln.typed",
    "numba.experimental.structref": "kiln.experimental.structref",
}


def _in_facade(name):
    """Whether this folder has the module (numba.core, numba.np, ...: public names)."""
    where = os.path.join(_FACADE, *name.split(".")[1:])
    return os.path.isfile(where + ".py") or os.path.isfile(os.path.join(where, "__init__.py"))

# numba-cuda's names of Numba's public modules that the facade spells differently
CUDA_TWINS = {"memory_management.nrt": "numba.core.runtime"}
# numba-cuda's modules whose public names kiln.cuda's modules of other names have
CUDA_MODULES = {"numba.cuda.cudadrv.devicearray": "kiln.cuda.devicearray"}
# Numba's test harness, loaded leniently from the real Numba
HARNESS = {"numba.testing", "numba.testing.main", "numba.testing.loader",
           "numba.testing._runtests", "numba.runtests", "numba.tests", "numba.tests.support"}


def _real_numba_dir():
    paths = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(_FACADE)]
    spec = importlib.machinery.PathFinder.find_spec("numba", paths)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


REAL_NUMBA = _real_numba_dir()


def _real_numba_cuda_dir():
    paths = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(_FACADE)]
    spec = importlib.machinery.PathFinder.find_spec("numba_cuda", paths)
    if spec is None or not spec.submodule_search_locations:
        return None
    where = os.path.join(list(spec.submodule_search_locations)[0], "numba", "cuda")
    return where if os.path.isdir(where) else None


REAL_NUMBA_CUDA = _real_numba_cuda_dir()
# what numba-cuda's harness asks about its installation: is base Numba installed beside
# it (under the facade `numba` is kiln, which is base Numba's API: the tests of numba-cuda
# with Numba's CPU `jit` run on kiln's)
HARNESS_FACTS = {"numba.cuda.HAS_NUMBA": True}


class _Partial:
    """A Numba internal module of which the harness reads only the given facts."""

    def __init__(self, name, **facts):
        self._name = name
        self.__dict__.update(facts)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Missing(f"{self._name}.{attr}")


# numba-cuda's harness asks its driver whether nvJitLink is there, to skip the tests that
# link with it: kiln's simulator links nothing
HARNESS_FACTS["numba.cuda.cudadrv.driver"] = _Partial("numba.cuda.cudadrv.driver",
                                                      _have_nvjitlink=lambda: False)


def _no_include_dir():
    raise FileNotFoundError("the facade does not look for CUDA's headers")


# ... and where CUDA's headers are, to skip the tests that compile CUDA C++ with them
HARNESS_FACTS["numba.cuda.cudadrv.libs"] = _Partial("numba.cuda.cudadrv.libs",
                                                    get_cuda_include_dir=_no_include_dir)
# module name -> the Numba internals its top level imported, bound to placeholders
BOUND_INTERNALS = {}


class _Missing:
    """A Numba internal the harness imported at its top level; any real use raises."""

    loading = 0   # > 0 while a harness module runs its top level

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _fail(self, *_):
        raise NotImplementedError(f"{self._name} is a Numba internal that kiln does not "
                                  "provide (conformance facade)")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Missing(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        if _Missing.loading:
            return _Missing(f"{self._name}()")
        self._fail()

    def __setattr__(self, attr, value):
        pass   # the harness saving and restoring a setting kiln does not have

    def __mro_entries__(self, bases):
        return (object,)

    def _op(self, *_):
        if _Missing.loading:
            return _Missing(f"{self._name}(...)")
        self._fail()

    __bool__ = __iter__ = __len__ = __enter__ = __int__ = __index__ = _fail
    __getitem__ = __add__ = __radd__ = __mod__ = __or__ = __ror__ = __format__ = _op

    def __repr__(self):
        return f"<missing Numba internal {self._name}>"


def _lenient(tree, name):
    """Rewrite the top-level imports of numba modules in a harness module so that each
    name that fails to import binds a _Missing placeholder."""
    import ast
    tree.body = _lenient_body(tree.body)
    return ast.fix_missing_locations(tree)


def _lenient_body(statements):
    """_lenient's rewrite of a list of top-level statements (and of the branches of
    top-level `if`s: `if HAS_NUMBA: from numba.core ... import ...`)."""
    import ast
    body = []
    for node in statements:
        if isinstance(node, ast.If):
            node.body = _lenient_body(node.body)
            node.orelse = _lenient_body(node.orelse)
            body.append(node)
            continue
        targets = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and \
                (node.module or "").startswith("numba"):
            if any(alias.name == "*" for alias in node.names):
                body.append(node)
                continue
            for alias in node.names:
                targets.append((ast.ImportFrom(node.module, [alias], 0),
                                alias.asname or alias.name, f"{node.module}.{alias.name}"))
        elif isinstance(node, ast.Import) and any(a.name.startswith("numba")
                                                  for a in node.names):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                targets.append((ast.Import([alias]), bound, alias.name))
        if not targets:
            body.append(node)
            continue
        for stmt, bound, qual in targets:
            fallback = ast.parse(f"{bound} = __numba_missing__({qual!r})").body
            handler = ast.ExceptHandler(ast.Name("ImportError", ast.Load()), None, fallback)
            body.append(ast.Try([stmt], [handler], [], []))
    return body


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self._spec     # importlib set the alias's spec: give kiln's back


class _HarnessLoader(importlib.machinery.SourceFileLoader):
    def source_to_code(self, data, path, *, _optimize=-1):
        import ast
        tree = _lenient(ast.parse(data, path), self.name)
        return compile(tree, path, "exec", dont_inherit=True, optimize=_optimize)

    def exec_module(self, module):
        imported = BOUND_INTERNALS.setdefault(module.__name__, [])

        def missing(name):
            if name in HARNESS_FACTS:
                return HARNESS_FACTS[name]
            imported.append(name)
            return _Missing(name)

        module.__numba_missing__ = missing
        _Missing.loading += 1
        try:
            super().exec_module(module)
        finally:
            _Missing.loading -= 1

    def get_code(self, fullname):   # never the cached bytecode of the unrewritten file
        source = self.get_data(self.path)
        return self.source_to_code(source, self.path)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "numba" and not name.startswith("numba."):
            return None
        if name in ALIASES:
            return importlib.util.spec_from_loader(name, _AliasLoader(ALIASES[name]))
        if name == "numba":
            return None
        if _in_facade(name):   # this folder's own modules (before numba-cuda's redirector)
            parent = name.rpartition(".")[0]
            where = [os.path.join(_FACADE, *parent.split(".")[1:])]
            return importlib.machinery.PathFinder.find_spec(name, where)
        head = name.split(".")[1]
        if head in ("tests", "testing", "runtests") or name in HARNESS:
            if REAL_NUMBA is None:
                return None
            parent = name.rpartition(".")[0]
            where = [os.path.join(REAL_NUMBA, *parent.split(".")[1:])]
            spec = importlib.machinery.PathFinder.find_spec(name, where)
            lenient = name in HARNESS or os.environ.get("CONFORMANCE_STRICT_IMPORTS") != "1"
            if spec is not None and lenient and spec.origin and spec.origin.endswith(".py"):
                loader = _HarnessLoader(name, spec.origin)
                spec = importlib.util.spec_from_file_location(
                    name, spec.origin, loader=loader,
                    submodule_search_locations=spec.submodule_search_locations)
            return spec
        if name == "numba._helperlib" and REAL_NUMBA:
            # Numba's C helper library: its test usecases load C functions from the file
            # with ctypes (test data for kiln's ctypes support, not a part of kiln)
            return importlib.machinery.PathFinder.find_spec("_helperlib", [REAL_NUMBA])
        if name == "numba.cuda.config":
            return importlib.util.spec_from_file_location(
                name, os.path.join(_FACADE, "_cuda_config.py"))
        if name == "numba.cuda.testing" and not os.environ.get("CONFORMANCE_CUDA"):
            # Numba's CPU test runner only needs the class to sort tests by
            return importlib.util.spec_from_file_location(
                name, os.path.join(_FACADE, "_cuda_testing.py"))
        if (name == "numba.cuda.testing" or name.startswith("numba.cuda.tests")) \
                and REAL_NUMBA_CUDA:
            # numba-cuda's test files and harness, leniently, from its own folder
            parent = name.rpartition(".")[0]
            where = [os.path.join(REAL_NUMBA_CUDA, *parent.split(".")[2:])]
            spec = importlib.machinery.PathFinder.find_spec(name, where)
            if spec is not None and spec.origin and spec.origin.endswith(".py"):
                spec = importlib.util.spec_from_file_location(
                    name, spec.origin, loader=_HarnessLoader(name, spec.origin),
                    submodule_search_locations=spec.submodule_search_locations)
            return spec
        if name in CUDA_MODULES:
            return importlib.util.spec_from_loader(name, _AliasLoader(CUDA_MODULES[name]))
        if name.startswith("numba.cuda."):
            # numba-cuda's copies of Numba's public modules (numba.cuda.core.errors,
            # numba.cuda.types, ...) are the facade's
            rest = name[len("numba.cuda."):]
            for twin in (CUDA_TWINS.get(rest), "numba." + rest, "numba.core." + rest):
                if twin and (twin in ALIASES or _in_facade(twin)):
                    return importlib.util.spec_from_loader(name, _AliasLoader(twin))
            # kiln.cuda's own submodules under Numba's names, where kiln has the module
            target = "kiln" + name[len("numba"):]
            try:
                found = importlib.util.find_spec(target) is not None
            except ImportError:
                found = False
            if found:
                return importlib.util.spec_from_loader(name, _AliasLoader(target))
        raise ModuleNotFoundError(f"No module named {name!r}: a Numba internal that kiln "
                                  "does not provide (conformance facade)", name=name)


sys.meta_path.insert(0, _Finder())


def __getattr__(name):
    return getattr(kiln, name)

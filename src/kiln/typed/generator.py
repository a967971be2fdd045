"""A compiled generator seen from Python: an iterator that owns the generator's meminfo
(codegen/generators.py), so its state lives as long as the iterator. Each `__next__`
calls a small compiled function, `next(g)`, that resumes it; passed back to compiled
code, the iterator is the generator itself (the same state, not a copy)."""
from __future__ import annotations

from .. import types as t
from ..codegen import boxing
from ..codegen.generators import has_tag
from ..decorators import njit
from ..runtime import nrt
from .typedlist import box_container, decode_type, probe_offset, unbox_container


class Generator:
    __slots__ = ("_meminfo", "_type")

    def _kiln_typeof_(self):
        return self._type

    def __iter__(self):
        return self

    def __next__(self):
        return _next(self)

    def __repr__(self):
        return f"<kiln generator {self._type}>"

    def __del__(self):
        if self._meminfo:
            address, self._meminfo = self._meminfo, 0
            nrt.release_from_python(address)


MEMINFO_OFFSET = probe_offset(Generator)


def from_native(address: int, code: str) -> Generator:
    """A Generator taking over the reference to the generator at `address` (boxing)."""
    result = Generator.__new__(Generator)
    result._meminfo, result._type = address, decode_type(code)
    return result


@boxing.boxer(t.GeneratorType)
def _box(api, ty, value, fail):
    """A Generator that takes over the reference."""
    return box_container(api, ty, value, fail, from_native)


@boxing.unboxer(t.GeneratorType)
def _unbox(unboxer, ty, obj):
    """A Generator's generator itself (borrowed), if it has this type."""
    return unbox_container(unboxer, ty, obj, Generator, MEMINFO_OFFSET, has_tag)


@njit
def _next(generator):
    return next(generator)

"""CUDA's vector types (`cuda.float32x4`, `cuda.int16x2`, ... and C's names `float4`,
`uint2`, ...): small fixed-size tuples of one scalar type with fields `x y z w`, built in
kernels from scalars and other vectors whose components add up to the type's:

    v = cuda.float32x3(0.0, -1.0, 1.0)
    w = cuda.float32x4(v, 2.0)          # w.x == 0.0, w.w == 2.0

This module is their meaning in the simulator; compiled, a vector is a struct of its
components (cuda/vector_lowering.py)."""
from __future__ import annotations

import numpy as np

_FIELDS = "xyzw"
_BASES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64")
# C's names: char (int8), short, int, long and longlong (int64 on 64-bit Linux), their
# unsigned forms, float, double
_C_NAMES = {"char": "int8", "short": "int16", "int": "int32", "long": "int64",
            "longlong": "int64", "uchar": "uint8", "ushort": "uint16", "uint": "uint32",
            "ulong": "uint64", "ulonglong": "uint64", "float": "float32", "double": "float64"}


class Vector:
    """One vector value (immutable): its kind and components."""

    __slots__ = ("kind", "components")

    def __init__(self, kind, components):
        self.kind = kind
        self.components = components

    def __getattr__(self, name):
        index = _FIELDS.find(name)
        if len(name) == 1 and 0 <= index < len(self.components):
            return self.components[index]
        raise AttributeError(f"{self.kind.__name__} has no field {name!r}")

    def __eq__(self, other):
        return isinstance(other, Vector) and self.kind is other.kind and \
            self.components == other.components

    def __hash__(self):
        return hash((self.kind.__name__, self.components))

    def __repr__(self):
        return f"{self.kind.__name__}({', '.join(map(str, self.components))})"


class VectorKind:
    """A vector type: calling it builds a vector (in a kernel)."""

    def __init__(self, base, count):
        self.base = np.dtype(base)
        self.count = count
        self.__name__ = f"{base}x{count}"

    def __call__(self, *parts):
        components = []
        for part in parts:
            components += part.components if isinstance(part, Vector) else [part]
        if len(components) != self.count:
            raise TypeError(f"{self.__name__}() needs {self.count} components, not "
                            f"{len(components)} (from {len(parts)} arguments)")
        scalar = self.base.type
        with np.errstate(all="ignore"):
            return Vector(self, tuple(scalar(c) for c in components))

    def __repr__(self):
        return f"cuda.{self.__name__}"


KINDS = {f"{base}x{n}": VectorKind(base, n) for base in _BASES for n in range(1, 5)}
ALIASES = {f"{c_name}{n}": KINDS[f"{base}x{n}"] for c_name, base in _C_NAMES.items()
           for n in range(1, 5)}

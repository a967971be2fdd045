"""The arguments of a program: arrays given as specs (dtype, base shape, order, values, a
view of the base) that the child rebuilds fresh for every run, and Python scalars. Views
give non-contiguous, Fortran-ordered and negative-stride arguments; values mix tame numbers
with each dtype's edges (NaN, ±inf, -0.0, subnormals, the integer limits)."""
from __future__ import annotations

import math

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
TAME_FLOATS = [0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 4.0, -0.25, 10.0, 2.0, -3.0, 1.5]
EDGE_FLOATS = [-0.0, math.nan, math.inf, -math.inf, 1e-3, 1e30, 65504.0, 1e-310, 1e-42,
               6e-8, 1e300, -7.0e5]
INT_SCALARS = [0, 1, -1, 2, 3, 7, 100, 255, 300, -129, 2 ** 31, 2 ** 40, -2 ** 63]
FLOAT_SCALARS = [0.5, -1.5, 2.0, 0.0, -0.0, 1e300, math.nan, math.inf, 3.25, 1e-5]
COMPLEX_SCALARS = [1j, 1 + 2j, -0.5 + 0j, complex(math.inf, 0), 0j, 2 - 1j]


def pool(rng, dtype, edge):
    """The values an array of `dtype` draws from."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return [True, False]
    if dt.kind in "iu":
        info = np.iinfo(dt)
        values = [0, 1, 2, 3, 5, 7, 12] + ([-1, -3, -8] if dt.kind == "i" else [])
        if edge:
            values += [info.min, info.max, info.min + 1, info.max - 1, 100, info.max // 2 + 1]
        return [v for v in values if info.min <= v <= info.max]
    floats = TAME_FLOATS + (EDGE_FLOATS if edge else [])
    if dt.kind == "c":
        return [complex(rng.choice(floats), rng.choice(floats)) for _ in range(12)]
    return floats


def array_spec(rng, dtype, shape, edge=False, view=None):
    """A spec for an array of `shape` (after `view`, one of None, "step", "reverse",
    "fortran", "transpose")."""
    base = list(shape)
    key = None
    order = "C"
    transpose = False
    if view == "step" and base:
        axis = rng.randrange(len(base))
        base[axis] = base[axis] * 2
        key = tuple(slice(None, None, 2) if i == axis else slice(None) for i in range(len(base)))
    elif view == "reverse" and base:
        axis = rng.randrange(len(base))
        key = tuple(slice(None, None, -1) if i == axis else slice(None) for i in range(len(base)))
    elif view == "fortran":
        order = "F"
    elif view == "transpose":
        base = base[::-1]
        transpose = True
    size = int(np.prod(base)) if base else 1
    values = pool(rng, dtype, edge)
    if size > 64:        # long arrays (the parallel judge): mostly tame, a few edges
        tame = pool(rng, dtype, False)
        draw = np.random.default_rng(rng.getrandbits(63))
        data = [tame[i] for i in draw.integers(len(tame), size=size)]
        for at in draw.integers(size, size=size // 50):
            data[at] = values[draw.integers(len(values))]
    else:
        data = [rng.choice(values) for _ in range(size)]
    return ("array", dtype, tuple(base), order, tuple(data), key, transpose)


def build(spec):
    """The argument a spec stands for (a fresh array every time)."""
    if spec[0] == "scalar":
        return spec[1]
    _, dtype, shape, order, data, key, transpose = spec
    with np.errstate(all="ignore"):
        array = np.array(data, dtype=dtype).reshape(shape, order=order)
    if key is not None:
        array = array[key]
    return array.T if transpose else array


def build_all(specs):
    return tuple(build(s) for s in specs)

"""`vectorize(..., forceobj=True)` and `guvectorize(..., forceobj=True)`: the function runs
as Python, as in Numba's object mode, inside loops that kiln compiles as usual.

The kernel compiled for each signature is a generated function whose body is one object-mode
block calling the Python function (`with objmode(r='float64'): r = fn(a0)`; a gufunc's
kernel returns nothing, and its array operands are written back from what the call left
in their copies). So each element (or core) is a Python call, and whatever that function
uses (any Python object, names bound after the decoration) works as it does in Python."""
from __future__ import annotations

from .. import types as t
from ..frontend.objmode import objmode
from ..frontend.source import define_generated


def object_mode_kernel(fn, return_type, argtypes):
    """The kernel that calls `fn` as Python on `argtypes`: with a `return_type`, a
    vectorize kernel that returns its result as that type; None for a guvectorize kernel,
    whose array operands the call gets as copies (a core view of the loop's memory is
    owned by no Python object) that are written back into each operand they differ from."""
    names = [f"a{i}" for i in range(len(argtypes))]
    arrays = [name for name, ty in zip(names, argtypes) if isinstance(ty, t.Array)]
    passed = [f"c{name}" if name in arrays else name for name in names]
    if return_type is None:   # (written back when fn raises too, as Numba's cores are)
        body = "".join(f"    c{a} = {a}.copy()\n" for a in arrays)
        body += f"    try:\n        with objmode():\n            fn({', '.join(passed)})\n"
        body += "    finally:\n" + "".join(
            f"        if (c{a} != {a}).any():\n            {a}[...] = c{a}\n"
            for a in arrays) + ("" if arrays else "        pass\n")
    else:
        body = (f"    with objmode(r={str(return_type)!r}):\n        r = fn({', '.join(names)})\n"
                "    return r\n")
    source = f"def {fn.__name__}_as_python({', '.join(names)}):\n{body}"
    return define_generated(f"<kiln object mode {fn.__module__}.{fn.__qualname__} "
                            f"{return_type}({', '.join(map(str, argtypes))})>", source,
                            {"objmode": objmode, "fn": fn})

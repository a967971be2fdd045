"""What a (generalized) ufunc makes of its operands, on either target (ufunc/ on the CPU,
cuda/ on the GPU, which ufunc/'s vectorize and guvectorize hand target='cuda' to): the
type an operand is given, a gufunc's layout '(m,n),(n)->(m)' parsed and spelled as NumPy
does, and each operand's type checked against its core dimensions."""
from __future__ import annotations

import re

import numpy as np

from .containers import Array
from .core import Number, from_dtype
from .typeof import typeof

_NAME = re.compile(r"[A-Za-z_]\w*$")


def input_type(value):
    """The kiln type of a call's operand as the lazy ufunc sees it: the dtype of an array
    (or of what NumPy makes of a list), the default type of a Python number."""
    if isinstance(value, (bool, int, float, complex)):
        return typeof(value)
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        dtype = np.asarray(value).dtype
    return from_dtype(np.dtype(dtype))


def parse_layout(layout):
    """'(m,n),(n)->(m)' -> ([('m', 'n'), ('n',)], [('m',)]), or ValueError. A layout
    without '->' ('(n),(n)') has no outputs, as in Numba: the kernel writes into one of
    its operands."""
    text = "".join(str(layout).split())
    parts = text.split("->") if "->" in text else [text, ""]

    def groups(part):
        if not re.fullmatch(r"\([^()]*\)(,\([^()]*\))*", part):
            raise ValueError
        return [tuple(name for name in g.split(",") if name)
                for g in re.findall(r"\(([^()]*)\)", part)]
    try:
        if len(parts) != 2:
            raise ValueError
        ins, outs = groups(parts[0]), groups(parts[1]) if parts[1] else []
        names = [n for core in ins + outs for n in core]
        if not all(_NAME.match(n) for n in names):
            raise ValueError
    except ValueError:
        raise ValueError(f"bad guvectorize layout {layout!r} (bad token in signature): write "
                         "it as NumPy's gufunc signatures, e.g. '(n),(n)->()' or "
                         "'(m,n),(n,p)->(m,p)'") from None
    return ins, outs


def layout_text(ins, outs):
    """The layout as NumPy spells a gufunc's `.signature`: '(m,n),(n)->(m)'."""
    text = ",".join(f"({','.join(c)})" for c in ins)
    return text + "->" + ",".join(f"({','.join(c)})" for c in outs) if outs else text


def check_core_type(name, layout, core, is_input, k, ty):
    """A signature's type for operand k must fit its core dimensions: an array of as many
    dimensions, or for "()" a one-element 1-d array (outputs) or a number (inputs only, as
    outputs are written in place). TypeError otherwise."""
    if isinstance(ty, Number) and not core and is_input:
        return
    if isinstance(ty, Array) and (ty.ndim == len(core) or (not core and ty.ndim == 1)):
        return
    kind = "a number or a 1-d array" if not core and is_input else \
        f"a {max(len(core), 1)}-d array"
    raise TypeError(f"{name}: operand {k} has the core dimensions ({','.join(core)}) in "
                    f"{layout!r}, so its type must be {kind}, not {ty}")

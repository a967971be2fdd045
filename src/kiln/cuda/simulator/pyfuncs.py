"""Python functions that mean something else in compiled code than on the NumPy scalars a
simulated kernel computes with: there they mean what compiled code does.

- `round(x, ndigits)` of a NumPy float is NumPy's (scaled, not correctly rounded:
  round(np.float32(0.3425), 3) is 0.342); compiled code rounds as CPython does (0.343).
- `math.ldexp(x, i)` refuses NumPy integers, which kernels' integer arguments are.

A simulated kernel (and each device function it calls) runs as a copy of its Python
function whose globals read through to its module's with those names replaced, `math`
included (and its closure's cells holding them); the copy is made once per launch (`Grid.function`), and keeps the values it read
for the launch."""
from __future__ import annotations

import builtins
import math
import operator
import types

import numpy as np

_compiled_round = None


def _round(number, ndigits=None):
    if ndigits is None or not isinstance(number, np.floating):
        return builtins.round(number) if ndigits is None else builtins.round(number, ndigits)
    global _compiled_round
    if _compiled_round is None:
        from kiln.decorators import njit
        _compiled_round = njit(_round_as_compiled)
    return type(number)(_compiled_round(number, operator.index(ndigits)))


def _round_as_compiled(number, ndigits):
    return round(number, ndigits)


def _ldexp(x, i):
    result = math.ldexp(x, operator.index(i))
    return type(x)(result) if isinstance(x, np.floating) else result


_BUILTINS = dict(vars(builtins), round=_round)
_MATH = types.ModuleType("math", math.__doc__)
_MATH.__dict__.update(vars(math), ldexp=_ldexp)
_REPLACED = {id(math): _MATH, id(math.ldexp): _ldexp, id(builtins.round): _round}


class _Globals(dict):
    """The globals of a simulated function: its module's, read on first use."""

    def __init__(self, module_globals):
        super().__init__(__builtins__=_BUILTINS)
        self.module_globals = module_globals

    def __missing__(self, name):
        value = self.module_globals[name]   # (a KeyError: Python looks in the builtins next)
        value = _REPLACED.get(id(value), value)
        self[name] = value
        return value


def _cell(cell):
    try:
        replaced = _REPLACED.get(id(cell.cell_contents))
    except ValueError:   # (a cell not yet filled)
        return cell
    return cell if replaced is None else types.CellType(replaced)


def simulated(func):
    """`func` running with the simulator's meanings of the names above (in its globals
    and its closure)."""
    closure = func.__closure__ and tuple(_cell(c) for c in func.__closure__)
    copy = types.FunctionType(func.__code__, _Globals(func.__globals__), func.__name__,
                              func.__defaults__, closure)
    copy.__kwdefaults__ = func.__kwdefaults__
    return copy

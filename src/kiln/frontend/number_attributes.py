"""An attribute that Python's own numbers lack, read from a value that is a Python number
for certain: a number written in the source, or a name every binding of which (in the
function, or as a global) is one (`a = 1; a.view(np.int64)`).

Python raises AttributeError there. kiln types a Python int as int64, which has NumPy's
scalar methods (`view`, `item`, `astype`), so it would return a value instead: such a read
is refused when compiling, in Numba's words for `view`."""
from __future__ import annotations

import ast
from collections import Counter

from ..errors import TypingError

_NUMBERS = (bool, int, float, complex)


def check_number_attributes(ir):
    """Raise TypingError at the first attribute read of a certain Python number that its
    Python type lacks."""
    constants = _constant_locals(ir.node, set(ir.arg_names))
    calls = {id(node.func) for node in ast.walk(ir.node) if isinstance(node, ast.Call)}
    for node in ast.walk(ir.node):
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue
        value = node.value
        if isinstance(value, ast.Name):
            name = ir.renamed.get(value.id, value.id)
            shown = f"the variable '{name}'"
            if value.id in constants:
                types = constants[value.id]
            elif value.id not in ir.local_names and \
                    type(ir.free_values.get(value.id)) in _NUMBERS:
                types = {type(ir.free_values[value.id])}
            else:
                continue
        else:
            types = _constant_type(value)
            if types is None:
                continue
            types, name = {types}, ast.unparse(value)
            shown = f"'{name}'"
        if types and not any(hasattr(ty, node.attr) for ty in types):
            kind = " or ".join(sorted(ty.__name__ for ty in types))
            used = "called" if id(node) in calls else "read"
            raise TypingError(f"'{node.attr}' can only be {used} on NumPy dtypes, try wrapping "
                              f"{shown} with 'np.<dtype>()': '{name}' is a Python {kind}, "
                              f"which has no attribute '{node.attr}'", ir.loc(node))


def _constant_type(value):
    """The Python type of a number written in the source (`1`, `-2.5`), else None."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    if isinstance(value, ast.Constant) and type(value.value) in _NUMBERS:
        return type(value.value)
    return None


def _constant_locals(fn, params):
    """{local name: the Python types of the numbers it is bound to} for the names whose
    every binding is `name = <a number>`."""
    stores, numbers = Counter(), {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] += 1
        elif isinstance(node, ast.arg):   # (a nested function's parameter of that name)
            stores[node.arg] += 1
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            stores[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stores.update((a.asname or a.name).split(".")[0] for a in node.names)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name) and _constant_type(node.value):
            numbers.setdefault(node.targets[0].id, []).append(_constant_type(node.value))
    return {name: set(types) for name, types in numbers.items()
            if name not in params and len(types) == stores[name]}

"""`inspect_types()`: the function's source with the type of every local assigned on
each line, like Numba's annotation."""
from __future__ import annotations

import ast
import linecache


def annotate(typed) -> str:
    ir = typed.ir
    assigned = {}
    for node in ast.walk(ir.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and node.id in typed.locals:
            assigned.setdefault(node.lineno, []).append(node.id)
    args = ", ".join(f"{n}: {ty}" for n, ty in zip(ir.arg_names, typed.argtypes))
    out = [f"{ir.qualname} ({args}) -> {typed.return_type}", "-" * 72]
    for lineno in range(ir.node.lineno, ir.node.end_lineno + 1):
        text = linecache.getline(ir.filename, lineno).rstrip()
        names = dict.fromkeys(assigned.get(lineno, ()))
        if lineno == ir.node.lineno:
            names = dict.fromkeys(ir.arg_names)
        note = ", ".join(f"{n} = {typed.locals[n]}" for n in names if n in typed.locals)
        out.append(f"{lineno:5d}  {text}" + (f"    # {note}" if note else ""))
    return "\n".join(out)

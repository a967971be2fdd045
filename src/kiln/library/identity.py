"""`a is b` of values that are references to an NRT meminfo (lists, dicts, sets, jitclass
instances and structrefs): the same object exactly when they hold the same meminfo, as
in Python, where two names bound to one list are one object and a copy is another.
(Numbers and None: library/optional.py.)"""
from __future__ import annotations

import operator

from .. import types as t
from ..typing.registry import template

_REFERENCES = (t.ListType, t.DictType, t.SetType, t.MutableStruct)


def _identity(negate):
    def typer(tctx, a, b):
        if not (isinstance(a, _REFERENCES) and isinstance(b, _REFERENCES)):
            return None

        def codegen(context, builder, sig, args):
            return builder.icmp_unsigned("!=" if negate else "==", args[0], args[1])
        return t.boolean(a, b), codegen
    return typer


template(operator.is_)(_identity(negate=False))
template(operator.is_not)(_identity(negate=True))

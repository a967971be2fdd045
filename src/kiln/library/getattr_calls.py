"""The code of `getattr(x, "name"[, default])`, which typing/introspection.py resolves
(families' "getattr_call"): the attribute read `x.name`, or, where Python's class of x has
no such attribute, the default or Python's AttributeError. The other arguments are
evaluated, as Python evaluates them, and dropped."""
from __future__ import annotations

from llvmlite import ir

from .. import types as t
from ..codegen import datamodel as dm
from ..errors import TypingError
from ..typing import families
from ..typing.registry import Resolution


@families.answers("getattr_call")
def getattr_call(args, name, read) -> Resolution:
    """`read`: (the Resolution of `x.name` or None, its type, the constant it is when it has
    no Resolution: a module's or a class's attribute), or None when Python's class of x
    has no attribute `name`."""
    if read is None:
        return _missing(args, name)
    inner, ty, constant = read
    if inner is None:
        return Resolution(t.Signature(ty, args), lambda context, builder, sig, values:
                          context.get_constant(builder, ty, constant), new_reference=True)

    def lower(context, builder, sig, values):
        return inner.lower(context, builder, inner.signature, values[:1])
    return Resolution(t.Signature(inner.signature.return_type,
                                  (inner.signature.args[0],) + tuple(args[1:])), lower,
                      new_reference=inner.new_reference)


def _missing(args, name):
    if len(args) == 3:
        return Resolution(t.Signature(args[2], args),
                          lambda context, builder, sig, values: values[2])
    classes = () if isinstance(args[0], t.Module) else families.ask("python_classes", args[0])
    if len(classes) > 1:
        shown = " or a ".join(map(_type_name, classes))
        raise TypingError(f"getattr() of a {args[0]} without a default: Python's "
                          f"AttributeError names its class, a {shown}, which is not known "
                          "when compiling")
    owner = f"module '{args[0].module.__name__}'" if isinstance(args[0], t.Module) else \
        f"'{_type_name(classes[0])}' object"

    def lower(context, builder, sig, values):
        context.guard(builder, ir.Constant(dm.i1, 1), AttributeError,
                      f"{owner} has no attribute '{name}'")
        return dm.null_value(t.none)
    return Resolution(t.Signature(t.none, args), lower)


def _type_name(cls):
    """The class's name as Python's messages give it (its C `tp_name`): a class defined in
    Python by its name, one defined in C by its module too, unless builtins
    ('numpy.ndarray', 'float')."""
    if cls.__flags__ & _HEAP_TYPE or cls.__module__ == "builtins":
        return cls.__name__
    return f"{cls.__module__}.{cls.__name__}"


_HEAP_TYPE = 1 << 9    # Py_TPFLAGS_HEAPTYPE

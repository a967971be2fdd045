"""`isinstance(x, C)` in compiled code: a value's kiln type fixes its Python class (or the
few it may be), so the answer is known when compiling; typing records it as a constant (families'
"isinstance"), which prunes the branch it tests, as Numba does. The same classes answer
`hasattr` and `getattr` (families' "python_classes", typing/introspection.py)."""
from __future__ import annotations

import numpy as np

from .. import types as t
from ..errors import TypingError
from ..typing import families

# kiln type class -> the Python class of such a value in Python (a list that is no
# kiln.typed.List is a Python list, reflected or made by the code; kiln has no typed set)
_PYTHON_CLASSES = ((t.Boolean, bool), (t.Integer, int), (t.Float, float),
                   (t.Complex, complex), (t.UnicodeType, str), (t.StringLiteral, str),
                   (t.NoneType, type(None)), (t.BaseTuple, tuple), (t.Array, np.ndarray),
                   (t.NPDatetime, np.datetime64), (t.NPTimedelta, np.timedelta64),
                   (t.List, list), (t.SetType, set), (t.Bytes, bytes),
                   (t.RangeType, range))


_NUMBERS = (t.Boolean, t.Integer, t.Float, t.Complex)
_PYTHON_NUMBERS = (t.boolean, t.int64, t.float64, t.complex128)   # a Python value's types
_BOXED_AS = {}   # kiln type class -> the classes its values may be in Python, said from above


def boxes_as(kind, *classes):
    """Values of exactly the type class `kind` are objects of one of `classes` in Python
    (kiln.typed says so of its List and Dict: the library may not import it)."""
    _BOXED_AS[kind] = classes


@families.answers("python_classes")
def python_classes(ty):
    """The classes a value of type `ty` may be in Python: one where its type fixes it,
    several where it does not (a dict display is a dict, a typed.Dict argument a
    kiln.typed.Dict: both are a DictType), None where kiln does not know. A number is
    Python's (as Numba answers too), though `a[0]` of an int64 array is an np.int64 in
    Python."""
    if isinstance(ty, t.ClassInstanceType):
        from .classes import python_class as boxed_class
        return (boxed_class(ty),)
    if isinstance(ty, (t.NamedTuple, t.NamedUniTuple)):
        return (ty.cls,)
    if type(ty) in _BOXED_AS:
        return _BOXED_AS[type(ty)]
    cls = next((cls for kind, cls in _PYTHON_CLASSES if isinstance(ty, kind)), None)
    return None if cls is None else (cls,)


@families.answers("isinstance")
def is_instance(ty, classinfo, made=None):
    """Whether a value of type `ty` is an instance of `classinfo` (a class or a tuple of
    them), or a TypingError when its type does not say. `made`: the class the expression is
    known to make (a dict display's dict), where `ty` may be several. The classes are tried
    in order, as Python tries them: the first that matches answers, before a later one that
    is no class could fail (`isinstance(2.5, (float, "x"))` is True)."""
    classes = classinfo if isinstance(classinfo, tuple) else (classinfo,)
    if isinstance(ty, t.Optional):
        raise TypingError(f"isinstance() of a value that may be None ({ty}) is not known "
                          "when compiling; test `x is None` first")
    candidates = python_classes(ty)
    if candidates is None:
        raise TypingError(f"kiln does not know the Python class of a {ty} for isinstance()")
    if made in candidates:
        candidates = (made,)
    scalar = np.dtype(str(t.unliteral(ty))).type if isinstance(ty, _NUMBERS) else None
    if scalar is not None and t.unliteral(ty) not in _PYTHON_NUMBERS:
        candidates = (scalar,)   # an np.int32 is no int (nor an np.float32 a float)
    answers = {_is_instance(t.unliteral(ty), cls, scalar, classes) for cls in candidates}
    if len(answers) > 1:
        shown = " or a ".join(cls.__name__ for cls in candidates)
        raise TypingError(f"isinstance() of a {ty} is not known when compiling: it is a "
                          f"{shown} in Python")
    return answers.pop()


def _is_instance(ty, cls, scalar, classes):
    """Whether a `ty` value, a `cls` in Python, is one of `classes`. A number is also an
    instance of its NumPy scalar class (`scalar`: isinstance(1, np.int64) is True, as in
    Numba, where one type holds both; `a[0]` of an int64 array is an np.int64 in Python too;
    a number of another width is only its NumPy class, as in CPython and Numba),
    and a kiln type stands for its values (Numba's isinstance(x, types.int32))."""
    for c in classes:
        if isinstance(c, t.Type):
            if ty == c:
                return True
            continue
        if not isinstance(c, type):
            raise TypingError(f"isinstance() arg 2 must be a class or a tuple of classes "
                              f"known when compiling, not {c!r} (Numba: Cannot infer Numba "
                              f"type of Python type {type(c)})")
        if issubclass(c, t.Type):
            raise TypingError(f"isinstance() arg 2: {c.__name__} is a class of kiln types, "
                              "no class of values (Numba type classes are not supported "
                              "either): name a Python or NumPy class, or a type such as "
                              "types.int64")
        if issubclass(cls, c) or scalar is not None and issubclass(scalar, c):
            return True
    return False

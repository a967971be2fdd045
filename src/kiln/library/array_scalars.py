"""An array where a scalar is expected, as NumPy allows it: its truth (`if a:`, `bool(a)`)
is its one item's, and a scalar type called on a 0-d array (`a.dtype.type(a)`,
`np.float64(a)`) converts its item. An array of another size has no such meaning: NumPy's
ValueError at run time for truth, a TypingError (Numba's words) for a conversion."""
from __future__ import annotations

import operator

from .. import types as t
from ..errors import TypingError
from ..typing.registry import overload, register_jitable


@register_jitable
def _one_item_truth(a):
    if a.size == 0:
        raise ValueError("The truth value of an empty array is ambiguous. Use `array.size "
                         "> 0` to check that an array is not empty.")
    if a.size > 1:
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all()")
    for item in a.flat:
        return bool(item)
    return False


def _truth(a):
    if isinstance(a, t.Array) and isinstance(a.dtype, t.Number):
        return lambda a: _one_item_truth(a)
    return None


overload(operator.truth)(_truth)
overload(bool)(_truth)


@overload("number_class")
def _scalar_of_array(cls, a):
    """`np.int32(a)` of a 0-d array: its item converted; of any other array Numba refuses
    (NumPy would make an array: `a.astype(np.int32)` says that)."""
    if not isinstance(a, t.Array):
        return None
    if a.ndim != 0:
        raise TypingError(f"Casting {a} to {cls.instance_type} directly is unsupported. "
                          f"Use a.astype({cls.instance_type}) for an array of that type")
    return lambda cls, a: cls(a[()])

"""The Python helper that boxes an array view compiled code returns (library/
array_boxing.py calls it): a module that imports only NumPy, since a cached hit imports it
to bind the code that names it, and ahead-of-time modules embed its source."""
from __future__ import annotations

import numpy as np


class _ViewOf:
    """Describes a view's memory to NumPy and keeps the array it views alive."""

    def __init__(self, parent, address, shape, strides, typestr):
        self.parent = parent
        self.__array_interface__ = {
            "version": 3, "shape": shape, "strides": strides, "typestr": typestr,
            "data": (address, not parent.flags.writeable)}


def make_view(parent, address, shape, strides, typestr, readonly=False):
    """The NumPy array that compiled code returned: `parent` itself, or a view into it
    (`typestr` is its dtype's, `.real` of a complex array viewing floats, or a structured
    dtype itself), read-only where compiled code typed it so (np.broadcast_to's). A parent
    that is a bytearray, memoryview or array.array (library/buffers.py) is seen as NumPy
    sees it."""
    if not isinstance(parent, np.ndarray):
        parent = np.asarray(parent)
    if address == parent.ctypes.data and shape == parent.shape and \
            strides == parent.strides and (typestr == parent.dtype.str if
                                           isinstance(typestr, str) else typestr == parent.dtype):
        return parent
    if isinstance(typestr, str):
        view = np.asarray(_ViewOf(parent, address, shape, strides, typestr))
    else:   # a structured dtype: the items as void bytes, seen through it
        voids = np.asarray(_ViewOf(parent, address, shape, strides, f"|V{typestr.itemsize}"))
        view = voids.view(typestr)
    if readonly:
        view.flags.writeable = False
    return view

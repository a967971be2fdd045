"""The Python face of a mutable struct (a jitclass instance, a structref): an object holding
one reference to the struct's meminfo, released when the object goes. Boxing hands the
reference over to a new such object; unboxing lends compiled code the struct itself, so
changes are seen on both sides."""
from __future__ import annotations

from llvmlite import ir

from ..codegen import datamodel as dm
from ..runtime import nrt
from ..typed.typedlist import probe_offset


class MeminfoProxy:
    """One reference to a struct's meminfo, at `_meminfo` (an address; 0 once released)."""

    __slots__ = ("_meminfo",)
    _kiln_frozen_ = False   # a struct changes: pass it as an argument, never freeze it

    def __del__(self):
        if getattr(self, "_meminfo", 0):   # (not set if making the object failed)
            address, self._meminfo = self._meminfo, 0
            nrt.release_from_python(address)


MEMINFO_OFFSET = probe_offset(MeminfoProxy)   # the same in every subclass


def box_proxy(api, value, fail, maker, *args):
    """`maker(address, *args)`: the Python object taking over the struct's reference (the
    args are Python object pointers, borrowed)."""
    b = api.builder
    address = api.call("PyLong_FromVoidPtr", dm.ptr, [value])
    result = api.call("PyObject_CallFunctionObjArgs", dm.ptr,
                      [api.constant_object(maker), address, *args, ir.Constant(dm.ptr, None)],
                      var_arg=True, argtypes=[dm.ptr])
    api.decref(address)
    with b.if_then(b.icmp_unsigned("==", result, ir.Constant(dm.ptr, None)), likely=False):
        nrt.emit_decref(b, value)
        fail(b)
    return result


def meminfo_of(unboxer, obj):
    """The struct a proxy holds (borrowed), once `obj` is known to be a proxy."""
    b, api = unboxer.b, unboxer.api
    meminfo = api.call("PyLong_AsVoidPtr", dm.ptr, [api.read(obj, MEMINFO_OFFSET, dm.ptr)])
    unboxer.require(b.icmp_unsigned("!=", meminfo, ir.Constant(dm.ptr, None)))
    return meminfo

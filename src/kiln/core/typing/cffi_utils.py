"""Numba's `numba.core.typing.cffi_utils`. kiln types a cffi function where compiled code
meets it (types/cffi_types.py), so an out-of-line module needs no registration; the call
is kept so that code written for Numba runs unchanged, and checks its argument."""


def register_module(module):
    """Check that `module` is an out-of-line cffi module (one with `ffi` and a cffi `lib`);
    Numba needs this call before compiled code calls `module.lib` functions, kiln does not."""
    from ...types.cffi_types import global_cffi_type
    lib = getattr(module, "lib", None)
    if not hasattr(module, "ffi") or lib is None or global_cffi_type(lib) is None:
        raise TypeError(f"{getattr(module, '__name__', module)!r} is not an out-of-line cffi "
                        "module (it needs `ffi` and a cffi `lib`)")


def map_type(cffi_type, use_record_dtype=False):
    """Numba's `cffi_utils.map_type`: the kiln type of a cffi CType (`ffi.typeof(...)`), to
    declare a `@cfunc` or a `carray` from a C header: a function type is its Signature, a
    pointer a CPointer (`void *` voidptr) and, with `use_record_dtype`, a struct a Record
    (the NumPy dtype of its fields at their C offsets). A union, a variadic function, a C
    array (kiln's records hold scalar fields only) and a bit field are refused."""
    from ... import types as t
    from ...types.cffi_types import kiln_type_of_cffi
    kind = getattr(cffi_type, "kind", None)
    if kind == "union":
        raise TypeError(f"kiln has no type for the C union {cffi_type.cname!r}")
    if kind == "function":
        if cffi_type.ellipsis:
            raise TypeError(f"{cffi_type.cname!r} is variadic: kiln declares only C "
                            "functions whose arguments it knows")
        return t.Signature(map_type(cffi_type.result, use_record_dtype),
                           tuple(map_type(a, use_record_dtype) for a in cffi_type.args))
    if kind == "pointer":
        if cffi_type.item.kind == "void":
            return t.voidptr
        return t.CPointer(map_type(cffi_type.item, use_record_dtype))
    if kind == "struct" and use_record_dtype:
        return _struct_record(cffi_type)
    if kind == "array":
        raise TypeError(f"kiln has no type for the C array {cffi_type.cname!r}: its "
                        "records hold scalar fields only")
    if kind == "struct":
        raise TypeError(f"{cffi_type.cname!r} is a struct: map_type(..., "
                        "use_record_dtype=True) makes it a Record")
    return kiln_type_of_cffi(cffi_type)


def _struct_record(cffi_type):
    """The Record of a C struct: its fields' dtypes at their C offsets, aligned as NumPy
    aligns them when every field sits at a multiple of its alignment."""
    import numpy as np
    from ... import types as t
    from ...types.cffi_types import _ffi
    names, formats, offsets = [], [], []
    for name, field in cffi_type.fields:
        for what in ("bitshift", "bitsize"):   # a bit field: cffi gives -1 where it is none
            if getattr(field, what) != -1:
                raise ValueError(f"field {name!r} has {what}, this is not supported")
        if field.flags != 0:
            raise ValueError(f"field {name!r} has flags, this is not supported")
        if field.type.kind == "array":
            raise TypeError(f"field {name!r} of {cffi_type.cname!r} is the C array "
                            f"{field.type.cname!r}: kiln's records hold scalar fields only")
        names.append(name)
        formats.append(t.as_dtype(map_type(field.type, use_record_dtype=True)))
        offsets.append(field.offset)
    aligned = all(off % fmt.alignment == 0 for off, fmt in zip(offsets, formats))
    return t.from_dtype(np.dtype({"names": names, "formats": formats, "offsets": offsets,
                                  "itemsize": _ffi().sizeof(cffi_type)}, align=aligned))

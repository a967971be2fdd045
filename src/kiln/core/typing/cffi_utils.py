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

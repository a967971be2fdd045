"""`numba.core.typing`: only `cffi_utils` (kiln.core.typing.cffi_utils) is public."""

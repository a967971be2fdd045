"""`numba.misc.special`: where Numba defines the public `typeof`, `prange`, `literally` and
`literal_unroll` (numba/__init__ imports them from here): kiln's."""
from kiln import literal_unroll, literally, prange, typeof  # noqa: F401

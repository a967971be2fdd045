"""`numba.experimental.jitclass` as a package (Numba's layout): the decorator."""
from kiln.experimental import jitclass  # noqa: F401

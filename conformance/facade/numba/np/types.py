"""`numba.np.types`: the NumPy scalar types Numba keeps there (datetime64, timedelta64)."""
from kiln.types import NPDatetime, NPTimedelta  # noqa: F401

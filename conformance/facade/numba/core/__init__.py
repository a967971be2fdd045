"""`numba.core`: the public modules Numba keeps here (errors, types, config, extending)
are kiln's; the rest of numba.core is Numba's compiler and is not provided."""
from kiln import config, errors, extending, types  # noqa: F401

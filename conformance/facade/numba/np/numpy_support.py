"""`numba.np.numpy_support`: kiln.np.numpy_support's conversions, and the NumPy version
as Numba spells it."""
import numpy as np

from kiln.np.numpy_support import *  # noqa: F401,F403
from kiln.np.numpy_support import as_dtype, from_dtype  # noqa: F401

numpy_version = tuple(int(x) for x in np.__version__.split(".")[:2])

"""`numba.np.npdatetime_helpers`: kiln.np.npdatetime_helpers' unit rules."""
from kiln.np.npdatetime_helpers import *  # noqa: F401,F403

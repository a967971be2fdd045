"""`numba.core.utils`: only the version facts Numba's test harness reads at import."""
import sys

import numpy as np

PYVERSION = sys.version_info[:2]
IS_32BITS = sys.maxsize < 2 ** 32
numpy_version = tuple(int(x) for x in np.__version__.split(".")[:2])

"""`numba.cuda.testing` for Numba's CPU test runner, which only sorts tests by whether
they derive from CUDATestCase. numba-cuda's own harness (its testing.py) reaches into
numba-cuda's driver and is not loaded under the facade."""
import unittest


class CUDATestCase(unittest.TestCase):
    """The base class of numba-cuda's tests."""

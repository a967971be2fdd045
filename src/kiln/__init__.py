"""kiln: a just-in-time compiler for numeric Python and NumPy, with Numba's API."""

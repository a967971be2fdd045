"""`numba.np`: `numba.np.numpy_support` maps to kiln's; the rest is internal."""

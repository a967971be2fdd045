"""`numba.np`: `numba.np.numpy_support` and `numba.np.ufunc` (the ufunc builders) map to
kiln's; the rest is internal."""

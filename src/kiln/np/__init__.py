"""`kiln.np`: where Numba's `numba.np` names are found (`kiln.np.numpy_support`)."""

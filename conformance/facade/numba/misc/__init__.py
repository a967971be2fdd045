"""`numba.misc`: only `numba.misc.special`, the home of public names, is provided."""

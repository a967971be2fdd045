"""`numba.experimental.jitclass.base`: of its names, kiln has JitClassType, the type of
every jitclass; Numba's class builder and registries are its internals."""
from kiln.experimental.classes import JitClassType  # noqa: F401

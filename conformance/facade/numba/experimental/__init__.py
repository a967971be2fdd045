"""`numba.experimental`: kiln.experimental's names under Numba's package layout, where
`numba.experimental.jitclass` is also a package (its `base` module has JitClassType) whose
name the decorator rebinds once the package is loaded, as in Numba."""
from . import jitclass as _jitclass_package  # noqa: F401  (the package first, as Numba)
from kiln.experimental import jitclass, structref  # noqa: F401,E402

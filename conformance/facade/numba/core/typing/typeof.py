"""`numba.core.typing.typeof` (and numba-cuda's copy, `numba.cuda.typing.typeof`): where
Numba defines the public `typeof` (`numba.typeof` is this function): kiln's."""
from kiln import typeof  # noqa: F401

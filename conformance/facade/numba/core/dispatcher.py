"""`numba.core.dispatcher.Dispatcher`: the class of compiled functions, which Numba's users
test with isinstance (a jitclass's static methods are ones); kiln's is
kiln.cpu.dispatcher.Dispatcher. The rest of this Numba module (OmittedArg, the compiler's
hooks) is Numba's internals and is not provided."""
from kiln.cpu.dispatcher import Dispatcher  # noqa: F401

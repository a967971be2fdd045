"""C called from compiled code, 10 million calls in a loop: SciPy's `ndtri` through its
Cython address (the pattern of Numba-based statistics packages), and the C library's `cos`
through cffi (`ffi.dlopen`)."""
import importlib

import numpy as np

from bench.registry import Benchmark, Sizes, register, rng

try:
    import cffi
except ImportError:   # the test extra installs it
    cffi = None

try:
    from scipy.special import ndtri   # plain Python calls SciPy's ufunc
except ImportError:   # the kernel needs SciPy's C function
    ndtri = None


def cython_ndtri(compiler):
    """`ndtri` as a compiler sees it: a WrapperAddressProtocol object for SciPy's C
    function, made with the compiler's own `extending` and `types` (kiln's or Numba's)."""
    address = importlib.import_module(f"{compiler.__name__}.extending") \
        .get_cython_function_address("scipy.special.cython_special", "ndtri")
    types = compiler.types
    cls = type("ndtri", (types.WrapperAddressProtocol,),
               {"__wrapper_address__": lambda self: address,
                "signature": lambda self: types.float64(types.float64)})
    return cls()


def ndtri_sum(p):
    s = 0.0
    for i in range(p.shape[0]):
        s += ndtri(p[i])
    return s


if ndtri is not None:
    register(Benchmark(
        name="ndtri_cython", topic="C interop", pyfunc=ndtri_sum,
        make_inputs=lambda n: (rng().uniform(0.0, 1.0, n),),
        sizes=Sizes(full=10_000_000, quick=1_000_000, python=100_000),
        label="{n} calls", numpy_ref=lambda p: ndtri(p).sum(), rtol=1e-9,
        rebound={"ndtri": cython_ndtri}))


if cffi is not None:
    ffi = cffi.FFI()
    ffi.cdef("double cos(double);")
    c_cos = ffi.dlopen(None).cos   # a name for the function: Numba cannot read a library's

    def cffi_cos_sum(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += c_cos(x[i])
        return s

    register(Benchmark(
        name="cffi_cos", topic="C interop", pyfunc=cffi_cos_sum,
        make_inputs=lambda n: (rng().uniform(-10.0, 10.0, n),),
        sizes=Sizes(full=10_000_000, quick=1_000_000, python=100_000),
        label="{n} calls", numpy_ref=lambda x: np.cos(x).sum(), rtol=1e-9))

"""`cuda.libdevice`: every function's declaration against libdevice itself, every one
compiled and assembled in one kernel, and the simulator's math against NumPy."""
import math

import numpy as np
import pytest
from helpers import slow_except

from kiln import cuda
from kiln.cuda import backend, libdevice, toolkit

needs_libdevice = pytest.mark.skipif(toolkit.libdevice_path() is None,
                                     reason=f"libdevice not installed: {toolkit.INSTALL_HINT}")
needs_ptxas = pytest.mark.skipif(toolkit.ptxas_path() is None,
                                 reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")
_LLVM = {"float": "f4", "double": "f8", "i16": "i2", "i32": "i4", "i64": "i8", "void": "v"}


@needs_libdevice
def test_signatures_are_libdevices():
    import llvmlite.binding as llvm
    module = llvm.parse_bitcode(toolkit.libdevice_path().read_bytes())
    seen = set()
    for fn in module.functions:
        name = fn.name[5:]
        if not fn.name.startswith("__nv_") or fn.is_declaration or name in \
                ("nan", "nanf", "norm", "normf", "rnorm", "rnormf"):
            continue
        seen.add(name)
        result, arguments, written = libdevice.parse(libdevice.SIGNATURES[name])
        declared = [str(a.type) for a in fn.arguments]
        assert result == _LLVM[str(fn.global_value_type).split(" (")[0]], name
        assert arguments == tuple(_LLVM[a] for a in declared if a != "ptr"), name
        assert len(written) == declared.count("ptr"), name
    assert seen == set(libdevice.SIGNATURES)


_VALUE = {"f4": "f4[0]", "f8": "f8[0]", "i2": "np.int16(i4[0])", "i4": "i4[0]",
          "i8": "i8[0]"}


def _every_call_source(step):
    """A kernel calling every `step`th libdevice function once, on arguments of its types,
    and storing its (first) result."""
    lines = ["def every(f4, f8, i4, i8, out):"]
    for k, (name, signature) in enumerate(sorted(libdevice.SIGNATURES.items())[::step]):
        result, arguments, written = libdevice.parse(signature)
        call = f"libdevice.{name}({', '.join(_VALUE[a] for a in arguments)})"
        returns_tuple = (result != "v") + len(written) > 1
        lines.append(f"    out[{k}] = {call}{'[0]' if returns_tuple else ''}")
    return "\n".join(lines) + "\n"


@needs_ptxas
@needs_libdevice
@pytest.mark.parametrize("step", slow_except([7, 1], 7))   # all of them: the long run
def test_every_function_compiles_and_assembles(step):
    from kiln.frontend.source import define_generated
    every = define_generated("<libdevice: every function>", _every_call_source(step),
                             {"libdevice": libdevice, "np": np})
    ptx, _ = cuda.compile_ptx(every, "void(float32[:], float64[:], int32[:], int64[:], "
                                     "float64[:])", cc=(8, 0))
    toolkit.check_ptx(ptx, (8, 0))
    assert ".extern" not in ptx   # every __nv_ function linked from libdevice


@pytest.mark.cuda
def test_simulated_math_is_numpys_in_the_declared_types():
    @cuda.jit
    def kernel(x, out, exponents):
        i = cuda.grid(1)
        if i < x.size:
            out[i, 0] = libdevice.sinf(x[i])
            out[i, 1] = libdevice.fast_expf(x[i])
            s, c = libdevice.sincos(x[i])
            out[i, 2] = s * s + c * c
            m, e = libdevice.frexp(x[i])
            out[i, 3] = m
            exponents[i] = e
            fraction, whole = libdevice.modf(x[i])
            out[i, 4] = whole + fraction
            out[i, 5] = libdevice.rsqrt(x[i])
            out[i, 6] = libdevice.erfc(x[i])

    x = np.array([0.5, 2.0, -3.25, 0.0, np.inf, np.nan, 1e-310])
    out = np.zeros((x.size, 7))
    exponents = np.zeros(x.size, np.int32)
    kernel[1, 8](x, out, exponents)
    x32 = x.astype(np.float32)

    def near(actual, expected, rtol):
        """Equal in the simulator (NumPy's math); within libdevice's ulps on a GPU."""
        if backend.active.simulated:
            np.testing.assert_array_equal(actual, expected)
        else:
            np.testing.assert_allclose(actual, expected, rtol=rtol)
    with np.errstate(all="ignore"):
        near(out[:, 0], np.sin(x32), 4e-7)
        near(out[:, 1], np.exp(x32), 2e-6)   # fast_expf: a few ulps
        np.testing.assert_allclose(out[:, 2], np.where(np.isfinite(x), 1.0, np.nan))
        np.testing.assert_array_equal(out[:, 3], np.frexp(x)[0])
        np.testing.assert_array_equal(exponents, np.frexp(x)[1])
        np.testing.assert_array_equal(out[:, 4], x)   # modf(inf) is (0, inf)
        near(out[:, 5], 1 / np.sqrt(x), 1e-15)
        near(out[:, 6], [math.erfc(v) for v in x], 4e-15)


def test_simulated_integer_functions_and_the_rest():
    assert libdevice.abs(np.int32(-5)) == 5 and libdevice.llmax(3, -4) == 3
    assert libdevice.popc(-1) == 32 and libdevice.brevll(1) == -2 ** 63   # int64, signed
    assert type(libdevice.clz(1)) is np.int32
    with pytest.raises(NotImplementedError, match="fmul_rz.*runs on a GPU"):
        libdevice.fmul_rz(1.0, 2.0)
    with pytest.raises(TypeError, match=r"sinf\(\) takes 1 arguments"):
        libdevice.sinf(1.0, 2.0)


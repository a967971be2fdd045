"""CUDA vector types (`cuda.float32x4`, C's `float4`...): built from scalars and vectors,
read through `.x .y .z .w`, passed to and returned from device functions; in the simulator
against NumPy, compiled through ptxas."""
import numpy as np
import pytest

from kiln import cuda
from kiln.cuda import toolkit
from kiln.errors import TypingError

needs_ptxas = pytest.mark.skipif(toolkit.ptxas_path() is None,
                                 reason=f"ptxas not installed: {toolkit.INSTALL_HINT}")


@cuda.jit(device=True)
def cross(a, b):
    return cuda.float64x3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
                          a.x * b.y - a.y * b.x)


@cuda.jit
def crosses(u, v, out):
    i = cuda.grid(1)
    if i < u.shape[0]:
        a = cuda.float64x3(u[i, 0], u[i, 1], u[i, 2])
        b = cuda.double3(cuda.float64x2(v[i, 0], v[i, 1]), v[i, 2])   # C's name, mixed
        c = cross(a, b)
        out[i, 0], out[i, 1], out[i, 2] = c.x, c.y, c.z


@cuda.jit
def conversions(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = cuda.int16x4(x[i], 1.9, True, -1)   # each component converted to int16
        q = cuda.uchar2(v.x, v.w)               # -1 wraps to 255
        out[i, 0] = v.x + v.y + v.z + v.w
        out[i, 1] = q.y
        out[i, 2] = cuda.float32x1(x[i]).x


@pytest.mark.cuda
def test_vectors_compute_numpy():
    rng = np.random.default_rng(5)
    u, v = rng.standard_normal((10, 3)), rng.standard_normal((10, 3))
    u[3, 1] = np.inf
    out = np.zeros((10, 3))
    crosses[1, 16](u, v, out)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(out, np.cross(u, v), rtol=1e-15)


@pytest.mark.cuda
def test_components_convert_to_the_vector_type():
    x = np.array([3, -7, 40000], np.int64)
    out = np.zeros((3, 3), np.float64)
    conversions[1, 4](x, out)
    as_int16 = x.astype(np.int16)
    np.testing.assert_array_equal(out[:, 0], as_int16 + 1 + 1 - 1)
    np.testing.assert_array_equal(out[:, 1], [255] * 3)
    np.testing.assert_array_equal(out[:, 2], x.astype(np.float32))


def test_names():
    assert cuda.float4 is cuda.float32x4 and cuda.uint2 is cuda.uint32x2
    assert cuda.longlong3 is cuda.int64x3 and cuda.double1 is cuda.float64x1
    assert repr(cuda.int8x4) == "cuda.int8x4"


@pytest.mark.cuda
def test_wrong_component_counts():
    @cuda.jit
    def too_many(out):
        v = cuda.float32x2(1.0, 2.0, 3.0)
        out[0] = v.x

    with pytest.raises((TypeError, TypingError), match=r"float32x2\(\) needs 2 components, not 3"):
        too_many[1, 1](np.zeros(1, np.float32))
    with pytest.raises(TypingError, match=r"float32x2\(\) needs 2 components, not 3"):
        cuda.compile_ptx(too_many, "void(float32[:])")

    @cuda.jit
    def no_w(out):
        out[0] = cuda.float32x3(1, 2, 3).w

    with pytest.raises(TypingError, match="has no attribute 'w'"):
        cuda.compile_ptx(no_w, "void(float32[:])")


@needs_ptxas
@pytest.mark.parametrize("cc", [(7, 0), (9, 0)])
def test_vectors_ptx(cc):
    for kernel, sig in ((crosses, "void(float64[:, :], float64[:, :], float64[:, :])"),
                        (conversions, "void(int64[:], float64[:, :])")):
        ptx, _ = cuda.compile_ptx(kernel, sig, cc=cc)
        report = toolkit.check_ptx(ptx, cc)
        assert "0 bytes stack frame" in report   # vectors live in registers

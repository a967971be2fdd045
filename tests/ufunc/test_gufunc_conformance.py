"""Numba's ufunc-builder API on kiln (issue 32): gufuncs called from compiled code, the
GUFunc object and its attributes, the GUVectorize/Vectorize builders, pickling of kernels
defined in functions, and Numba's errors."""
import pickle

import numpy as np
import pytest

from kiln import float32, guvectorize, int64, njit, vectorize
from kiln.errors import TypingError
from kiln.ufunc import DUFunc, GUFunc, GUVectorize, PyUFunc_One, Vectorize


def add_row(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


def matmul_core(A, B, C):
    m, n = A.shape
    n, p = B.shape
    for i in range(m):
        for j in range(p):
            C[i, j] = 0
            for k in range(n):
                C[i, j] += A[i, k] * B[k, j]


@pytest.mark.parametrize("eager", [True, False])
def test_a_gufunc_called_from_compiled_code(eager):
    made = guvectorize("int64[:], int64, int64[:]", "(n),()->(n)") if eager \
        else guvectorize("(n),()->(n)")
    add = made(add_row)

    @njit
    def call(x, y, res):
        return add(x, y, res)

    x = np.arange(40).reshape(4, 2, 5)
    res = np.zeros_like(x)
    assert call(x, np.int32(100), res) is None and np.array_equal(res, x + 100)
    # broadcast loop dimensions: an input's dimension of 1 repeats, a missing one too
    res = np.zeros((3, 5), dtype=np.int64)
    call(np.arange(5)[None, :], 7, res)
    assert np.array_equal(res, np.broadcast_to(np.arange(5) + 7, (3, 5)))
    # with signatures the loop declared; without, one per call's dtypes (np.int32's too),
    # which Python calls then share
    assert add.types == (["ll->l"] if eager else ["li->l", "ll->l"])


def test_casting_to_the_declared_loop_and_the_frozen_search():
    add = guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)")(add_row)

    @njit
    def call(x, y, res):
        add(x, y, res)

    res = np.zeros((2, 3))
    call(np.arange(6, dtype=np.int32).reshape(2, 3), 1, res)    # int32 -> the f8 loop
    assert res.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    with pytest.raises(TypingError, match="cannot call"):
        call(np.ones((2, 3), dtype=np.complex128), 1, np.zeros((2, 3), np.complex128))


def test_scalar_core_operands_and_matmul_in_compiled_code():
    @guvectorize("() -> ()")
    def plus100(x, res):
        res[0] = x + 100

    matmul = guvectorize("(m,n),(n,p)->(m,p)")(matmul_core)

    @njit
    def both(x, res, A, B, C):
        plus100(x, res)
        matmul(A, B, C)

    x = np.arange(40).reshape(5, 2, 4)
    res = np.zeros_like(x)
    A = np.arange(24, dtype=np.float32).reshape(3, 2, 4)
    B = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    C = np.zeros((3, 2, 5), dtype=np.float32)
    both(x, res, A, B, C)
    assert np.array_equal(res, x + 100) and np.allclose(C, A @ B)


def test_numba_errors_of_calls_from_compiled_code():
    @guvectorize("(n),(n) -> ()")
    def bar(x, y, res):
        res[0] = 123

    @njit
    def foo(x, y, res):
        bar(x, y, res)

    with pytest.raises(TypingError, match=r"bar: Input operand 0 does not have enough "
                                          r"dimensions \(has 0, gufunc core with signature "
                                          r"\(n\),\(n\) -> \(\) requires 1\)"):
        foo(np.array(1.0), np.ones(2), np.zeros(1))
    with pytest.raises(ValueError, match="mismatch in one of its core dimensions"):
        foo(np.empty((5, 3, 2)), np.empty(3), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="Loop and array shapes are incompatible"):
        foo(np.empty((1, 5, 3, 2)), np.empty((5, 3, 2)), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="Loop and array shapes are incompatible"):
        foo(np.empty((4, 2)), np.empty(2), np.zeros(3))


def test_gufunc_attributes_as_numba():
    @guvectorize("(n)->(n)")
    def cumsum(x, res):
        acc = 0
        for i in range(x.shape[0]):
            acc += x[i]
            res[i] = acc

    assert isinstance(cumsum, GUFunc) and cumsum.is_dynamic and not cumsum._frozen
    assert cumsum.__module__ == __name__ and cumsum.signature == "(n)->(n)"
    with pytest.raises(TypeError, match="Too few arguments for function 'cumsum'"):
        cumsum(np.arange(3))
    res = np.zeros(4, dtype=np.int64)
    cumsum(np.array([1, 2, 3, 4]), res)
    assert res.tolist() == [1, 3, 6, 10] and cumsum.types == ["l->l"]
    with pytest.raises(RuntimeError, match="Reduction not defined"):
        cumsum.reduce(res)

    @guvectorize("(),()->()")
    def add(x, y, res):
        res[0] = x + y

    assert add.signature is None       # NumPy's for a layout without core dimensions
    a = np.array([1, 2, 3, 4])
    add(a, a[::-1], np.zeros(4, dtype=np.int64))
    assert add.reduce(a) == 10 and add.accumulate(a).tolist() == [1, 3, 6, 10]


def test_the_builders():
    gufunc = GUVectorize(matmul_core, "(m,n),(n,p)->(m,p)")
    gufunc.add((float32[:, :], float32[:, :], float32[:, :]))
    gufunc = gufunc.build_ufunc()
    A = np.arange(16, dtype=np.float32).reshape(2, 2, 4)
    B = np.arange(40, dtype=np.float32).reshape(2, 4, 5)
    assert np.allclose(gufunc(A, B), A @ B) and gufunc.gufunc_builder._sigs == [
        gufunc.gufunc_builder._sigs[0]] and not gufunc.is_dynamic
    parallel = GUVectorize(matmul_core, "(m,n),(n,p)->(m,p)", target="parallel")
    parallel.add("void(float64[:, :], float64[:, :], float64[:, :])")
    assert isinstance(parallel.build_ufunc(), np.ufunc)
    doubled = Vectorize(lambda x: 2 * x)
    doubled.add("int64(int64)")
    doubled.disable_compile()
    assert isinstance(doubled.build_ufunc(), DUFunc) and doubled.types == ["l->l"]
    assert doubled(np.arange(3)).tolist() == [0, 2, 4]
    product = Vectorize(lambda a, b: a * b, identity=PyUFunc_One)    # Numba's identity code
    product.add("int64(int64, int64)")
    assert product.identity == 1 and product.reduce(np.zeros(0, np.int64)) == 1


def test_unknown_options_are_numbas_key_error():
    for make in (lambda: vectorize(["f8(f8)"], nonexistent=2)(lambda x: x),
                 lambda: guvectorize("(n)->(n)", nonexistent=2)(lambda x, y: None)):
        with pytest.raises(KeyError, match="Unrecognized options"):
            make()


def test_kernels_defined_in_a_function_pickle_by_value():
    scale = 3

    @guvectorize(["f8,f8[:]"], "()->()")
    def times(x, out):
        out[:] = x * scale + np.float64(0)

    @guvectorize("()->()", identity=1)
    def lazy(x, out):
        out[:] = x * 2

    lazy(0.5, out=np.zeros(1))
    for made in (times, lazy):
        clone = pickle.loads(pickle.dumps(made))
        assert (clone._frozen, clone.identity, clone.is_dynamic) == \
            (made._frozen, made.identity, made.is_dynamic)
        assert clone.gufunc_builder._sigs == made.gufunc_builder._sigs
    clone = pickle.loads(pickle.dumps(times))
    assert clone(np.arange(3.0)).tolist() == [0.0, 3.0, 6.0]

    @vectorize
    def halved(x):
        return x / 2

    assert pickle.loads(pickle.dumps(halved))(np.arange(3)).tolist() == [0.0, 0.5, 1.0]


def test_a_jit_call_of_an_int64_static_gufunc_from_a_loop():
    guve = guvectorize([(int64[:], int64, int64[:])], "(n),()->(n)")(add_row)

    @njit
    def run(x, n):
        res = np.zeros_like(x)
        guve(x, n, res)
        return res

    x = np.arange(12).reshape(3, 4)
    for _ in range(3):
        assert np.array_equal(run(x, 5), x + 5)
